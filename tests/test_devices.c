/*
 * test_devices.c - each device model of a simulated chip against a closed
 * form: coupler errors (explicit 2x2 product), insertion loss along a path,
 * quantization, thermal crosstalk, static and dynamic phase errors,
 * attenuator extinction and resolution, detection.
 *
 * Bounds: "measured" is the largest value over four BLAS builds on an AVX-512
 * machine (OpenBLAS's Cooperlake, Haswell and Sandybridge kernels, and the
 * reference BLAS/LAPACK).  Most of these models are our own scalar code, so
 * the builds agree; the bounds are then ulps of unit-size values (2^-52 =
 * 2.2e-16) times the operations behind them.
 */
#include <criterion/criterion.h>
#include <math.h>
#include "optinc/calibration.h"
#include "optinc/sim.h"
#include "simutil.h"

/* A x B for 2x2 row-major matrices. */
static void mul2(const double complex a[4], const double complex b[4], double complex c[4])
{
    c[0] = a[0] * b[0] + a[1] * b[2];
    c[1] = a[0] * b[1] + a[1] * b[3];
    c[2] = a[2] * b[0] + a[3] * b[2];
    c[3] = a[2] * b[1] + a[3] * b[3];
}

static void coupler(double k, double complex m[4])
{
    m[0] = m[3] = sqrt(1 - k);
    m[1] = m[2] = I * sqrt(k);
}

/* amplitude . C(k2) . diag(e^{i theta}, 1) . C(k1) . diag(e^{i phi}, 1), step by step. */
static void explicit_mzi(double theta, double phi, double k1, double k2, double amp,
                         double complex out[4])
{
    double complex c1[4], c2[4], dt[4] = {cexp(I * theta), 0, 0, 1};
    double complex dp[4] = {cexp(I * phi), 0, 0, 1}, t1[4], t2[4], t3[4];
    coupler(k1, c1);
    coupler(k2, c2);
    mul2(c1, dp, t1);
    mul2(dt, t1, t2);
    mul2(c2, t2, t3);
    for (int i = 0; i < 4; i++)
        out[i] = amp * t3[i];
}

Test(devices, mzi_matrix_is_the_coupler_product)
{
    optinc_rng rng;
    optinc_rng_seed(&rng, 5);
    for (int trial = 0; trial < 200; trial++) {
        double th = 2 * M_PI * optinc_rng_uniform(&rng), ph = 2 * M_PI * optinc_rng_uniform(&rng);
        double k1 = optinc_rng_uniform(&rng), k2 = optinc_rng_uniform(&rng);
        double amp = 0.5 + 0.5 * optinc_rng_uniform(&rng);
        double complex got[4], want[4], ideal[4];
        optinc_mzi_device_matrix(th, ph, k1, k2, amp, got);
        explicit_mzi(th, ph, k1, k2, amp, want);
        /* three 2x2 products of unit-size entries, a few ulps: measured
         * 3.5e-16, so 1e-15 is 4.5 ulps */
        for (int i = 0; i < 4; i++)
            cr_assert_leq(cabs(got[i] - want[i]), 1e-15);
        optinc_mzi_device_matrix(th, ph, 0.5, 0.5, 1, got);
        optinc_mzi_matrix(th, ph, ideal);
        for (int i = 0; i < 4; i++)
            cr_assert_leq(cabs(got[i] - ideal[i]), 1e-15);
    }
}

Test(devices, single_mzi_with_given_coupler_errors)
{
    optinc_circuit *c = su_mesh_circuit(2, OPTINC_MESH_CLEMENTS, 3, NULL);
    optinc_calibration *cal;
    optinc_chip *ideal = su_chip(c, OPTINC_DEV_NONE, 1);
    cr_assert_eq(optinc_calibration_from_chip(ideal, &cal, NULL), OPTINC_OK);
    cal->layer[0].kappa[0][0] = 0.5 + 0.031;
    cal->layer[0].kappa[0][1] = 0.5 - 0.017;
    optinc_chip_options o = {OPTINC_DEV_COUPLER, OPTINC_DRIVE_CODES, cal, 0};
    optinc_chip *chip;
    cr_assert_eq(optinc_chip_new(c, &o, 1, &chip, NULL), OPTINC_OK);
    optinc_cmat *T = optinc_chip_layer_transfer(chip, 0);
    const optinc_mesh *mesh = c->layers[0].stage[0].mesh;
    double complex want[4];
    /* measured 1.2e-16: 1e-14 leaves a factor 80; the couplers are 0.5 +
     * 0.031 and 0.5 - 0.017, each rounded once (1.1e-16) */
    explicit_mzi(mesh->mzi[0].theta.rad, mesh->mzi[0].phi.rad, 0.531, 0.483, 1, want);
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 2; k++)
            cr_assert_leq(cabs(OPTINC_AT(T, r, k) - cexp(I * mesh->screen[r].rad) * want[2 * r + k]),
                          1e-14);
    optinc_chip_mzi z;
    cr_assert_eq(optinc_chip_mzi_get(chip, 0, 0, 0, &z, NULL), OPTINC_OK);
    cr_assert_float_eq(z.kappa_in, 0.531, 1e-15);
    cr_assert_float_eq(z.kappa_out, 0.483, 1e-15);
    cr_assert_eq(optinc_chip_mzi_get(chip, 0, 0, 1, &z, NULL), OPTINC_EINPUT);
    optinc_cmat_free(T);
    optinc_chip_free(chip);
    optinc_chip_free(ideal);
    optinc_calibration_free(cal);
    optinc_circuit_free(c);
}

