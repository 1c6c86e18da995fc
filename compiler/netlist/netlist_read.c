/*
 * netlist_read.c - reads a PNL netlist (optinc-netlist(5)), validates it and
 * rebuilds the compiled circuit it describes.
 *
 * The reader works in passes, each in a file of its own behind read.h, each
 * of which can stop with FILE:LINE:COL of the offending token:
 *
 *   1. lex      the input and its .include files into statements and `*!`
 *               header lines (read_lex.c)
 *   2. parse    statements into cells, instances, .params and the one top
 *               instance line (read_parse.c)
 *   3. check    each cell's models, pins and nets, and the hierarchy
 *               (read_check.c)
 *   4. header   the `*!` lines into the circuit's layers (read_header.c)
 *   5. flatten  the top instance into cards on global nets, values checked
 *               against the card table, expanded MZIs fused (read_flatten.c)
 *   6. trace    the light through the layers the header lists, into meshes
 *               and attenuator columns (read_trace.c)
 *
 * This file runs them and owns the entry points: optinc_netlist_parse() for
 * a netlist in memory (its .include files come through the resolver of the
 * read options), optinc_netlist_read() for a file, and optinc_circuit_load()
 * for a spec or a netlist.
 */
#include <stdio.h>
#include <stdlib.h>
#include "compiler/core/freeall.h"
#include "compiler/netlist/read.h"

/* The circuit the checked netlist describes: layers from the header, then
 * the stages the light passes. */
static optinc_status build(reader *r, optinc_circuit **out)
{
    const cell *top = &r->cells[r->top_cell];
    int file = r->stmts[top->stmt].file;
    tok name = *stok(r, top->stmt, 1);
    int nl = 0, nsect = 0;
    for (int i = 0; i < r->nmetas; i++) {
        const meta *m = &r->metas[i];
        if (m->key.len > 6 && !strncmp(tp(r, m->file, m->key), "layer.", 6)) {
            if (memchr(tp(r, m->file, m->key) + 6, '.', m->key.len - 6))
                nsect++;
            else
                nl++;
        }
    }
    if (!nl) {
        nl_fail_at(r, 0, 0, "no '*! layer.NAME = rows=.. cols=.. gain=..' header lines: optinc "
                   "rebuilds a circuit layer by layer from them (see optinc-netlist(5))");
        return r->st;
    }
    if (nl > OPTINC_LAYERS_MAX || nsect > 8 * OPTINC_LAYERS_MAX) {
        nl_fail_at(r, 0, 0, "more than %d layers (or %d device section lines), the reader's "
                   "limit (OPTINC_LAYERS_MAX); split the network over several netlists",
                   OPTINC_LAYERS_MAX, 8 * OPTINC_LAYERS_MAX);
        return r->st;
    }
    if (name.len >= OPTINC_NAME_MAX) {
        nl_fail_at(r, file, name.off, "top cell name longer than %d characters",
                   OPTINC_NAME_MAX - 1);
        return r->st;
    }
    char cname[OPTINC_NAME_MAX];
    snprintf(cname, sizeof cname, "%.*s", (int)name.len, tp(r, file, name));
    optinc_circuit *c = optinc_circuit_new(cname, nl);
    layer_meta *lm = calloc((size_t)nl, sizeof *lm);
    if (!c || !lm) {
        optinc_circuit_free(c);
        free(lm);
        nl_fail_run(r, "rebuilding the circuit");
        return r->st;
    }
    c->seed = 1;
    c->wavelength_um = 1.55;
    if (nl_header(r, c, lm) || nl_top_ports(r) || nl_flatten(r) || nl_trace(r, c, lm)) {
        free(lm);
        optinc_circuit_free(c);
        return r->st;
    }
    free(lm);
    *out = c;
    return OPTINC_OK;
}

static void reader_free(reader *r)
{
    for (int i = 0; i < r->nfiles; i++)
        OPTINC_FREE_ALL(r->files[i].name, r->files[i].data, r->files[i].key);
    nl_ht_free(&r->cell_names);
    OPTINC_FREE_ALL(r->files, r->toks, r->stmts, r->metas, r->cells, r->insts, r->pool,
                    r->cparams, r->globals, r->prims, r->vals, r->frames, r->end0, r->end1, r->stk);
}

optinc_status optinc_netlist_parse(const optinc_input *in, const optinc_read_opts *opts,
                                   optinc_circuit **out, optinc_error *err)
{
    reader r = {.err = err, .opts = opts, .lim = optinc_read_limits(opts), .top = -1};
    *out = NULL;
    optinc_status st;
    if (nl_lex(&r, in) || nl_parse(&r) || nl_check(&r))
        st = r.st;
    else
        st = build(&r, out);
    reader_free(&r);
    return st;
}

static optinc_status parse_into(const optinc_input *in, const optinc_read_opts *opts, void *out,
                                optinc_error *err)
{
    return optinc_netlist_parse(in, opts, out, err);
}

optinc_status optinc_netlist_read(const char *path, const optinc_read_opts *opts,
                                  optinc_circuit **out, optinc_error *err)
{
    *out = NULL;
    return optinc_read_whole(path, OPTINC_NETLIST_BYTES_MAX, opts, "netlist", parse_into, out,
                             err);
}

int optinc_path_is_spec(const char *path)
{
    size_t n = strlen(path);
    return (n > 5 && !strcmp(path + n - 5, ".yaml")) || (n > 4 && !strcmp(path + n - 4, ".yml"));
}

optinc_status optinc_circuit_load(const char *path, const optinc_read_opts *opts,
                                  optinc_circuit **out, optinc_error *err)
{
    if (optinc_path_is_spec(path)) {
        optinc_spec *spec = NULL;
        optinc_status st = optinc_spec_load(path, opts, &spec, err);
        if (!st)
            st = optinc_compile(spec, out, err);
        optinc_spec_free(spec);
        return st;
    }
    return optinc_netlist_read(path, opts, out, err);
}
