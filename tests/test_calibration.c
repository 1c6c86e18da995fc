/*
 * test_calibration.c - the calibration file reader from memory and from
 * paths: optinc_calibration_parse() gives what optinc_calibration_read()
 * gives, errors name the input as given, and the path reader refuses, as bad
 * input and without blocking, a FIFO, a link to one, a folder, a NUL byte
 * and a file over its size limit.  The message of every bad statement is
 * checked in test_sim.c; every file here lives in the test's scratch folder.
 *
 * Bounds: "measured" is the largest value over four BLAS builds on an AVX-512
 * machine (OpenBLAS's Cooperlake, Haswell and Sandybridge kernels, and the
 * reference BLAS/LAPACK).  A file holds its numbers in shortest round-trip
 * text, so what comes back from one is the same bits.
 */
#include <criterion/criterion.h>
#include <complex.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "optinc/calibration.h"
#include "simutil.h"

/* One layer "L1", one Clements mesh 'U' on 4 modes: 6 MZIs. */
static optinc_circuit *circuit(void)
{
    return su_mesh_circuit(4, OPTINC_MESH_CLEMENTS, 7, NULL);
}

static optinc_input text_input(const char *name, const char *text)
{
    return (optinc_input){name, text, strlen(text)};
}

Test(calibration, parse_gives_what_read_gives, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    optinc_circuit *c = circuit();
    optinc_chip *chip = su_chip(c, OPTINC_DEV_COUPLER, 3);
    optinc_calibration *cal, *from_file, *from_memory;
    optinc_error err;
    cr_assert_eq(optinc_calibration_from_chip(chip, &cal, NULL), OPTINC_OK);
    cr_assert_eq(optinc_calibration_write(cal, c, tu_scratch("chip.cal"), &err), OPTINC_OK, "%s",
                 err.message);
    cr_assert_eq(optinc_calibration_read(tu_scratch_last(), c, NULL, &from_file, &err), OPTINC_OK, "%s",
                 err.message);
    size_t len = 0;
    char *text = tu_read_file(tu_scratch_last(), &len);
    cr_assert_not_null(text);
    optinc_input in = {"chip.cal", text, len};
    cr_assert_eq(optinc_calibration_parse(&in, c, &from_memory, &err), OPTINC_OK, "%s",
                 err.message);
    cr_assert_eq(cal->layer[0].n_mzi[0], 6);
    /* exact: the same text through the same parser */
    for (int i = 0; i < 12; i++) {
        cr_assert_eq(from_file->layer[0].kappa[0][i], cal->layer[0].kappa[0][i]);
        cr_assert_eq(from_memory->layer[0].kappa[0][i], cal->layer[0].kappa[0][i]);
    }
    free(text);
    optinc_calibration_free(cal);
    optinc_calibration_free(from_file);
    optinc_calibration_free(from_memory);
    optinc_chip_free(chip);
    optinc_circuit_free(c);
}

/* CRLF line ends, no final newline, comments and blank lines; unlisted MZIs
 * keep ideal couplers. */
Test(calibration, crlf_comments_and_no_final_newline)
{
    optinc_circuit *c = circuit();
    optinc_calibration *cal;
    optinc_error err;
    const optinc_mzi *z = &c->layers[0].stage[0].mesh->mzi[1];
    char text[256];
    snprintf(text, sizeof text, "\r\n# measured\r\noptinc-calibration 1   # v1\r\n\r\n"
             "L1 U %d %d 0.125 -0.25", z->column, z->mode);
    optinc_input in = text_input("mem.cal", text);
    cr_assert_eq(optinc_calibration_parse(&in, c, &cal, &err), OPTINC_OK, "%s", err.message);
    const double *k = cal->layer[0].kappa[0];
    /* exact: 0.5 plus a delta of a few binary digits */
    cr_assert_eq(k[2], 0.625);
    cr_assert_eq(k[3], 0.25);
    for (int i = 0; i < 12; i++)
        if (i != 2 && i != 3)
            cr_assert_eq(k[i], 0.5, "coupler %d", i);
    optinc_calibration_free(cal);
    optinc_circuit_free(c);
}

