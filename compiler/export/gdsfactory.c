/*
 * gdsfactory.c - the gdsfactory export (optinc-export(1), GDSFACTORY): the
 * circuit as one gdsfactory YAML netlist (name, info, instances,
 * placements, routes, ports) on gdsfactory's generic components, placed on
 * the layout grid (export.h), its words as libyaml's emitter writes them.
 *
 * What gdsfactory's reader does with it (gdsfactory/read/from_yaml.py):
 * `placements` put each instance at its grid point; `connections` would
 * move an instance onto its partner's port (abut), overriding its
 * placement, so there are none; every waveguide between two instances is a
 * link of `routes` (one bundle per layer, the default routing strategy), so
 * the placement survives and the router draws the waveguides.
 *
 * What maps to what is one row per card (gf_cards): the component, its
 * settings, its ports in the card's pin order, its rotation.  gdsfactory
 * numbers ports counter-clockwise from the lower left, and mode m lies below
 * mode m+1 (y = m * mode_pitch_um), so an MZI's in0, in1, out0, out1 are its
 * o1, o2, o4, o3.  The programmed values go into each instance's info (a
 * layout flow has no use for them as settings, a reader of the file does),
 * the electronic parts of each layer (input scale, gain, activation) into
 * the top-level info.  The file is flat: one YAML holds one component.
 *
 * Why libyaml decides each word, and why not for every token: a name is
 * a string however it reads (`null`, `true`, `off`), and the emitter quotes
 * it when asked to keep it one; but emitting the whole file event by event
 * wrote 60 MB/s, where the other text exports write 150 (bench_export,
 * N = 256).  So each word that is not a literal here (the circuit's and the
 * layers' names, layer_<layer>, the cards' components, names and keys, the
 * activations) is rendered by the emitter once per file (yaml_scalar_text),
 * and the bulk is written directly: the structure as the emitter laid it
 * out, instance names and links (plain by construction, end_ref), numbers
 * (num_put).  The file is the emitter's, byte for byte:
 * test_export.c's gdsfactory_writes_what_libyaml_writes re-emits it.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
#include "compiler/core/numtext.h"
#include "compiler/export/walk.h"
#include "compiler/netlist/dialect.h"
#include "optinc/fileio.h"

/* How a card is placed: its component, whether its length is the MZI's,
 * its ports in the card's pin order, its rotation in degrees. */
typedef struct gf_card {
    const char *component;
    int sized;
    const char *pin[OPTINC_CARD_PINS_MAX];
    int rotation;
} gf_card;

static const gf_card gf_cards[OPTINC_CARD_COUNT] = {
    [OPTINC_CARD_MZI] = {"mzi2x2_2x2_phase_shifter", 0, {"o1", "o2", "o4", "o3"}, 0},
    [OPTINC_CARD_PS] = {"straight", 1, {"o1", "o2"}, 0},
    [OPTINC_CARD_ATT] = {"straight", 1, {"o1", "o2"}, 0},
    [OPTINC_CARD_DC] = {"coupler", 0, {"o1", "o2", "o4", "o3"}, 0},
    [OPTINC_CARD_TERM] = {"terminator", 0, {"o1"}, 0},
    /* in -> o1; tap out0 -> o2 (lower), out1 -> o3 */
    [OPTINC_CARD_SPLIT] = {"mmi1x2", 0, {"o1", "o2", "o3"}, 0},
    /* turned round: in0 -> o3, in1 -> o2 on the left, out -> o1 */
    [OPTINC_CARD_COMB] = {"mmi1x2", 0, {"o3", "o2", "o1"}, 180},
    [OPTINC_CARD_THRU] = {"straight", 1, {"o1", "o2"}, 0},
};

#define GF_SCALAR_MAX 256    /* a rendered word: a PNL name (< 64 bytes) quoted */

/* Where a scalar stands: a block mapping's key or value, a flow mapping's. */
typedef enum gf_place { GF_BLOCK_KEY, GF_BLOCK_VALUE, GF_FLOW_KEY, GF_FLOW_VALUE } gf_place;

typedef char gf_text[GF_SCALAR_MAX];
#define GF_NUM_MAX (OPTINC_SHORTEST_MAX + 2)    /* a number, with its ".0" */
typedef char gf_num[GF_NUM_MAX];
/* An instance's, a placement's or a link's line: at most two names, three
 * words and a number, a key and a number per parameter, each bounded
 * (EX_NAME_MAX, GF_SCALAR_MAX, GF_NUM_MAX), and fewer literal bytes than
 * the bound's slack. */
