/*
 * gds.c - the compiled circuit as a GDSII layout (optinc_export_gds,
 * export.h; the format is optinc-gds(5)).
 *
 * A layout a designer starts from, not a foundry PDK: one cell per element
 * kind the circuit uses, named after its netlist card (mzi, ps, att, term,
 * split, comb) and a waveguide crossing (xing); a top cell named after the
 * circuit that references every element of the netlist's walk (walk.h) at
 * its place on the shared grid (export.h), labels it with its instance
 * name, routes a waveguide PATH for every net between the two pins it
 * joins, and puts a crossing cell wherever two nets' waveguides cross.
 * Every heater (and attenuator junction) has its own pad.
 *
 * Where the elements go: column k of the grid at x = X(k), an element on
 * mode m at y = m * Q.  Pins lie on lanes a quarter of the mode pitch
 * apart: an element's pins on lanes 4m (its mode) and 4m + 2 (a split's
 * coupled output, a comb's coupled input, half a pitch up); the routing
 * channels use the odd lanes.  A segmented layer's elements take the rows
 * their light is on: link k of split chain x the row of its tap,
 * optinc_split_target(x, k); link k of comb chain y the row of the block
 * column it adds, optinc_combine_source(y, k + 1); a blocked attenuator its
 * input mode.
 *
 * How a net is routed: along its source pin's lane; when its sink's lane
 * differs, it turns in the channel right after the source's column (a
 * vertical track of its own), runs on the odd lane just above its sink's
 * lane to the channel's end, steps down onto that lane and goes on to the
 * sink.  A channel is as wide as its turning nets need (one track pitch
 * each), so X(k) = k * column pitch + the widths of the channels up to
 * column k: the grid itself where no net turns (a circuit without
 * segmented layers).  The pass-through waveguides of a segmented layer
 * (thru cards) run from the layer's input to its output and turn in the
 * channel after the layer's first column.  Every lane's horizontal pieces
 * and the elements on it are checked not to overlap before anything is
 * written; where a vertical track crosses another net's lane, both
 * waveguides stop half a crossing short and a crossing cell joins them.
 *
 * Everything is checked before the file is opened (names, the layout,
 * coordinates within GDSII's 32-bit range, the routes), so the output is
 * either complete or not there.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "compiler/export/gds_stream.h"
#include "compiler/export/walk.h"
#include "compiler/netlist/walk.h"
#include "optinc/export.h"
#include "optinc/fileio.h"

/* The layer map (optinc-gds(5), LAYERS). */
static const gds_layer LAYER_WAVEGUIDE = {1, 0};
static const gds_layer LAYER_NAME = {10, 0};       /* element names (TEXT) */
static const gds_layer LAYER_PORT = {11, 0};       /* the circuit's ports (TEXT) */
static const gds_layer LAYER_PAD = {45, 0};        /* a heater's or junction's pad */
static const gds_layer LAYER_WIRE = {46, 0};       /* from the heater to its pad */
static const gds_layer LAYER_HEATER = {47, 0};
static const gds_layer LAYER_ATTENUATOR = {48, 0}; /* the attenuator's junction */
static const gds_layer LAYER_ABSORBER = {49, 0};   /* a terminator's absorber */
static const gds_layer LAYER_FLOORPLAN = {99, 0};  /* the die, and its size (TEXT) */

/* Drawn sizes in nm (the database unit). */
#define WAVEGUIDE_WIDTH 500
#define HEATER_WIDTH 2000
#define WIRE_WIDTH 2000
#define COUPLER_SEPARATION 800   /* centre to centre in a coupler: a 300 nm gap */
#define TRACK_PITCH 10000        /* between the vertical tracks of a channel */
#define CROSSING 6000            /* the arms of a crossing, end to end */
/* The smallest layout these fit in: heaters clear of the next mode, the
 * four sections of an MZI long enough to draw; with routing channels, a
 * quarter pitch between lanes that a crossing and its clearance fit in. */
#define MODE_PITCH_MIN_UM 5.0
#define MZI_LENGTH_MIN_UM 10.0
#define ROUTED_MODE_PITCH_MIN_UM 32.0

/* The cells, in the order they are written (xing is no card). */
enum { CELL_MZI, CELL_PS, CELL_ATT, CELL_TERM, CELL_SPLIT, CELL_COMB, CELL_XING, N_CELLS };
static const char *const CELL_NAME[N_CELLS] = {"mzi", "ps", "att", "term", "split", "comb",
                                               "xing"};