/* The identity decomposes into bar-state MZIs, so the light of input k
 * stays on mode k and crosses exactly the K_k MZIs that touch mode k. */
Test(devices, insertion_loss_along_a_path)
{
    const int n = 7;
    const double il = 0.37;
    optinc_components cp;
    optinc_components_defaults(&cp);
    cp.mzi.insertion_loss_dB = il;
    for (int kind = 0; kind < 2; kind++) {
        optinc_circuit *c = su_mesh_circuit_of(optinc_cmat_identity(n), kind, 1, &cp);
        optinc_chip *lossy = su_chip(c, OPTINC_DEV_LOSS, 1);
        optinc_cmat *T = optinc_chip_layer_transfer(lossy, 0);
        const optinc_mesh *mesh = c->layers[0].stage[0].mesh;
        for (int k = 0; k < n; k++) {
            int K = 0;
            for (int i = 0; i < mesh->n_mzi; i++)
                K += mesh->mzi[i].mode == k || mesh->mzi[i].mode + 1 == k;
            double p = pow(cabs(OPTINC_AT(T, k, k)), 2);
            /* a product of K amplitudes (K <= 12) squared: measured 1.7e-15,
             * 1e-14 leaves a factor 5.8 */
            cr_assert_float_eq(p, pow(10, -K * il / 10), 1e-14, "mode %d: %d MZIs, power %.17g",
                               k, K, p);
        }
        optinc_cmat_free(T);
        optinc_chip_free(lossy);
        optinc_circuit_free(c);
    }
}

/* K single-MZI layers chained: K MZIs of L dB on every path, plus attenuators. */
Test(devices, insertion_loss_of_chained_layers_and_attenuators)
{
    optinc_circuit *c = su_spec_circuit(
        "schema_version: 1\nname: chain\n"
        "components:\n  mzi: {insertion_loss_dB: 0.25}\n"
        "  attenuator: {insertion_loss_dB: 0.1}\n"
        "matrices:\n"
        "  A: {shape: [2, 2], dtype: complex, generate: {kind: haar_unitary, seed: 4}}\n"
        "  B: {shape: [2, 2], dtype: complex, generate: {kind: haar_unitary, seed: 5}}\n"
        "layers:\n"
        "  - {name: L1, matrix: A, attenuators: none}\n"
        "  - {name: L2, matrix: B, attenuators: none}\n"
        "  - {name: L3, matrix: A, attenuators: middle}\n");
    optinc_chip *chip = su_chip(c, OPTINC_DEV_LOSS, 1);
    optinc_cmat *M;
    cr_assert_eq(optinc_chip_circuit_matrix(chip, &M, NULL), OPTINC_OK);
    /* L1, L2: one MZI each (N = 2); L3: V mesh (one MZI), attenuator, U mesh (one MZI). */
    double db = 4 * 0.25 + 0.1;
    for (int k = 0; k < 2; k++) {
        double p = pow(cabs(OPTINC_AT(M, 0, k)), 2) + pow(cabs(OPTINC_AT(M, 1, k)), 2);
        /* measured 1.6e-15: 1e-13 leaves a factor 65 */
        cr_assert_float_eq(p, pow(10, -db / 10), 1e-13, "power %.17g", p);
    }
    optinc_cmat_free(M);
    optinc_chip_free(chip);
    optinc_circuit_free(c);
}

static double wrapped(double x)
{
    return fabs(remainder(x, 2 * M_PI));
}

