/*
 * test_circuit.c - optinc_compile on hand-built specs: reconstruction of
 * real/complex M x N matrices from the physical elements, degenerate matrices,
 * the attenuator column, the unitary-diagonal forms, input errors and the
 * ONN record; and the SVD under it for every small shape.
 *
 * Bounds: "measured" is the largest value over four BLAS builds on an AVX-512
 * machine (OpenBLAS's Cooperlake, Haswell and Sandybridge kernels, and the
 * reference BLAS/LAPACK), which give the SVDs different last bits.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/circuit.h"

static optinc_components ideal(void)
{
    optinc_components c;
    memset(&c, 0, sizeof c);
    c.phase_shifter.range_rad[1] = 2 * M_PI;
    c.attenuator.max_attenuation_dB = 60;
    return c;
}

/* A one-layer spec around W (copied). */
static optinc_spec *one_layer(const optinc_cmat *W, optinc_att_position att, optinc_mesh_kind kind)
{
    optinc_spec *s = calloc(1, sizeof *s);
    strcpy(s->path, "test.yaml");
    strcpy(s->name, "t");
    s->n_matrices = 1;
    s->matrices = calloc(1, sizeof *s->matrices);
    strcpy(s->matrices[0].name, "W");
    s->matrices[0].rows = W->rows;
    s->matrices[0].cols = W->cols;
    s->matrices[0].data = malloc(sizeof(double complex) * (size_t)W->rows * (size_t)W->cols);
    memcpy(s->matrices[0].data, W->a, sizeof(double complex) * (size_t)W->rows * (size_t)W->cols);
    s->n_layers = 1;
    s->layers = calloc(1, sizeof *s->layers);
    strcpy(s->layers[0].name, "L1");
    s->layers[0].mesh = kind;
    s->layers[0].attenuators = att;
    s->layers[0].components = ideal();
    s->layers[0].line = 7;
    s->layers[0].column = 5;
    return s;
}

static void free_spec(optinc_spec *s)
{
    for (int i = 0; i < s->n_matrices; i++)
        free(s->matrices[i].data);
    free(s->matrices);
    free(s->layers);
    free(s);
}

/* max|W - s.T| / s from a fresh transfer, and no NaN anywhere. */
static double rebuilt_error(const optinc_layer *L, const optinc_cmat *W)
{
    optinc_cmat *T = optinc_layer_transfer(L);
    cr_assert_eq(T->rows, W->rows);
    cr_assert_eq(T->cols, W->cols);
    double e = 0;
    for (int i = 0; i < W->rows * W->cols; i++) {
        cr_assert(isfinite(creal(T->a[i])) && isfinite(cimag(T->a[i])));
        double d = cabs(W->a[i] - L->gain * T->a[i]);
        e = d > e ? d : e;
    }
    optinc_cmat_free(T);
    for (int s = 0; s < L->n_stages; s++) {
        const optinc_stage *st = &L->stage[s];
        for (int k = 0; k < st->n_att; k++) {
            cr_assert(isfinite(st->att[k].att_dB) && st->att[k].att_dB >= 0);
            cr_assert(st->att[k].t <= 1.0 && st->att[k].t >= 0);
        }
        if (st->mesh)
            for (int k = 0; k < st->mesh->n_mzi; k++)
                cr_assert(isfinite(st->mesh->mzi[k].theta.rad) && isfinite(st->mesh->mzi[k].phi.rad));
    }
    return e / L->gain;
}

static void compile_and_check(const optinc_cmat *W, optinc_att_position att,
                              optinc_mesh_kind kind, double tol, const char *what)
{
    optinc_spec *s = one_layer(W, att, kind);
    /* Zero singular values need full extinction: allow 400 dB (1e-20) here;
     * the finite default is tested in zero_matrix_caps_attenuators. */
    s->layers[0].components.attenuator.max_attenuation_dB = 400;
    optinc_circuit *c = NULL;
    optinc_error err;
    cr_assert_eq(optinc_compile(s, &c, &err), OPTINC_OK, "%s: %s", what, err.message);
    const optinc_layer *L = &c->layers[0];
    double e = rebuilt_error(L, W);
    /* tol 1e-12 everywhere: measured 1.0e-14 (64 x 64), a factor 98 */
    cr_expect_leq(e, tol, "%s %dx%d: max|W - s.T|/s = %g", what, W->rows, W->cols, e);
    /* the compiler's figure is this maximum of the same transfer: measured 0 */
    cr_expect_leq(fabs(L->reconstruction_error - e), 1e-15);
    int k = W->rows < W->cols ? W->rows : W->cols;
    if (att == OPTINC_ATT_MIDDLE) {
        cr_expect_eq(optinc_layer_attenuators(L), k);
        cr_expect_eq(optinc_layer_mzis(L),
                     W->rows * (W->rows - 1) / 2 + W->cols * (W->cols - 1) / 2);
    }
    optinc_circuit_free(c);
    free_spec(s);
}