static int cell_of(optinc_card_kind k)
{
    switch (k) {
    case OPTINC_CARD_MZI: return CELL_MZI;
    case OPTINC_CARD_PS: return CELL_PS;
    case OPTINC_CARD_ATT: return CELL_ATT;
    case OPTINC_CARD_TERM: return CELL_TERM;
    case OPTINC_CARD_SPLIT: return CELL_SPLIT;
    case OPTINC_CARD_COMB: return CELL_COMB;
    default: return -1;    /* thru: a routed waveguide, no cell */
    }
}

/* One end of a route: on a lane (in quarter mode pitches) at the start of
 * grid column `column` (side 0) or at the end of its elements (side 1). */
typedef struct end_xy {
    int lane, column, side;
    int64_t x;            /* once the columns have their x */
} end_xy;

typedef struct route {
    end_xy a, b;          /* from the source pin to the sink pin */
    int channel;          /* the channel it turns in (before that column), -1: straight */
    int64_t xt, xs;       /* its track and where it steps down onto b's lane */
} route;

typedef struct crossing {
    int route;            /* the route it lies on (each crossing is listed for both) */
    int track;            /* 1 on the route whose track it is (where the cell goes) */
    int64_t x, y;
} crossing;

typedef struct span {     /* a horizontal piece on one lane */
    int lane;
    int64_t x0, x1;
} span;

typedef struct writer {
    FILE *f;
    const optinc_circuit *c;
    optinc_layout grid;          /* the layout, pitches rounded to whole nm */
    int32_t length, pitch;       /* of every element cell; the mode pitch, nm */
    int columns, modes;
    ex_layer *x;                 /* every layer's walk */
    int *start;                  /* per layer: its first grid column (n_layers + 1) */
    int **row;                   /* per layer, per element: the row it is drawn on */
    int64_t *X;                  /* per column 0..columns: x of its elements, nm */
    int64_t *width;              /* per channel 0..columns: its width, nm */
    route *r;
    int n_r, cap_r;
    crossing *xc;
    size_t n_xc, cap_xc;
    int used[N_CELLS];
} writer;

static int32_t nm(double um) { return (int32_t)llround(um * 1000); }
static int64_t lane_y(const writer *w, int lane) { return (int64_t)lane * w->pitch / 4; }

/* ------------------------------------------------------------------ cells */

static void put_box(FILE *f, gds_layer l, int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
    gds_boundary(f, l, (const int32_t[]){x0, y0, x1, y0, x1, y1, x0, y1}, 4);
}

/* A heater (or junction, or absorber) over the waveguide at y = 0 from x0
 * to x1. */
static void put_strip(FILE *f, gds_layer l, int32_t x0, int32_t x1)
{
    put_box(f, l, x0, -HEATER_WIDTH / 2, x1, HEATER_WIDTH / 2);
}

/* The pad of a heater whose middle is at x: a square of side `side` a
 * quarter pitch above its waveguide, and the wire up to it. */
static void put_pad(FILE *f, int32_t x, int32_t pitch, int32_t side)
{
    put_box(f, LAYER_PAD, x - side / 2, pitch / 4 - side / 2, x + side / 2, pitch / 4 + side / 2);
    put_box(f, LAYER_WIRE, x - WIRE_WIDTH / 2, 0, x + WIRE_WIDTH / 2, pitch / 4);
}

/* A coupler's bent waveguide: from (0, h) to (len, h) coming down to
 * COUPLER_SEPARATION above y = 0 over the second quarter (from y = pitch -
 * h when mirrored: the MZI's upper arm). */
static void bent(int32_t len, int32_t h, int32_t near, int two, int32_t *xy, int *n)
{
    int32_t q = len / 4;
    int32_t pts[] = {0, h, q, h, q + q / 3, near, 2 * q - q / 3, near, 2 * q, h,
                     3 * q, h, 3 * q + q / 3, near, len - q / 3, near, len, h};
    *n = two ? 9 : 6;
    memcpy(xy, pts, sizeof(int32_t) * 2 * (size_t)(two ? 9 : 5));
    if (!two) {
        xy[10] = len;
        xy[11] = h;
    }
}

/* The MZI on modes m (y = 0) and m + 1 (y = pitch), in four sections of a
 * quarter of its length: the phi heater on mode m's input, coupler A, the
 * arms with the theta heater on mode m's, coupler B.  In a coupler the
 * waveguides bend to COUPLER_SEPARATION apart about the middle of the two
 * modes, run a third of the section, and bend back. */