Test(devices, quantization_error_is_at_most_half_a_step)
{
    for (int bits = 3; bits <= 10; bits += 7) {
        optinc_components cp;
        optinc_components_defaults(&cp);
        cp.phase_shifter.bits = bits;
        optinc_circuit *c = su_mesh_circuit(12, OPTINC_MESH_CLEMENTS, 21, &cp);
        double step = 2 * M_PI / ldexp(1, bits);
        optinc_chip *q = su_chip(c, OPTINC_DEV_NONE, 1);
        optinc_chip_options o = {OPTINC_DEV_NONE, OPTINC_DRIVE_TARGETS, NULL, 0};
        optinc_chip *exact;
        cr_assert_eq(optinc_chip_new(c, &o, 1, &exact, NULL), OPTINC_OK);
        const optinc_mesh *mesh = c->layers[0].stage[0].mesh;
        /* 1e-12: slack for the differences and remainders of phases on
         * [0, 2 pi) (ulp 8.9e-16; exact drivers measured 0 off their targets) */
        for (int i = 0; i < mesh->n_mzi; i++) {
            optinc_chip_mzi z, e;
            optinc_chip_mzi_get(q, 0, 0, i, &z, NULL);
            optinc_chip_mzi_get(exact, 0, 0, i, &e, NULL);
            cr_assert_leq(wrapped(z.theta_rad - mesh->mzi[i].theta.target_rad), step / 2 + 1e-12);
            cr_assert_leq(wrapped(z.phi_rad - mesh->mzi[i].phi.target_rad), step / 2 + 1e-12);
            cr_assert_leq(wrapped(e.theta_rad - mesh->mzi[i].theta.target_rad), 1e-12);
            /* The drive is the code's value: the same function of the same
             * code, so the same bits. */
            cr_assert_eq(z.theta_drive_rad,
                         optinc_quantizer_value(&(optinc_quantizer){bits, 0, 2 * M_PI},
                                                mesh->mzi[i].theta.code));
        }
        for (int r = 0; r < 12; r++)
            cr_assert_leq(wrapped(optinc_chip_screen_rad(q, 0, 0, r) - mesh->screen[r].target_rad),
                          step / 2 + 1e-12);
        /* Unquantized drivers rebuild the decomposed unitary itself: measured
         * 2.6e-15, 1e-12 leaves a factor 385. */
        optinc_cmat *T = optinc_chip_layer_transfer(exact, 0);
        cr_assert_leq(optinc_cmat_max_abs_diff(T, c->layers[0].target), 1e-12);
        optinc_cmat_free(T);
        optinc_chip_free(q);
        optinc_chip_free(exact);
        optinc_circuit_free(c);
    }
}

/* Exact: crosstalk 0 adds 0 . (a neighbour's phase) = +0 to every phase. */
Test(devices, crosstalk_zero_changes_nothing)
{
    optinc_components cp;
    optinc_components_defaults(&cp);
    cp.phase_shifter.thermal_crosstalk = 0;
    optinc_circuit *c = su_mesh_circuit(9, OPTINC_MESH_CLEMENTS, 8, &cp);
    optinc_chip *a = su_chip(c, OPTINC_DEV_CROSSTALK, 1), *b = su_chip(c, OPTINC_DEV_NONE, 1);
    optinc_cmat *Ta = optinc_chip_layer_transfer(a, 0), *Tb = optinc_chip_layer_transfer(b, 0);
    cr_assert_eq(memcmp(Ta->a, Tb->a, sizeof *Ta->a * 81), 0);
    optinc_cmat_free(Ta);
    optinc_cmat_free(Tb);
    optinc_chip_free(a);
    optinc_chip_free(b);
    optinc_circuit_free(c);
}

Test(devices, crosstalk_shifts_the_neighbours_phase)
{
    const double x = 0.07;
    for (int kind = 0; kind < 2; kind++) {
        optinc_components cp;
        optinc_components_defaults(&cp);
        cp.phase_shifter.thermal_crosstalk = x;
        optinc_circuit *c = su_mesh_circuit(10, kind, 8, &cp);
        optinc_chip *chip = su_chip(c, OPTINC_DEV_CROSSTALK, 1);
        const optinc_mesh *mesh = c->layers[0].stage[0].mesh;
        int with_neighbours = 0;
        for (int i = 0; i < mesh->n_mzi; i++) {
            const optinc_mzi *z = &mesh->mzi[i];
            double th = z->theta.rad, ph = z->phi.rad;
            for (int j = 0; j < mesh->n_mzi; j++)
                if (mesh->mzi[j].column == z->column && abs(mesh->mzi[j].mode - z->mode) == 2) {
                    th += x * mesh->mzi[j].theta.rad;
                    ph += x * mesh->mzi[j].phi.rad;
                    with_neighbours++;
                }
            optinc_chip_mzi m;
            optinc_chip_mzi_get(chip, 0, 0, i, &m, NULL);
            /* sums of three phases under 8 rad, summed in another order:
             * measured 8.9e-16 (1 ulp), 1e-13 is 110 ulps */
            cr_assert_float_eq(m.theta_rad, th, 1e-13);
            cr_assert_float_eq(m.phi_rad, ph, 1e-13);
        }
        cr_assert_gt(with_neighbours, 0);
        for (int r = 0; r < 10; r++) {
            double want = mesh->screen[r].rad + x * ((r > 0 ? mesh->screen[r - 1].rad : 0)
                                                     + (r < 9 ? mesh->screen[r + 1].rad : 0));
            cr_assert_float_eq(optinc_chip_screen_rad(chip, 0, 0, r), want, 1e-13);
        }
        optinc_chip_free(chip);
        optinc_circuit_free(c);
    }
}

