/*
 * interconnect.c - the Lumerical INTERCONNECT export (optinc-export(1),
 * INTERCONNECT): the circuit as a SPICE netlist in the conventions of
 * SiEPIC-Tools, which INTERCONNECT's importnetlist reads, in three files:
 *
 *   OUT.spi          the main file: .INCLUDE of the circuit, the top
 *                    instance and one .ona (optical network analyzer) per
 *                    input port, which drives it and reads every output;
 *   OUT_circuit.spi  one .subckt per mesh and per attenuator column, one per
 *                    layer that chains its stages, and the top .subckt that
 *                    chains the layers;
 *   OUT.lsf          the INTERCONNECT script that imports OUT.spi.
 *
 * An element line is `NAME NET... MODEL library="LIB" KEY=VALUE... lay_x=
 * lay_y= sch_x= sch_y=`: the netlist's instance name, its nets in the card's
 * pin order, the model and library the model map gives its card, the
 * programmed values under the card's keys, the layout position in metres
 * (SiEPIC's unit) from the shared grid and the schematic position in grid
 * units.  A net inside a cell is N$k (k counts them in the cell), so each
 * has exactly two ends; a net at a cell's port is that port.  The electronic gain of each layer is no optical element:
 * it is kept in a comment line.
 */
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "compiler/core/numtext.h"
#include "compiler/export/walk.h"
#include "compiler/netlist/dialect.h"
#include "compiler/netlist/walk.h"
#include "optinc/fileio.h"

#define OWN_LIBRARY "Design kits/optinc"
#define EBEAM_LIBRARY "Design kits/ebeam"

void optinc_interconnect_map_defaults(optinc_interconnect_map *m)
{
    static const char *const def[OPTINC_CARD_COUNT][2] = {
        [OPTINC_CARD_MZI] = {"optinc_mzi2x2", OWN_LIBRARY},
        [OPTINC_CARD_PS] = {"optinc_phase_shifter", OWN_LIBRARY},
        [OPTINC_CARD_ATT] = {"optinc_attenuator", OWN_LIBRARY},
        [OPTINC_CARD_DC] = {"ebeam_bdc_te1550", EBEAM_LIBRARY},
        [OPTINC_CARD_TERM] = {"ebeam_terminator_te1550", EBEAM_LIBRARY},
        [OPTINC_CARD_SPLIT] = {"optinc_splitter", OWN_LIBRARY},
        [OPTINC_CARD_COMB] = {"optinc_combiner", OWN_LIBRARY},
        [OPTINC_CARD_THRU] = {"optinc_waveguide", OWN_LIBRARY},
    };
    for (int k = 0; k < OPTINC_CARD_COUNT; k++) {
        snprintf(m->model[k], sizeof m->model[k], "%s", def[k][0]);
        snprintf(m->library[k], sizeof m->library[k], "%s", def[k][1]);
    }
}

static optinc_status map_fail(const optinc_input *in, const optinc_line *l, int col,
                              optinc_error *err, const char *what)
{
    return optinc_fail(err, OPTINC_EINPUT, in->name, l->number, col, "%s", what);
}

