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
#include "compiler/export/walk.h"
#include "compiler/netlist/dialect.h"
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
                            "att, dc or term");
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
        if (memchr(lib, '"', len) || len >= OPTINC_IC_LIBRARY_MAX)
            return map_fail(in, &l, t[2].col, err, "a library name holds no '\"' and is shorter "
                            "than 256 characters");
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

/* The name of net n inside the cell of stage st: the cell's port when the
 * net is at the stage's input or output, else N$k. */
static void net_name(const ex_layer *x, const int *inner, int st, int n, char *buf, size_t size)
{
    if (x->boundary[n] == st)
        snprintf(buf, size, "in%d", x->boundary_mode[n]);
    else if (x->boundary[n] == st + 1)
        snprintf(buf, size, "out%d", x->boundary_mode[n]);
    else
        snprintf(buf, size, "N$%d", inner[n]);
}

static void put_element(FILE *f, const ic_ctx *g, const ex_layer *x, const int *inner,
                        const ex_element *e)
{
    const optinc_card *cd = &optinc_cards[e->kind];
    char net[32];
    fputs(" ", f);
    fputs(e->name, f);
    for (int j = 0; j < e->n_pins; j++) {
        net_name(x, inner, e->stage, e->net[j], net, sizeof net);
        fprintf(f, " %s", net);
    }
    fprintf(f, " %s library=\"%s\"", g->map->model[e->kind], g->map->library[e->kind]);
    int key[OPTINC_CARD_PARAMS_MAX], n = ex_settings(e->kind, key);
    for (int k = 0; k < n; k++) {
        fprintf(f, " %s=", cd->param[key[k]].key);
        ex_number(f, e->v[key[k]]);
    }
    double px, py;
    optinc_place_xy(g->layout, e->column, e->mode, &px, &py);
    fputs(" lay_x=", f);
    ex_number(f, px * 1e-6);
    fputs(" lay_y=", f);
    ex_number(f, py * 1e-6);
    fprintf(f, " sch_x=%d sch_y=%d\n", e->column, e->mode);
}

static void put_ports(FILE *f, int n_in, int n_out)
{
    for (int k = 0; k < n_in; k++)
        fprintf(f, " in%d", k);
    for (int k = 0; k < n_out; k++)
        fprintf(f, " out%d", k);
}

/* Mode k at stage boundary b of layer L, in the layer's cell: its port at
 * the ends, N$j between two stages. */
static void put_boundary_net(FILE *f, const optinc_layer *L, int b, int k)
{
    if (b == 0 || b == L->n_stages) {
        fprintf(f, " %s%d", b ? "out" : "in", k);
        return;
    }
    int j = k;
    for (int s = 1; s < b; s++)
        j += L->stage[s].modes_in;
    fprintf(f, " N$%d", j);
}

/* One .subckt per stage (a mesh or an attenuator column) of the layer,
 * then the layer's .subckt that chains them. */
static optinc_status put_layer(FILE *f, const ic_ctx *g, int layer, optinc_error *err)
{
    ex_layer x;
    optinc_status st = ex_layer_build(g->c, layer, &x, err);
    if (st)
        return st;
    const optinc_layer *L = x.L;
    int *inner = malloc(sizeof *inner * (size_t)(x.n_nets ? x.n_nets : 1)), count[3] = {0};
    if (!inner) {
        ex_layer_free(&x);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory exporting");
    }
    for (int n = 0; n < x.n_nets; n++)
        inner[n] = x.boundary[n] < 0 ? count[x.el[x.end[n][0].elem].stage]++ : -1;
    for (int s = 0, i = 0; s < L->n_stages; s++) {
        const optinc_stage *sg = &L->stage[s];
        fprintf(f, "\n.subckt stage_%s_%c", L->name, sg->tag);
        put_ports(f, sg->modes_in, sg->modes_out);
        fputc('\n', f);
        for (; i < x.n_el && x.el[i].stage == s; i++)
            put_element(f, g, &x, inner, &x.el[i]);
        fprintf(f, ".ends stage_%s_%c\n", L->name, sg->tag);
    }
    fprintf(f, "\n.subckt layer_%s", L->name);
    put_ports(f, L->cols, L->rows);
    fputc('\n', f);
    for (int s = 0; s < L->n_stages; s++) {
        const optinc_stage *sg = &L->stage[s];
        fprintf(f, " X_%c", sg->tag);
        for (int k = 0; k < sg->modes_in; k++)
            put_boundary_net(f, L, s, k);
        for (int k = 0; k < sg->modes_out; k++)
            put_boundary_net(f, L, s + 1, k);
        fprintf(f, " stage_%s_%c\n", L->name, sg->tag);
    }
    fprintf(f, ".ends layer_%s\n", L->name);
    free(inner);
    ex_layer_free(&x);
    return OPTINC_OK;
}

