/*
 * test_segments.c - segmented layers (segments: [R, G] in a spec): the
 * block form diag(t).Q compiled onto one block-diagonal mesh with fixed
 * split and comb chains, the netlist round trip byte for byte, the ideal
 * simulator rebuilding W, the counts, the device model of the fixed cards,
 * the drawings, and the spec's and the exports' refusals; pass-through
 * waveguides and the input drive scale; the shipped ONN unit, compiled from
 * its trained segments.
 *
 * Bounds: "measured" is the largest value over four BLAS builds on an AVX-512
 * machine (OpenBLAS's Cooperlake, Haswell and Sandybridge kernels, and the
 * reference BLAS/LAPACK).  A netlist holds its numbers in shortest round-trip
 * text, so one read back is the same bits and writes the same bytes.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/calibration.h"
#include "optinc/netlist.h"
#include "optinc/onn.h"
#include "simutil.h"
#include "testutil.h"

#define ROWS 6
#define COLS 12
#define GRID_R 2
#define GRID_G 3
#define BR (ROWS / GRID_R)
#define BC (COLS / GRID_G)

/* W of ROWS x COLS whose every BR x BC block is diag(s).(rows of a rotated
 * 4x4 Hadamard matrix / 2): orthogonal rows, so the block form is exact. */
static void make_w(double w[ROWS][COLS])
{
    static const int H[4][4] = {{1, 1, 1, 1}, {1, -1, 1, -1}, {1, 1, -1, -1}, {1, -1, -1, 1}};
    for (int i = 0; i < GRID_R; i++)
        for (int j = 0; j < GRID_G; j++) {
            int b = i * GRID_G + j;
            double a = 0.3 * (b + 1), ca = cos(a), sa = sin(a);
            for (int r = 0; r < BR; r++) {
                const int *h = H[(r + b) % 4];
                double row[4] = {(ca * h[0] - sa * h[1]) / 2, (sa * h[0] + ca * h[1]) / 2,
                                 h[2] / 2.0, h[3] / 2.0};
                double s = 0.2 + 0.1 * ((3 * b + r) % 8);
                for (int k = 0; k < BC; k++)
                    w[i * BR + r][j * BC + k] = s * row[k];
            }
        }
}

/* Spec text (in a buffer of cap bytes, *n of them used) of one rows x cols
 * matrix W1 whose entry (r, c) is entry(r, c), up to its layers: line. */
static char *matrix_spec(int rows, int cols, double (*entry)(int r, int c), size_t cap, size_t *n)
{
    char *t = malloc(cap);
    *n = (size_t)snprintf(t, cap, "schema_version: 1\nname: seg\nsettings:\n  seed: 1\n"
                          "matrices:\n  W1:\n    shape: [%d, %d]\n    dtype: real\n    data:\n",
                          rows, cols);
    for (int r = 0; r < rows; r++) {
        *n += (size_t)snprintf(t + *n, cap - *n, "      - [");
        for (int c = 0; c < cols; c++)
            *n += (size_t)snprintf(t + *n, cap - *n, "%s%.17g", c ? ", " : "", entry(r, c));
        *n += (size_t)snprintf(t + *n, cap - *n, "]\n");
    }
    *n += (size_t)snprintf(t + *n, cap - *n, "layers:\n  - name: L1\n    matrix: W1\n");
    return t;
}

static double w_entry(int r, int c)
{
    double w[ROWS][COLS];
    make_w(w);
    return w[r][c];
}

/* The spec text of W with `extra` under the layer (segments:, components:). */
static char *spec_text(const char *extra)
{
    size_t n, cap = 16384;
    char *t = matrix_spec(ROWS, COLS, w_entry, cap, &n);
    snprintf(t + n, cap - n, "%s", extra);
    return t;
}

static char *netlist_text(const optinc_circuit *c, int flatten)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    optinc_netlist_options o = {.flatten = flatten, .reproducible = 1};
    optinc_error err;
    char msg[2300];
    cr_assert_eq(optinc_netlist_write_stream(c, f, &o, &err), OPTINC_OK, "%s",
                 optinc_error_format(&err, msg, sizeof msg));
    fclose(f);
    return buf;
}

static optinc_circuit *read_text(const char *text)
{
    optinc_input in = {"seg.pnl.sp", text, strlen(text)};
    optinc_circuit *c = NULL;
    optinc_error err;
    char msg[2300];
    cr_assert_eq(optinc_netlist_parse(&in, NULL, &c, &err), OPTINC_OK, "%s",
                 optinc_error_format(&err, msg, sizeof msg));
    return c;
}

/* The error of W on an ideal chip (chip_error, layer_error): measured
 * 2.1e-16, so 1e-13 leaves a factor 470. */
#define BOUND_IDEAL 1e-13