/* A UTF-8 byte-order mark before the header line is skipped, and the
 * columns of line 1 count from after it. */
Test(calibration, byte_order_mark_is_accepted)
{
    optinc_circuit *c = circuit();
    optinc_calibration *cal = NULL;
    optinc_error err;
    const optinc_mzi *z = &c->layers[0].stage[0].mesh->mzi[0];
    char text[256];
    snprintf(text, sizeof text, "\xef\xbb\xbfoptinc-calibration 1\nL1 U %d %d 0.125 0\n",
             z->column, z->mode);
    optinc_input in = text_input("bom.cal", text);
    cr_assert_eq(optinc_calibration_parse(&in, c, &cal, &err), OPTINC_OK, "%s", err.message);
    cr_expect_eq(cal->layer[0].kappa[0][0], 0.625);
    optinc_calibration_free(cal);
    in = text_input("bom.cal", "\xef\xbb\xbfoptinc-calibration 3\n");
    cr_expect_eq(optinc_calibration_parse(&in, c, &cal, &err), OPTINC_EINPUT);
    cr_expect(err.line == 1 && err.column == 1, "%d:%d", err.line, err.column);
    cr_expect(strstr(err.message, "optinc-calibration 1"), "%s", err.message);
    optinc_circuit_free(c);
}

Test(calibration, errors_name_the_input)
{
    optinc_circuit *c = circuit();
    static optinc_calibration sentinel;
    optinc_calibration *cal = &sentinel;     /* must come back NULL */
    optinc_error err;
    optinc_input in = text_input("measured/chip7.cal", "optinc-calibration 1\nL1 U 0 0 0 0.7\n");
    cr_assert_eq(optinc_calibration_parse(&in, c, &cal, &err), OPTINC_EINPUT);
    cr_assert_null(cal);
    cr_assert_str_eq(err.file, "measured/chip7.cal");
    cr_assert_eq(err.line, 2);
    cr_assert_eq(err.column, 12);
    cr_assert(strstr(err.message, "'0.7' is not a number in [-0.5, 0.5]"), "%s", err.message);
    optinc_circuit_free(c);
}

Test(calibration, nul_byte_is_refused_where_it_is, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    static const char text[] = "optinc-calibration 1\nL1 U 0\0 0 0 0\n";
    optinc_circuit *c = circuit();
    optinc_calibration *cal = NULL;
    optinc_error err;
    optinc_input in = {"nul.cal", text, sizeof text - 1};
    cr_assert_eq(optinc_calibration_parse(&in, c, &cal, &err), OPTINC_EINPUT);
    cr_assert_null(cal);
    cr_assert_eq(err.line, 2);
    cr_assert_eq(err.column, 7);
    cr_assert_str_eq(err.message, "NUL byte: a calibration file is a text file");
    cr_assert_eq(tu_write_bytes(tu_scratch("nul.cal"), text, sizeof text - 1), 0);
    cr_assert_eq(optinc_calibration_read(tu_scratch_last(), c, NULL, &cal, &err), OPTINC_EINPUT);
    cr_assert_null(cal);
    cr_assert_str_eq(err.file, tu_scratch_last());
    cr_assert_eq(err.line, 2);
    cr_assert_eq(err.column, 7);
    optinc_circuit_free(c);
}

/* A FIFO without a writer would block open(2) and read(2) forever. */
Test(calibration, fifo_link_and_folder_are_refused_at_once, .init = tu_scratch_init,
     .fini = tu_scratch_fini, .timeout = 20)
{
    optinc_circuit *c = circuit();
    optinc_error err;
    char fifo[4400], link[4400];
    snprintf(fifo, sizeof fifo, "%s", tu_scratch("chip.cal"));
    snprintf(link, sizeof link, "%s", tu_scratch("link.cal"));
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    cr_assert_eq(symlink(fifo, link), 0);
    const char *paths[] = {fifo, link, tu_scratch_dir()};
    for (int i = 0; i < 3; i++) {
        optinc_calibration *cal = NULL;
        cr_assert_eq(optinc_calibration_read(paths[i], c, NULL, &cal, &err), OPTINC_EINPUT, "%s",
                     paths[i]);
        cr_assert_null(cal);
        cr_assert(strstr(err.message, "is not a regular file"), "%s", err.message);
    }
    optinc_circuit_free(c);
}