/* optinc_svd on every shape up to 24 x 24: U and Vh unitary, s descending
 * and >= 0, W = U.diag(s).Vh.  Under `make valgrind` this is also the guard
 * for the padded LAPACK arrays (matrix.c): OpenBLAS 0.3.21's zgemv reads
 * outside the arrays it is given, and those reads must land in our slack. */
Test(circuit, svd_every_small_shape)
{
    optinc_rng rng;
    optinc_rng_seed(&rng, 24);
    for (int m = 1; m <= 24; m++)
        for (int n = 1; n <= 24; n++) {
            optinc_cmat *W = optinc_cmat_gaussian(m, n, (m + n) % 2, &rng), *U, *Vh;
            double *s;
            cr_assert_eq(optinc_svd(W, &U, &s, &Vh, NULL), OPTINC_OK);
            /* measured 4.6e-15: 1e-13 leaves a factor 22 */
            cr_assert_leq(optinc_cmat_unitarity_error(U), 1e-13, "%dx%d: U", m, n);
            cr_assert_leq(optinc_cmat_unitarity_error(Vh), 1e-13, "%dx%d: Vh", m, n);
            optinc_cmat *S = optinc_cmat_new(m, n), *US = optinc_cmat_new(m, n);
            optinc_cmat *R = optinc_cmat_new(m, n);
            for (int i = 0; i < (m < n ? m : n); i++) {
                cr_assert_geq(s[i], 0.0);
                cr_assert(i == 0 || s[i] <= s[i - 1], "%dx%d: s not descending", m, n);
                OPTINC_AT(S, i, i) = s[i];
            }
            optinc_cmat_mul(U, S, US);
            optinc_cmat_mul(US, Vh, R);
            double d = optinc_cmat_max_abs_diff(R, W);
            /* measured 4.1e-15 s[0] (24 x 24): a factor 24 */
            cr_assert_leq(d, 1e-13 * s[0], "%dx%d: max|W - U.S.Vh| = %g", m, n, d);
            optinc_cmat *all[] = {W, U, Vh, S, US, R};
            for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
                optinc_cmat_free(all[k]);
            free(s);
        }
}

Test(circuit, random_rectangular)
{
    static const int shapes[][2] = {{1, 1}, {1, 7}, {7, 1}, {5, 3}, {3, 5}, {64, 64}, {10, 6}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int cplx = 0; cplx < 2; cplx++)
            for (int kind = 0; kind < 2; kind++) {
                optinc_rng rng;
                optinc_rng_seed(&rng, 31 * i + cplx);
                optinc_cmat *W = optinc_cmat_gaussian(shapes[i][0], shapes[i][1], cplx, &rng);
                compile_and_check(W, OPTINC_ATT_MIDDLE, kind, 1e-12, cplx ? "complex" : "real");
                optinc_cmat_free(W);
            }
}

