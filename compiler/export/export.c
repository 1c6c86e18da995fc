/*
 * export.c - the table of export formats (optinc-export(1)) and the walk
 * every format writes from (walk.h): one layer at a time, the elements the
 * netlist writer would write, with its instance names, and the nets between
 * them.
 *
 * The walk follows the writer's order and rules (netlist_write.c): a mesh's
 * MZIs in propagation order, then its output phase screen; an attenuator
 * column's channels, an input beyond the channels ending in a terminator and
 * an output beyond them starting at one.  Each mode carries the net it is on;
 * an element takes the nets of its input modes and puts new nets on its
 * output modes, so every net has exactly one start and one end.
 */
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "compiler/export/walk.h"
#include "compiler/netlist/dialect.h"
#include "optinc/fileio.h"

/* The integrator adds the gds entry (optinc_export_gds) beside these. */
static const char *const sax_companions[] = {EX_SAX_MODELS, NULL};
static const char *const interconnect_companions[] = {EX_IC_CIRCUIT, EX_IC_SCRIPT, NULL};

const optinc_export_format optinc_export_formats[] = {
    {"sax", ".json", "SAX netlist (JSON) and a Python module of its models",
     optinc_export_sax, sax_companions},
    {"gdsfactory", ".yml", "gdsfactory YAML netlist placed on the layout grid",
     optinc_export_gdsfactory, NULL},
    {"interconnect", ".spi", "Lumerical INTERCONNECT netlist (SiEPIC), its .lsf script",
     optinc_export_interconnect, interconnect_companions},
    {"gds", ".gds", "GDSII placement layout (one cell per element kind, on the grid)",
     optinc_export_gds, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

const optinc_export_format *optinc_export_format_find(const char *name)
{
    for (const optinc_export_format *f = optinc_export_formats; name && f->name; f++)
        if (!strcmp(f->name, name))
            return f;
    return NULL;
}

/* ------------------------------------------------------------------ walk */

typedef struct walker {
    ex_layer *x;
    int *cur;          /* the net each mode is on */
    int column0;       /* the stage's first column on the grid */
    int stage;         /* the stage being walked */
} walker;

/* The nets on modes 0..modes-1 now are those of boundary s. */
static void mark_boundary(walker *w, int s, int modes)
{
    for (int k = 0; k < modes; k++) {
        w->x->boundary[w->cur[k]] = s;
        w->x->boundary_mode[w->cur[k]] = k;
    }
}

static int new_net(walker *w, int elem, int pin)
{
    int n = w->x->n_nets++;
    w->x->end[n][0] = (ex_end){elem, pin};
    w->x->end[n][1] = (ex_end){-1, -1};
    return n;
}

/* Element e of kind, its inputs on modes in[0..n_in), its outputs put on
 * modes out[0..n_out). */
static ex_element *add(walker *w, optinc_card_kind kind, const int *in, int n_in,
                       const int *out, int n_out)
{
    ex_layer *x = w->x;
    int i = x->n_el++;
    ex_element *e = &x->el[i];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->stage = w->stage;
    e->n_pins = n_in + n_out;
    e->n_in = n_in;
    for (int j = 0; j < n_in; j++) {
        e->net[j] = w->cur[in[j]];
        x->end[e->net[j]][1] = (ex_end){i, j};
    }
    for (int j = 0; j < n_out; j++)
        w->cur[out[j]] = e->net[n_in + j] = new_net(w, i, n_in + j);
    return e;
}

static void walk_mesh(walker *w, const optinc_stage *s)
{
    const optinc_mesh *M = s->mesh;
    const char *layer = w->x->L->name;
    for (int i = 0; i < M->n_mzi; i++) {
        const optinc_mzi *z = &M->mzi[i];
        int modes[2] = {z->mode, z->mode + 1};
        ex_element *e = add(w, OPTINC_CARD_MZI, modes, 2, modes, 2);
        nl_element_name(e->name, sizeof e->name, "", OPTINC_CARD_MZI, layer, s->tag, z->column,
                        z->mode);
        e->value[0] = z->theta.rad;
        e->value[1] = z->phi.rad;
        e->column = w->column0 + z->column;
        e->mode = z->mode;
    }
    for (int m = 0; m < M->modes; m++) {
        ex_element *e = add(w, OPTINC_CARD_PS, &m, 1, &m, 1);
        nl_element_name(e->name, sizeof e->name, "", OPTINC_CARD_PS, layer, s->tag,
                        M->n_columns, m);
        e->value[0] = M->screen[m].rad;
        e->column = w->column0 + M->n_columns;
        e->mode = m;
    }
}

static void walk_att(walker *w, const optinc_stage *s)
{
    const char *layer = w->x->L->name;
    int extra = s->modes_in > s->modes_out ? s->modes_in : s->modes_out;
    for (int k = 0; k < extra; k++) {
        ex_element *e;
        if (k < s->n_att) {
            e = add(w, OPTINC_CARD_ATT, &k, 1, &k, 1);
            nl_element_name(e->name, sizeof e->name, "", OPTINC_CARD_ATT, layer, 0, 0, k);
            e->value[0] = s->att[k].att_dB;
        } else {
            int ends = k < s->modes_in;    /* an input beyond the channels ends here */
            e = add(w, OPTINC_CARD_TERM, &k, ends, &k, !ends);
            nl_element_name(e->name, sizeof e->name, "", OPTINC_CARD_TERM, layer, 0, 0, k);
        }
        e->column = w->column0;
        e->mode = k;
    }
}

optinc_status ex_layer_build(const optinc_circuit *c, int layer, ex_layer *x, optinc_error *err)
{
    const optinc_layer *L = &c->layers[layer];
    long n_el = 0;
    int widest = L->cols > L->rows ? L->cols : L->rows;
    for (int s = 0; s < L->n_stages; s++) {     /* no stage is wider than the layer */
        const optinc_stage *st = &L->stage[s];
        n_el += st->kind == OPTINC_STAGE_MESH ? st->mesh->n_mzi + st->mesh->modes
                                              : (st->modes_in > st->modes_out ? st->modes_in
                                                                              : st->modes_out);
    }
    memset(x, 0, sizeof *x);
    x->L = L;
    x->index = layer;
    x->el = malloc(sizeof *x->el * (size_t)(n_el ? n_el : 1));
    size_t nets = (size_t)(L->cols + 2 * n_el + 1);
    x->end = malloc(sizeof *x->end * nets);
    x->boundary = malloc(sizeof *x->boundary * 2 * nets);
    x->boundary_mode = x->boundary ? x->boundary + nets : NULL;
    walker w = {x, malloc(sizeof *w.cur * (size_t)widest), 0, 0};
    if (!x->el || !x->end || !x->boundary || !x->boundary_mode || !w.cur) {
        free(w.cur);
        ex_layer_free(x);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory exporting layer '%s'",
                           L->name);
    }
    for (size_t n = 0; n < nets; n++)
        x->boundary[n] = x->boundary_mode[n] = -1;
    for (int k = 0; k < L->cols; k++)
        w.cur[k] = new_net(&w, -1, k);
    for (int s = 0; s < L->n_stages; s++) {
        mark_boundary(&w, s, L->stage[s].modes_in);
        w.stage = s;
        w.column0 = optinc_place_stage_column(c, layer, s);
        if (L->stage[s].kind == OPTINC_STAGE_MESH)
            walk_mesh(&w, &L->stage[s]);
        else
            walk_att(&w, &L->stage[s]);
    }
    mark_boundary(&w, L->n_stages, L->rows);
    for (int k = 0; k < L->rows; k++)
        x->end[w.cur[k]][1] = (ex_end){-1, k};
    free(w.cur);
    return OPTINC_OK;
}

void ex_layer_free(ex_layer *x)
{
    /* boundary_mode is the second half of boundary's block */
    OPTINC_FREE_ALL(x->el, x->end, x->boundary);
    memset(x, 0, sizeof *x);
}

/* --------------------------------------------------------------- helpers */

const char *ex_sax_pin(const ex_element *e, int pin)
{
    static const char *const two[] = {"in0", "in1", "out0", "out1"};
    static const char *const one[] = {"in0", "out0"};
    if (e->n_pins == 4)
        return two[pin];
    if (e->kind == OPTINC_CARD_TERM)
        return e->n_in ? "in0" : "out0";
    return one[pin];
}

void ex_number(FILE *f, double x)
{
    char buf[OPTINC_SHORTEST_MAX];
    fputs(optinc_shortest(buf, x), f);
}

optinc_status optinc_export_companion(const char *path, const char *suffix, char *buf,
                                      size_t size, optinc_error *err)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    size_t stem = dot && dot > (slash ? slash : path) && dot[-1] != '/' ? (size_t)(dot - path)
                                                                         : strlen(path);
    if (stem + strlen(suffix) + 1 > size)
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0,
                           "the output's name is too long for its companion files; use a "
                           "shorter one");
    memcpy(buf, path, stem);
    strcpy(buf + stem, suffix);
    if (!strcmp(buf, path))
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "the export writes a companion file "
                           "of this very name beside its output; give the output another "
                           "extension");
    return OPTINC_OK;
}

