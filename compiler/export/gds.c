/*
 * gds.c - the compiled circuit as a GDSII layout (optinc_export_gds,
 * export.h; the format is optinc-gds(5)).
 *
 * A placement-level layout, for review and for a layout flow to take
 * over, not a foundry PDK: one cell per element kind the circuit uses,
 * named after its netlist card (mzi, ps, att, term), and a top cell named
 * after the circuit that references every element (SREF) at its place on
 * the shared grid (export.h: global column k, mode m at k * column pitch,
 * m * mode pitch), labels it with its netlist instance name
 * (nl_element_name), and draws the waveguides between the elements as
 * PATHs.  The top cell's floorplan rectangle is the grid itself: columns
 * x column pitch by modes x mode pitch, each mode in the middle of its
 * band, so a reader can check the placement against the circuit's counts.
 *
 * How the waveguides are found: an element cell is mzi_length_um long
 * from its origin; the top cell draws, for each mode, the stretches no
 * element covers while the mode exists (a mesh's modes through all its
 * columns; after an attenuator column only its output modes).  The walk
 * goes column by column and keeps, per mode, where the waveguide that is
 * open began, so each maximal stretch is one PATH and nothing is stored.
 *
 * Everything is checked before the file is opened (names, the layout,
 * coordinates within GDSII's 32-bit range), so the output is either
 * complete or not there.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/export/gds_stream.h"
#include "compiler/export/walk.h"
#include "compiler/netlist/dialect.h"
#include "optinc/export.h"
#include "optinc/fileio.h"

/* The layer map (optinc-gds(5), LAYERS). */
static const gds_layer LAYER_WAVEGUIDE = {1, 0};
static const gds_layer LAYER_NAME = {10, 0};       /* element names (TEXT) */
static const gds_layer LAYER_PORT = {11, 0};       /* the circuit's ports (TEXT) */
static const gds_layer LAYER_HEATER = {47, 0};
static const gds_layer LAYER_ATTENUATOR = {48, 0}; /* the attenuator's junction */
static const gds_layer LAYER_ABSORBER = {49, 0};   /* the terminator's absorber */
static const gds_layer LAYER_FLOORPLAN = {99, 0};

/* Drawn sizes in nm (the database unit). */
#define WAVEGUIDE_WIDTH 500
#define HEATER_WIDTH 2000
#define COUPLER_SEPARATION 800   /* centre to centre in a coupler: a 300 nm gap */
/* The smallest layout these fit in: heaters clear of the next mode, the
 * four sections of an MZI long enough to draw. */
#define MODE_PITCH_MIN_UM 5.0
#define MZI_LENGTH_MIN_UM 10.0

/* The element kinds, in the order their cells are written. */
static const optinc_card_kind CELL_KINDS[] = {OPTINC_CARD_MZI, OPTINC_CARD_PS, OPTINC_CARD_ATT,
                                              OPTINC_CARD_TERM};
#define N_CELL_KINDS ((int)(sizeof CELL_KINDS / sizeof CELL_KINDS[0]))

typedef struct writer {
    FILE *f;
    const optinc_circuit *c;
    optinc_layout grid;          /* the layout, pitches rounded to whole nm */
    int32_t length;              /* of every element cell, nm */
    int columns, modes;
    int32_t *open;               /* per mode: x where its open waveguide began, or -1 */
} writer;

static int32_t nm(double um) { return (int32_t)llround(um * 1000); }

static void place(const writer *w, int column, int mode, int32_t *x, int32_t *y)
{
    double x_um, y_um;
    optinc_place_xy(&w->grid, column, mode, &x_um, &y_um);
    *x = nm(x_um);
    *y = nm(y_um);
}

/* ------------------------------------------------------------------ cells */

static void put_box(FILE *f, gds_layer l, int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
    gds_boundary(f, l, (const int32_t[]){x0, y0, x1, y0, x1, y1, x0, y1}, 4);
}

/* A heater (or junction, or absorber) over the waveguide at y = 0 from x0
 * to x1. */
static void put_pad(FILE *f, gds_layer l, int32_t x0, int32_t x1)
{
    put_box(f, l, x0, -HEATER_WIDTH / 2, x1, HEATER_WIDTH / 2);
}