optinc_status optinc_interconnect_map_parse(const optinc_input *in, optinc_interconnect_map *m,
                                            optinc_error *err)
{
    optinc_lines r;
    optinc_line l;
    optinc_status st = optinc_lines_init(&r, in, "model map", err);
    while (!st && optinc_lines_next(&r, &l)) {
        optinc_token t[3];
        int n = optinc_tokens(&l, '#', t, 3);
        if (n == 0)
            continue;
        if (n < 3)
            return map_fail(in, &l, 1, err, "a model map line is `CARD MODEL LIBRARY`; add the "
                            "missing words");
        int kind = optinc_card_find(t[0].s, (size_t)t[0].len);
        if (kind < 0)
            return map_fail(in, &l, t[0].col, err, "not a card of the netlist; use mzi, ps, "
                            "att, dc, term, split, comb or thru");
        if (!nl_is_name(t[1].s, (size_t)t[1].len) || t[1].len >= OPTINC_IC_MODEL_MAX)
            return map_fail(in, &l, t[1].col, err, "a model name is [A-Za-z_][A-Za-z0-9_]*, "
                            "shorter than 64 characters");
        /* the library is the rest of the line: its names hold blanks */
        const char *lib = t[2].s;
        size_t len = (size_t)(l.s + l.len - lib);
        const char *hash = memchr(lib, '#', len);
        if (hash)
            len = (size_t)(hash - lib);
        while (len && strchr(" \t\r\f\v", lib[len - 1]))
            len--;
        int control = 0;
        for (size_t k = 0; k < len; k++)
            control |= (unsigned char)lib[k] < 0x20 || lib[k] == 0x7f;
        if (memchr(lib, '"', len) || control || len >= OPTINC_IC_LIBRARY_MAX)
            return map_fail(in, &l, t[2].col, err, "a library name holds no '\"' and no control "
                            "character and is shorter than 256 characters");
        memcpy(m->model[kind], t[1].s, (size_t)t[1].len);
        m->model[kind][t[1].len] = '\0';
        memcpy(m->library[kind], lib, len);
        m->library[kind][len] = '\0';
    }
    return st;
}

/* --------------------------------------------------------------- writing */

typedef struct ic_ctx {
    const optinc_circuit *c;
    const optinc_layout *layout;
    const optinc_interconnect_map *map;
    const char *circuit_file;    /* the base name the main file includes */
    const char *main_file;       /* the base name the script imports */
} ic_ctx;

/* The stage cells of a layer: one per stage that has elements (a fan-1
 * chain has none and passes its modes on), in order, each with the
 * boundary its outputs are at (the next such stage's, or the layer's end). */
typedef struct ic_layer {
    ex_layer x;
    int *inner;                   /* per net: its number inside its stage's cell, or -1 */
    int next[OPTINC_STAGES_MAX];  /* per stage: the boundary of its outputs */
} ic_layer;

/* " PREFIXk", a net or a key=k (the writer's integers, not printf: a big
 * mesh has millions). */
static void put_net(FILE *f, const char *prefix, int k)
{
    char num[24];
    fputc(' ', f);
    fputs(prefix, f);
    fwrite(num, 1, optinc_int_format(num, k), f);
}

/* Net n inside the cell of stage st: the cell's port when the net is at
 * the stage's input or output, else N$k. */
static void put_net_name(FILE *f, const ic_layer *y, int st, int n)
{
    const ex_layer *x = &y->x;
    if (x->boundary[n] == st)
        put_net(f, "in", x->boundary_mode[n]);
    else if (x->boundary[n] == y->next[st])
        put_net(f, "out", x->boundary_mode[n]);
    else
        put_net(f, "N$", y->inner[n]);
}

/* A length in um as metres, exactly as written in um: "1750e-6". */
static void put_metres(FILE *f, double um)
{
    char buf[OPTINC_SHORTEST_MAX];
    const char *s = optinc_shortest(buf, um), *e = strchr(s, 'e');
    if (!e) {
        fputs(s, f);
        fputs("e-6", f);
        return;
    }
    fprintf(f, "%.*se%d", (int)(e - s), s, atoi(e + 1) - 6);
}

/* One element line; nets by name(st, net), the stage's cell or the layer's. */
static void put_element(FILE *f, const ic_ctx *g, const ic_layer *y, const ex_element *e)
{
    const optinc_card *cd = &optinc_cards[e->kind];
    fputs(" ", f);
    fputs(e->name, f);
    for (int j = 0; j < e->n_pins; j++) {
        if (e->stage < y->x.L->n_stages)
            put_net_name(f, y, e->stage, e->net[j]);
        else    /* a pass-through waveguide, in the layer's cell: its ports */
            put_net(f, j ? "out" : "in", j ? e->mode : y->x.L->cols - y->x.L->rows + e->mode);
    }
    fputc(' ', f);
    fputs(g->map->model[e->kind], f);
    fputs(" library=\"", f);
    fputs(g->map->library[e->kind], f);
    fputc('"', f);
    int key[OPTINC_CARD_PARAMS_MAX], n = ex_settings(e->kind, key);
    for (int k = 0; k < n; k++) {
        fputc(' ', f);
        fputs(cd->param[key[k]].key, f);
        fputc('=', f);
        ex_number(f, e->v[key[k]]);
    }
    double px, py;
    optinc_place_xy(g->layout, e->column, e->mode, &px, &py);
    fputs(" lay_x=", f);
    put_metres(f, px);
    fputs(" lay_y=", f);
    put_metres(f, py);
    put_net(f, "sch_x=", e->column);
    put_net(f, "sch_y=", e->mode);
    fputc('\n', f);
}