/* max |W - gain.T'| / gain on a chip of c with the given device models. */
static double chip_error(const optinc_circuit *c, unsigned models)
{
    double w[ROWS][COLS], worst = 0;
    make_w(w);
    optinc_chip *chip = su_chip(c, models, 7);
    optinc_cmat *T = optinc_chip_layer_transfer(chip, 0);
    cr_assert_not_null(T);
    const optinc_layer *L = &c->layers[0];
    for (int r = 0; r < ROWS; r++)
        for (int k = 0; k < COLS; k++) {
            double d = cabs(w[r][k] - L->gain * OPTINC_AT(T, r, k)) / L->gain;
            worst = d > worst ? d : worst;
        }
    optinc_cmat_free(T);
    optinc_chip_free(chip);
    return worst;
}

/* The counts of the 2 x 3 grid of the test's W, and its exact form (errors
 * measured 3.3e-16: 1e-12 leaves a factor 3000). */
static void expect_grid_counts_and_exact(const optinc_layer *L)
{
    cr_expect_eq(optinc_layer_mzis(L), GRID_R * GRID_G * BC * (BC - 1) / 2);
    cr_expect_eq(optinc_layer_attenuators(L), GRID_R * GRID_G * BR + GRID_R * COLS);
    cr_expect_eq(optinc_layer_splitters(L), COLS * (GRID_R - 1));
    cr_expect_eq(optinc_layer_combiners(L), ROWS * (GRID_G - 1));
    cr_expect_lt(L->approximation_error, 1e-12);
    cr_expect_lt(L->reconstruction_error, 1e-12, "%g", L->reconstruction_error);
}

Test(segments, compile_counts_and_exact_form)
{
    char *spec = spec_text("    segments: [2, 3]\n");
    optinc_circuit *c = su_spec_circuit(spec);
    const optinc_layer *L = &c->layers[0];
    cr_expect_eq(L->seg_rows, GRID_R);
    cr_expect_eq(L->seg_cols, GRID_G);
    cr_expect_eq(L->n_stages, 4);
    expect_grid_counts_and_exact(L);
    cr_expect_lt(chip_error(c, OPTINC_DEV_NONE), BOUND_IDEAL);
    optinc_circuit_free(c);
    free(spec);
}

Test(segments, netlist_round_trip_byte_for_byte)
{
    char *spec = spec_text("    segments: [2, 3]\n");
    optinc_circuit *c = su_spec_circuit(spec);
    for (int flatten = 0; flatten < 2; flatten++) {
        char *a = netlist_text(c, flatten);
        cr_expect(strstr(a, " split tap=0.5\n"), "no split card");
        cr_expect(strstr(a, " comb tap=0.33333333333333331\n"), "no comb card of the third link");
        optinc_circuit *back = read_text(a);
        char *b = netlist_text(back, flatten);
        cr_expect_str_eq(a, b, "flatten=%d: the netlist does not read back byte for byte",
                         flatten);
        cr_expect_eq(optinc_layer_splitters(&back->layers[0]), COLS * (GRID_R - 1));
        cr_expect_eq(optinc_layer_combiners(&back->layers[0]), ROWS * (GRID_G - 1));
        cr_expect_lt(chip_error(back, OPTINC_DEV_NONE), BOUND_IDEAL);
        optinc_circuit_free(back);
        free(a);
        free(b);
    }
    optinc_circuit_free(c);
    free(spec);
}

Test(segments, fixed_cards_have_their_own_errors)
{
    /* Splitting error and loss of the fixed cards come from components.mzi;
     * with both at zero the device models change nothing. */
    char *clean = spec_text("    segments: [2, 3]\n");
    char *noisy = spec_text("    segments: [2, 3]\n    components:\n      mzi: "
                            "{splitter_error_sigma: 0.05}\n");
    optinc_circuit *c0 = su_spec_circuit(clean), *c1 = su_spec_circuit(noisy);
    cr_expect_lt(chip_error(c0, OPTINC_DEV_ALL), BOUND_IDEAL);
    cr_expect_gt(chip_error(c1, OPTINC_DEV_COUPLER), 1e-4);
    cr_expect_lt(chip_error(c1, OPTINC_DEV_NONE), BOUND_IDEAL);
    optinc_circuit_free(c0);
    optinc_circuit_free(c1);
    free(clean);
    free(noisy);
}