/* The limit is 1 MiB plus 256 bytes per MZI: comments past it are refused
 * before anything is parsed, and the same text one byte shorter is read. */
Test(calibration, size_limit, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    optinc_circuit *c = circuit();
    size_t limit = ((size_t)1 << 20) + 256 * 6;
    char *text = malloc(limit + 2);
    const char *head = "optinc-calibration 1\n#";
    memcpy(text, head, strlen(head));
    memset(text + strlen(head), 'x', limit - strlen(head));
    text[limit] = '\n';
    text[limit + 1] = '\0';
    cr_assert_eq(tu_write_file(tu_scratch("big.cal"), text), 0);
    optinc_calibration *cal = NULL;
    optinc_error err;
    cr_assert_eq(optinc_calibration_read(tu_scratch_last(), c, NULL, &cal, &err), OPTINC_EINPUT);
    cr_assert_null(cal);
    cr_assert(strstr(err.message, "is larger than 1050112 bytes"), "%s", err.message);
    text[limit - 1] = '\n';
    text[limit] = '\0';
    cr_assert_eq(tu_write_file(tu_scratch_last(), text), 0);
    cr_assert_eq(optinc_calibration_read(tu_scratch_last(), c, NULL, &cal, &err), OPTINC_OK, "%s",
                 err.message);
    optinc_calibration_free(cal);
    free(text);
    optinc_circuit_free(c);
}

Test(calibration, missing_file_is_bad_input, .init = tu_scratch_init, .fini = tu_scratch_fini)
{
    optinc_circuit *c = circuit();
    optinc_calibration *cal = NULL;
    optinc_error err;
    cr_assert_eq(optinc_calibration_read(tu_scratch("none.cal"), c, NULL, &cal, &err), OPTINC_EINPUT);
    cr_assert_null(cal);
    cr_assert(strstr(err.message, "cannot open calibration file"), "%s", err.message);
    optinc_circuit_free(c);
}

/* ---- measurement and recompilation --------------------------------------- */

/* A 16-mode mesh with continuous drivers, the given error components. */
static optinc_circuit *error_circuit(double phase_sigma, double splitter_sigma, double crosstalk)
{
    optinc_components cp;
    optinc_components_defaults(&cp);
    cp.phase_shifter.bits = 0;
    cp.mzi.phase_error_sigma_rad = phase_sigma;
    cp.mzi.splitter_error_sigma = splitter_sigma;
    cp.phase_shifter.thermal_crosstalk = crosstalk;
    return su_mesh_circuit(16, OPTINC_MESH_CLEMENTS, 11, &cp);
}

/* The chip's T' minus the mesh's ideal transfer (continuous targets). */
static optinc_cmat *transfer_error(optinc_chip *chip, const optinc_circuit *c)
{
    optinc_cmat *T = optinc_chip_layer_transfer(chip, 0);
    optinc_chip *ideal = NULL;
    optinc_chip_options o;
    optinc_chip_options_default(&o);
    o.models = OPTINC_DEV_NONE;
    o.drive_targets = OPTINC_DRIVE_TARGETS;
    cr_assert_eq(optinc_chip_new(c, &o, 1, &ideal, NULL), OPTINC_OK);
    optinc_cmat *R = optinc_chip_layer_transfer(ideal, 0);
    for (int i = 0; i < T->rows * T->cols; i++)
        T->a[i] -= R->a[i];
    optinc_cmat_free(R);
    optinc_chip_free(ideal);
    return T;
}