#define GF_LINE_MAX \
    (2 * EX_NAME_MAX + (3 + OPTINC_CARD_PARAMS_MAX) * (GF_SCALAR_MAX + GF_NUM_MAX))

/* The words of the file as libyaml writes them, each rendered once: the
 * user's names, and the words of optinc's tables (card and component
 * names, parameter keys, activations), which are plain today, so that a
 * table that gains a word YAML reads otherwise cannot break the file. */
typedef struct gf_words {
    gf_text name;                                  /* the circuit's, a value */
    gf_text component[OPTINC_CARD_COUNT], card[OPTINC_CARD_COUNT];
    gf_text param[OPTINC_CARD_COUNT][OPTINC_CARD_PARAMS_MAX];     /* the keys */
    gf_text (*layer)[3];     /* per layer: its name, layer_<name>, its activation */
    /* numbers every file repeats: the grid's coordinates by column and by
     * mode (a mesh's elements share them) and the MZI's length */
    gf_num *x, *y, length;
    int columns, modes;
} gf_words;

typedef struct gf_ctx {
    const optinc_circuit *c;
    const optinc_layout *layout;
    FILE *f;
    gf_words *w;
} gf_ctx;

/* A word YAML 1.1 resolves to something other than a string when plain. */
static int yaml_special(const char *s)
{
    static const char *const words[] = {"y", "n", "yes", "no", "on", "off", "true", "false",
                                        "null", "~", NULL};
    if (*s && (strlen(s) > 5 || !strchr("yYnNoOtTfF~", *s)))
        return 0;    /* no such word: the common case, without the comparisons */
    for (int k = 0; words[k]; k++)
        if (!strcasecmp(s, words[k]))
            return 1;
    return !*s;
}

/* The text libyaml's emitter gives the string s at place p, into out:
 * plain where that reads back as the same string, quoted where it would not
 * (`null`, `true`, `off`), escaped where it must be.  The emitter writes a
 * one-entry mapping holding s into memory and the rest is cut off; -1 when
 * that does not leave s alone on one line (a key libyaml would write as a
 * complex key, "? s", a name it would break), which a PNL name never is. */
static int yaml_scalar_text(const char *s, gf_place p, gf_text out)
{
    static const char *const affix[][2] = {
        [GF_BLOCK_KEY] = {"", ": v\n"}, [GF_BLOCK_VALUE] = {"k: ", "\n"},
        [GF_FLOW_KEY] = {"{", ": v}\n"}, [GF_FLOW_VALUE] = {"{k: ", "}\n"}};
    int key = p == GF_BLOCK_KEY || p == GF_FLOW_KEY;
    unsigned char doc[GF_SCALAR_MAX + 8];
    size_t len = 0, head = strlen(affix[p][0]), tail = strlen(affix[p][1]);
    const char *text[2] = {key ? s : "k", key ? "v" : s};
    yaml_emitter_t em;
    yaml_event_t ev;
    if (!yaml_emitter_initialize(&em))
        return -1;
    yaml_emitter_set_output_string(&em, doc, sizeof doc, &len);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, -1);     /* no folded lines */
    /* each event made ready, then emitted (libyaml owns it then) */
    int ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING)
             && yaml_emitter_emit(&em, &ev)
             && yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1)
             && yaml_emitter_emit(&em, &ev)
             && yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
                                                    p < GF_FLOW_KEY ? YAML_BLOCK_MAPPING_STYLE
                                                                    : YAML_FLOW_MAPPING_STYLE)
             && yaml_emitter_emit(&em, &ev);
    for (int k = 0; k < 2; k++)
        ok = ok
             && yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)text[k],
                                             (int)strlen(text[k]), !yaml_special(text[k]), 1,
                                             YAML_ANY_SCALAR_STYLE)
             && yaml_emitter_emit(&em, &ev);
    ok = ok && yaml_mapping_end_event_initialize(&ev) && yaml_emitter_emit(&em, &ev)
         && yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(&em, &ev)
         && yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&em, &ev);
    yaml_emitter_delete(&em);
    if (!ok || len < head + tail || len - head - tail >= GF_SCALAR_MAX
        || memcmp(doc, affix[p][0], head) || memcmp(doc + len - tail, affix[p][1], tail)
        || memchr(doc + head, '\n', len - head - tail) || !memcmp(doc + head, "? ", 2))
        return -1;
    memcpy(out, doc + head, len - head - tail);
    out[len - head - tail] = '\0';
    return 0;
}