Test(segments, command_line)
{
    char *dir = tu_tempdir(), spec[4200], net[4200], net2[4200], mat[4200], draw[4200];
    snprintf(spec, sizeof spec, "%s/seg.yaml", dir);
    snprintf(net, sizeof net, "%s/seg.pnl.sp", dir);
    snprintf(net2, sizeof net2, "%s/seg2.pnl.sp", dir);
    snprintf(mat, sizeof mat, "%s/M.npy", dir);
    snprintf(draw, sizeof draw, "%s/draw", dir);
    char *text = spec_text("    segments: [2, 3]\n");
    cr_assert_eq(tu_write_file(spec, text), 0);
    tu_run r = tu_optinc((const char *[]){"compile", spec, "-o", net, "--reproducible", "--json",
                                          NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"splitters\": 12, \"combiners\": 12"), "%s", r.out);
    tu_run_free(&r);
    r = tu_optinc((const char *[]){"netlist", net, "-o", net2, NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    tu_run_free(&r);
    char *a = tu_read_file(net, NULL), *b = tu_read_file(net2, NULL);
    cr_assert(a && b);
    cr_expect_str_eq(a, b);
    r = tu_optinc((const char *[]){"simulate", net, "--ideal", "--matrix", mat, NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    tu_run_free(&r);
    r = tu_optinc((const char *[]){"draw", net, "-o", draw, "--format", "dot", NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_geq(tu_dir_count(draw), 2);
    tu_run_free(&r);
    /* every export takes a segmented layer (python/tests/test_export.py
     * evaluates the text ones; test_gds.c checks the layout's routes) */
    snprintf(mat, sizeof mat, "%s/seg.json", dir);
    r = tu_optinc((const char *[]){"export", net, "--format", "sax", "-o", mat, NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    tu_run_free(&r);
    snprintf(mat, sizeof mat, "%s/seg.gds", dir);
    r = tu_optinc((const char *[]){"export", net, "--format", "gds", "-o", mat, NULL});
    cr_expect_eq(r.status, 0, "%s", r.err);
    tu_run_free(&r);
    free(a);
    free(b);
    free(text);
    tu_rmtree(dir);
    free(dir);
}

Test(segments, spec_refuses_a_grid_that_does_not_fit)
{
    static const char *const bad[] = {"    segments: [4, 3]\n", "    segments: [2]\n",
                                      "    segments: [1, 12]\n", "    segments: [1, 5]\n"};
    char *dir = tu_tempdir(), path[4200];
    snprintf(path, sizeof path, "%s/bad.yaml", dir);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *text = spec_text(bad[i]);
        cr_assert_eq(tu_write_file(path, text), 0);
        optinc_spec *s = NULL;
        optinc_error err;
        cr_expect_eq(optinc_spec_load(path, NULL, &s, &err), OPTINC_EINPUT, "%s", bad[i]);
        cr_expect(strstr(err.message, "'segments'"), "%s: %s", bad[i], err.message);
        optinc_spec_free(s);
        free(text);
    }
    tu_rmtree(dir);
    free(dir);
}

/* ---------------------------------------------------- pass-through modes */

#define PASS 2
#define PROWS (ROWS + PASS)
#define PCOLS (COLS + PASS)

/* The input drive scale of grid input k. */
static double drive(int k) { return 0.25 + 0.05 * k; }

/* Entry (r, c) of W = [W'' diag(d) 0; 0 I] (PROWS x PCOLS): the grid on
 * W'', the last PASS modes waveguides; 0.5 at the entry bad_entry
 * (row-major) when it is >= 0. */
static int bad_entry = -1;

static double pass_entry(int r, int c)
{
    if (r * PCOLS + c == bad_entry)
        return 0.5;
    return r < ROWS && c < COLS ? w_entry(r, c) * drive(c) : (double)(r - ROWS == c - COLS);
}

/* The spec text of that W with the grid, its pass-through and input scale;
 * bad_at >= 0 spoils that entry. */
static char *pass_spec_text(const char *extra, int bad_at)
{
    size_t n, cap = 32768;
    bad_entry = bad_at;
    char *t = matrix_spec(PROWS, PCOLS, pass_entry, cap, &n);
    bad_entry = -1;
    n += (size_t)snprintf(t + n, cap - n, "    segments: [2, 3]\n    pass_through: %d\n"
                          "    input_scale: [", PASS);
    for (int c = 0; c < COLS; c++)
        n += (size_t)snprintf(t + n, cap - n, "%s%.17g", c ? ", " : "", drive(c));
    snprintf(t + n, cap - n, "]\n%s", extra);
    return t;
}

/* max |W - s.T'| / s of layer l on a chip with these device models and
 * drivers, the gain on the rows the stages give; W as the spec gives it. */
static double layer_error(const optinc_circuit *c, int l, const optinc_cmat *W, unsigned models,
                          int drive)
{
    optinc_chip *chip = su_chip_driven(c, models, drive, 7);
    optinc_cmat *T = optinc_chip_layer_transfer(chip, l);
    cr_assert_not_null(T);
    const optinc_layer *L = &c->layers[l];
    cr_assert(T->rows == W->rows && T->cols == W->cols);
    optinc_layer_apply_gain(L, L->gain, T);
    double worst = 0;
    for (int i = 0; i < W->rows * W->cols; i++) {
        double d = cabs(W->a[i] - T->a[i]) / L->gain;
        worst = d > worst ? d : worst;
    }
    optinc_cmat_free(T);
    optinc_chip_free(chip);
    return worst;
}

/* The rows x cols matrix of entry(r, c). */
static optinc_cmat *entry_matrix(int rows, int cols, double (*entry)(int, int))
{
    optinc_cmat *W = optinc_cmat_new(rows, cols);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            OPTINC_AT(W, r, c) = entry(r, c);
    return W;
}

static optinc_cmat *pass_w(void)
{
    return entry_matrix(PROWS, PCOLS, pass_entry);
}

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p++)
        n++;
    return n;
}

Test(segments, pass_through_round_trip_byte_for_byte)
{
    char *spec = pass_spec_text("", -1);
    optinc_circuit *c = su_spec_circuit(spec);
    optinc_cmat *W = pass_w();
    const optinc_layer *L = &c->layers[0];
    cr_expect_eq(L->pass_through, PASS);
    /* the waveguides cost nothing: the grid's counts alone */
    expect_grid_counts_and_exact(L);
    cr_expect_lt(layer_error(c, 0, W, OPTINC_DEV_NONE, OPTINC_DRIVE_CODES), BOUND_IDEAL);
    for (int flatten = 0; flatten < 2; flatten++) {
        char *a = netlist_text(c, flatten);
        cr_expect_eq(count_of(a, " thru\n"), PASS, "flatten=%d: %s", flatten, a);
        cr_expect(strstr(a, "*! layer.L1.segments = rows=2 cols=3 pass_through=2\n"), "%s", a);
        cr_expect(strstr(a, "*! layer.L1.input_scale = in0=0.25 in1=0.29999999999999999 "), "%s",
                  a);
        optinc_circuit *back = read_text(a);
        char *b = netlist_text(back, flatten);
        cr_expect_str_eq(a, b, "flatten=%d: the netlist does not read back byte for byte",
                         flatten);
        cr_expect_eq(back->layers[0].pass_through, PASS);
        cr_expect_lt(layer_error(back, 0, W, OPTINC_DEV_NONE, OPTINC_DRIVE_CODES), BOUND_IDEAL);
        optinc_circuit_free(back);
        free(a);
        free(b);
    }
    /* the waveguides keep their light on a chip with every device error,
     * exactly: no device model touches a thru card */
    optinc_chip *chip = su_chip(c, OPTINC_DEV_ALL, 3);
    optinc_cmat *T = optinc_chip_layer_transfer(chip, 0);
    for (int r = ROWS; r < PROWS; r++)
        for (int k = 0; k < PCOLS; k++)
            cr_expect_eq(OPTINC_AT(T, r, k), (double)(r - ROWS == k - COLS), "T[%d][%d]", r, k);
    optinc_cmat_free(T);
    optinc_chip_free(chip);
    optinc_cmat_free(W);
    optinc_circuit_free(c);
    free(spec);
}

/* Loads spec text; the status, and the message in err. */
static optinc_status load_text(const char *text, optinc_error *err)
{
    char *dir = tu_tempdir(), path[4200];
    snprintf(path, sizeof path, "%s/bad.yaml", dir);
    cr_assert_eq(tu_write_file(path, text), 0);
    optinc_spec *s = NULL;
    optinc_status st = optinc_spec_load(path, NULL, &s, err);
    optinc_spec_free(s);
    tu_rmtree(dir);
    free(dir);
    return st;
}

Test(segments, spec_refuses_a_pass_through_w_does_not_have)
{
    optinc_error err;
    /* an entry off the waveguides' identity: a pass row, a pass column, the diagonal */
    static const int bad[] = {ROWS * PCOLS + 0, 0 * PCOLS + COLS + 1,
                              (PROWS - 1) * PCOLS + PCOLS - 1};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *text = pass_spec_text("", bad[i]);
        cr_expect_eq(load_text(text, &err), OPTINC_EINPUT, "entry %d", bad[i]);
        cr_expect(strstr(err.message, "passes its last 2 modes through"), "%s", err.message);
        cr_expect_gt(err.line, 0, "no position: %s", err.message);
        free(text);
    }
    /* pass_through without segments, one too many, a scale of the wrong length or sign */
    static const char *const texts[][2] = {
        {"  - {name: L1, matrix: W1, pass_through: 1}\n", "needs 'segments'"},
        {"  - {name: L1, matrix: W1, segments: [1, 1], pass_through: 2}\n", "'pass_through'"},
        {"  - {name: L1, matrix: W1, segments: [1, 1], input_scale: [1]}\n", "2 positive"},
        {"  - {name: L1, matrix: W1, segments: [1, 1], input_scale: [1, 0]}\n",
         "must lie in [1e-6, 1e6]"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        char text[1024];
        snprintf(text, sizeof text, "schema_version: 1\nname: p\nmatrices:\n  W1: {shape: [2, 2], "
                 "dtype: real, data: [[1, 0], [0, 1]]}\nlayers:\n%s", texts[i][0]);
        cr_expect_eq(load_text(text, &err), OPTINC_EINPUT, "%s", texts[i][0]);
        cr_expect(strstr(err.message, texts[i][1]), "%s: %s", texts[i][0], err.message);
        cr_expect_gt(err.line, 0, "no position: %s", err.message);
    }
}

/* Replaces the first `from` in text by `to` (a new string). */
static char *edited(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    cr_assert_not_null(at, "'%s' is not in the netlist", from);
    size_t n = strlen(text) + strlen(to) + 1, head = (size_t)(at - text);
    char *e = malloc(n);
    snprintf(e, n, "%.*s%s%s", (int)head, text, to, at + strlen(from));
    return e;
}

Test(segments, netlist_refuses_a_malformed_pass_through)
{
    char *spec = pass_spec_text("", -1);
    optinc_circuit *c = su_spec_circuit(spec);
    char *good = netlist_text(c, 0);
    static const char *const cases[][3] = {
        /* a waveguide missing, two crossed, one of the wrong card, bad headers */
        {"TH_L1_r6 in12 out6 thru\n", "", "dangling port"},
        {"TH_L1_r6 in12 out6 thru\nTH_L1_r7 in13 out7 thru",
         "TH_L1_r6 in12 out7 thru\nTH_L1_r7 in13 out6 thru", "does not reach port out6"},
        {"TH_L1_r7 in13 out7 thru", "TH_L1_r7 in13 out7 ps phase_rad=0", "thru card"},
        {"pass_through=2", "pass_through=3", "less 3 pass-through modes"},
        {" in11=", " in12=", "input_scale"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *bad = edited(good, cases[i][0], cases[i][1]);
        optinc_input in = {"bad.pnl.sp", bad, strlen(bad)};
        optinc_circuit *r = NULL;
        optinc_error err;
        cr_expect_eq(optinc_netlist_parse(&in, NULL, &r, &err), OPTINC_EINPUT, "case %zu", i);
        cr_expect(strstr(err.message, cases[i][2]), "case %zu: %s", i, err.message);
        cr_expect_gt(err.line, 0, "case %zu: no position: %s", i, err.message);
        cr_expect_str_eq(err.file, "bad.pnl.sp");
        optinc_circuit_free(r);
        free(bad);
    }
    free(good);
    optinc_circuit_free(c);
    free(spec);
}

/* ---------------------------------------------------------- the shipped unit */

#define SHIPPED "netlists/onn4x8.pnl.sp"

Test(segments, shipped_netlist_holds_the_design_the_area_counts)
{
    optinc_circuit *c = NULL;
    optinc_onn_meta m;
    optinc_error err;
    cr_assert_eq(optinc_onn_load(SHIPPED, NULL, &c, &m, &err), OPTINC_OK, "%s", err.message);
    optinc_onn_area a;
    optinc_onn_area_of(c, &m, &a);
    long mzis = 0, att = 0, split = 0, comb = 0;
    for (int l = 0; l < c->n_layers; l++) {
        mzis += optinc_layer_mzis(&c->layers[l]);
        att += optinc_layer_attenuators(&c->layers[l]);
        split += optinc_layer_splitters(&c->layers[l]);
        comb += optinc_layer_combiners(&c->layers[l]);
        cr_expect_gt(c->layers[l].seg_rows, 0, "layer %d is not segmented", l + 1);
        cr_expect_eq(c->layers[l].pass_through, c->n_layers - l - 1, "layer %d", l + 1);
    }
    cr_expect_eq(mzis, (long)a.model.meshes);
    cr_expect_eq(att, (long)a.model.attenuators);
    cr_expect_eq(split, (long)a.model.splitters);
    cr_expect_eq(comb, (long)a.model.combiners);
    cr_expect_eq(mzis + att + split + comb, (long)a.model.total);
    cr_expect_eq((long)a.model.total, 17414);
    cr_expect_leq(a.ratio, 0.393, "area ratio %g", a.ratio);
    optinc_circuit_free(c);
}

Test(segments, shipped_netlist_rebuilds_every_layer_on_an_ideal_chip)
{
    optinc_circuit *c = NULL;
    optinc_spec *spec = NULL;
    optinc_error err;
    cr_assert_eq(optinc_circuit_load(SHIPPED, NULL, &c, &err), OPTINC_OK, "%s", err.message);
    cr_assert_eq(optinc_spec_load("specs/onn4x8.yaml", NULL, &spec, &err), OPTINC_OK, "%s",
                 err.message);
    for (int l = 0; l < c->n_layers; l++) {
        const optinc_spec_matrix *sm = &spec->matrices[spec->layers[l].matrix];
        optinc_cmat W = {.rows = sm->rows, .cols = sm->cols, .a = sm->data};
        double worst = layer_error(c, l, &W, OPTINC_DEV_NONE, OPTINC_DRIVE_TARGETS);
        /* the netlist's phases come from the machine that made it; here they
         * rebuild W to 1.9e-14 on every build (measured): a factor 53 */
        cr_expect_lt(worst, 1e-12, "layer %s: max|W - s.T| / s = %g", c->layers[l].name, worst);
    }
    optinc_spec_free(spec);
    optinc_circuit_free(c);
}

/* |(T - W) X|_F of layer 0 of chip on the inputs X, T with its gain on the
 * rows the stages give (the pass-through rows have none). */
static double data_error(optinc_chip *chip, const optinc_circuit *c, const optinc_cmat *W,
                              const optinc_cmat *X)
{
    optinc_cmat *T = optinc_chip_layer_transfer(chip, 0), *E = optinc_cmat_new(W->rows, X->cols);
    cr_assert(T && E);
    optinc_layer_apply_gain(&c->layers[0], optinc_chip_layer_gain(chip, 0), T);
    for (int i = 0; i < W->rows * W->cols; i++)
        T->a[i] -= W->a[i];
    optinc_cmat_mul(T, X, E);
    double d = optinc_cmat_frobenius(E);
    optinc_cmat_free(T);
    optinc_cmat_free(E);
    return d;
}


/* The data-aware recompilation runs on a segmented layer (split, block
 * meshes, block attenuators, combine) and brings the chip closer to W on
 * the data it was fitted to than the plain one (the fixed cards' own
 * splitting errors are beyond either). */
Test(segments, data_aware_recompilation)
{
    char *text = spec_text("    segments: [2, 3]\n    components:\n      mzi: "
                           "{splitter_error_sigma: 0.03, phase_error_sigma_rad: 0.02}\n"
                           "      phase_shifter: {bits: 0}\n");
    optinc_circuit *c = su_spec_circuit(text);
    optinc_chip *chip = su_chip(c, OPTINC_DEV_COUPLER | OPTINC_DEV_PHASE_ERROR, 5);
    optinc_cmat *W = entry_matrix(ROWS, COLS, w_entry);
    optinc_rng rng;
    optinc_rng_seed(&rng, 8);
    optinc_cmat *X = optinc_cmat_gaussian(COLS, 4, 1, &rng);
    double before = data_error(chip, c, W, X);
    optinc_calibration *meas;
    cr_assert_eq(optinc_calibration_measure(chip, 0, 0, 5, &meas, NULL), OPTINC_OK);
    optinc_recompile_data data = {X, NULL, NULL, 0, NULL, NULL};
    optinc_error err;
    cr_assert_eq(optinc_chip_recompile(chip, meas, &data, &err), OPTINC_OK, "%s", err.message);
    double after = data_error(chip, c, W, X);
    optinc_chip *plain_chip = su_chip(c, OPTINC_DEV_COUPLER | OPTINC_DEV_PHASE_ERROR, 5);
    cr_assert_eq(optinc_chip_recompile(plain_chip, meas, NULL, &err), OPTINC_OK, "%s",
                 err.message);
    double plain = data_error(plain_chip, c, W, X);
    cr_assert_lt(after, 0.75 * before, "after %g before %g", after, before);
    cr_assert_lt(after, plain, "after %g plain %g", after, plain);
    optinc_chip_free(plain_chip);
    optinc_cmat_free(W);
    optinc_cmat_free(X);
    optinc_calibration_free(meas);
    optinc_chip_free(chip);
    optinc_circuit_free(c);
    free(text);
}

/* The same on a grid with pass-through waveguides and an input scale: the
 * fit works on the stages' own modes, the data of the waveguides left out
 * and the input scale in front of the first stage, so it still beats the
 * plain recompilation (fitting the layer's whole input space, or the
 * inputs without their scale, made the chip worse than it was drawn). */
Test(segments, data_aware_recompilation_with_pass_through)
{
    char *text = pass_spec_text("    components:\n      mzi: "
                                "{splitter_error_sigma: 0.03, phase_error_sigma_rad: 0.02}\n"
                                "      phase_shifter: {bits: 0}\n", -1);
    optinc_circuit *c = su_spec_circuit(text);
    optinc_cmat *W = pass_w();
    optinc_rng rng;
    optinc_rng_seed(&rng, 8);
    optinc_cmat *X = optinc_cmat_gaussian(PCOLS, 6, 1, &rng);
    double err_of[3];
    for (int run = 0; run < 3; run++) {     /* as drawn, data-aware, plain */
        optinc_chip *chip = su_chip(c, OPTINC_DEV_COUPLER | OPTINC_DEV_PHASE_ERROR, 5);
        optinc_calibration *meas;
        cr_assert_eq(optinc_calibration_measure(chip, 0, 0, 5, &meas, NULL), OPTINC_OK);
        optinc_recompile_data data = {X, NULL, NULL, 0, NULL, NULL};
        optinc_error err;
        if (run)
            cr_assert_eq(optinc_chip_recompile(chip, meas, run == 1 ? &data : NULL, &err),
                         OPTINC_OK, "%s", err.message);
        err_of[run] = data_error(chip, c, W, X);
        optinc_calibration_free(meas);
        optinc_chip_free(chip);
    }
    cr_assert_lt(err_of[1], 0.75 * err_of[0], "data-aware %g drawn %g", err_of[1], err_of[0]);
    cr_assert_lt(err_of[1], err_of[2], "data-aware %g plain %g", err_of[1], err_of[2]);
    optinc_cmat_free(X);
    optinc_cmat_free(W);
    optinc_circuit_free(c);
    free(text);
}

/* ------------------------------------------- the fixed cards, measured */

/* A 1 x 3 grid (the first block row of the test's W, its outputs summed by
 * comb chains alone) and a 2 x 1 grid (its first block column, its inputs
 * fanned out by split chains alone). */
static int chain_shape;      /* 0: the block row, 1: the block column */

static double chain_entry(int r, int c) { return w_entry(r, c); }

static char *chain_spec_text(void)
{
    size_t n, cap = 16384;
    char *t = matrix_spec(chain_shape ? ROWS : BR, chain_shape ? BC : COLS, chain_entry, cap,
                          &n);
    snprintf(t + n, cap - n, "    segments: [%d, %d]\n    components:\n      phase_shifter: "
                             "{bits: 0}\n", chain_shape ? GRID_R : 1, chain_shape ? 1 : GRID_G);
    return t;
}

/* max |W - g.T'| / g of layer 0 of chip, g the chip's own gain. */
static double trimmed_error(optinc_chip *chip, const optinc_cmat *W)
{
    optinc_cmat *T = optinc_chip_layer_transfer(chip, 0);
    cr_assert_not_null(T);
    double g = optinc_chip_layer_gain(chip, 0), worst = 0;
    for (int i = 0; i < W->rows * W->cols; i++) {
        double d = cabs(W->a[i] - g * T->a[i]) / g;
        worst = d > worst ? d : worst;
    }
    optinc_cmat_free(T);
    return worst;
}

/* A chain's splitting errors are undone exactly by the attenuator on each
 * branch (a split stage's trims, the column before a comb stage) and the
 * layer's gain: on a chip whose only error is in its fixed cards,
 * recompiling from a perfect measurement of them rebuilds W to 1e-12 (a 10%
 * error in every tap before), on the chip and in the recompiled circuit
 * (the netlist of that chip). */
Test(segments, chain_errors_are_trimmed_exactly)
{
    for (chain_shape = 0; chain_shape < 2; chain_shape++) {
        char *text = chain_spec_text();
        optinc_circuit *c = su_spec_circuit(text);
        const optinc_layer *L = &c->layers[0];
        optinc_cmat *W = entry_matrix(L->rows, L->cols, chain_entry);
        optinc_chip *ideal = su_chip(c, OPTINC_DEV_NONE, 3);
        optinc_calibration *cal;
        cr_assert_eq(optinc_calibration_measure(ideal, 0, 0, 3, &cal, NULL), OPTINC_OK);
        int chain = chain_shape ? 0 : L->n_stages - 1;
        cr_assert_eq(cal->layer[0].n_tap[chain],
                     chain_shape ? BC * (GRID_R - 1) : BR * (GRID_G - 1));
        for (int i = 0; i < cal->layer[0].n_tap[chain]; i++)
            cal->layer[0].tap[chain][i] *= i % 2 ? 0.9 : 1.1;
        optinc_chip_options o;
        optinc_chip_options_default(&o);
        o.models = OPTINC_DEV_COUPLER;
        o.couplers = cal;
        optinc_chip *chip;
        optinc_error err;
        cr_assert_eq(optinc_chip_new(c, &o, 3, &chip, &err), OPTINC_OK, "%s", err.message);
        double before = trimmed_error(chip, W);
        cr_assert_eq(optinc_chip_recompile(chip, cal, NULL, &err), OPTINC_OK, "%s",
                     err.message);
        double after = trimmed_error(chip, W);
        /* measured 8.0e-16 after, on the chip and in the netlist: 1e-12
         * leaves a factor 1250 */
        cr_expect_gt(before, 1e-3, "shape %d before %g", chain_shape, before);
        cr_expect_lt(after, 1e-12, "shape %d after %g", chain_shape, after);
        cr_expect_neq(optinc_chip_layer_gain(chip, 0), L->gain);
        cr_assert_eq(optinc_recompile_circuit(c, cal, &err), OPTINC_OK, "%s", err.message);
        optinc_chip *rebuilt;
        cr_assert_eq(optinc_chip_new(c, &o, 3, &rebuilt, &err), OPTINC_OK, "%s", err.message);
        cr_expect_eq(optinc_chip_layer_gain(rebuilt, 0), L->gain);   /* a copy: exact */
        double netlist = trimmed_error(rebuilt, W);
        cr_expect_lt(netlist, 1e-12, "shape %d recompiled circuit %g", chain_shape, netlist);
        optinc_chip_free(rebuilt);
        optinc_chip_free(chip);
        optinc_chip_free(ideal);
        optinc_calibration_free(cal);
        optinc_cmat_free(W);
        optinc_circuit_free(c);
        free(text);
    }
}

/* A fixed card's splitting error scales with its coupling: over the shipped
 * unit's 25-way split chains, on 20 chips with splitter_error_sigma 0.02,
 * the first card (a 1/25 tap) is off by 8/pi x 0.02 = 5.1% of its tap (rms,
 * within 25%) and never switched off, and a 50:50 card by 0.02 in power, an
 * MZI coupler's error. */
Test(segments, fixed_card_errors_scale_with_the_tap)
{
    optinc_circuit *c = NULL;
    optinc_onn_meta m;
    optinc_error err;
    cr_assert_eq(optinc_onn_load("netlists/onn4x8.pnl.sp", NULL, &c, &m, &err), OPTINC_OK, "%s",
                 err.message);
    c->layers[0].components.mzi.splitter_error_sigma = 0.02;
    const optinc_stage *P = &c->layers[0].stage[0];
    cr_assert_eq(P->fan, 25);
    double small = 0, half = 0, least = 1;
    int n = 0;
    for (int seed = 1; seed <= 20; seed++) {
        optinc_chip *chip = su_chip(c, OPTINC_DEV_COUPLER, (uint64_t)seed);
        optinc_calibration *cal;
        cr_assert_eq(optinc_calibration_measure(chip, 0, 0, 1, &cal, NULL), OPTINC_OK);
        for (int x = 0; x < P->modes_in; x++, n++) {
            const double *t = cal->layer[0].tap[0] + x * (P->fan - 1);
            double r = t[0] * 25 - 1, h = t[P->fan - 2] - 0.5;
            small += r * r;
            half += h * h;
            for (int k = 0; k + 1 < P->fan; k++)
                least = t[k] < least ? t[k] : least;
        }
        optinc_calibration_free(cal);
        optinc_chip_free(chip);
    }
    small = sqrt(small / n);
    half = sqrt(half / n);
    cr_expect(small > 0.75 * 0.0509 && small < 1.25 * 0.0509, "1/25 taps off by %g", small);
    cr_expect(half > 0.75 * 0.02 && half < 1.25 * 0.02, "50:50 taps off by %g", half);
    cr_expect_gt(least, 0.02, "smallest tap %g", least);
    optinc_circuit_free(c);
}

/* The measured taps of the split and comb cards go through the calibration
 * file as 'LAYER STAGE tap CHAIN LINK TAP' lines and come back bit for bit;
 * a tap line that names no such card is refused where it is. */
Test(segments, calibration_file_carries_the_taps, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    char *text = spec_text("    segments: [2, 3]\n    components:\n      mzi: "
                           "{splitter_error_sigma: 0.03}\n");
    optinc_circuit *c = su_spec_circuit(text);
    optinc_chip *chip = su_chip(c, OPTINC_DEV_COUPLER, 4);
    optinc_calibration *cal, *back;
    optinc_error err;
    cr_assert_eq(optinc_calibration_measure(chip, 0.001, 0.001, 4, &cal, NULL), OPTINC_OK);
    cr_assert_eq(optinc_calibration_write(cal, c, tu_scratch("seg.cal"), &err), OPTINC_OK, "%s",
                 err.message);
    cr_assert_eq(optinc_calibration_read(tu_scratch_last(), c, NULL, &back, &err), OPTINC_OK,
                 "%s", err.message);
    int taps = 0;
    for (int s = 0; s < c->layers[0].n_stages; s++) {
        cr_assert_eq(back->layer[0].n_tap[s], cal->layer[0].n_tap[s]);
        for (int i = 0; i < cal->layer[0].n_tap[s]; i++, taps++)
            cr_expect_eq(back->layer[0].tap[s][i], cal->layer[0].tap[s][i], "stage %d tap %d",
                         s, i);
    }
    cr_expect_eq(taps, COLS * (GRID_R - 1) + ROWS * (GRID_G - 1));
    const char *bad = "optinc-calibration 2\nL1 C tap 0 2 0.5\n";
    optinc_input in = {"bad.cal", bad, strlen(bad)};
    optinc_calibration *none;
    cr_assert_eq(optinc_calibration_parse(&in, c, &none, &err), OPTINC_EINPUT);
    cr_expect_eq(err.line, 2);
    cr_expect_eq(err.column, 12);
    cr_expect(strstr(err.message, "the link must be an integer from 0 to 1"), "%s", err.message);
    optinc_calibration_free(cal);
    optinc_calibration_free(back);
    optinc_chip_free(chip);
    optinc_circuit_free(c);
    free(text);
}