/* The chip's T' against the mesh's ideal transfer: max |T' - T|. */
static double distance_to_ideal(optinc_chip *chip, const optinc_circuit *c)
{
    optinc_cmat *E = transfer_error(chip, c);
    double d = optinc_cmat_max_abs(E);
    optinc_cmat_free(E);
    return d;
}

/* A chip of c with every device error (c's drivers are continuous: its
 * codes are its targets). */
static optinc_chip *targets_chip(const optinc_circuit *c, uint64_t seed)
{
    return su_chip(c, OPTINC_DEV_ALL, seed);
}

/* The chip of c drawn from seed, recompiled from a perfect measurement:
 * its distance to the ideal mesh before (may be NULL) and after. */
static double recompiled_distance(const optinc_circuit *c, uint64_t seed, double *before)
{
    optinc_chip *chip = targets_chip(c, seed);
    if (before)
        *before = distance_to_ideal(chip, c);
    optinc_calibration *meas;
    cr_assert_eq(optinc_calibration_measure(chip, 0, 0, seed, &meas, NULL), OPTINC_OK);
    cr_assert_eq(optinc_chip_recompile(chip, meas, NULL, NULL), OPTINC_OK);
    double after = distance_to_ideal(chip, c);
    optinc_calibration_free(meas);
    optinc_chip_free(chip);
    return after;
}

/* Phase offsets alone (subtracted exactly), crosstalk alone (its
 * pre-compensation inverts the model) and both, measured without error:
 * the recompiled chip is the ideal mesh to rounding, though uncorrected it
 * is far from it. */
Test(calibration, recompile_offsets_and_crosstalk_exactly)
{
    static const double cases[][2] = {{0.05, 0}, {0, 0.02}, {0.05, 0.02}};
    for (int k = 0; k < 3; k++) {
        optinc_circuit *c = error_circuit(cases[k][0], 0, cases[k][1]);
        double before, after = recompiled_distance(c, 5, &before);
        /* measured 7.8e-16 after (0.11 before): 1e-12 leaves a factor 1300 */
        cr_assert_gt(before, 1e-2, "case %d", k);
        cr_assert_lt(after, 1e-12, "case %d: after %g", k, after);
        optinc_circuit_free(c);
    }
}

/* With small coupler errors every MZI stays in reach: a perfect measurement
 * of couplers, offsets and crosstalk rebuilds the ideal unit to 1e-12. */
Test(calibration, recompile_all_errors_zero_measurement_error)
{
    optinc_circuit *c = error_circuit(0.01, 0.002, 0.005);
    double after = recompiled_distance(c, 9, NULL);
    cr_assert_lt(after, 1e-12, "after %g", after);     /* measured 1.8e-15 */
    optinc_circuit_free(c);
}

/* The same chip seed measures the same; the measurement error has the
 * asked size and offsets round-trip through a format-2 file exactly. */
Test(calibration, measurement_deterministic_and_round_trips, .init = tu_scratch_init,
     .fini = tu_scratch_fini)
{
    optinc_circuit *c = error_circuit(0.01, 0.02, 0);
    optinc_chip *chip = targets_chip(c, 4);
    optinc_calibration *a, *b, *truth, *back;
    cr_assert_eq(optinc_calibration_measure(chip, 1e-3, 1e-3, 4, &a, NULL), OPTINC_OK);
    cr_assert_eq(optinc_calibration_measure(chip, 1e-3, 1e-3, 4, &b, NULL), OPTINC_OK);
    cr_assert_eq(optinc_calibration_measure(chip, 0, 0, 4, &truth, NULL), OPTINC_OK);
    int n = a->layer[0].n_mzi[0], len = 2 * n + 16;
    double ss = 0;
    for (int i = 0; i < len; i++) {
        /* the same chip and seed twice in one process: the same bits */
        cr_assert_eq(a->layer[0].offset[0][i], b->layer[0].offset[0][i]);
        double e = a->layer[0].offset[0][i] - truth->layer[0].offset[0][i];
        ss += e * e;
    }
    double rms = sqrt(ss / len);
    /* 256 draws of sigma 1e-3: the rms is 1e-3 to 4.4% (1 / sqrt(2 . 256)) */
    cr_assert(rms > 0.5e-3 && rms < 1.5e-3, "rms %g", rms);
    optinc_error err;
    cr_assert_eq(optinc_calibration_write(a, c, tu_scratch("m.cal"), &err), OPTINC_OK);
    cr_assert_eq(optinc_calibration_read(tu_scratch_last(), c, NULL, &back, &err), OPTINC_OK,
                 "%s", err.message);
    cr_assert_eq(back->has_offsets, 1);
    for (int i = 0; i < len; i++)
        cr_assert_eq(back->layer[0].offset[0][i], a->layer[0].offset[0][i]);
    for (int i = 0; i < 2 * n; i++)
        cr_assert_eq(back->layer[0].kappa[0][i], a->layer[0].kappa[0][i]);
    optinc_calibration_free(a);
    optinc_calibration_free(b);
    optinc_calibration_free(truth);
    optinc_calibration_free(back);
    optinc_chip_free(chip);
    optinc_circuit_free(c);
}