static void put_mzi_cell(FILE *f, int32_t len, int32_t pitch, int32_t side)
{
    int32_t q = len / 4, near = pitch / 2 - COUPLER_SEPARATION / 2, xy[18];
    int n;
    bent(len, 0, near, 1, xy, &n);
    gds_path(f, LAYER_WAVEGUIDE, WAVEGUIDE_WIDTH, xy, n);
    for (int i = 1; i < 18; i += 2)
        xy[i] = pitch - xy[i];
    gds_path(f, LAYER_WAVEGUIDE, WAVEGUIDE_WIDTH, xy, n);
    put_strip(f, LAYER_HEATER, q / 8, q - q / 8);
    put_strip(f, LAYER_HEATER, 2 * q + q / 8, 3 * q - q / 8);
    put_pad(f, q / 2, pitch, side);
    put_pad(f, 2 * q + q / 2, pitch, side);
}

/* A straight waveguide the cell's length long, under its strip: a heater
 * (ps) or a junction (att) over the middle three quarters, with its pad,
 * or an absorber over the whole (term, which ends or starts a waveguide
 * from either side). */
static void put_line_cell(FILE *f, int32_t len, int32_t pitch, int32_t side, gds_layer strip,
                          int whole)
{
    gds_path(f, LAYER_WAVEGUIDE, WAVEGUIDE_WIDTH, (const int32_t[]){0, 0, len, 0}, 2);
    put_strip(f, strip, whole ? 0 : len / 8, whole ? len : len - len / 8);
    if (!whole)
        put_pad(f, len / 2, pitch, side);
}

/* A fixed 2x2 coupler with one port terminated: the straight waveguide on
 * lane 0 and the bent one on lane 2 (half a pitch up) coupled in the
 * second quarter.  split: the bent one starts under an absorber (in, then
 * out0 straight, out1 bent); comb: it ends under one (in0 bent, in1 and
 * out straight). */
static void put_chain_cell(FILE *f, int32_t len, int32_t pitch, int split)
{
    int32_t xy[18];
    int n;
    gds_path(f, LAYER_WAVEGUIDE, WAVEGUIDE_WIDTH, (const int32_t[]){0, 0, len, 0}, 2);
    bent(len, pitch / 2, COUPLER_SEPARATION, 0, xy, &n);
    gds_path(f, LAYER_WAVEGUIDE, WAVEGUIDE_WIDTH, xy, n);
    int32_t x0 = split ? 0 : len - len / 8, x1 = split ? len / 8 : len;
    put_box(f, LAYER_ABSORBER, x0, pitch / 2 - HEATER_WIDTH / 2, x1, pitch / 2 + HEATER_WIDTH / 2);
}

static void put_cell(const writer *w, int cell)
{
    int32_t len = w->length, p = w->pitch;
    int32_t side = p / 5 < 3 * len / 16 ? p / 5 : 3 * len / 16;   /* the pads' side */
    gds_str_begin(w->f, CELL_NAME[cell]);
    if (cell == CELL_MZI)
        put_mzi_cell(w->f, len, p, side);
    else if (cell == CELL_PS || cell == CELL_ATT || cell == CELL_TERM)
        put_line_cell(w->f, len, p, side,
                      cell == CELL_PS ? LAYER_HEATER : cell == CELL_ATT ? LAYER_ATTENUATOR
                                                                        : LAYER_ABSORBER,
                      cell == CELL_TERM);
    else if (cell == CELL_XING) {
        gds_path(w->f, LAYER_WAVEGUIDE, WAVEGUIDE_WIDTH,
                 (const int32_t[]){-CROSSING / 2, 0, CROSSING / 2, 0}, 2);
        gds_path(w->f, LAYER_WAVEGUIDE, WAVEGUIDE_WIDTH,
                 (const int32_t[]){0, -CROSSING / 2, 0, CROSSING / 2}, 2);
    } else
        put_chain_cell(w->f, len, p, cell == CELL_SPLIT);
    gds_str_end(w->f);
}

/* -------------------------------------------------------------- placement */

/* The row element i of layer l is drawn on (the header's rules); att_k
 * counts the attenuators of a blocked column. */