static void put_ports(FILE *f, int n_in, int n_out)
{
    for (int k = 0; k < n_in; k++)
        put_net(f, "in", k);
    for (int k = 0; k < n_out; k++)
        put_net(f, "out", k);
}

/* Net n in the layer's cell: a port of the layer (its inputs are the nets
 * 0 .. cols-1, its outputs end at boundary n_stages), else N$n. */
static void put_layer_net(FILE *f, const ex_layer *x, int n)
{
    if (n < x->L->cols)
        put_net(f, "in", n);
    else if (x->boundary[n] == x->L->n_stages)
        put_net(f, "out", x->boundary_mode[n]);
    else
        put_net(f, "N$", n);
}

/* The nets at boundary b of x, by mode, into id[0 .. modes). */
static void boundary_nets(const ex_layer *x, int b, int *id)
{
    for (int n = 0; n < x->n_nets; n++)
        if (x->boundary[n] == b)
            id[x->boundary_mode[n]] = n;
}

/* One .subckt per stage with elements of the layer, then the layer's
 * .subckt that chains them and holds its pass-through waveguides. */
static optinc_status put_layer(FILE *f, const ic_ctx *g, int layer, optinc_error *err)
{
    ic_layer y;
    optinc_status st = ex_layer_build(g->c, layer, &y.x, err);
    if (st)
        return st;
    const ex_layer *x = &y.x;
    const optinc_layer *L = x->L;
    int widest = optinc_place_modes(g->c) + L->rows + L->cols;
    int count[OPTINC_STAGES_MAX + 1] = {0}, *id = malloc(sizeof *id * (size_t)widest);
    y.inner = malloc(sizeof *y.inner * (size_t)(x->n_nets ? x->n_nets : 1));
    if (!y.inner || !id) {
        OPTINC_FREE_ALL(y.inner, id);
        ex_layer_free(&y.x);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory exporting");
    }
    for (int s = L->n_stages - 1, b = L->n_stages; s >= 0; s--) {
        y.next[s] = b;
        if (optinc_place_stage_width(&L->stage[s]))
            b = s;
    }
    for (int n = 0; n < x->n_nets; n++)   /* inside a stage: from an element, at no boundary */
        y.inner[n] = x->boundary[n] < 0 && x->end[n][0].elem >= 0
                     ? count[x->el[x->end[n][0].elem].stage]++ : -1;
    for (int s = 0, i = 0; s < L->n_stages; s++) {
        const optinc_stage *sg = &L->stage[s];
        if (!optinc_place_stage_width(sg))
            continue;
        fprintf(f, "\n.subckt stage_%s_%c", L->name, sg->tag);
        put_ports(f, sg->modes_in, y.next[s] < L->n_stages ? L->stage[y.next[s]].modes_in
                                                             : L->rows - L->pass_through);
        fputc('\n', f);
        for (; i < x->n_el && x->el[i].stage == s; i++)
            put_element(f, g, &y, &x->el[i]);
        fprintf(f, ".ends stage_%s_%c\n", L->name, sg->tag);
    }
    fprintf(f, "\n.subckt layer_%s", L->name);
    put_ports(f, L->cols, L->rows);
    fputc('\n', f);
    for (int s = 0; s < L->n_stages; s++) {
        const optinc_stage *sg = &L->stage[s];
        if (!optinc_place_stage_width(sg))
            continue;
        int out = y.next[s] < L->n_stages ? L->stage[y.next[s]].modes_in
                                          : L->rows - L->pass_through;
        fprintf(f, " X_%c", sg->tag);
        boundary_nets(x, s, id);
        for (int k = 0; k < sg->modes_in; k++)
            put_layer_net(f, x, id[k]);
        boundary_nets(x, y.next[s], id);
        for (int k = 0; k < out; k++)
            put_layer_net(f, x, id[k]);
        fprintf(f, " stage_%s_%c\n", L->name, sg->tag);
    }
    for (int i = 0; i < x->n_el; i++)
        if (x->el[i].stage == L->n_stages)
            put_element(f, g, &y, &x->el[i]);
    fprintf(f, ".ends layer_%s\n", L->name);
    OPTINC_FREE_ALL(y.inner, id);
    ex_layer_free(&y.x);
    return OPTINC_OK;
}

