/*
 * test_segments.c - segmented layers (segments: [R, G] in a spec): the
 * block form diag(t).Q compiled onto one block-diagonal mesh with fixed
 * split and comb chains, the netlist round trip byte for byte, the ideal
 * simulator rebuilding W, the counts, the device model of the fixed cards,
 * the drawings, and the spec's and the exports' refusals.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/calibration.h"
#include "optinc/netlist.h"
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

/* The spec text of W with `extra` under the layer (segments:, components:). */
static char *spec_text(const char *extra)
{
    double w[ROWS][COLS];
    make_w(w);
    size_t cap = 16384, n = 0;
    char *t = malloc(cap);
    n += (size_t)snprintf(t + n, cap - n, "schema_version: 1\nname: seg\nsettings:\n  seed: 1\n"
                          "matrices:\n  W1:\n    shape: [%d, %d]\n    dtype: real\n    data:\n",
                          ROWS, COLS);
    for (int r = 0; r < ROWS; r++) {
        n += (size_t)snprintf(t + n, cap - n, "      - [");
        for (int c = 0; c < COLS; c++)
            n += (size_t)snprintf(t + n, cap - n, "%s%.17g", c ? ", " : "", w[r][c]);
        n += (size_t)snprintf(t + n, cap - n, "]\n");
    }
    snprintf(t + n, cap - n, "layers:\n  - name: L1\n    matrix: W1\n%s", extra);
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

Test(segments, compile_counts_and_exact_form)
{
    char *spec = spec_text("    segments: [2, 3]\n");
    optinc_circuit *c = su_spec_circuit(spec);
    const optinc_layer *L = &c->layers[0];
    cr_expect_eq(L->seg_rows, GRID_R);
    cr_expect_eq(L->seg_cols, GRID_G);
    cr_expect_eq(L->n_stages, 4);
    cr_expect_eq(optinc_layer_mzis(L), GRID_R * GRID_G * BC * (BC - 1) / 2);
    cr_expect_eq(optinc_layer_attenuators(L), GRID_R * GRID_G * BR);
    cr_expect_eq(optinc_layer_splitters(L), COLS * (GRID_R - 1));
    cr_expect_eq(optinc_layer_combiners(L), ROWS * (GRID_G - 1));
    cr_expect_lt(L->approximation_error, 1e-12);
    cr_expect_lt(L->reconstruction_error, 1e-12, "%g", L->reconstruction_error);
    cr_expect_lt(chip_error(c, OPTINC_DEV_NONE), 1e-10);
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
        cr_expect_lt(chip_error(back, OPTINC_DEV_NONE), 1e-10);
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
    cr_expect_lt(chip_error(c0, OPTINC_DEV_ALL), 1e-10);
    cr_expect_gt(chip_error(c1, OPTINC_DEV_COUPLER), 1e-4);
    cr_expect_lt(chip_error(c1, OPTINC_DEV_NONE), 1e-10);
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
    r = tu_optinc((const char *[]){"export", net, "--format", "sax", "-o", mat, NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(r.err && strstr(r.err, "is segmented"), "%s", r.err);
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

/* |(gain.T' - W) X|_F of chip on the inputs X. */
static double data_error(optinc_chip *chip, const optinc_circuit *c, const optinc_cmat *X)
{
    double w[ROWS][COLS];
    make_w(w);
    optinc_cmat *T = optinc_chip_layer_transfer(chip, 0), *E = optinc_cmat_new(ROWS, X->cols);
    cr_assert(T && E);
    for (int r = 0; r < ROWS; r++)
        for (int k = 0; k < COLS; k++)
            OPTINC_AT(T, r, k) = c->layers[0].gain * OPTINC_AT(T, r, k) - w[r][k];
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
    optinc_rng rng;
    optinc_rng_seed(&rng, 8);
    optinc_cmat *X = optinc_cmat_gaussian(COLS, 4, 1, &rng);
    double before = data_error(chip, c, X);
    optinc_calibration *meas;
    cr_assert_eq(optinc_calibration_measure(chip, 0, 0, 5, &meas, NULL), OPTINC_OK);
    optinc_recompile_data data = {X, NULL, NULL};
    optinc_error err;
    cr_assert_eq(optinc_chip_recompile(chip, meas, &data, &err), OPTINC_OK, "%s", err.message);
    double after = data_error(chip, c, X);
    optinc_chip *plain_chip = su_chip(c, OPTINC_DEV_COUPLER | OPTINC_DEV_PHASE_ERROR, 5);
    cr_assert_eq(optinc_chip_recompile(plain_chip, meas, NULL, &err), OPTINC_OK, "%s",
                 err.message);
    double plain = data_error(plain_chip, c, X);
    cr_assert_lt(after, 0.75 * before, "after %g before %g", after, before);
    cr_assert_lt(after, plain, "after %g plain %g", after, plain);
    optinc_chip_free(plain_chip);
    optinc_cmat_free(X);
    optinc_calibration_free(meas);
    optinc_chip_free(chip);
    optinc_circuit_free(c);
    free(text);
}
