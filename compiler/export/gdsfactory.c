/*
 * gdsfactory.c - the gdsfactory export (optinc-export(1), GDSFACTORY): the
 * circuit as one flat gdsfactory YAML netlist (name, instances, placements,
 * connections, ports) on gdsfactory's generic components, placed on the
 * layout grid (export.h).
 *
 * What maps to what: an MZI is a mzi2x2_2x2_phase_shifter, a phase shifter
 * or an attenuator a straight of the MZI length; the programmed values go
 * into each instance's info (a layout flow has no use for them as
 * settings, a reader of the file does).  A terminator is no instance: its
 * waveguide end stays an unconnected port.  gdsfactory numbers ports
 * counter-clockwise from the lower left, and mode m lies below mode m+1
 * (y = m * mode_pitch_um), so an MZI's in0, in1, out1, out0 are its o1, o2,
 * o3, o4 and a straight's in0, out0 its o1, o2.  The layers are joined
 * directly: the electronic gain between them is not a layout element.
 *
 * Numbers are written in the shortest text that reads back exactly, with a
 * ".0" before an exponent that has no point, since YAML 1.1 readers take
 * "1e-05" for a string.
 */
#include <stdlib.h>
#include <string.h>
#include "compiler/export/walk.h"
#include "compiler/netlist/dialect.h"
#include "optinc/fileio.h"

#define MZI_COMPONENT "mzi2x2_2x2_phase_shifter"
#define STRAIGHT_COMPONENT "straight"

typedef struct gf_ctx {
    const optinc_circuit *c;
    const optinc_layout *layout;
} gf_ctx;

static void put_yaml_number(FILE *f, double x)
{
    char buf[OPTINC_SHORTEST_MAX];
    const char *s = optinc_shortest(buf, x), *e = strchr(s, 'e');
    if (e && !memchr(s, '.', (size_t)(e - s)))
        fprintf(f, "%.*s.0%s", (int)(e - s), s, e);
    else
        fputs(s, f);
}

static const char *gf_pin(const ex_element *e, int pin)
{
    static const char *const mzi[] = {"o1", "o2", "o4", "o3"};   /* in0 in1 out0 out1 */
    static const char *const straight[] = {"o1", "o2"};
    return e->kind == OPTINC_CARD_MZI ? mzi[pin] : straight[pin];
}

/* 1 when the end is a pin of an instance this format writes. */
static int placed(const ex_layer *x, ex_end e)
{
    return e.elem >= 0 && x->el[e.elem].kind != OPTINC_CARD_TERM;
}

static void put_end(FILE *f, const ex_layer *x, ex_end e)
{
    fprintf(f, "%s,%s", x->el[e.elem].name, gf_pin(&x->el[e.elem], e.pin));
}

static void put_instances(FILE *f, const ex_layer *x, const optinc_layout *layout)
{
    const optinc_card_param *mz = optinc_cards[OPTINC_CARD_MZI].param;
    for (int i = 0; i < x->n_el; i++) {
        const ex_element *e = &x->el[i];
        if (e->kind == OPTINC_CARD_TERM)
            continue;
        fprintf(f, "  %s:\n", e->name);
        if (e->kind == OPTINC_CARD_MZI) {
            fprintf(f, "    component: %s\n    info: {%s: ", MZI_COMPONENT, mz[MZI_THETA].key);
            put_yaml_number(f, e->v[MZI_THETA]);
            fprintf(f, ", %s: ", mz[MZI_PHI].key);
            put_yaml_number(f, e->v[MZI_PHI]);
            fputs("}\n", f);
            continue;
        }
        int key = e->kind == OPTINC_CARD_PS ? PS_PHASE : ATT_DB;
        fprintf(f, "    component: %s\n    settings: {length: ", STRAIGHT_COMPONENT);
        put_yaml_number(f, layout->mzi_length_um);
        fprintf(f, "}\n    info: {card: %s, %s: ", optinc_cards[e->kind].name,
                optinc_cards[e->kind].param[key].key);
        put_yaml_number(f, e->v[key]);
        fputs("}\n", f);
    }
}