/* x at p as a plain scalar; returns its end.  The shortest text that reads
 * back exactly, with a ".0" before an exponent that has no point, since
 * YAML 1.1 readers take "1e-05" for a string.  Digits, '-', '.', 'e', '+',
 * "inf", "nan": no character libyaml quotes, in a flow or a block. */
static char *num_put(char *p, double x)
{
    char buf[OPTINC_SHORTEST_MAX];
    const char *s = optinc_shortest(buf, x), *e = strchr(s, 'e');
    if (!e || memchr(s, '.', (size_t)(e - s)))
        return stpcpy(p, s);
    memcpy(p, s, (size_t)(e - s));
    return stpcpy(stpcpy(p + (e - s), ".0"), e);
}

/* x's text, as num_put writes it, in out. */
static const char *num_text(char out[GF_NUM_MAX], double x)
{
    *num_put(out, x) = '\0';
    return out;
}

static void num(FILE *f, double x)
{
    char buf[GF_NUM_MAX];
    fputs(num_text(buf, x), f);
}

static void integer(FILE *f, int v)
{
    char buf[24];
    fwrite(buf, 1, optinc_int_format(buf, v), f);
}

/* "inst,port" of pin `pin` of element e.  Plain in a block, as libyaml
 * writes it: an instance name is a card's two-letter prefix, '_', a PNL
 * name (the layer's, ex_check) and the walk's _<tag>_c<int>_r<int> or
 * _r<int> (nl_element_name), so it and ",o<k>" have only [A-Za-z0-9_,],
 * start with a letter (no indicator, not a number, not a word YAML 1.1
 * resolves: those have no '_' or ','), and are at most
 * 2 + 1 + 63 + 2 + 2 * 13 + 3 = 97 < 128 bytes, libyaml's longest simple
 * key.  test_export.c's gdsfactory_writes_what_libyaml_writes checks it
 * against libyaml with a 63-byte layer name. */
static char *end_ref(char *p, const ex_element *e, int pin)
{
    p = stpcpy(p, e->name);
    *p++ = ',';
    return stpcpy(p, gf_cards[e->kind].pin[pin]);
}

/* "KEY:" of a block mapping that has entries, on lines of their own, or
 * KEY: {} (the flow mapping libyaml writes for an empty one). */
static void block(FILE *f, const char *key, int entries)
{
    fputs(key, f);
    fputs(entries ? ":\n" : ": {}\n", f);
}

/* The lines below: the structure's words (this file's literals) are
 * written as libyaml wrote them (plain, but 'y', which YAML 1.1 reads as
 * "yes"); every other word comes from g->w, as libyaml writes it. */
static void put_instances(const gf_ctx *g, const ex_layer *x)
{
    const gf_words *w = g->w;
    for (int i = 0; i < x->n_el; i++) {
        const ex_element *e = &x->el[i];
        int key[OPTINC_CARD_PARAMS_MAX], n = ex_settings(e->kind, key);
        char line[GF_LINE_MAX], *p = stpcpy(stpcpy(line, "  "), e->name);
        p = stpcpy(stpcpy(p, ": {component: "), w->component[e->kind]);
        if (gf_cards[e->kind].sized)
            p = stpcpy(stpcpy(stpcpy(p, ", settings: {length: "), w->length), "}");
        p = stpcpy(stpcpy(p, ", info: {card: "), w->card[e->kind]);
        for (int k = 0; k < n; k++)
            p = num_put(stpcpy(stpcpy(stpcpy(p, ", "), w->param[e->kind][key[k]]), ": "),
                        e->v[key[k]]);
        p = stpcpy(p, "}}\n");
        fwrite(line, 1, (size_t)(p - line), g->f);
    }
}

static void put_placements(const gf_ctx *g, const ex_layer *x)
{
    for (int i = 0; i < x->n_el; i++) {
        const ex_element *e = &x->el[i];
        char line[GF_LINE_MAX], *p = stpcpy(stpcpy(line, "  "), e->name);
        p = stpcpy(stpcpy(p, ": {x: "), g->w->x[e->column]);
        /* 'y': YAML 1.1's "yes", quoted as libyaml quoted it */
        p = stpcpy(stpcpy(p, ", 'y': "), g->w->y[e->mode]);
        if (gf_cards[e->kind].rotation) {
            p = stpcpy(p, ", rotation: ");
            p += optinc_int_format(p, gf_cards[e->kind].rotation);
        }
        p = stpcpy(p, "}\n");
        fwrite(line, 1, (size_t)(p - line), g->f);
    }
}

