/*
 * plan.c - which drawings optinc_draw_circuit makes of a circuit, in which
 * formats and under which file names, and the check that no two of them
 * share a name (draw.h).  No Graphviz here: the drawer (draw.c) follows
 * this plan, and the check runs before the drawer starts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "compiler/draw/plan.h"

const draw_format draw_formats[DRAW_N_FORMATS] = {
    {OPTINC_DRAW_SVG, "svg"},
    {OPTINC_DRAW_PNG, "png"},
    {OPTINC_DRAW_DOT, "dot"},
};

optinc_status optinc_draw_parse_formats(const char *list, unsigned *out, optinc_error *err)
{
    unsigned mask = 0;
    const char *p = list;
    for (;;) {
        size_t n = strcspn(p, ",");
        size_t i = 0;
        while (i < DRAW_N_FORMATS &&
               !(strlen(draw_formats[i].name) == n && !strncmp(p, draw_formats[i].name, n)))
            i++;
        if (i == DRAW_N_FORMATS)
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "unknown drawing format '%.*s' in '%s'; use a comma-separated "
                               "list of svg, png and dot, e.g. --format svg,png",
                               (int)n, p, list);
        mask |= draw_formats[i].bit;
        if (!p[n])
            break;
        p += n + 1;
    }
    *out = mask;
    return OPTINC_OK;
}

int optinc_draw_layer_modes(const optinc_layer *L)
{
    int n = L->rows > L->cols ? L->rows : L->cols;
    for (int i = 0; i < L->n_stages; i++) {
        const optinc_stage *s = &L->stage[i];
        n = s->modes_in > n ? s->modes_in : n;
        n = s->modes_out > n ? s->modes_out : n;
    }
    return n;
}

void draw_stem(const optinc_circuit *c, int layer, optinc_draw_style style,
               char stem[DRAW_STEM_MAX])
{
    if (layer < 0)
        snprintf(stem, DRAW_STEM_MAX, "%s_layers", c->name);
    else
        snprintf(stem, DRAW_STEM_MAX, "%s_%s%s", c->name, c->layers[layer].name,
                 style == OPTINC_DRAW_OVERVIEW ? "_overview" : "");
}

unsigned draw_drawn_in(const optinc_layer *L, optinc_draw_style style, unsigned mask,
                       const optinc_draw_options *opt)
{
    int n = optinc_draw_layer_modes(L);
    if (style == OPTINC_DRAW_OVERVIEW)
        return n > OPTINC_DRAW_PNG_MAX || (opt && opt->force_overview) ? mask : 0;
    unsigned detail = n <= OPTINC_DRAW_PNG_MAX ? mask : mask & ~OPTINC_DRAW_PNG;
    return n <= OPTINC_DRAW_DETAIL_MAX || (opt && opt->force_detail) ? detail : 0;
}

unsigned draw_formats_of(const optinc_draw_options *opt)
{
    return opt && opt->formats ? opt->formats : OPTINC_DRAW_SVG | OPTINC_DRAW_PNG;
}

/* One drawing a call of optinc_draw_circuit makes. */
typedef struct planned {
    char stem[DRAW_STEM_MAX];
    unsigned formats;
    int layer;                  /* -1: the layer graph */
    optinc_draw_style style;
} planned;

static int by_stem(const void *a, const void *b)
{
    const planned *x = a, *y = b;
    int k = strcmp(x->stem, y->stem);
    return k ? k : x->layer - y->layer;
}

/* "the overview of layer 'L'", "the layer graph". */
static const char *drawing_text(const optinc_circuit *c, const planned *p, char *buf,
                                size_t size)
{
    if (p->layer < 0)
        snprintf(buf, size, "the layer graph");
    else
        snprintf(buf, size, "the %s of layer '%s'",
                 p->style == OPTINC_DRAW_OVERVIEW ? "overview" : "drawing",
                 c->layers[p->layer].name);
    return buf;
}

/* What a drawing takes besides what the process holds when it starts
 * one: Graphviz's plugins, fonts and cairo surface, and per element (MZI,
 * attenuator, splitter, combiner) its node, edges and layout.  Measured as
 * the smallest ulimit -v a drawing runs under, minus the process's size
 * before it (optinc-limits(7)): 1.2 to 1.4 kB per element from 16,384 to
 * 262,144 elements, SVG or PNG; these bounds sit above every measurement. */
enum { DRAW_BASE = 64 << 20, DRAW_PER_ELEMENT = 1400 };

