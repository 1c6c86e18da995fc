/*
 * gdsfactory.c - the gdsfactory export (optinc-export(1), GDSFACTORY): the
 * circuit as one gdsfactory YAML netlist (name, info, instances,
 * placements, routes, ports) on gdsfactory's generic components, placed on
 * the layout grid (export.h), written by libyaml's emitter.
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
 * Why libyaml's emitter: a name is a string however it reads (`null`,
 * `true`, `off`), and the emitter quotes it when asked to keep it one; a
 * number is a plain scalar in the shortest text that reads back exactly,
 * with a ".0" before an exponent that has no point, since YAML 1.1 readers
 * take "1e-05" for a string.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
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

typedef struct gf_ctx {
    const optinc_circuit *c;
    const optinc_layout *layout;
    yaml_emitter_t em;
    yaml_event_t ev;
    int failed;
} gf_ctx;

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
    return fwrite(buffer, 1, size, data) == size;
}

/* The event made ready in g->ev; libyaml owns it once emitted (and frees
 * it when emitting fails), so after a failure the rest are freed here. */
static void emit(gf_ctx *g)
{
    if (g->failed)
        yaml_event_delete(&g->ev);
    else if (!yaml_emitter_emit(&g->em, &g->ev))
        g->failed = 1;
}

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

/* A string scalar: plain where that reads back as the same string, quoted
 * by the emitter where it would not. */
static void str(gf_ctx *g, const char *s)
{
    int plain = !yaml_special(s);
    yaml_scalar_event_initialize(&g->ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), plain, 1,
                                 YAML_ANY_SCALAR_STYLE);
    emit(g);
}

static void num(gf_ctx *g, double x)
{
    char buf[OPTINC_SHORTEST_MAX], out[OPTINC_SHORTEST_MAX + 2];
    const char *s = optinc_shortest(buf, x), *e = strchr(s, 'e');
    if (e && !memchr(s, '.', (size_t)(e - s)))
        snprintf(out, sizeof out, "%.*s.0%s", (int)(e - s), s, e);
    else
        snprintf(out, sizeof out, "%s", s);
    yaml_scalar_event_initialize(&g->ev, NULL, NULL, (yaml_char_t *)out, (int)strlen(out), 1, 0,
                                 YAML_PLAIN_SCALAR_STYLE);
    emit(g);
}

static void integer(gf_ctx *g, int v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%d", v);
    yaml_scalar_event_initialize(&g->ev, NULL, NULL, (yaml_char_t *)buf, (int)strlen(buf), 1, 0,
                                 YAML_PLAIN_SCALAR_STYLE);
    emit(g);
}

static void map_begin(gf_ctx *g, int flow)
{
    yaml_mapping_start_event_initialize(&g->ev, NULL, NULL, 1, flow ? YAML_FLOW_MAPPING_STYLE
                                                                    : YAML_BLOCK_MAPPING_STYLE);
    emit(g);
}

static void map_end(gf_ctx *g)
{
    yaml_mapping_end_event_initialize(&g->ev);
    emit(g);
}

/* "inst,port" of pin `pin` of element e. */
static void end_ref(gf_ctx *g, const ex_element *e, int pin)
{
    char ref[EX_NAME_MAX + 8];
    snprintf(ref, sizeof ref, "%s,%s", e->name, gf_cards[e->kind].pin[pin]);
    str(g, ref);
}

static void put_instances(gf_ctx *g, const ex_layer *x)
{
    for (int i = 0; i < x->n_el; i++) {
        const ex_element *e = &x->el[i];
        const gf_card *gc = &gf_cards[e->kind];
        int key[OPTINC_CARD_PARAMS_MAX], n = ex_settings(e->kind, key);
        str(g, e->name);
        map_begin(g, 1);
        str(g, "component");
        str(g, gc->component);
        if (gc->sized) {
            str(g, "settings");
            map_begin(g, 1);
            str(g, "length");
            num(g, g->layout->mzi_length_um);
            map_end(g);
        }
        str(g, "info");
        map_begin(g, 1);
        str(g, "card");
        str(g, optinc_cards[e->kind].name);
        for (int k = 0; k < n; k++) {
            str(g, optinc_cards[e->kind].param[key[k]].key);
            num(g, e->v[key[k]]);
        }
        map_end(g);
        map_end(g);
    }
}