Test(circuit, degenerate_matrices)
{
    int n = 6;
    optinc_cmat *I_ = optinc_cmat_identity(n), *P = optinc_cmat_new(n, n);
    optinc_cmat *D = optinc_cmat_new(n, n), *R1 = optinc_cmat_new(n, 4);
    for (int i = 0; i < n; i++) {
        OPTINC_AT(P, i, (i + 2) % n) = 1;
        OPTINC_AT(D, i, i) = 0.5 + i;
        for (int j = 0; j < 4; j++)
            OPTINC_AT(R1, i, j) = (i + 1.0) * (j - 1.5);   /* rank 1 */
    }
    compile_and_check(I_, OPTINC_ATT_MIDDLE, OPTINC_MESH_CLEMENTS, 1e-12, "identity");
    compile_and_check(P, OPTINC_ATT_MIDDLE, OPTINC_MESH_RECK, 1e-12, "permutation");
    compile_and_check(D, OPTINC_ATT_MIDDLE, OPTINC_MESH_CLEMENTS, 1e-12, "diagonal");
    compile_and_check(R1, OPTINC_ATT_MIDDLE, OPTINC_MESH_CLEMENTS, 1e-12, "rank-1");
    compile_and_check(I_, OPTINC_ATT_NONE, OPTINC_MESH_CLEMENTS, 1e-12, "identity, no attenuators");
    optinc_cmat_free(I_);
    optinc_cmat_free(P);
    optinc_cmat_free(D);
    optinc_cmat_free(R1);
}

/* A zero matrix compiles with no NaN; its attenuators are capped at the
 * maximum attenuation, with a warning, and the residual is exactly that. */
Test(circuit, zero_matrix_caps_attenuators)
{
    optinc_cmat *Z = optinc_cmat_new(4, 3);
    optinc_spec *s = one_layer(Z, OPTINC_ATT_MIDDLE, OPTINC_MESH_CLEMENTS);
    optinc_circuit *c;
    cr_assert_eq(optinc_compile(s, &c, NULL), OPTINC_OK);
    const optinc_layer *L = &c->layers[0];
    cr_assert_eq(L->gain, 1.0);     /* exact: the gain of a zero matrix is set, not computed */
    cr_assert_eq(L->n_warnings_capped, 3);
    cr_assert_eq(c->n_warnings, 1);
    cr_assert(strstr(c->warnings[0], "max_attenuation_dB"));
    /* -20 log10 of the capped amplitude and back (no BLAS): a few ulps
     * (ulp(60) = 7.1e-15; measured 0); the residual is that amplitude,
     * 1e-3 to a few ulps, under 1e-3 (1 + 1e-12) */
    for (int k = 0; k < 3; k++)
        cr_assert_float_eq(L->stage[1].att[k].att_dB, 60.0, 1e-12);
    double e = rebuilt_error(L, Z);
    cr_assert_leq(e, 1e-3 * (1 + 1e-12));
    optinc_circuit_free(c);
    free_spec(s);
    optinc_cmat_free(Z);
}

/* att_dB = -20 log10(sigma_k / s) with s = sigma_max, or a larger gain. */
Test(circuit, attenuator_column_and_gain)
{
    optinc_cmat *D = optinc_cmat_new(3, 3);
    OPTINC_AT(D, 0, 0) = 4; OPTINC_AT(D, 1, 1) = 2; OPTINC_AT(D, 2, 2) = 1;
    optinc_spec *s = one_layer(D, OPTINC_ATT_MIDDLE, OPTINC_MESH_CLEMENTS);
    optinc_circuit *c;
    cr_assert_eq(optinc_compile(s, &c, NULL), OPTINC_OK);
    const optinc_stage *att = &c->layers[0].stage[1];
    /* Exact: a diagonal matrix is its own SVD (LAPACK's reflectors are the
     * identity, the bidiagonal has nothing to iterate on), so s = (4, 2, 1)
     * on every build; the dB values are 20 log10 of those ratios, a few ulps
     * of 12 dB (1.8e-15; measured 0) under 1e-12. */
    cr_assert_eq(c->layers[0].gain, 4.0);
    cr_assert_float_eq(att->att[0].att_dB, 0.0, 1e-12);
    cr_assert_float_eq(att->att[1].att_dB, 20 * log10(2.0), 1e-12);
    cr_assert_float_eq(att->att[2].att_dB, 20 * log10(4.0), 1e-12);
    optinc_circuit_free(c);

    s->layers[0].gain = 8;
    cr_assert_eq(optinc_compile(s, &c, NULL), OPTINC_OK);
    cr_assert_float_eq(c->layers[0].stage[1].att[0].att_dB, 20 * log10(2.0), 1e-12);
    cr_assert_leq(rebuilt_error(&c->layers[0], D), 1e-12);     /* measured 3.7e-16 */
    optinc_circuit_free(c);

    optinc_error err;
    s->layers[0].gain = 3;
    cr_assert_eq(optinc_compile(s, &c, &err), OPTINC_EINPUT);
    cr_assert_eq(err.line, 7);
    cr_assert_eq(err.column, 5);
    cr_assert(strstr(err.message, "below the largest singular value"));
    free_spec(s);
    optinc_cmat_free(D);
}