static int element_row(const writer *w, int l, int i, int *att_k)
{
    const ex_element *e = &w->x[l].el[i];
    const optinc_layer *L = w->x[l].L;
    if (e->stage >= L->n_stages)
        return e->mode;
    const optinc_stage *s = &L->stage[e->stage];
    int k = e->column - w->start[l] - nl_stage_column(L, e->stage);
    if (e->kind == OPTINC_CARD_SPLIT)
        return optinc_split_target(s, e->mode, k);
    if (e->kind == OPTINC_CARD_COMB)
        return optinc_combine_source(s, e->mode, k + 1);
    if (e->kind == OPTINC_CARD_ATT && s->kind == OPTINC_STAGE_ATT) {
        int in, out;
        optinc_att_channel(s, (*att_k)++, &in, &out);
        return in;
    }
    return e->mode;
}

/* The lane of pin `pin` of element e drawn on `row`. */
static int pin_lane(const ex_element *e, int row, int pin)
{
    switch (e->kind) {
    case OPTINC_CARD_MZI: return 4 * row + 4 * (pin & 1);
    case OPTINC_CARD_SPLIT: return 4 * row + 2 * (pin == 2);
    case OPTINC_CARD_COMB: return 4 * row + 2 * (pin == 0);
    default: return 4 * row;
    }
}

/* End `which` (0: where the light comes from, 1: where it goes) of net n
 * of layer l: an element's pin, or the layer's port at the start of its
 * first column (an input) or of the next layer's (an output). */
static void net_end(const writer *w, int l, int n, int which, end_xy *p)
{
    const ex_layer *x = &w->x[l];
    ex_end e = x->end[n][which];
    if (e.elem < 0) {
        *p = (end_xy){4 * e.pin, w->start[l + which], 0, 0};
        return;
    }
    const ex_element *el = &x->el[e.elem];
    *p = (end_xy){pin_lane(el, w->row[l][e.elem], e.pin), el->column, e.pin >= el->n_in, 0};
}

static optinc_status add_route(writer *w, const route *r)
{
    if (w->n_r == w->cap_r) {
        int cap = w->cap_r ? 2 * w->cap_r : 1024;
        route *n = realloc(w->r, sizeof *n * (size_t)cap);
        if (!n)
            return OPTINC_ERUN;
        w->r = n;
        w->cap_r = cap;
    }
    w->r[w->n_r++] = *r;
    return OPTINC_OK;
}

/* Every net of layer l as a route; a net into a thru is routed with the
 * net out of it, from the layer's input, turning after its first column. */
static optinc_status layer_routes(writer *w, int l, optinc_error *err)
{
    const ex_layer *x = &w->x[l];
    int *into = malloc(sizeof *into * ((size_t)x->n_el + 1));
    if (!into)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    for (int n = 0; n < x->n_nets; n++)
        if (x->end[n][1].elem >= 0)
            into[x->end[n][1].elem] = n;
    optinc_status st = OPTINC_OK;
    for (int n = 0; n < x->n_nets && !st; n++) {
        ex_end s = x->end[n][0], t = x->end[n][1];
        if (s.pin < 0 || t.pin < 0 || (t.elem >= 0 && x->el[t.elem].kind == OPTINC_CARD_THRU))
            continue;
        route r = {.channel = -1};
        int thru = s.elem >= 0 && x->el[s.elem].kind == OPTINC_CARD_THRU;
        net_end(w, l, thru ? into[s.elem] : n, 0, &r.a);
        net_end(w, l, n, 1, &r.b);
        if (r.a.lane != r.b.lane) {
            /* an element's output turns in the next channel, a thru after the
             * layer's first column; a port's net may not turn */
            r.channel = r.a.column + 1;
            if ((s.elem < 0 && !thru) || r.channel > r.b.column)
                st = optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                                 "layer '%s': net %d would turn from mode %g to %g where no "
                                 "routing channel is; the GDSII export cannot route it",
                                 x->L->name, n, r.a.lane / 4.0, r.b.lane / 4.0);
        }
        if (!st && add_route(w, &r))
            st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    }
    free(into);
    return st;
}

/* The channels' widths (a track per turning route, and one for the step
 * down), the columns' x, the routes' ends, tracks and steps. */