/* Sample standard deviation of x[0..n). */
static double sample_std(const double *x, int n)
{
    double m = 0, v = 0;
    for (int i = 0; i < n; i++)
        m += x[i] / n;
    for (int i = 0; i < n; i++)
        v += (x[i] - m) * (x[i] - m);
    return sqrt(v / (n - 1));
}

Test(devices, static_errors_have_the_asked_sigma_and_independent_streams)
{
    optinc_components cp;
    optinc_components_defaults(&cp);
    cp.mzi.phase_error_sigma_rad = 0.01;
    cp.mzi.splitter_error_sigma = 0.02;
    optinc_circuit *c = su_mesh_circuit(32, OPTINC_MESH_CLEMENTS, 2, &cp);
    optinc_chip *all = su_chip(c, OPTINC_DEV_ALL, 77), *ph = su_chip(c, OPTINC_DEV_PHASE_ERROR, 77);
    optinc_chip *cpl = su_chip(c, OPTINC_DEV_COUPLER, 77);
    int n = c->layers[0].stage[0].mesh->n_mzi;
    double *dth = malloc(sizeof *dth * n), *dk = malloc(sizeof *dk * 2 * n);
    for (int i = 0; i < n; i++) {
        optinc_chip_mzi a, p, k;
        optinc_chip_mzi_get(all, 0, 0, i, &a, NULL);
        optinc_chip_mzi_get(ph, 0, 0, i, &p, NULL);
        optinc_chip_mzi_get(cpl, 0, 0, i, &k, NULL);
        /* Switching other models on does not move a model's draws: each model
         * has its own stream, so the same bits; an ideal coupler is 0.5. */
        cr_assert_eq(a.theta_rad, p.theta_rad);
        cr_assert_eq(a.kappa_in, k.kappa_in);
        cr_assert_eq(p.kappa_in, 0.5);
        dth[i] = p.theta_rad - p.theta_drive_rad;
        dk[2 * i] = k.kappa_in - 0.5;
        dk[2 * i + 1] = k.kappa_out - 0.5;
    }
    /* n = 496 draws: the sample sigma's own sigma is sigma / sqrt(2n), 3.2e-4
     * and 4.5e-4 (2n draws); the bounds are 4.7 and 4.4 of those */
    cr_assert_float_eq(sample_std(dth, n), 0.01, 0.0015);
    cr_assert_float_eq(sample_std(dk, 2 * n), 0.02, 0.002);
    free(dth);
    free(dk);
    optinc_chip_free(all);
    optinc_chip_free(ph);
    optinc_chip_free(cpl);
    optinc_circuit_free(c);
}

Test(devices, dynamic_noise_changes_every_evaluation)
{
    optinc_components cp;
    optinc_components_defaults(&cp);
    cp.phase_shifter.noise_sigma_rad = 0.01;
    optinc_circuit *c = su_mesh_circuit(6, OPTINC_MESH_CLEMENTS, 2, &cp);
    optinc_chip *a = su_chip(c, OPTINC_DEV_PHASE_NOISE, 9), *b = su_chip(c, OPTINC_DEV_PHASE_NOISE, 9);
    optinc_chip *quiet = su_chip(c, OPTINC_DEV_ALL & ~OPTINC_DEV_PHASE_NOISE, 9);
    optinc_cmat *a1 = optinc_chip_layer_transfer(a, 0), *a2 = optinc_chip_layer_transfer(a, 0);
    optinc_cmat *b1 = optinc_chip_layer_transfer(b, 0), *T = optinc_chip_layer_transfer(quiet, 0);
    cr_assert_neq(memcmp(a1->a, a2->a, sizeof *a1->a * 36), 0);
    cr_assert_eq(memcmp(a1->a, b1->a, sizeof *a1->a * 36), 0);    /* same seed, same sequence */
    double d = optinc_cmat_max_abs_diff(a1, T);
    cr_assert(d > 1e-4 && d < 0.2, "noise moved T by %g", d);
    optinc_cmat *arr[] = {a1, a2, b1, T};
    for (int i = 0; i < 4; i++)
        optinc_cmat_free(arr[i]);
    optinc_chip_free(a);
    optinc_chip_free(b);
    optinc_chip_free(quiet);
    optinc_circuit_free(c);
}