Test(circuit, attenuator_bits)
{
    optinc_components c = ideal();
    c.attenuator.bits = 4;
    c.attenuator.max_attenuation_dB = 30;
    for (int k = 0; k <= 100; k++) {
        optinc_att a;
        optinc_att_program(&a, pow(10, -k * 0.4 / 20), &c, NULL);
        cr_assert(a.code >= 0 && a.code <= 15);
        /* a code's dB is code . step, a product of two exact numbers (measured
         * 0); 1e-12 is rounding slack for it and for the half step below */
        cr_assert_float_eq(a.att_dB, a.code * 2.0, 1e-12);
        double want = fmin(k * 0.4, 30);
        cr_assert_leq(fabs(a.att_dB - want), 1.0 + 1e-12, "step 2 dB, error at most 1 dB");
    }
}

/* The OptINC unitary-diagonal forms are exact for matrices of that form. */
Test(circuit, unitary_diagonal_forms)
{
    int n = 8;
    optinc_rng rng;
    optinc_rng_seed(&rng, 5);
    optinc_cmat *U = optinc_cmat_haar(n, &rng);
    optinc_cmat *SU = optinc_cmat_new(n, n), *US = optinc_cmat_new(n, n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            OPTINC_AT(SU, i, j) = (0.2 + 0.1 * i) * OPTINC_AT(U, i, j);
            OPTINC_AT(US, i, j) = OPTINC_AT(U, i, j) * (0.2 + 0.1 * j);
        }
    compile_and_check(SU, OPTINC_ATT_OUTPUT, OPTINC_MESH_CLEMENTS, 1e-12, "sigma.U");
    compile_and_check(US, OPTINC_ATT_INPUT, OPTINC_MESH_RECK, 1e-12, "U.sigma");
    for (int i = 0; i < n * n; i++)
        U->a[i] *= 3;
    compile_and_check(U, OPTINC_ATT_NONE, OPTINC_MESH_CLEMENTS, 1e-12, "3U");

    /* A general matrix is approximated; the residual is reported, not hidden. */
    optinc_cmat *G = optinc_cmat_gaussian(n, n, 0, &rng);
    optinc_spec *s = one_layer(G, OPTINC_ATT_OUTPUT, OPTINC_MESH_CLEMENTS);
    optinc_circuit *c;
    cr_assert_eq(optinc_compile(s, &c, NULL), OPTINC_OK);
    cr_assert_gt(c->layers[0].approximation_error, 1e-3);     /* measured 0.28 */
    /* the mesh adds no more than the approximation (1e-9: slack for rounding,
     * measured difference 2.8e-16) */
    cr_assert_leq(fabs(c->layers[0].reconstruction_error - c->layers[0].approximation_error),
                  1e-9 + c->layers[0].approximation_error);
    cr_assert_eq(optinc_layer_mzis(&c->layers[0]), n * (n - 1) / 2);
    cr_assert_eq(optinc_layer_attenuators(&c->layers[0]), n);
    optinc_circuit_free(c);
    free_spec(s);
    optinc_cmat_free(G);
    optinc_cmat_free(U);
    optinc_cmat_free(SU);
    optinc_cmat_free(US);
}