/* The recompilation written into a circuit (optinc compile --calibration
 * with a format-2 file): the chip the measurement came from, driven by the
 * circuit's new codes, realizes the ideal mesh. */
Test(calibration, recompile_circuit_programs_the_measured_chip)
{
    optinc_circuit *c = error_circuit(0.05, 0.002, 0.02);
    optinc_chip *chip = targets_chip(c, 6);
    optinc_calibration *meas;
    cr_assert_eq(optinc_calibration_measure(chip, 0, 0, 6, &meas, NULL), OPTINC_OK);
    optinc_chip_free(chip);
    cr_assert_eq(optinc_recompile_circuit(c, meas, NULL), OPTINC_OK);
    optinc_chip_options o;
    optinc_chip_options_default(&o);
    cr_assert_eq(optinc_chip_new(c, &o, 6, &chip, NULL), OPTINC_OK);
    double after = distance_to_ideal(chip, c);
    cr_assert_lt(after, 1e-12, "after %g", after);     /* measured 2.0e-15 */
    optinc_calibration_free(meas);
    optinc_chip_free(chip);
    optinc_circuit_free(c);
}

/* ---- data-aware recompilation -------------------------------------------- */

/* |(T'_chip - T_ideal) X|_F of chip's single layer on inputs X (X NULL:
 * the identity, i.e. the distance of the matrices). */
static double data_residual(optinc_chip *chip, const optinc_circuit *c, const optinc_cmat *X)
{
    optinc_cmat *T = transfer_error(chip, c);
    double d;
    if (X) {
        optinc_cmat *E = optinc_cmat_new(T->rows, X->cols);
        optinc_cmat_mul(T, X, E);
        d = optinc_cmat_frobenius(E);
        optinc_cmat_free(E);
    } else {
        d = optinc_cmat_frobenius(T);
    }
    optinc_cmat_free(T);
    return d;
}

/* The chip of c drawn from seed, recompiled from a perfect measurement
 * against inputs X (NULL: no data, the plain recompilation), its codes
 * chosen in `rounds` rounds (optinc_recompile_data): its residual on the
 * inputs `on`. */
static double recompiled_residual(const optinc_circuit *c, uint64_t seed, const optinc_cmat *X,
                                  const optinc_cmat *on, int rounds)
{
    optinc_chip *chip = targets_chip(c, seed);
    optinc_calibration *meas;
    cr_assert_eq(optinc_calibration_measure(chip, 0, 0, seed, &meas, NULL), OPTINC_OK);
    optinc_recompile_data data = {X, NULL, NULL, rounds, NULL, NULL};
    optinc_error err;
    cr_assert_eq(optinc_chip_recompile(chip, meas, X ? &data : NULL, &err), OPTINC_OK, "%s",
                 err.message);
    double d = data_residual(chip, c, on);
    optinc_calibration_free(meas);
    optinc_chip_free(chip);
    return d;
}