static size_t layer_elements(const optinc_layer *L)
{
    return (size_t)optinc_layer_mzis(L) + (size_t)optinc_layer_attenuators(L) +
           (size_t)optinc_layer_splitters(L) + (size_t)optinc_layer_combiners(L);
}

/* Why: Graphviz does not check every allocation (libcgraph's agnode uses
 * what a failed one returns, and its layout and GLib abort), so under an
 * address-space limit too small for a drawing it crashes rather than
 * fails.  A drawing's need is estimated first (the largest; each graph is
 * freed before the next) and probed with one allocation of that size, as
 * optinc_linalg_reserve probes OpenBLAS's buffer: status 2 naming the
 * limit when the room is not there.  Without a limit nothing is probed. */
static optinc_status address_space(const optinc_circuit *c, const planned *p, int n,
                                   const char *input, optinc_error *err)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_AS, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY)
        return OPTINC_OK;
    int worst = -1;
    size_t most = 0;
    for (int k = 0; k < n; k++)
        if (p[k].layer >= 0 && layer_elements(&c->layers[p[k].layer]) >= most)
            most = layer_elements(&c->layers[p[k].layer]), worst = p[k].layer;
    size_t need = DRAW_BASE + most * DRAW_PER_ELEMENT;
    void *probe = malloc(need);
    free(probe);
    if (probe)
        return OPTINC_OK;
    const optinc_layer *L = worst >= 0 ? &c->layers[worst] : NULL;
    return optinc_fail(err, OPTINC_EINPUT, input, input && L ? L->line : 0,
                       input && L ? L->column : 0, "drawing layer '%s' (%zu elements) needs "
                       "about %zu MiB of address space beyond what is in use, which the "
                       "limit (ulimit -v %llu kB) does not leave; raise the limit",
                       L ? L->name : "", most, need >> 20,
                       (unsigned long long)(lim.rlim_cur >> 10));
}

/* Why a check at all: each drawing is renamed over whatever has its name,
 * so two drawings of one name would leave the later one, with status 0.
 * The names are the circuit's and the layers' names with suffixes a layer
 * name can also have ("layers", "_overview"), and whether an overview is
 * drawn depends on the layer's size, so the check follows the plan the
 * drawing itself follows (draw_drawn_in), sorted by name to find equal ones. */
optinc_status optinc_draw_check(const optinc_circuit *c, const optinc_draw_options *opt,
                                const char *input, optinc_error *err)
{
    unsigned mask = draw_formats_of(opt);
    planned *p = calloc(2 * (size_t)c->n_layers + 1, sizeof *p);
    if (!p)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    int n = 0;
    draw_stem(c, -1, OPTINC_DRAW_DETAIL, p[n].stem);
    p[n].formats = mask;
    p[n++].layer = -1;
    for (int i = 0; i < c->n_layers; i++)
        for (int s = 0; s < 2; s++) {
            optinc_draw_style style = s ? OPTINC_DRAW_OVERVIEW : OPTINC_DRAW_DETAIL;
            unsigned f = draw_drawn_in(&c->layers[i], style, mask, opt);
            if (!f)
                continue;
            draw_stem(c, i, style, p[n].stem);
            p[n].formats = f;
            p[n].layer = i;
            p[n++].style = style;
        }
    qsort(p, (size_t)n, sizeof *p, by_stem);
    optinc_status st = OPTINC_OK;
    for (int k = 1; k < n && !st; k++) {
        const planned *a = &p[k - 1], *b = &p[k];   /* a's layer comes first */
        unsigned both = a->formats & b->formats;
        if (strcmp(a->stem, b->stem) || !both)
            continue;
        size_t f = 0;
        while (!(draw_formats[f].bit & both))
            f++;
        const optinc_layer *L = &c->layers[b->layer];
        char what_a[128], what_b[128], fix[256];
        if (a->layer < 0)
            snprintf(fix, sizeof fix, "rename layer '%s'", L->name);
        else
            snprintf(fix, sizeof fix, "rename layer '%s' or layer '%s'",
                     c->layers[a->layer].name, L->name);
        st = optinc_fail(err, OPTINC_EINPUT, input, input ? L->line : 0,
                         input ? L->column : 0, "%s and %s would both be drawn to '%s.%s', "
                         "one over the other; %s", drawing_text(c, a, what_a, sizeof what_a),
                         drawing_text(c, b, what_b, sizeof what_b), a->stem, draw_formats[f].name,
                         fix);
    }
    if (!st)
        st = address_space(c, p, n, input, err);
    free(p);
    return st;
}