static void place_routes(writer *w)
{
    for (int j = 0; j <= w->columns; j++)
        w->width[j] = 0;
    for (int i = 0; i < w->n_r; i++)
        if (w->r[i].channel >= 0)
            w->r[i].xt = ++w->width[w->r[i].channel];   /* its track, 1-based */
    int64_t sum = 0;
    for (int j = 0; j <= w->columns; j++) {
        w->width[j] = w->width[j] ? (w->width[j] + 1) * TRACK_PITCH : 0;
        sum += w->width[j];
        w->X[j] = (int64_t)j * nm(w->grid.column_pitch_um) + sum;
    }
    for (int i = 0; i < w->n_r; i++) {
        route *r = &w->r[i];
        r->a.x = w->X[r->a.column] + (r->a.side ? w->length : 0);
        r->b.x = w->X[r->b.column] + (r->b.side ? w->length : 0);
        if (r->channel >= 0) {
            int64_t c0 = w->X[r->channel] - w->width[r->channel];
            r->xt = c0 + r->xt * TRACK_PITCH;
            r->xs = w->X[r->channel] - TRACK_PITCH / 2;
        }
    }
}

/* ------------------------------------------------------------------ checks */

static int by_lane(const void *a, const void *b)
{
    const span *p = a, *q = b;
    if (p->lane != q->lane)
        return p->lane < q->lane ? -1 : 1;
    return p->x0 < q->x0 ? -1 : p->x0 > q->x0;
}

static int by_route(const void *a, const void *b)
{
    const crossing *p = a, *q = b;
    return p->route < q->route ? -1 : p->route > q->route;
}

static int add_crossing(writer *w, int route, int track, int64_t x, int64_t y)
{
    if (w->n_xc == w->cap_xc) {
        size_t cap = w->cap_xc ? 2 * w->cap_xc : 4096;
        crossing *n = realloc(w->xc, sizeof *n * cap);
        if (!n)
            return -1;
        w->xc = n;
        w->cap_xc = cap;
    }
    w->xc[w->n_xc++] = (crossing){route, track, x, y};
    return 0;
}

/* The horizontal pieces of route i into s (at most 3). */
static int route_spans(const writer *w, int i, span *s)
{
    const route *r = &w->r[i];
    if (r->channel < 0) {
        s[0] = (span){r->a.lane, r->a.x, r->b.x};
        return 1;
    }
    s[0] = (span){r->a.lane, r->a.x, r->xt};
    s[1] = (span){r->b.lane + 1, r->xt, r->xs};
    s[2] = (span){r->b.lane, r->xs, r->b.x};
    return 3;
}

/* The lanes element e drawn on `row` covers over its length (3 at most: an
 * MZI's couplers come to the lane between its modes). */
static int element_lanes(const ex_element *e, int row, int *lane)
{
    for (int k = 0; k < 3; k++)
        lane[k] = 4 * row + 2 * k;
    return e->kind == OPTINC_CARD_MZI ? 3
           : e->kind == OPTINC_CARD_SPLIT || e->kind == OPTINC_CARD_COMB ? 2 : 1;
}

/* No two pieces on a lane overlap, elements included (touching is the
 * same waveguide going on, at a pin or a layer's boundary). */
static optinc_status check_lanes(writer *w, optinc_error *err)
{
    size_t n = 0, cap = 3 * (size_t)w->n_r + 1;
    for (int l = 0; l < w->c->n_layers; l++)
        cap += 3 * (size_t)w->x[l].n_el;
    span *s = malloc(sizeof *s * cap);
    if (!s)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    for (int i = 0; i < w->n_r; i++)
        n += (size_t)route_spans(w, i, s + n);
    for (int l = 0; l < w->c->n_layers; l++)
        for (int i = 0; i < w->x[l].n_el; i++) {
            const ex_element *e = &w->x[l].el[i];
            int lane[3];
            if (cell_of(e->kind) < 0)
                continue;
            for (int k = 0, m = element_lanes(e, w->row[l][i], lane); k < m; k++)
                s[n++] = (span){lane[k], w->X[e->column], w->X[e->column] + w->length};
        }
    qsort(s, n, sizeof *s, by_lane);
    optinc_status st = OPTINC_OK;
    for (size_t i = 1; i < n && !st; i++)
        if (s[i].lane == s[i - 1].lane && s[i].x0 < s[i - 1].x1)
            st = optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                             "circuit '%s': two waveguides would share the lane at y = %.3f um "
                             "from x = %.3f um; the GDSII export cannot route this circuit",
                             w->c->name, (double)lane_y(w, s[i].lane) / 1000,
                             (double)s[i].x0 / 1000);
    free(s);
    return st;
}

/* Where each turning route's track crosses another route's piece: listed
 * for both routes, sorted by route. */