/* Net k at the input (out = 0) or output (out = 1) of layer i in the top
 * cell, as the PNL netlist names it. */
static void top_net(FILE *f, const optinc_circuit *c, int i, int out, int k)
{
    int j = out ? i : i - 1;
    if (j < 0)
        fprintf(f, " in%d", k);
    else if (j == c->n_layers - 1)
        fprintf(f, " out%d", k);
    else
        fprintf(f, " %s_out%d", c->layers[j].name, k);
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
        fprintf(f, "* layer %s: electronic gain=", L->name);
        ex_number(f, L->gain);
        fprintf(f, " after its outputs (not an optical element)\n X_%s", L->name);
        for (int k = 0; k < L->cols; k++)
            top_net(f, c, i, 0, k);
        for (int k = 0; k < L->rows; k++)
            top_net(f, c, i, 1, k);
        fprintf(f, " layer_%s\n", L->name);
    }
    fprintf(f, ".ends %s\n", c->name);
    return OPTINC_OK;
}

static optinc_status put_main(FILE *f, const void *ctx, optinc_error *err)
{
    const ic_ctx *g = ctx;
    const optinc_circuit *c = g->c;
    int n_in = c->layers[0].cols, n_out = c->layers[c->n_layers - 1].rows;
    fprintf(f, "* INTERCONNECT netlist of circuit %s, written by optinc export "
            "(optinc-export(1))\n.INCLUDE \"%s\"\n\n* Main circuit\nX%s", c->name,
            g->circuit_file, c->name);
    put_ports(f, n_in, n_out);
    fprintf(f, " %s sch_x=-1 sch_y=-1\n", c->name);
    for (int k = 0; k < n_in; k++) {
        fprintf(f, "\n* Optical network analyzer driving in%d\n"
                ".ona input_unit=wavelength input_parameter=center_and_range\n"
                "  + analysis_type=scattering_data\n  + center=", k);
        ex_number(f, c->wavelength_um * 1e-6);
        fprintf(f, " range=0 number_of_points=1\n  + orthogonal_identifier=1\n"
                "  + output=%s,in%d\n", c->name, k);
        for (int j = 0; j < n_out; j++)
            fprintf(f, "  + input(%d)=%s,out%d\n", j + 1, c->name, j);
    }
    return OPTINC_OK;
}

static optinc_status put_script(FILE *f, const void *ctx, optinc_error *err)
{
    const ic_ctx *g = ctx;
    fprintf(f, "# INTERCONNECT script of circuit %s, written by optinc export "
            "(optinc-export(1)):\n# loads the netlist and runs its analyzers.\n"
            "switchtolayout;\ndeleteall;\nimportnetlist(\"%s\");\nrun;\n", g->c->name,
            g->main_file);
    return OPTINC_OK;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

optinc_status optinc_export_interconnect_mapped(const optinc_circuit *c,
                                                const optinc_layout *layout,
                                                const optinc_interconnect_map *map,
                                                const char *path, optinc_error *err)
{
    char circuit[EX_PATH_MAX], script[EX_PATH_MAX];
    ic_ctx g = {c, layout, map, NULL, base_name(path)};
    optinc_status st = ex_check(c, err);
    if (!st)
        st = optinc_export_companion(path, EX_IC_CIRCUIT, circuit, sizeof circuit, err);
    if (!st)
        st = optinc_export_companion(path, EX_IC_SCRIPT, script, sizeof script, err);
    g.circuit_file = base_name(circuit);
    if (!st && strchr(g.main_file, '"'))
        st = optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "the output's name holds a '\"', "
                         "which the .INCLUDE line cannot quote; rename it");
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