static void put_placements(gf_ctx *g, const ex_layer *x)
{
    for (int i = 0; i < x->n_el; i++) {
        const ex_element *e = &x->el[i];
        double px, py;
        optinc_place_xy(g->layout, e->column, e->mode, &px, &py);
        str(g, e->name);
        map_begin(g, 1);
        str(g, "x");
        num(g, px);
        str(g, "y");
        num(g, py);
        if (gf_cards[e->kind].rotation) {
            str(g, "rotation");
            integer(g, gf_cards[e->kind].rotation);
        }
        map_end(g);
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

/* Bundle layer_<L>: its inner waveguides, and those from the layer before
 * into it. */
static void put_routes(gf_ctx *g, const ex_layer *x, const ex_layer *before)
{
    char name[EX_NAME_MAX];
    snprintf(name, sizeof name, "layer_%s", x->L->name);
    str(g, name);
    map_begin(g, 0);
    str(g, "links");
    map_begin(g, 0);
    for (int k = 0; before && k < before->L->rows; k++) {
        ex_end a = port_end(before, 1, k), b = port_end(x, 0, k);
        end_ref(g, &before->el[a.elem], a.pin);
        end_ref(g, &x->el[b.elem], b.pin);
    }
    for (int n = 0; n < x->n_nets; n++) {
        ex_end a = x->end[n][0], b = x->end[n][1];
        if (a.elem < 0 || b.elem < 0)
            continue;
        end_ref(g, &x->el[a.elem], a.pin);
        end_ref(g, &x->el[b.elem], b.pin);
    }
    map_end(g);
    map_end(g);
}

/* The top-level info: per layer what is electronic and so no instance. */
static void put_info(gf_ctx *g)
{
    const optinc_circuit *c = g->c;
    str(g, "info");
    map_begin(g, 0);
    str(g, "generator");
    str(g, "optinc export (optinc-export(1))");
    str(g, "layers");
    map_begin(g, 0);
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        str(g, L->name);
        map_begin(g, 1);
        str(g, "gain");
        num(g, L->gain);
        str(g, "gained_outputs");
        integer(g, L->rows - L->pass_through);
        str(g, "activation");
        str(g, optinc_activation_names[L->activation]);
        if (L->input_scale) {
            str(g, "input_scale");
            yaml_sequence_start_event_initialize(&g->ev, NULL, NULL, 1, YAML_FLOW_SEQUENCE_STYLE);
            emit(g);
            for (int k = 0; k < L->cols - L->pass_through; k++)
                num(g, L->input_scale[k]);
            yaml_sequence_end_event_initialize(&g->ev);
            emit(g);
        }
        map_end(g);
    }
    map_end(g);
    map_end(g);
}

static void put_document(gf_ctx *g, const ex_layer *x)
{
    const optinc_circuit *c = g->c;
    int n = c->n_layers;
    yaml_stream_start_event_initialize(&g->ev, YAML_UTF8_ENCODING);
    emit(g);
    yaml_document_start_event_initialize(&g->ev, NULL, NULL, NULL, 1);
    emit(g);
    map_begin(g, 0);
    str(g, "name");
    str(g, c->name);
    put_info(g);
    str(g, "instances");
    map_begin(g, 0);
    for (int i = 0; i < n; i++)
        put_instances(g, &x[i]);
    map_end(g);
    str(g, "placements");
    map_begin(g, 0);
    for (int i = 0; i < n; i++)
        put_placements(g, &x[i]);
    map_end(g);
    str(g, "routes");
    map_begin(g, 0);
    for (int i = 0; i < n; i++)
        put_routes(g, &x[i], i ? &x[i - 1] : NULL);
    map_end(g);
    str(g, "ports");
    map_begin(g, 0);
    for (int side = 0; side < 2; side++) {
        const ex_layer *l = &x[side ? n - 1 : 0];
        for (int k = 0; k < (side ? l->L->rows : l->L->cols); k++) {
            char port[32];
            ex_end e = port_end(l, side, k);
            snprintf(port, sizeof port, "%s%d", side ? "out" : "in", k);
            str(g, port);
            end_ref(g, &l->el[e.elem], e.pin);
        }
    }
    map_end(g);
    map_end(g);
    yaml_document_end_event_initialize(&g->ev, 1);
    emit(g);
    yaml_stream_end_event_initialize(&g->ev);
    emit(g);
}

static optinc_status put_yaml(FILE *f, const void *ctx, optinc_error *err)
{
    gf_ctx g = *(const gf_ctx *)ctx;
    const optinc_circuit *c = g.c;
    int n = c->n_layers;
    ex_layer *x = calloc((size_t)n, sizeof *x);
    optinc_status st = x ? OPTINC_OK
                         : optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory exporting");
    for (int i = 0; !st && i < n; i++)
        st = ex_layer_build(c, i, &x[i], err);
    if (!st && !yaml_emitter_initialize(&g.em))
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory exporting");
    else if (!st) {
        yaml_emitter_set_output(&g.em, write_handler, f);
        yaml_emitter_set_unicode(&g.em, 1);
        yaml_emitter_set_width(&g.em, -1);     /* no folded lines */
        put_document(&g, x);
        if (g.failed)
            st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "cannot write the YAML: %s",
                             g.em.problem ? g.em.problem : "I/O error");
        yaml_emitter_delete(&g.em);
    }
    for (int i = 0; x && i < n; i++)
        ex_layer_free(&x[i]);
    free(x);
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