/* Data that excite every input alike (the identity) make the data-aware fit
 * the plain one's objective: it ends no worse than the plain re-fit on a
 * mesh whose couplers leave MZIs out of reach, and far better than none. */
Test(calibration, data_fit_on_identity_inputs_is_the_matrix_fit)
{
    optinc_circuit *c = error_circuit(0.01, 0.05, 0.005);
    optinc_cmat *I16 = optinc_cmat_identity(16);
    optinc_chip *raw = targets_chip(c, 3);
    double before = data_residual(raw, c, NULL);
    optinc_chip_free(raw);
    double plain = recompiled_residual(c, 3, NULL, NULL, 0);
    double data = recompiled_residual(c, 3, I16, NULL, 0);
    cr_assert_lt(plain, 0.2 * before, "plain %g before %g", plain, before);
    cr_assert_lt(data, 1.05 * plain, "data %g plain %g", data, plain);
    optinc_cmat_free(I16);
    optinc_circuit_free(c);
}

/* Inputs of rank 3 leave the fit freedom the matrix fit spends on the other
 * 13 directions: on those inputs the data-aware chip is far closer. */
Test(calibration, data_fit_on_low_rank_inputs_beats_the_matrix_fit)
{
    optinc_circuit *c = error_circuit(0.01, 0.05, 0.005);
    optinc_rng rng;
    optinc_rng_seed(&rng, 21);
    optinc_cmat *X = optinc_cmat_gaussian(16, 3, 1, &rng);
    double plain = recompiled_residual(c, 3, NULL, X, 0);
    double data = recompiled_residual(c, 3, X, X, 0);
    cr_assert_lt(data, 0.1 * plain, "data %g plain %g", data, plain);
    optinc_cmat_free(X);
    optinc_circuit_free(c);
}

/* With every MZI in reach and a perfect measurement the data-aware fit
 * starts at the exact solution and stays there. */
Test(calibration, data_fit_keeps_an_exact_recompilation)
{
    optinc_circuit *c = error_circuit(0.01, 0.002, 0.005);
    optinc_cmat *I16 = optinc_cmat_identity(16);
    double after = recompiled_residual(c, 9, I16, NULL, 0);
    cr_assert_lt(after, 1e-12, "after %g", after);     /* measured 1.3e-14: a factor 74 */
    optinc_cmat_free(I16);
    optinc_circuit_free(c);
}

/* Coarse codes on data of rank 2: rounding every phase at once leaves the
 * data a rounding error per phase off; chosen in rounds (the default for
 * 8-bit codes), the phases still free absorb the rounding of the frozen
 * ones (a 16-mode mesh has 240 phases, the data constrain about 60). */
Test(calibration, coarse_codes_chosen_in_rounds)
{
    optinc_components cp;
    optinc_components_defaults(&cp);
    cp.phase_shifter.bits = 8;
    cp.mzi.phase_error_sigma_rad = 0.01;
    cp.mzi.splitter_error_sigma = 0.005;
    cp.phase_shifter.thermal_crosstalk = 0.005;
    optinc_circuit *c = su_mesh_circuit(16, OPTINC_MESH_CLEMENTS, 11, &cp);
    optinc_rng rng;
    optinc_rng_seed(&rng, 21);
    optinc_cmat *X = optinc_cmat_gaussian(16, 2, 1, &rng);
    double at_once = recompiled_residual(c, 3, X, X, 1);
    double rounds = recompiled_residual(c, 3, X, X, 0);
    cr_assert_lt(rounds, 0.5 * at_once, "in rounds %g, at once %g", rounds, at_once);
    optinc_cmat_free(X);
    optinc_circuit_free(c);
}

/* A rescoring hook that raises the weight of the input the chip serves
 * worst, once, and records what the recompilation showed it.  Its cost
 * of pass k is sign . k: sign -1 prefers the second pass, +1 the first. */
typedef struct worst_point {
    const optinc_circuit *c;
    const optinc_cmat *X;
    double *w;
    optinc_chip *chip;
    double sign;
    int calls, rows, cols, worst;
    double model_gap;      /* max |outputs - T'_chip X|: the chip as measured */
    double first[64];      /* each input's error after the first pass */
} worst_point;