/* The MZI on modes m (y = 0) and m + 1 (y = mode pitch), in four sections
 * of a quarter of its length: the phi heater on mode m's input, coupler A,
 * the arms with the theta heater on mode m's, coupler B.  In a coupler the
 * waveguides bend (straight segments) to COUPLER_SEPARATION apart about
 * the middle of the two modes, run a third of the section, and bend back. */
static void put_mzi_cell(FILE *f, int32_t len, int32_t pitch)
{
    int32_t q = len / 4, near = pitch / 2 - COUPLER_SEPARATION / 2;
    int32_t lower[18] = {0, 0, q, 0, q + q / 3, near, 2 * q - q / 3, near, 2 * q, 0,
                         3 * q, 0, 3 * q + q / 3, near, len - q / 3, near, len, 0};
    int32_t upper[18];
    for (int i = 0; i < 18; i += 2) {
        upper[i] = lower[i];
        upper[i + 1] = pitch - lower[i + 1];
    }
    gds_path(f, LAYER_WAVEGUIDE, WAVEGUIDE_WIDTH, lower, 9);
    gds_path(f, LAYER_WAVEGUIDE, WAVEGUIDE_WIDTH, upper, 9);
    put_pad(f, LAYER_HEATER, q / 8, q - q / 8);
    put_pad(f, LAYER_HEATER, 2 * q + q / 8, 3 * q - q / 8);
}

/* A straight waveguide the cell's length long, under its pad: a heater
 * (ps), a junction (att) over the middle three quarters, or an absorber
 * over the whole (term, which ends or starts a waveguide from either side). */
static void put_line_cell(FILE *f, int32_t len, gds_layer pad, int whole)
{
    gds_path(f, LAYER_WAVEGUIDE, WAVEGUIDE_WIDTH, (const int32_t[]){0, 0, len, 0}, 2);
    put_pad(f, pad, whole ? 0 : len / 8, whole ? len : len - len / 8);
}

static void put_cell(const writer *w, optinc_card_kind kind)
{
    gds_str_begin(w->f, optinc_cards[kind].name);
    if (kind == OPTINC_CARD_MZI)
        put_mzi_cell(w->f, w->length, nm(w->grid.mode_pitch_um));
    else if (kind == OPTINC_CARD_PS)
        put_line_cell(w->f, w->length, LAYER_HEATER, 0);
    else if (kind == OPTINC_CARD_ATT)
        put_line_cell(w->f, w->length, LAYER_ATTENUATOR, 0);
    else
        put_line_cell(w->f, w->length, LAYER_ABSORBER, 1);
    gds_str_end(w->f);
}

/* ------------------------------------------------------------- waveguides */

/* Ends the open waveguide of mode m at x, drawing it when it has a length. */
static void close_waveguide(writer *w, int m, int32_t x)
{
    if (w->open[m] >= 0 && w->open[m] < x) {
        int32_t x0, y;
        place(w, 0, m, &x0, &y);
        gds_path(w->f, LAYER_WAVEGUIDE, WAVEGUIDE_WIDTH, (const int32_t[]){w->open[m], y, x, y},
                 2);
    }
    w->open[m] = -1;
}

/* Column `column`: an element covers mode m where covered[m]; a covered
 * mode's waveguide ends at the element and starts again after it when
 * m < modes_after; an uncovered mode below `modes` passes through (its
 * waveguide goes on); the modes from `modes` up are dark. */
static void walk_column(writer *w, int column, const unsigned char *covered, int modes,
                        int modes_after)
{
    int32_t x, y;
    place(w, column, 0, &x, &y);
    for (int m = 0; m < w->modes; m++)
        if (m >= modes || covered[m]) {
            close_waveguide(w, m, x);
            if (m < modes && m < modes_after)
                w->open[m] = x + w->length;
        }
}

/* ---------------------------------------------------------------- elements */

static void put_element(const writer *w, optinc_card_kind kind, const char *layer, char tag,
                        int column, int row, int global_column)
{
    char name[256];
    int32_t x, y;
    nl_element_name(name, sizeof name, "", kind, layer, tag, column, row);
    place(w, global_column, row, &x, &y);
    gds_sref(w->f, optinc_cards[kind].name, x, y);
    int32_t label_y = kind == OPTINC_CARD_MZI ? y + nm(w->grid.mode_pitch_um) / 2 : y;
    gds_text(w->f, LAYER_NAME, x + w->length / 2, label_y, name);
}