/* Net k at the input (out = 0) or output (out = 1) of layer i in the top
 * cell, as the PNL netlist names it. */
static void top_net(FILE *f, const optinc_circuit *c, int i, int out, int k)
{
    char net[NL_NAME_MAX];
    nl_top_net(c, i, out, k, net, sizeof net);
    fprintf(f, " %s", net);
}

/* What INTERCONNECT's netlist cannot hold, as the comment lines a reader
 * sees beside the layer: the input scale (modulator drive amplitudes), the
 * electronic gain and the activation. */
static void put_electronics(FILE *f, const optinc_layer *L)
{
    int K = L->pass_through;
    if (L->input_scale) {
        fprintf(f, "* layer %s: input scale (modulator drive amplitude) before its inputs:",
                L->name);
        for (int k = 0; k < L->cols - K; k++) {
            fprintf(f, " in%d=", k);
            ex_number(f, L->input_scale[k]);
        }
        fputc('\n', f);
    }
    fprintf(f, "* layer %s: electronic gain=", L->name);
    ex_number(f, L->gain);
    fprintf(f, " after its outputs 0..%d", L->rows - K - 1);
    if (K)
        fprintf(f, " (not after the %d pass-through outputs)", K);
    fputs(", not an optical element\n", f);
    if (L->activation != OPTINC_ACT_NONE)
        fprintf(f, "* layer %s: activation %s after the gain on every output (nonlinear, "
                "optinc-export(1))\n", L->name, optinc_activation_names[L->activation]);
}

static optinc_status put_circuit(FILE *f, const void *ctx, optinc_error *err)
{
    const ic_ctx *g = ctx;
    const optinc_circuit *c = g->c;
    fprintf(f, "* INTERCONNECT subcircuits of circuit %s, written by optinc export "
            "(optinc-export(1))\n", c->name);
    for (int i = 0; i < c->n_layers; i++) {
        optinc_status st = put_layer(f, g, i, err);
        if (st)
            return st;
    }
    fprintf(f, "\n.subckt %s", c->name);
    put_ports(f, c->layers[0].cols, c->layers[c->n_layers - 1].rows);
    fputc('\n', f);
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        put_electronics(f, L);
        fprintf(f, " X_%s", L->name);
        for (int k = 0; k < L->cols; k++)
            top_net(f, c, i, 0, k);
        for (int k = 0; k < L->rows; k++)
            top_net(f, c, i, 1, k);
        fprintf(f, " layer_%s\n", L->name);
    }
    fprintf(f, ".ends %s\n", c->name);
    return OPTINC_OK;
}

/* The main file: the circuit included, its one instance named as the
 * circuit (SiEPIC's convention, which the analyzer's references use), and
 * one optical network analyzer whose output drives in0 and whose inputs
 * read every output, one port each. */