/* The end inside layer x of its port `port` on `side` (0 in, 1 out). */
static ex_end port_end(const ex_layer *x, int side, int port)
{
    for (int n = 0; n < x->n_nets; n++)
        if (x->end[n][side].elem < 0 && x->end[n][side].pin == port)
            return x->end[n][!side];
    return (ex_end){-1, -1};
}

/* One link of a bundle: the waveguide from pin pa of a to pin pb of b. */
static void put_link(FILE *f, const ex_element *a, int pa, const ex_element *b, int pb)
{
    char line[GF_LINE_MAX], *p = end_ref(stpcpy(line, "      "), a, pa);
    p = stpcpy(end_ref(stpcpy(p, ": "), b, pb), "\n");
    fwrite(line, 1, (size_t)(p - line), f);
}

/* Bundle layer_<L>: its inner waveguides, and those from the layer before
 * into it. */
static void put_routes(const gf_ctx *g, int layer, const ex_layer *x, const ex_layer *before)
{
    FILE *f = g->f;
    int links = before ? before->L->rows : 0;
    for (int n = 0; n < x->n_nets; n++)
        links += x->end[n][0].elem >= 0 && x->end[n][1].elem >= 0;
    fputs("  ", f);
    fputs(g->w->layer[layer][1], f);
    fputs(":\n", f);
    block(f, "    links", links);
    for (int k = 0; before && k < before->L->rows; k++) {
        ex_end a = port_end(before, 1, k), b = port_end(x, 0, k);
        put_link(f, &before->el[a.elem], a.pin, &x->el[b.elem], b.pin);
    }
    for (int n = 0; n < x->n_nets; n++) {
        ex_end a = x->end[n][0], b = x->end[n][1];
        if (a.elem >= 0 && b.elem >= 0)
            put_link(f, &x->el[a.elem], a.pin, &x->el[b.elem], b.pin);
    }
}

/* The top-level info: per layer what is electronic and so no instance. */
static void put_info(const gf_ctx *g)
{
    const optinc_circuit *c = g->c;
    FILE *f = g->f;
    fputs("info:\n  generator: optinc export (optinc-export(1))\n  layers:\n", f);
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        fputs("    ", f);
        fputs(g->w->layer[i][0], f);
        fputs(": {gain: ", f);
        num(f, L->gain);
        fputs(", gained_outputs: ", f);
        integer(f, L->rows - L->pass_through);
        fputs(", activation: ", f);
        fputs(g->w->layer[i][2], f);
        if (L->input_scale) {
            fputs(", input_scale: [", f);
            for (int k = 0; k < L->cols - L->pass_through; k++) {
                if (k)
                    fputs(", ", f);
                num(f, L->input_scale[k]);
            }
            fputc(']', f);
        }
        fputs("}\n", f);
    }
}

static void put_document(const gf_ctx *g, const ex_layer *x)
{
    const optinc_circuit *c = g->c;
    FILE *f = g->f;
    int n = c->n_layers, elements = 0;
    for (int i = 0; i < n; i++)
        elements += x[i].n_el;
    fputs("name: ", f);
    fputs(g->w->name, f);
    fputc('\n', f);
    put_info(g);
    block(f, "instances", elements);
    for (int i = 0; i < n; i++)
        put_instances(g, &x[i]);
    block(f, "placements", elements);
    for (int i = 0; i < n; i++)
        put_placements(g, &x[i]);
    fputs("routes:\n", f);
    for (int i = 0; i < n; i++)
        put_routes(g, i, &x[i], i ? &x[i - 1] : NULL);
    fputs("ports:\n", f);
    for (int side = 0; side < 2; side++) {
        const ex_layer *l = &x[side ? n - 1 : 0];
        for (int k = 0; k < (side ? l->L->rows : l->L->cols); k++) {
            ex_end e = port_end(l, side, k);
            char line[GF_LINE_MAX], *p = stpcpy(line, side ? "  out" : "  in");
            p += optinc_int_format(p, k);
            p = stpcpy(end_ref(stpcpy(p, ": "), &l->el[e.elem], e.pin), "\n");
            fwrite(line, 1, (size_t)(p - line), f);
        }
    }
}