static optinc_status find_crossings(writer *w, optinc_error *err)
{
    for (int i = 0; i < w->n_r; i++) {
        const route *v = &w->r[i];
        if (v->channel < 0)
            continue;
        int up = v->b.lane + 1;
        int lo = v->a.lane < up ? v->a.lane : up, hi = v->a.lane < up ? up : v->a.lane;
        for (int k = 0; k < w->n_r; k++) {
            span h[3];
            for (int q = 0, m = k == i ? 0 : route_spans(w, k, h); q < m; q++)
                if (h[q].lane > lo && h[q].lane < hi && h[q].x0 < v->xt && h[q].x1 > v->xt
                    && (add_crossing(w, i, 1, v->xt, lane_y(w, h[q].lane))
                        || add_crossing(w, k, 0, v->xt, lane_y(w, h[q].lane))))
                    return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
        }
    }
    if (w->n_xc)   /* none: w->xc may be NULL, which qsort may not take */
        qsort(w->xc, w->n_xc, sizeof *w->xc, by_route);
    return OPTINC_OK;
}

/* ---------------------------------------------------------------- drawing */

/* The path under construction, flushed at each crossing and at the end. */
typedef struct pen {
    FILE *f;
    int32_t xy[2 * 8];
    int n;
} pen;

static void pen_to(pen *p, int64_t x, int64_t y)
{
    if (p->n && p->xy[2 * p->n - 2] == (int32_t)x && p->xy[2 * p->n - 1] == (int32_t)y)
        return;
    p->xy[2 * p->n] = (int32_t)x;
    p->xy[2 * p->n + 1] = (int32_t)y;
    p->n++;
}

static void pen_flush(pen *p)
{
    if (p->n >= 2)
        gds_path(p->f, LAYER_WAVEGUIDE, WAVEGUIDE_WIDTH, p->xy, p->n);
    p->n = 0;
}

static int by_distance(const void *a, const void *b)
{
    const int64_t *p = a, *q = b;
    return *p < *q ? -1 : *p > *q;
}

/* The pen on to (x1, y1) along a horizontal or vertical segment, stopping
 * half a crossing short of each of xc[0..n) lying on it and going on half
 * a crossing after it; d has room for n distances. */
static void pen_segment(pen *p, int64_t x1, int64_t y1, const crossing *xc, size_t n,
                        int64_t *d)
{
    int64_t x0 = p->xy[2 * p->n - 2], y0 = p->xy[2 * p->n - 1];
    int horizontal = y0 == y1;
    int64_t from = horizontal ? x0 : y0, to = horizontal ? x1 : y1, dir = to >= from ? 1 : -1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t along = horizontal ? xc[i].x : xc[i].y, across = horizontal ? xc[i].y : xc[i].x;
        if (across == (horizontal ? y0 : x0) && (along - from) * dir > 0
            && (to - along) * dir > 0)
            d[k++] = (along - from) * dir;
    }
    qsort(d, k, sizeof *d, by_distance);
    for (size_t i = 0; i < k; i++) {
        int64_t a = from + dir * (d[i] - CROSSING / 2), b = from + dir * (d[i] + CROSSING / 2);
        pen_to(p, horizontal ? a : x0, horizontal ? y0 : a);
        pen_flush(p);
        pen_to(p, horizontal ? b : x0, horizontal ? y0 : b);
    }
    pen_to(p, x1, y1);
}

/* Every route as PATHs broken at its crossings, then the crossing cells. */
static optinc_status put_routes(writer *w)
{
    int64_t *d = malloc(sizeof *d * (w->n_xc + 1));
    if (!d)
        return OPTINC_ERUN;
    pen p = {w->f, {0}, 0};
    size_t k = 0;
    for (int i = 0; i < w->n_r; i++) {
        const route *r = &w->r[i];
        size_t k0 = k;
        while (k < w->n_xc && w->xc[k].route == i)
            k++;
        int64_t ya = lane_y(w, r->a.lane), yb = lane_y(w, r->b.lane);
        if (r->a.x == r->b.x && ya == yb)
            continue;    /* a layer's port straight onto its first element */
        pen_to(&p, r->a.x, ya);
        if (r->channel >= 0) {
            int64_t yu = lane_y(w, r->b.lane + 1);
            pen_segment(&p, r->xt, ya, w->xc + k0, k - k0, d);
            pen_segment(&p, r->xt, yu, w->xc + k0, k - k0, d);
            pen_segment(&p, r->xs, yu, w->xc + k0, k - k0, d);
            pen_segment(&p, r->xs, yb, w->xc + k0, k - k0, d);
        }
        pen_segment(&p, r->b.x, yb, w->xc + k0, k - k0, d);
        pen_flush(&p);
    }
    for (size_t i = 0; i < w->n_xc; i++)
        if (w->xc[i].track)
            gds_sref(w->f, CELL_NAME[CELL_XING], (int32_t)w->xc[i].x, (int32_t)w->xc[i].y);
    free(d);
    return OPTINC_OK;
}