Test(circuit, input_errors)
{
    optinc_rng rng;
    optinc_rng_seed(&rng, 9);
    optinc_cmat *W = optinc_cmat_gaussian(4, 3, 0, &rng);
    optinc_error err;
    optinc_circuit *c = NULL;
    optinc_spec *s = one_layer(W, OPTINC_ATT_OUTPUT, OPTINC_MESH_CLEMENTS);
    cr_assert_eq(optinc_compile(s, &c, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "square"), "%s", err.message);
    s->layers[0].attenuators = OPTINC_ATT_NONE;
    cr_assert_eq(optinc_compile(s, &c, &err), OPTINC_EINPUT);
    free_spec(s);

    optinc_cmat *G = optinc_cmat_gaussian(4, 4, 0, &rng);
    s = one_layer(G, OPTINC_ATT_NONE, OPTINC_MESH_CLEMENTS);
    cr_assert_eq(optinc_compile(s, &c, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "unitary"), "%s", err.message);
    cr_assert_eq(err.line, 7);
    free_spec(s);

    /* Two layers whose shapes do not chain. */
    s = one_layer(W, OPTINC_ATT_MIDDLE, OPTINC_MESH_CLEMENTS);
    s->n_layers = 2;
    s->layers = realloc(s->layers, 2 * sizeof *s->layers);
    s->layers[1] = s->layers[0];
    s->layers[1].line = 12;
    cr_assert_eq(optinc_compile(s, &c, &err), OPTINC_EINPUT);
    cr_assert_eq(err.line, 12);
    cr_assert(strstr(err.message, "takes 3 inputs"), "%s", err.message);
    free_spec(s);
    optinc_cmat_free(W);
    optinc_cmat_free(G);
}

/* The ONN record: copied from allreduce: and the onn_ info keys; a spec
 * whose onn_ keys are malformed still compiles, without a record, and the
 * record's own builder names the problem. */
Test(circuit, onn_record)
{
    optinc_rng rng;
    optinc_rng_seed(&rng, 3);
    optinc_cmat *W = optinc_cmat_gaussian(2, 2, 0, &rng);
    optinc_spec *s = one_layer(W, OPTINC_ATT_MIDDLE, OPTINC_MESH_CLEMENTS);
    optinc_circuit *c = NULL;
    optinc_error err;
    cr_assert_eq(optinc_compile(s, &c, &err), OPTINC_OK, "%s", err.message);
    cr_assert(!c->onn.present, "no allreduce: section");
    optinc_circuit_free(c);

    s->allreduce = (optinc_spec_allreduce){.present = 1, .servers = 16, .gradient_bits = 8,
                                           .preprocessing = "weighted_sum",
                                           .cascade_fan_in = 4, .cascade_levels = 2};
    optinc_spec_info info[2] = {{"onn_level", "1", 3, 14}, {"onn_segments", "2x2", 4, 17}};
    s->info = info;
    s->n_info = 2;
    cr_assert_eq(optinc_compile(s, &c, &err), OPTINC_OK, "%s", err.message);
    const optinc_circuit_onn *o = &c->onn;
    cr_assert(o->present);
    cr_assert_eq(o->servers, 16);
    cr_assert_eq(o->cascade_fan_in, 4);
    cr_assert_eq(o->cascade_levels, 2);
    cr_assert_str_eq(o->preprocessing, "weighted_sum");
    cr_assert_str_eq(o->rounding, "half_even", "the default");
    cr_assert_eq(o->level, 1);
    cr_assert_eq(o->n_segments, 1);
    cr_assert_eq(o->segments[0], 2);
    optinc_circuit_free(c);

    info[0].value = "7";
    cr_assert_eq(optinc_compile(s, &c, &err), OPTINC_OK, "%s", err.message);
    cr_assert(!c->onn.present, "a malformed onn_level leaves the record out");
    optinc_circuit_free(c);
    optinc_circuit_onn rec;
    cr_assert_eq(optinc_circuit_onn_from_spec(s, &rec, &err), OPTINC_EINPUT);
    cr_assert_str_eq(err.file, "test.yaml");
    cr_assert(err.line == 3 && err.column == 14, "at the value: %d:%d", err.line, err.column);
    cr_assert(strstr(err.message, "onn_level is '7'"), "%s", err.message);
    info[0].value = "1x";
    cr_assert_eq(optinc_circuit_onn_from_spec(s, &rec, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "onn_level is '1x'"), "%s", err.message);
    info[0].value = "1";
    info[1].value = "2y2";
    cr_assert_eq(optinc_circuit_onn_from_spec(s, &rec, &err), OPTINC_EINPUT);
    cr_assert(err.line == 4 && err.column == 17, "at the value: %d:%d", err.line, err.column);
    cr_assert(strstr(err.message, "onn_segments must list"), "%s", err.message);
    s->info = NULL;
    free_spec(s);
    optinc_cmat_free(W);
}