/* |column b of (T' X - T X)| for every b into e (T the ideal mesh). */
static void column_errors(optinc_chip *chip, const optinc_circuit *c, const optinc_cmat *X,
                          double *e)
{
    optinc_cmat *T = transfer_error(chip, c);
    optinc_cmat *E = optinc_cmat_new(T->rows, X->cols);
    optinc_cmat_mul(T, X, E);
    for (int b = 0; b < X->cols; b++) {
        e[b] = 0;
        for (int r = 0; r < E->rows; r++)
            e[b] += cabs(OPTINC_AT(E, r, b)) * cabs(OPTINC_AT(E, r, b));
        e[b] = sqrt(e[b]);
    }
    optinc_cmat_free(T);
    optinc_cmat_free(E);
}

static double raise_worst(void *ctx, const optinc_cmat *Y, int *again)
{
    worst_point *wp = ctx;
    *again = ++wp->calls == 1;
    if (wp->calls > 1)
        return wp->sign * wp->calls;
    wp->rows = Y->rows;
    wp->cols = Y->cols;
    optinc_cmat *T = optinc_chip_layer_transfer(wp->chip, 0);
    optinc_cmat *Z = optinc_cmat_new(T->rows, wp->X->cols);
    optinc_cmat_mul(T, wp->X, Z);
    wp->model_gap = 0;
    for (int i = 0; i < Z->rows * Z->cols; i++)
        if (cabs(Z->a[i] - Y->a[i]) > wp->model_gap)
            wp->model_gap = cabs(Z->a[i] - Y->a[i]);
    column_errors(wp->chip, wp->c, wp->X, wp->first);
    wp->worst = 0;
    for (int b = 1; b < wp->X->cols; b++)
        if (wp->first[b] > wp->first[wp->worst])
            wp->worst = b;
    wp->w[wp->worst] *= 1000;
    optinc_cmat_free(T);
    optinc_cmat_free(Z);
    return wp->sign;
}

/* Recompiles the chip of error_circuit(0.01, 0.05, 0.005) from seed 3 on
 * 64 inputs of 16 modes (which overdetermine the fit: one input's error is
 * traded against the others') with raise_worst of the given sign; the
 * inputs' errors after it into e. */
static worst_point rescored(double sign, double *e)
{
    optinc_circuit *c = error_circuit(0.01, 0.05, 0.005);
    optinc_rng rng;
    optinc_rng_seed(&rng, 21);
    optinc_cmat *X = optinc_cmat_gaussian(16, 64, 1, &rng);
    double w[64];
    for (int b = 0; b < 64; b++)
        w[b] = 1;
    optinc_chip *chip = targets_chip(c, 3);
    optinc_calibration *meas;
    cr_assert_eq(optinc_calibration_measure(chip, 0, 0, 3, &meas, NULL), OPTINC_OK);
    worst_point wp = {.c = c, .X = X, .w = w, .chip = chip, .sign = sign};
    optinc_recompile_data data = {X, w, NULL, 0, raise_worst, &wp};
    optinc_error err;
    cr_assert_eq(optinc_chip_recompile(chip, meas, &data, &err), OPTINC_OK, "%s", err.message);
    column_errors(chip, c, X, e);
    optinc_calibration_free(meas);
    optinc_chip_free(chip);
    optinc_cmat_free(X);
    optinc_circuit_free(c);
    wp.c = NULL;
    wp.X = NULL;
    wp.w = NULL;
    wp.chip = NULL;
    return wp;
}

/* The rescoring hook sees the outputs the measured chip gives (a perfect
 * measurement: the chip's own), and a weight it raises is what the next
 * pass serves first. */