/* A mesh from global column col0: its MZIs in netlist order, then column
 * by column the waveguides they cut, then the output screen. */
static optinc_status put_mesh(writer *w, const optinc_layer *L, const optinc_stage *s,
                              int col0)
{
    const optinc_mesh *M = s->mesh;
    size_t cells = (size_t)(M->n_columns > 0 ? M->n_columns : 1) * (size_t)M->modes;
    unsigned char *covered = calloc(cells, 1);
    if (!covered)
        return OPTINC_ERUN;
    for (int i = 0; i < M->n_mzi; i++) {
        const optinc_mzi *z = &M->mzi[i];
        put_element(w, OPTINC_CARD_MZI, L->name, s->tag, z->column, z->mode, col0 + z->column);
        covered[(size_t)z->column * (size_t)M->modes + (size_t)z->mode] = 1;
        covered[(size_t)z->column * (size_t)M->modes + (size_t)z->mode + 1] = 1;
    }
    for (int j = 0; j < M->n_columns; j++)
        walk_column(w, col0 + j, covered + (size_t)j * (size_t)M->modes, M->modes, M->modes);
    memset(covered, 1, (size_t)M->modes);
    for (int m = 0; m < M->modes; m++)
        put_element(w, OPTINC_CARD_PS, L->name, s->tag, M->n_columns, m, col0 + M->n_columns);
    walk_column(w, col0 + M->n_columns, covered, M->modes, M->modes);
    free(covered);
    return OPTINC_OK;
}

/* An attenuator column: channel k's att, a term on each extra input (its
 * waveguide ends) and on each extra output (its waveguide starts dark). */
static optinc_status put_att(writer *w, const optinc_layer *L, const optinc_stage *s, int col)
{
    int extra = s->modes_in > s->modes_out ? s->modes_in : s->modes_out;
    unsigned char *covered = malloc((size_t)extra);
    if (!covered)
        return OPTINC_ERUN;
    memset(covered, 1, (size_t)extra);
    for (int k = 0; k < extra; k++)
        put_element(w, k < s->n_att ? OPTINC_CARD_ATT : OPTINC_CARD_TERM, L->name, 0, 0, k, col);
    walk_column(w, col, covered, extra, s->modes_out);
    free(covered);
    return OPTINC_OK;
}

static void put_ports(const writer *w)
{
    const optinc_circuit *c = w->c;
    char name[32];
    int32_t x, y;
    for (int k = 0; k < c->layers[0].cols; k++) {
        snprintf(name, sizeof name, "in%d", k);
        place(w, 0, k, &x, &y);
        gds_text(w->f, LAYER_PORT, x, y, name);
    }
    for (int k = 0; k < c->layers[c->n_layers - 1].rows; k++) {
        snprintf(name, sizeof name, "out%d", k);
        place(w, w->columns, k, &x, &y);
        gds_text(w->f, LAYER_PORT, x, y, name);
    }
}

static optinc_status put_top(writer *w)
{
    const optinc_circuit *c = w->c;
    int32_t x1, y1, half = nm(w->grid.mode_pitch_um) / 2;
    place(w, w->columns, w->modes, &x1, &y1);
    gds_str_begin(w->f, c->name);
    put_box(w->f, LAYER_FLOORPLAN, 0, -half, x1, y1 - half);
    for (int m = 0; m < w->modes; m++)
        w->open[m] = m < c->layers[0].cols ? 0 : -1;
    for (int l = 0; l < c->n_layers; l++)
        for (int s = 0; s < c->layers[l].n_stages; s++) {
            const optinc_stage *st = &c->layers[l].stage[s];
            int col = optinc_place_stage_column(c, l, s);
            optinc_status status = st->kind == OPTINC_STAGE_MESH
                                       ? put_mesh(w, &c->layers[l], st, col)
                                       : put_att(w, &c->layers[l], st, col);
            if (status)
                return status;
        }
    for (int m = 0; m < w->modes; m++)
        close_waveguide(w, m, x1);
    put_ports(w);
    gds_str_end(w->f);
    return OPTINC_OK;
}

/* ------------------------------------------------------------------ checks */

