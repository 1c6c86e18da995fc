/*
 * export.c - the table of export formats (optinc-export(1)) and the layer
 * every format writes from (walk.h): the elements of the netlist's own walk
 * (compiler/netlist/walk.h), under its instance names, and the nets between
 * them, each with its two ends, gathered so that a format can look up where
 * a net comes from and goes.
 */
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "compiler/export/walk.h"
#include "compiler/netlist/dialect.h"
#include "compiler/netlist/walk.h"
#include "optinc/fileio.h"

/* The integrator adds the gds entry (optinc_export_gds) beside these. */
static const char *const sax_companions[] = {EX_SAX_MODELS, NULL};
static const char *const interconnect_companions[] = {EX_IC_CIRCUIT, EX_IC_SCRIPT, NULL};

const optinc_export_format optinc_export_formats[] = {
    {"sax", ".json", "SAX netlist (JSON) and a Python module of its models",
     optinc_export_sax, sax_companions, optinc_export_sax_stream},
    {"gdsfactory", ".yml", "gdsfactory YAML netlist placed on the layout grid",
     optinc_export_gdsfactory, NULL, optinc_export_gdsfactory_stream},
    {"interconnect", ".spi", "Lumerical INTERCONNECT netlist (SiEPIC), its .lsf script",
     optinc_export_interconnect, interconnect_companions, optinc_export_interconnect_stream},
    {"gds", ".gds", "GDSII placement layout (one cell per element kind, on the grid)",
     optinc_export_gds, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

const optinc_export_format *optinc_export_format_find(const char *name)
{
    for (const optinc_export_format *f = optinc_export_formats; name && f->name; f++)
        if (!strcmp(f->name, name))
            return f;
    return NULL;
}

/* ------------------------------------------------------------------ walk */

/* Room for net id in x's per-net arrays, and an element more. */
static int grow(ex_layer *x, int id, size_t *nets_cap, size_t *el_cap)
{
    if ((size_t)id >= *nets_cap) {
        size_t cap = *nets_cap ? *nets_cap : 256;
        while (cap <= (size_t)id)
            cap *= 2;
        ex_end (*end)[2] = realloc(x->end, sizeof *x->end * cap);
        if (end)
            x->end = end;
        int *b = realloc(x->boundary, sizeof *b * 2 * cap);
        if (!end || !b) {
            if (b)
                x->boundary = b;
            return -1;
        }
        /* boundary_mode is the second half of boundary's block */
        memmove(b + cap, b + *nets_cap, sizeof *b * *nets_cap);
        for (size_t n = *nets_cap; n < cap; n++) {
            b[n] = b[cap + n] = -1;
            x->end[n][0] = x->end[n][1] = (ex_end){-1, -1};
        }
        x->boundary = b;
        x->boundary_mode = b + cap;
        *nets_cap = cap;
    }
    if ((size_t)x->n_el >= *el_cap) {
        size_t cap = *el_cap ? 2 * *el_cap : 256;
        ex_element *el = realloc(x->el, sizeof *el * cap);
        if (!el)
            return -1;
        x->el = el;
        *el_cap = cap;
    }
    return 0;
}

typedef struct builder {
    ex_layer *x;
    size_t nets_cap, el_cap;
    int column0;       /* the layer's first column on the grid */
} builder;

static optinc_status oom(const ex_layer *x, optinc_error *err)
{
    return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory exporting layer '%s'",
                       x->L->name);
}

/* Element e of the walk, with its nets' ends. */
static optinc_status add(nl_walk *w, const nl_elem *e, optinc_error *err)
{
    builder *b = w->ctx;
    ex_layer *x = b->x;
    int top = 0;
    for (int j = 0; j < e->n_pins; j++)
        top = e->id[j] > top ? e->id[j] : top;
    if (grow(x, top, &b->nets_cap, &b->el_cap))
        return oom(x, err);
    int i = x->n_el++;
    ex_element *el = &x->el[i];
    el->kind = e->kind;
    size_t len = strlen(e->name);
    len = len < sizeof el->name ? len : sizeof el->name - 1;
    memcpy(el->name, e->name, len);
    el->name[len] = '\0';
    el->n_pins = e->n_pins;
    el->n_in = e->n_in;
    memcpy(el->v, e->v, sizeof el->v);
    el->has = e->has;
    el->column = b->column0 + e->column;
    el->mode = e->row;
    el->stage = e->stage;
    for (int j = 0; j < e->n_pins; j++) {
        el->net[j] = e->id[j];
        x->end[e->id[j]][j >= e->n_in ? 0 : 1] = (ex_end){i, j};
    }
    if (x->n_nets <= top)
        x->n_nets = top + 1;
    return OPTINC_OK;
}

/* The nets on modes 0..modes-1 are those of boundary s; the layer's input
 * ports (s = 0) and output ports (s = n_stages) are the ends of theirs. */
static optinc_status boundary(nl_walk *w, int s, int modes, const int *id, optinc_error *err)
{
    builder *b = w->ctx;
    ex_layer *x = b->x;
    int top = 0;
    for (int k = 0; k < modes; k++)
        top = id[k] > top ? id[k] : top;
    if (grow(x, top, &b->nets_cap, &b->el_cap))
        return oom(x, err);
    for (int k = 0; k < modes; k++) {
        x->boundary[id[k]] = s;
        x->boundary_mode[id[k]] = k;
        if (s == x->L->n_stages)
            x->end[id[k]][1] = (ex_end){-1, k};
    }
    if (x->n_nets <= top)
        x->n_nets = top + 1;
    return OPTINC_OK;
}

optinc_status ex_layer_build(const optinc_circuit *c, int layer, ex_layer *x, optinc_error *err)
{
    memset(x, 0, sizeof *x);
    x->L = &c->layers[layer];
    x->index = layer;
    builder b = {x, 0, 0, optinc_place_stage_column(c, layer, 0)};
    if (grow(x, x->L->cols, &b.nets_cap, &b.el_cap)) {
        optinc_status st = oom(x, err);
        ex_layer_free(x);
        return st;
    }
    for (int k = 0; k < x->L->cols; k++)    /* the walk numbers the inputs 0 .. cols-1 */
        x->end[k][0] = (ex_end){-1, k};
    x->n_nets = x->L->cols;
    nl_walk w = {.c = c, .layer = layer, .prefix = "", .visit = add, .boundary = boundary,
                 .ctx = &b};
    optinc_status st = nl_walk_layer(&w, err);
    if (st)
        ex_layer_free(x);
    return st;
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
    /* the card's pin names with a number on each: in -> in0, out -> out0 */
    static const char *const numbered[][2] = {{"in", "in0"}, {"out", "out0"}};
    const char *name = optinc_cards[e->kind].pin[pin];
    if (e->kind == OPTINC_CARD_TERM && !e->n_in)
        return "out0";          /* a term that starts a dark waveguide */
    for (size_t k = 0; k < sizeof numbered / sizeof numbered[0]; k++)
        if (!strcmp(name, numbered[k][0]))
            return numbered[k][1];
    return name;
}

void ex_json_chars(FILE *f, const char *s)
{
    size_t plain = strcspn(s, "\"\\\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e"
                                 "\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c"
                                 "\x1d\x1e\x1f\x7f");
    fwrite(s, 1, plain, f);     /* a name is all of it: one write */
    for (const unsigned char *p = (const unsigned char *)s + plain; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
}

int ex_settings(optinc_card_kind kind, int key[OPTINC_CARD_PARAMS_MAX])
{
    const optinc_card *cd = &optinc_cards[kind];
    int n = 0;
    for (int i = 0; i < cd->n_params; i++)
        if (cd->settings & 1u << cd->write_order[i])
            key[n++] = cd->write_order[i];
    return n;
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
    return OPTINC_OK;
}

/* 1 when name is "<prefix><layer>" for a layer of c, optionally followed by
 * "_<one letter>" (a stage's cell). */
static int is_layer_cell(const optinc_circuit *c, const char *name, const char *prefix)
{
    size_t p = strlen(prefix);
    if (strncmp(name, prefix, p))
        return 0;
    for (int i = 0; i < c->n_layers; i++) {
        size_t n = strlen(c->layers[i].name);
        if (!strncmp(name + p, c->layers[i].name, n)
            && (!name[p + n] || (name[p + n] == '_' && name[p + n + 1] && !name[p + n + 2])))
            return 1;
    }
    return 0;
}

optinc_status ex_check_cell_names(const optinc_circuit *c, const char *const *extra,
                                  optinc_error *err)
{
    int taken = optinc_card_find(c->name, strlen(c->name)) >= 0
                || is_layer_cell(c, c->name, "layer_") || is_layer_cell(c, c->name, "stage_");
    for (int k = 0; extra && extra[k] && !taken; k++)
        taken = !strcmp(c->name, extra[k]);
    if (taken)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "circuit name '%s' is also the name of a model or of a cell the "
                           "export writes (the cards, layer_<layer>, stage_<layer>_<stage>, "
                           "and this format's own); rename the circuit in the spec", c->name);
    return OPTINC_OK;
}