/* Every element at its place, labelled with its netlist name. */
static void put_elements(const writer *w)
{
    for (int l = 0; l < w->c->n_layers; l++)
        for (int i = 0; i < w->x[l].n_el; i++) {
            const ex_element *e = &w->x[l].el[i];
            int cell = cell_of(e->kind);
            if (cell < 0)
                continue;
            int32_t x = (int32_t)w->X[e->column], y = (int32_t)lane_y(w, 4 * w->row[l][i]);
            gds_sref(w->f, CELL_NAME[cell], x, y);
            int32_t label_y = e->kind == OPTINC_CARD_MZI ? y + w->pitch / 2 : y;
            gds_text(w->f, LAYER_NAME, x + w->length / 2, label_y, e->name);
        }
}

static void put_ports(const writer *w)
{
    const optinc_circuit *c = w->c;
    char name[32];
    for (int k = 0; k < c->layers[0].cols; k++) {
        snprintf(name, sizeof name, "in%d", k);
        gds_text(w->f, LAYER_PORT, (int32_t)w->X[0], (int32_t)lane_y(w, 4 * k), name);
    }
    for (int k = 0; k < c->layers[c->n_layers - 1].rows; k++) {
        snprintf(name, sizeof name, "out%d", k);
        gds_text(w->f, LAYER_PORT, (int32_t)w->X[w->columns], (int32_t)lane_y(w, 4 * k), name);
    }
}

/* The die: the floorplan rectangle, labelled with its size. */
static void put_die(const writer *w)
{
    int32_t half = w->pitch / 2, x1 = (int32_t)w->X[w->columns];
    int32_t y1 = (int32_t)((int64_t)w->modes * w->pitch - half);
    char text[128];
    put_box(w->f, LAYER_FLOORPLAN, 0, -half, x1, y1);
    snprintf(text, sizeof text, "die %.3f mm x %.3f mm = %.3f mm2", x1 / 1e6,
             (y1 + half) / 1e6, x1 / 1e6 * ((y1 + half) / 1e6));
    gds_text(w->f, LAYER_FLOORPLAN, 0, y1, text);
}

/* ------------------------------------------------------------------ checks */

static optinc_status check_layout(const optinc_layout *layout, int routed, optinc_error *err)
{
    double cp = layout->column_pitch_um, mp = layout->mode_pitch_um, len = layout->mzi_length_um;
    double min = routed ? ROUTED_MODE_PITCH_MIN_UM : MODE_PITCH_MIN_UM;
    if (!(mp >= min && mp <= 1e6))
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "layout: mode_pitch_um is %g; the GDSII export needs %g to 1e6 um "
                           "(%s); give a pitch in that range", mp, min,
                           routed ? "a crossing between the lanes a quarter pitch apart of the "
                                    "routing channels a segmented layer needs"
                                  : "heaters clear of the next mode");
    if (!(len >= MZI_LENGTH_MIN_UM && len <= cp && cp <= 1e6))
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "layout: mzi_length_um %g and column_pitch_um %g; the GDSII export "
                           "needs %g um <= mzi_length_um <= column_pitch_um <= 1e6 um; change "
                           "them to fit", len, cp, MZI_LENGTH_MIN_UM);
    return OPTINC_OK;
}

/* Beyond what every export checks: the names the cells take must be
 * distinct, and coordinates must fit in GDSII's 32-bit integers of nm. */
static optinc_status check_extent(const writer *w, optinc_error *err)
{
    const optinc_circuit *c = w->c;
    for (int k = 0; k < N_CELLS; k++)
        if (!strcmp(c->name, CELL_NAME[k]))
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "circuit name '%s' is also the name of a cell of the layout; "
                               "rename the circuit in the spec", c->name);
    double width = (double)w->X[w->columns] + w->grid.column_pitch_um * 1000,
           height = (w->modes + 1) * w->grid.mode_pitch_um * 1000;
    if (width > INT32_MAX || height > INT32_MAX)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "circuit '%s' would be %.0f x %.0f um (%d columns x %d modes), beyond "
                           "the 2147483647 nm GDSII coordinates hold; use smaller pitches in "
                           "the spec's layout: table", c->name, width / 1000, height / 1000,
                           w->columns, w->modes);
    return OPTINC_OK;
}