static void put_placements(FILE *f, const ex_layer *x, const optinc_layout *layout)
{
    for (int i = 0; i < x->n_el; i++) {
        const ex_element *e = &x->el[i];
        double px, py;
        if (e->kind == OPTINC_CARD_TERM)
            continue;
        optinc_place_xy(layout, e->column, e->mode, &px, &py);
        fprintf(f, "  %s: {x: ", e->name);
        put_yaml_number(f, px);
        fputs(", y: ", f);
        put_yaml_number(f, py);
        fputs("}\n", f);
    }
}

static void put_inner_connections(FILE *f, const ex_layer *x)
{
    for (int n = 0; n < x->n_nets; n++)
        if (placed(x, x->end[n][0]) && placed(x, x->end[n][1])) {
            fputs("  ", f);
            put_end(f, x, x->end[n][0]);
            fputs(": ", f);
            put_end(f, x, x->end[n][1]);
            fputc('\n', f);
        }
}

/* The end inside layer x of its port `port` on `side` (0 in, 1 out), or
 * elem -1 when nothing placed is there. */
static ex_end port_end(const ex_layer *x, int side, int port)
{
    for (int n = 0; n < x->n_nets; n++)
        if (x->end[n][side].elem < 0 && x->end[n][side].pin == port)
            return placed(x, x->end[n][!side]) ? x->end[n][!side] : (ex_end){-1, -1};
    return (ex_end){-1, -1};
}

static optinc_status put_yaml(FILE *f, const void *ctx, optinc_error *err)
{
    const gf_ctx *g = ctx;
    const optinc_circuit *c = g->c;
    int n = c->n_layers;
    ex_layer *x = calloc((size_t)n, sizeof *x);
    optinc_status st = x ? OPTINC_OK
                         : optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory exporting");
    for (int i = 0; !st && i < n; i++)
        st = ex_layer_build(c, i, &x[i], err);
    if (!st) {
        fprintf(f, "name: %s\n\ninstances:\n", c->name);
        for (int i = 0; i < n; i++)
            put_instances(f, &x[i], g->layout);
        fputs("\nplacements:\n", f);
        for (int i = 0; i < n; i++)
            put_placements(f, &x[i], g->layout);
        fputs("\nconnections:\n", f);
        for (int i = 0; i < n; i++) {
            put_inner_connections(f, &x[i]);
            for (int k = 0; i + 1 < n && k < c->layers[i].rows; k++) {
                ex_end a = port_end(&x[i], 1, k), b = port_end(&x[i + 1], 0, k);
                if (a.elem < 0 || b.elem < 0)
                    continue;
                fputs("  ", f);
                put_end(f, &x[i], a);
                fputs(": ", f);
                put_end(f, &x[i + 1], b);
                fputc('\n', f);
            }
        }
        fputs("\nports:\n", f);
        for (int side = 0; side < 2; side++) {
            const ex_layer *l = &x[side ? n - 1 : 0];
            int ports = side ? l->L->rows : l->L->cols;
            for (int k = 0; k < ports; k++) {
                ex_end e = port_end(l, side, k);
                if (e.elem < 0)
                    continue;
                fprintf(f, "  %s%d: ", side ? "out" : "in", k);
                put_end(f, l, e);
                fputc('\n', f);
            }
        }
    }
    for (int i = 0; x && i < n; i++)
        ex_layer_free(&x[i]);
    free(x);
    return st;
}

optinc_status optinc_export_gdsfactory(const optinc_circuit *c, const optinc_layout *layout,
                                       const char *path, optinc_error *err)
{
    gf_ctx g = {c, layout};
    optinc_status st = ex_check(c, err);
    return st ? st : optinc_out_write(path, put_yaml, &g, err);
}