static optinc_status put_main(FILE *f, const void *ctx, optinc_error *err)
{
    const ic_ctx *g = ctx;
    const optinc_circuit *c = g->c;
    int n_in = c->layers[0].cols, n_out = c->layers[c->n_layers - 1].rows;
    (void)err;
    fprintf(f, "* INTERCONNECT netlist of circuit %s, written by optinc export "
            "(optinc-export(1))\n.INCLUDE \"%s\"\n\n* Optical network analyzer: drives in0, "
            "reads every output\n.ona input_unit=wavelength input_parameter=center_and_range\n"
            "  + analysis_type=scattering_data\n  + center=", c->name, g->circuit_file);
    put_metres(f, c->wavelength_um);
    fputs(" range=0 number_of_points=1\n  + orthogonal_identifier=1\n", f);
    for (int j = 0; j < n_out; j++)
        fprintf(f, "  + input(%d)=%s,out%d\n", j + 1, c->name, j);
    fprintf(f, "  + output=%s,in0\n\n* Main circuit\n%s", c->name, c->name);
    put_ports(f, n_in, n_out);
    fprintf(f, " %s sch_x=-1 sch_y=-1\n", c->name);
    return OPTINC_OK;
}

static optinc_status put_script(FILE *f, const void *ctx, optinc_error *err)
{
    const ic_ctx *g = ctx;
    (void)err;
    fprintf(f, "# INTERCONNECT script of circuit %s, written by optinc export "
            "(optinc-export(1)):\n# loads the netlist beside this script and runs its "
            "analyzer.\nswitchtolayout;\ndeleteall;\ncd(filedirectory(currentscriptname));\n"
            "importnetlist(\"%s\");\nrun;\n", g->c->name, g->main_file);
    return OPTINC_OK;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The base names the files name each other by go inside quotes on a line of
 * their own: no '"', no control character (a newline would split the line). */
static optinc_status check_quotable(const char *path, const char *base, optinc_error *err)
{
    for (const unsigned char *p = (const unsigned char *)base; *p; p++)
        if (*p == '"' || *p < 0x20 || *p == 0x7f)
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "the output's name '%s' holds a "
                               "'\"' or a control character, which the .INCLUDE and "
                               "importnetlist lines cannot quote; rename it", path);
    return OPTINC_OK;
}

/* The cells the export writes beside the layers'. */
static const char *const ic_cells[] = {NULL};

static optinc_status ic_check(const optinc_circuit *c, optinc_error *err)
{
    optinc_status st = ex_check(c, err);
    return st ? st : ex_check_cell_names(c, ic_cells, err);
}

optinc_status optinc_export_interconnect_stream(const optinc_circuit *c,
                                                const optinc_layout *layout, FILE *f,
                                                optinc_error *err)
{
    optinc_interconnect_map map;
    optinc_interconnect_map_defaults(&map);
    ic_ctx g = {c, layout, &map, NULL, NULL};
    optinc_status st = ic_check(c, err);
    return st ? st : put_circuit(f, &g, err);
}

optinc_status optinc_export_interconnect_mapped(const optinc_circuit *c,
                                                const optinc_layout *layout,
                                                const optinc_interconnect_map *map,
                                                const char *path, optinc_error *err)
{
    char circuit[EX_PATH_MAX], script[EX_PATH_MAX];
    ic_ctx g = {c, layout, map, NULL, base_name(path)};
    optinc_status st = ic_check(c, err);
    if (!st)
        st = optinc_export_companion(path, EX_IC_CIRCUIT, circuit, sizeof circuit, err);
    if (!st)
        st = optinc_export_companion(path, EX_IC_SCRIPT, script, sizeof script, err);
    if (!st) {
        g.circuit_file = base_name(circuit);
        st = check_quotable(path, g.main_file, err);
    }
    optinc_outs set = {0};
    if (!st)
        st = optinc_outs_write(&set, circuit, put_circuit, &g, err);
    if (!st)
        st = optinc_outs_write(&set, script, put_script, &g, err);
    if (!st)
        st = optinc_outs_write(&set, path, put_main, &g, err);
    return optinc_outs_end(&set, st, err);
}

optinc_status optinc_export_interconnect(const optinc_circuit *c, const optinc_layout *layout,
                                         const char *path, optinc_error *err)
{
    optinc_interconnect_map map;
    optinc_interconnect_map_defaults(&map);
    return optinc_export_interconnect_mapped(c, layout, &map, path, err);
}