/* ------------------------------------------------------------------- entry */

static void writer_free(writer *w)
{
    for (int l = 0; w->x && l < w->c->n_layers; l++) {
        ex_layer_free(&w->x[l]);
        free(w->row ? w->row[l] : NULL);
    }
    OPTINC_FREE_ALL(w->x, w->row, w->start, w->X, w->width, w->r, w->xc);
}

/* The walks, the elements' rows, the routes, their x and crossings. */
static optinc_status plan(writer *w, optinc_error *err)
{
    const optinc_circuit *c = w->c;
    int L = c->n_layers;
    w->x = calloc((size_t)L, sizeof *w->x);
    w->row = calloc((size_t)L, sizeof *w->row);
    w->start = malloc(sizeof *w->start * ((size_t)L + 1));
    w->X = malloc(sizeof *w->X * ((size_t)w->columns + 1));
    w->width = malloc(sizeof *w->width * ((size_t)w->columns + 1));
    if (!w->x || !w->row || !w->start || !w->X || !w->width)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    for (int l = 0; l <= L; l++)
        w->start[l] = optinc_place_stage_column(c, l, 0);
    optinc_status st = OPTINC_OK;
    for (int l = 0; l < L && !st; l++) {
        if ((st = ex_layer_build(c, l, &w->x[l], err)))
            break;
        w->row[l] = malloc(sizeof **w->row * ((size_t)w->x[l].n_el + 1));
        if (!w->row[l])
            return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
        for (int i = 0, att_k = 0, stage = -1; i < w->x[l].n_el; i++) {
            if (w->x[l].el[i].stage != stage)
                att_k = 0, stage = w->x[l].el[i].stage;
            int cell = cell_of(w->x[l].el[i].kind);
            w->row[l][i] = element_row(w, l, i, &att_k);
            if (cell >= 0)
                w->used[cell] = 1;
        }
        st = layer_routes(w, l, err);
    }
    if (st)
        return st;
    place_routes(w);
    if ((st = check_extent(w, err)) || (st = check_lanes(w, err)) || (st = find_crossings(w, err)))
        return st;
    w->used[CELL_XING] = w->n_xc > 0;
    return OPTINC_OK;
}

optinc_status optinc_export_gds(const optinc_circuit *c, const optinc_layout *layout,
                                const char *path, optinc_error *err)
{
    int routed = 0;
    for (int l = 0; l < c->n_layers; l++)
        routed |= c->layers[l].seg_rows > 0;
    optinc_status st = check_layout(layout, routed, err);
    if (st || (st = ex_check(c, err)))
        return st;
    writer w = {.c = c};
    w.grid = *layout;
    w.grid.column_pitch_um = nm(layout->column_pitch_um) / 1000.0;
    w.grid.mode_pitch_um = nm(layout->mode_pitch_um) / 1000.0;
    w.length = nm(layout->mzi_length_um);
    w.pitch = nm(layout->mode_pitch_um);
    w.columns = optinc_place_columns(c);
    w.modes = optinc_place_modes(c);
    if ((st = plan(&w, err))) {
        writer_free(&w);
        return st;
    }
    optinc_out o;
    if ((st = optinc_out_open(&o, path, err))) {
        writer_free(&w);
        return st;
    }
    char *buf = malloc(1 << 20);    /* fewer write(2) calls for big meshes */
    if (buf)
        setvbuf(o.f, buf, _IOFBF, 1 << 20);
    w.f = o.f;
    gds_lib_begin(w.f, c->name, 1e-3, 1e-9);    /* 1 nm database unit, 1 um user unit */
    for (int k = 0; k < N_CELLS; k++)
        if (w.used[k])
            put_cell(&w, k);
    gds_str_begin(w.f, c->name);
    put_die(&w);
    put_elements(&w);
    st = put_routes(&w);
    put_ports(&w);
    gds_str_end(w.f);
    gds_lib_end(w.f);
    if (st) {
        optinc_out_abort(&o);
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory writing '%s'", path);
    } else {
        st = optinc_out_commit(&o, err);
    }
    free(buf);
    writer_free(&w);
    return st;
}
