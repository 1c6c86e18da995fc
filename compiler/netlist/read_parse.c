/*
 * read_parse.c - pass 2 of the netlist reader: statements into cells
 * (.subckt ... .ends), their instances, the global and cell .params and the
 * one top instance line, with every name checked.  Models are resolved in
 * pass 3, when every cell is known.
 */
#include <stdio.h>
#include "compiler/netlist/read.h"

static int too_many_params(reader *r, int file, tok at)
{
    return nl_fail_at(r, file, at.off, "more than %d parameters here, the reader's limit "
                      "(OPTINC_NETLIST_PARAMS_MAX) for the globals, a .subckt or an instance",
                      OPTINC_NETLIST_PARAMS_MAX);
}

/* k=v tokens of statement s from index i on, into a param list (duplicates
 * refused); values resolve against the globals defined so far. */
static int parse_params(reader *r, int s, int i, param **arr, int *n, size_t *cap, int start)
{
    int file = r->stmts[s].file;
    for (; i < r->stmts[s].ntok; i++) {
        tok t = *stok(r, s, i), k = {0, 0, 0, 0}, v = {0, 0, 0, 0};
        if (!nl_split_param(r, file, t, &k, &v))
            return nl_fail_at(r, file, t.off, "expected key=value, found '%.*s'",
                              (int)(t.len > 80 ? 80 : t.len), tp(r, file, t));
        if (nl_need_name(r, file, k, "parameter"))
            return -1;
        const char *kp = tp(r, file, k);
        if (*n - start == OPTINC_NETLIST_PARAMS_MAX)
            return too_many_params(r, file, k);
        if (*n > start && nl_find_param(*arr + start, *n - start, kp, (int)k.len))
            return nl_fail_at(r, file, k.off, "parameter '%.*s' is given twice", (int)k.len, kp);
        double x;
        if (nl_value_of(r, file, v, NULL, &x))
            return -1;
        if (GROW(r, *arr, *n, *cap))
            return -1;
        (*arr)[(*n)++] = (param){kp, (int)k.len, x};
    }
    return 0;
}

static int parse_subckt(reader *r, int s)
{
    const stmt *st = &r->stmts[s];
    int file = st->file;
    if (st->ntok < 2)
        return nl_fail_at(r, file, stok(r, s, 0)->off, ".subckt needs a name and its ports, as "
                          "in .subckt NAME in0 out0");
    tok name = *stok(r, s, 1), k = {0, 0, 0, 0}, v = {0, 0, 0, 0};
    if (nl_need_name(r, file, name, "cell"))
        return -1;
    if (nl_card(r, file, name) >= 0)
        return nl_fail_at(r, file, name.off, "cell name '%.*s' is a card name; rename the cell",
                          (int)name.len, tp(r, file, name));
    int added, id = nl_ht_id(r, &r->cell_names, tp(r, file, name), (int)name.len, &added);
    if (id < 0)
        return -1;
    if (!added) {
        int line, col;
        nl_position(r, r->stmts[r->cells[id].stmt].file, stok(r, r->cells[id].stmt, 1)->off,
                    &line, &col);
        return nl_fail_at(r, file, name.off, ".subckt '%.*s' is defined twice (first at line %d "
                          "of %s)", (int)name.len, tp(r, file, name), line,
                          r->files[r->stmts[r->cells[id].stmt].file].in.name);
    }
    if (GROW(r, r->cells, r->ncells, r->ccells))
        return -1;
    cell *c = &r->cells[r->ncells++];
    memset(c, 0, sizeof *c);
    c->stmt = s;
    c->first = r->ninsts;
    int i = 2;
    while (i < st->ntok && !nl_split_param(r, file, *stok(r, s, i), &k, &v))
        i++;
    if (i - 2 > 2 * optinc_limits_get(r->lim, OPTINC_LIMIT_MODES)) {
        char lim[160];
        return nl_fail_at(r, file, name.off, ".subckt '%.*s' has %d ports, more than twice %s",
                          (int)name.len, tp(r, file, name), i - 2,
                          optinc_limits_text(r->lim, OPTINC_LIMIT_MODES, lim, sizeof lim));
    }
    /* Repeats found in a table: a mesh's cell has thousands of ports. */
    htab seen = {0};
    int fresh = 1;
    for (i = 2; i < st->ntok && !nl_split_param(r, file, *stok(r, s, i), &k, &v); i++) {
        tok p = *stok(r, s, i);
        if (nl_need_name(r, file, p, "port")
            || nl_ht_id(r, &seen, tp(r, file, p), (int)p.len, &fresh) < 0)
            break;
        if (!fresh) {
            nl_fail_at(r, file, p.off, "port '%.*s' is listed twice", (int)p.len, tp(r, file, p));
            break;
        }
    }
    nl_ht_free(&seen);
    if (r->st)
        return -1;
    c->nports = i - 2;
    c->param0 = r->ncparams;
    if (parse_params(r, s, i, &r->cparams, &r->ncparams, &r->ccparams, c->param0))
        return -1;
    c->nparams = r->ncparams - c->param0;
    return 0;
}