Test(devices, attenuator_extinction_and_resolution)
{
    optinc_circuit *c = su_spec_circuit(
        "schema_version: 1\nname: att\n"
        "components:\n  attenuator: {max_attenuation_dB: 30, bits: 5}\n"
        "matrices:\n  W:\n    shape: [3, 3]\n    dtype: real\n"
        "    data: [[1, 0, 0], [0, 0.3, 0], [0, 0, 0.00001]]\n"
        "layers:\n  - {name: L1, matrix: W, attenuators: middle}\n");
    const optinc_stage *st = &c->layers[0].stage[1];
    cr_assert_eq(st->kind, OPTINC_STAGE_ATT);
    double step_db = 30.0 / 31;
    optinc_chip *chip = su_chip(c, OPTINC_DEV_ALL, 1);
    /* the chip's amplitude is the compiler's t through one pow (measured 0,
     * 1e-15 is 4.5 ulps of 1); the dB error is half a DAC step plus rounding */
    for (int k = 0; k < st->n_att; k++) {
        double a = optinc_chip_att_amplitude(chip, 0, 1, k);
        cr_assert_float_eq(a, st->att[k].t, 1e-15);
        double want_db = fmin(-20 * log10(st->att[k].t_target), 30);
        cr_assert_leq(fabs(-20 * log10(a) - want_db), step_db / 2 + 1e-9, "channel %d", k);
    }
    /* Unquantized drivers: the 100 dB channel stops at the 30 dB extinction floor. */
    optinc_chip_options o = {OPTINC_DEV_EXTINCTION, OPTINC_DRIVE_TARGETS, NULL, 0};
    optinc_chip *exact;
    cr_assert_eq(optinc_chip_new(c, &o, 1, &exact, NULL), OPTINC_OK);
    o.models = OPTINC_DEV_NONE;
    optinc_chip *unbounded;
    cr_assert_eq(optinc_chip_new(c, &o, 1, &unbounded, NULL), OPTINC_OK);
    int found = 0;
    for (int k = 0; k < st->n_att; k++)
        if (st->att[k].t_target < 1e-4) {
            found = 1;
            /* one pow each (measured 0): 1e-15 and 1e-18 are 140 and 590
             * ulps of 0.032 and 1e-5 */
            cr_assert_float_eq(optinc_chip_att_amplitude(exact, 0, 1, k), pow(10, -1.5), 1e-15);
            cr_assert_float_eq(optinc_chip_att_amplitude(unbounded, 0, 1, k), st->att[k].t_target,
                               1e-18);
        }
    cr_assert(found);
    cr_assert(isnan(optinc_chip_att_amplitude(chip, 0, 0, 0)));
    optinc_chip_free(chip);
    optinc_chip_free(exact);
    optinc_chip_free(unbounded);
    optinc_circuit_free(c);
}

Test(devices, detection)
{
    optinc_cmat *y = optinc_cmat_new(1, 3), *z;
    y->a[0] = 3 + 4 * I;
    y->a[1] = -2;
    y->a[2] = 1 * I;
    z = optinc_cmat_copy(y);
    optinc_detect_apply(OPTINC_DETECT_INTENSITY, 0, y);
    /* exact: |E|^2 of small integers; the coherent read rotates by
     * e^{-i pi/2}, whose cos(pi/2) is 6.1e-17 (measured 1.2e-16 off), and
     * sets the imaginary part to 0 */
    cr_assert_eq(y->a[0], 25);
    cr_assert_eq(y->a[1], 4);
    cr_assert_eq(y->a[2], 1);
    optinc_detect_apply(OPTINC_DETECT_COHERENT, M_PI / 2, z);   /* Re(E e^{-i pi/2}) = Im E */
    cr_assert_float_eq(creal(z->a[0]), 4, 1e-15);
    cr_assert_float_eq(creal(z->a[1]), 0, 1e-15);
    cr_assert_float_eq(creal(z->a[2]), 1, 1e-15);
    cr_assert_eq(cimag(z->a[0]), 0);
    optinc_cmat_free(y);
    optinc_cmat_free(z);
}