/* The words of g->w, as libyaml writes them. */
static optinc_status render_words(const gf_ctx *g, optinc_error *err)
{
    const optinc_circuit *c = g->c;
    gf_words *w = g->w;
    int bad = yaml_scalar_text(c->name, GF_BLOCK_VALUE, w->name);
    for (int k = 0; k < OPTINC_CARD_COUNT && !bad; k++) {
        const optinc_card *cd = &optinc_cards[k];
        bad = yaml_scalar_text(gf_cards[k].component, GF_FLOW_VALUE, w->component[k])
              || yaml_scalar_text(cd->name, GF_FLOW_VALUE, w->card[k]);
        for (int j = 0; j < cd->n_params && !bad; j++)
            bad = yaml_scalar_text(cd->param[j].key, GF_FLOW_KEY, w->param[k][j]);
    }
    for (int i = 0; i < c->n_layers && !bad; i++) {
        const optinc_layer *L = &c->layers[i];
        char route[EX_NAME_MAX];
        snprintf(route, sizeof route, "layer_%s", L->name);
        bad = yaml_scalar_text(L->name, GF_BLOCK_KEY, w->layer[i][0])
              || yaml_scalar_text(route, GF_BLOCK_KEY, w->layer[i][1])
              || yaml_scalar_text(optinc_activation_names[L->activation], GF_FLOW_VALUE,
                                  w->layer[i][2]);
    }
    return bad ? optinc_fail(err, OPTINC_ERUN, NULL, 0, 0,
                             "cannot write the names of circuit '%s' as one-line YAML scalars",
                             c->name)
               : OPTINC_OK;
}

/* The numbers of g->w, for the elements of layers x. */
static optinc_status render_numbers(const gf_ctx *g, const ex_layer *x, optinc_error *err)
{
    gf_words *w = g->w;
    for (int i = 0; i < g->c->n_layers; i++)
        for (int k = 0; k < x[i].n_el; k++) {
            const ex_element *e = &x[i].el[k];
            w->columns = e->column >= w->columns ? e->column + 1 : w->columns;
            w->modes = e->mode >= w->modes ? e->mode + 1 : w->modes;
        }
    w->x = calloc((size_t)w->columns + 1, sizeof *w->x);
    w->y = calloc((size_t)w->modes + 1, sizeof *w->y);
    if (!w->x || !w->y)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory exporting");
    for (int k = 0; k < w->columns || k < w->modes; k++) {
        double px, py;
        optinc_place_xy(g->layout, k, k, &px, &py);
        if (k < w->columns)
            num_text(w->x[k], px);
        if (k < w->modes)
            num_text(w->y[k], py);
    }
    num_text(w->length, g->layout->mzi_length_um);
    return OPTINC_OK;
}

static optinc_status put_yaml(FILE *f, const void *ctx, optinc_error *err)
{
    gf_ctx g = *(const gf_ctx *)ctx;
    const optinc_circuit *c = g.c;
    int n = c->n_layers;
    ex_layer *x = calloc((size_t)n, sizeof *x);
    gf_words *w = calloc(1, sizeof *w);
    g.f = f;
    g.w = w;
    if (w)
        w->layer = calloc((size_t)n, sizeof *w->layer);
    optinc_status st = x && w && w->layer ? OPTINC_OK
                                          : optinc_fail(err, OPTINC_ERUN, NULL, 0, 0,
                                                        "out of memory exporting");
    for (int i = 0; !st && i < n; i++)
        st = ex_layer_build(c, i, &x[i], err);
    if (!st)
        st = render_words(&g, err);
    if (!st)
        st = render_numbers(&g, x, err);
    if (!st)
        put_document(&g, x);
    for (int i = 0; x && i < n; i++)
        ex_layer_free(&x[i]);
    free(x);
    if (w) {
        free(w->layer);
        free(w->x);
        free(w->y);
    }
    free(w);
    return st;
}

optinc_status optinc_export_gdsfactory_stream(const optinc_circuit *c,
                                              const optinc_layout *layout, FILE *f,
                                              optinc_error *err)
{
    gf_ctx g = {.c = c, .layout = layout};
    optinc_status st = ex_check(c, err);
    return st ? st : put_yaml(f, &g, err);
}

optinc_status optinc_export_gdsfactory(const optinc_circuit *c, const optinc_layout *layout,
                                       const char *path, optinc_error *err)
{
    gf_ctx g = {.c = c, .layout = layout};
    optinc_status st = ex_check(c, err);
    return st ? st : optinc_out_write(path, put_yaml, &g, err);
}