static optinc_status check_layout(const optinc_layout *layout, optinc_error *err)
{
    double cp = layout->column_pitch_um, mp = layout->mode_pitch_um, len = layout->mzi_length_um;
    if (!(mp >= MODE_PITCH_MIN_UM && mp <= 1e6))
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "layout: mode_pitch_um is %g; the GDSII export needs %g to 1e6 um "
                           "(heaters clear of the next mode); give a pitch in that range",
                           mp, MODE_PITCH_MIN_UM);
    if (!(len >= MZI_LENGTH_MIN_UM && len <= cp && cp <= 1e6))
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "layout: mzi_length_um %g and column_pitch_um %g; the GDSII export "
                           "needs %g um <= mzi_length_um <= column_pitch_um <= 1e6 um; change "
                           "them to fit", len, cp, MZI_LENGTH_MIN_UM);
    return OPTINC_OK;
}

/* Beyond what every export checks (ex_check): the names the cells take must
 * be distinct, and coordinates must fit in GDSII's 32-bit integers of nm. */
static optinc_status check_circuit(const writer *w, optinc_error *err)
{
    const optinc_circuit *c = w->c;
    for (int k = 0; k < N_CELL_KINDS; k++)
        if (!strcmp(c->name, optinc_cards[CELL_KINDS[k]].name))
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "circuit name '%s' is also the name of an element cell of the "
                               "layout; rename the circuit in the spec", c->name);
    double width = w->columns * w->grid.column_pitch_um * 1000,
           height = w->modes * w->grid.mode_pitch_um * 1000;
    if (width > INT32_MAX || height > INT32_MAX)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "circuit '%s' would be %.0f x %.0f um (%d columns x %d modes), beyond "
                           "the 2147483647 nm GDSII coordinates hold; use smaller pitches in "
                           "the spec's layout: table", c->name, width / 1000, height / 1000,
                           w->columns, w->modes);
    return OPTINC_OK;
}

/* ------------------------------------------------------------------- entry */

static void used_kinds(const optinc_circuit *c, int used[OPTINC_CARD_COUNT])
{
    for (int l = 0; l < c->n_layers; l++)
        for (int s = 0; s < c->layers[l].n_stages; s++) {
            const optinc_stage *st = &c->layers[l].stage[s];
            if (st->kind == OPTINC_STAGE_MESH) {
                used[OPTINC_CARD_MZI] |= st->mesh->n_mzi > 0;
                used[OPTINC_CARD_PS] = 1;
            } else {
                used[OPTINC_CARD_ATT] |= st->n_att > 0;
                used[OPTINC_CARD_TERM] |= st->modes_in != st->n_att || st->modes_out != st->n_att;
            }
        }
}

optinc_status optinc_export_gds(const optinc_circuit *c, const optinc_layout *layout,
                                const char *path, optinc_error *err)
{
    optinc_status st = check_layout(layout, err);
    if (st || (st = ex_check(c, err)) || (st = ex_refuse_segments(c, err)))
        return st;
    writer w = {.c = c};
    w.grid = *layout;
    w.grid.column_pitch_um = nm(layout->column_pitch_um) / 1000.0;
    w.grid.mode_pitch_um = nm(layout->mode_pitch_um) / 1000.0;
    w.length = nm(layout->mzi_length_um);
    w.columns = optinc_place_columns(c);
    w.modes = optinc_place_modes(c);
    if ((st = check_circuit(&w, err)))
        return st;
    w.open = malloc(sizeof *w.open * (size_t)w.modes);
    if (!w.open)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory writing '%s'", path);

    optinc_out o;
    if ((st = optinc_out_open(&o, path, err))) {
        free(w.open);
        return st;
    }
    char *buf = malloc(1 << 20);    /* fewer write(2) calls for big meshes */
    if (buf)
        setvbuf(o.f, buf, _IOFBF, 1 << 20);
    w.f = o.f;
    int used[OPTINC_CARD_COUNT] = {0};
    used_kinds(c, used);
    gds_lib_begin(w.f, c->name, 1e-3, 1e-9);    /* 1 nm database unit, 1 um user unit */
    for (int k = 0; k < N_CELL_KINDS; k++)
        if (used[CELL_KINDS[k]])
            put_cell(&w, CELL_KINDS[k]);
    st = put_top(&w);
    gds_lib_end(w.f);
    if (st) {
        optinc_out_abort(&o);
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory writing '%s'", path);
    } else {
        st = optinc_out_commit(&o, err);
    }
    free(buf);
    free(w.open);
    return st;
}