static int parse_instance(reader *r, int s, int in_cell)
{
    const stmt *st = &r->stmts[s];
    int file = st->file;
    tok name = *stok(r, s, 0), k = {0, 0, 0, 0}, v = {0, 0, 0, 0};
    if (nl_need_name(r, file, name, "instance"))
        return -1;
    int model = st->ntok - 1;
    while (model > 0 && nl_split_param(r, file, *stok(r, s, model), &k, &v))
        model--;
    if (model < 1)
        return nl_fail_at(r, file, name.off, "instance '%.*s' has no model: write NAME NETS... "
                          "MODEL [key=value ...]", (int)name.len, tp(r, file, name));
    if (st->ntok - 1 - model > OPTINC_NETLIST_PARAMS_MAX)
        return too_many_params(r, file, *stok(r, s, model + 1 + OPTINC_NETLIST_PARAMS_MAX));
    for (int i = 1; i <= model; i++) {
        tok t = *stok(r, s, i);
        if (nl_split_param(r, file, t, &k, &v))
            return nl_fail_at(r, file, t.off, "parameter '%.*s' comes before the model; "
                              "parameters follow the model name", (int)t.len, tp(r, file, t));
        if (nl_need_name(r, file, t, i == model ? "model" : "net"))
            return -1;
    }
    if (!in_cell) {
        if (r->top >= 0) {
            int line, col;
            nl_position(r, r->stmts[r->top].file, stok(r, r->top, 0)->off, &line, &col);
            return nl_fail_at(r, file, name.off, "a second top-level instance line; a netlist "
                              "has exactly one (the first is at %s:%d)",
                              r->files[r->stmts[r->top].file].in.name, line);
        }
        r->top = s;
        return 0;
    }
    if (GROW(r, r->insts, r->ninsts, r->cinsts))
        return -1;
    r->insts[r->ninsts++] = (inst){s, model - 1, -1, -1};
    r->cells[r->ncells - 1].n++;
    return 0;
}

int nl_parse(reader *r)
{
    int open = -1;          /* statement of the open .subckt */
    int ended = -1;         /* statement of .end */
    for (int s = 0; s < r->nstmts; s++) {
        int file = r->stmts[s].file;
        tok t0 = *stok(r, s, 0);
        if (ended >= 0)
            return nl_fail_at(r, file, t0.off, "statement after .end; .end closes the netlist");
        if (tp(r, file, t0)[0] != '.') {
            if (parse_instance(r, s, open >= 0))
                return -1;
            continue;
        }
        if (tcaseeq(r, file, t0, ".include"))
            continue;
        if (tcaseeq(r, file, t0, ".subckt")) {
            if (open >= 0)
                return nl_fail_at(r, file, t0.off, ".subckt inside .subckt '%.*s'; cells do not "
                                  "nest: close it with .ends first", (int)stok(r, open, 1)->len,
                                  tp(r, r->stmts[open].file, *stok(r, open, 1)));
            if (parse_subckt(r, s))
                return -1;
            open = s;
        } else if (tcaseeq(r, file, t0, ".ends")) {
            if (open < 0)
                return nl_fail_at(r, file, t0.off, ".ends without a matching .subckt");
            tok name = *stok(r, open, 1);
            int ofile = r->stmts[open].file;
            if (r->stmts[s].ntok > 2)
                return nl_fail_at(r, file, stok(r, s, 2)->off, ".ends takes at most the cell name");
            if (r->stmts[s].ntok == 2) {
                tok e = *stok(r, s, 1);
                if (e.len != name.len || memcmp(tp(r, file, e), tp(r, ofile, name), e.len))
                    return nl_fail_at(r, file, e.off, "'.ends %.*s' does not match the open "
                                      "'.subckt %.*s'", (int)e.len, tp(r, file, e),
                                      (int)name.len, tp(r, ofile, name));
            }
            open = -1;
        } else if (tcaseeq(r, file, t0, ".param")) {
            if (r->stmts[s].ntok < 2)
                return nl_fail_at(r, file, t0.off, ".param needs at least one key=value");
            if (open >= 0) {
                cell *c = &r->cells[r->ncells - 1];
                if (parse_params(r, s, 1, &r->cparams, &r->ncparams, &r->ccparams, c->param0))
                    return -1;
                c->nparams = r->ncparams - c->param0;
            } else if (parse_params(r, s, 1, &r->globals, &r->nglobals, &r->cglobals, 0)) {
                return -1;
            }
        } else if (tcaseeq(r, file, t0, ".end")) {
            if (file != 0)
                return nl_fail_at(r, file, t0.off, ".end in an included file; only the main "
                                  "netlist ends with .end");
            if (open >= 0)
                return nl_fail_at(r, file, t0.off, ".end inside .subckt '%.*s': add .ends first",
                                  (int)stok(r, open, 1)->len,
                                  tp(r, r->stmts[open].file, *stok(r, open, 1)));
            if (r->stmts[s].ntok > 1)
                return nl_fail_at(r, file, stok(r, s, 1)->off, ".end takes nothing after it");
            ended = s;
        } else {
            return nl_fail_at(r, file, t0.off, "unknown statement '%.*s'; PNL has .subckt, .ends, "
                              ".param, .include and .end", (int)t0.len, tp(r, file, t0));
        }
    }
    if (open >= 0)
        return nl_fail_at(r, r->stmts[open].file, stok(r, open, 0)->off,
                          ".subckt '%.*s' has no .ends", (int)stok(r, open, 1)->len,
                          tp(r, r->stmts[open].file, *stok(r, open, 1)));
    if (ended < 0) {
        /* Point just past the last statement of the main file. */
        uint32_t off = 0;
        for (int s = r->nstmts - 1; s >= 0; s--)
            if (r->stmts[s].file == 0) {
                tok t = *stok(r, s, r->stmts[s].ntok - 1);
                off = t.off + t.len;
                break;
            }
        return nl_fail_at(r, 0, off, "missing .end: a netlist ends with the top instance line "
                          "and .end");
    }
    if (r->top < 0)
        return nl_fail_at(r, 0, stok(r, ended, 0)->off, "no top-level instance line: instantiate "
                          "the top cell before .end, as in 'net in0 out0 net'");
    return 0;
}