/* The exports place stages on one row of modes per waveguide; a segmented
 * layer's split and comb chains and block-diagonal mesh have no placement
 * yet, so such a circuit is refused rather than exported wrongly. */
static optinc_status refuse_segments(const optinc_circuit *c, optinc_error *err)
{
    for (int i = 0; i < c->n_layers; i++)
        if (c->layers[i].seg_rows)
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "layer '%s' is segmented (%dx%d blocks with fixed splitters and "
                               "combiners), which the layout exports do not place yet; export "
                               "a spec without 'segments:' or use the netlist",
                               c->layers[i].name, c->layers[i].seg_rows, c->layers[i].seg_cols);
    return OPTINC_OK;
}

optinc_status ex_check(const optinc_circuit *c, optinc_error *err)
{
    if (c->n_layers < 1)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "circuit '%s' has no layers; there is nothing to export", c->name);
    if (!optinc_netlist_is_name(c->name))
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "circuit name '%s' is not a PNL name ([A-Za-z_][A-Za-z0-9_]*); "
                           "rename it in the spec", c->name);
    for (int i = 0; i < c->n_layers; i++)
        if (!optinc_netlist_is_name(c->layers[i].name))
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "layer name '%s' is not a PNL name ([A-Za-z_][A-Za-z0-9_]*)",
                               c->layers[i].name);
    return refuse_segments(c, err);
}