Test(calibration, rescoring_raises_a_weight_for_a_second_pass)
{
    double e[64];
    worst_point wp = rescored(-1, e);
    cr_assert_eq(wp.calls, 2);
    cr_assert_eq(wp.rows, 16);
    cr_assert_eq(wp.cols, 64);
    /* measured 0: the outputs are the chip's own, computed alike; 1e-12 is
     * rounding room for unit-size outputs should the two routes part */
    cr_assert_lt(wp.model_gap, 1e-12, "outputs %g off the chip's", wp.model_gap);
    cr_assert_lt(e[wp.worst], 0.5 * wp.first[wp.worst], "raised input's error %g, before %g",
                 e[wp.worst], wp.first[wp.worst]);
}

/* A second pass that costs more than the first is undone: the chip ends
 * with the first pass's drives, every input's error as the hook saw it. */
Test(calibration, rescoring_keeps_the_pass_of_least_cost)
{
    double e[64];
    worst_point wp = rescored(1, e);
    cr_assert_eq(wp.calls, 2);
    /* exact: the same drives through the same computation */
    for (int b = 0; b < 64; b++)
        cr_assert_eq(e[b], wp.first[b], "input %d: %g, after the first pass %g", b, e[b],
                     wp.first[b]);
}

/* Asks for pass after pass and raises no weight. */
static double ask_again(void *ctx, const optinc_cmat *Y, int *again)
{
    int *calls = ctx;
    *again = 1;
    return ++*calls;
}

/* A pass after which the hook raised no weight is the last: another would
 * repeat it bit for bit.  The chip ends as recompiled without a hook. */
Test(calibration, rescoring_stops_when_no_weight_was_raised)
{
    optinc_circuit *c = error_circuit(0.01, 0.05, 0.005);
    optinc_rng rng;
    optinc_rng_seed(&rng, 21);
    optinc_cmat *X = optinc_cmat_gaussian(16, 64, 1, &rng);
    double w[64], e[2][64];
    for (int b = 0; b < 64; b++)
        w[b] = 1;
    int calls = 0;
    for (int hooked = 0; hooked < 2; hooked++) {
        optinc_chip *chip = targets_chip(c, 3);
        optinc_calibration *meas;
        cr_assert_eq(optinc_calibration_measure(chip, 0, 0, 3, &meas, NULL), OPTINC_OK);
        optinc_recompile_data data = {X, w, NULL, 0, hooked ? ask_again : NULL, &calls};
        optinc_error err;
        cr_assert_eq(optinc_chip_recompile(chip, meas, &data, &err), OPTINC_OK, "%s",
                     err.message);
        column_errors(chip, c, X, e[hooked]);
        optinc_calibration_free(meas);
        optinc_chip_free(chip);
    }
    cr_assert_eq(calls, 1);
    /* exact: the same drives through the same computation */
    for (int b = 0; b < 64; b++)
        cr_assert_eq(e[1][b], e[0][b], "input %d: %g with the hook, %g without", b, e[1][b],
                     e[0][b]);
    optinc_cmat_free(X);
    optinc_circuit_free(c);
}

/* Codes are coarse for the recompilation past a step of 2 pi / 2048: 10-bit
 * drivers on 2 pi and coarser, or 11-bit ones on a range twice as wide;
 * continuous drivers never. */
Test(calibration, coarse_codes_are_those_past_2pi_over_2048)
{
    static const struct { int bits; double hi; int coarse; } cases[] = {
        {0, 2 * M_PI, 0},  {4, 2 * M_PI, 1},  {8, 2 * M_PI, 1},  {10, 2 * M_PI, 1},
        {11, 2 * M_PI, 0}, {12, 2 * M_PI, 0}, {14, 2 * M_PI, 0}, {11, 4 * M_PI, 1},
    };
    optinc_components cp;
    optinc_components_defaults(&cp);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cp.phase_shifter.bits = cases[k].bits;
        cp.phase_shifter.range_rad[0] = 0;
        cp.phase_shifter.range_rad[1] = cases[k].hi;
        cr_assert_eq(optinc_recompile_coarse_codes(&cp), cases[k].coarse, "%d bits on %g rad",
                     cases[k].bits, cases[k].hi);
    }
}
