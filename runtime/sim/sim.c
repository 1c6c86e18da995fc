/*
 * sim.c - running a chip: batch propagation, transfer matrices, whole-circuit
 * evaluation with activations and detection, fidelity metrics, Monte-Carlo.
 *
 * Propagation is the hot loop of the ONN and the trainer, so it is built to
 * run at dense zgemm speed although a mesh is N(N-1)/2 dependent 2x2
 * elements: devices.c turns each MZI into a pivot step of two complex
 * multiply-adds per vector, with the rest of the element carried in one
 * factor per mode for the whole batch and folded into the output screen
 * (chip.h), so the mesh does the multiplies of the dense product where a
 * general 2x2 per element would do twice as many; the MZIs run in bands of
 * columns swept along diagonals (devices.c), so the rows they touch stay in
 * L1; the batch is cut into chunks of SIM_ROW bytes per row, real and
 * imaginary planes, a whole layer running on one chunk while it is in cache;
 * and the same kernel (sim_kernel.h) is compiled for double and for float.
 * On x86-64 with GCC it is also cloned for x86-64-v3 (AVX2) and the loader
 * picks the clone the CPU runs; results are bit-identical either way (ISO C
 * mode does not contract to FMA).
 *
 * Dynamic phase noise is drawn once per layer evaluation (one call of
 * optinc_chip_layer_apply), i.e. all B vectors of a batch see the same noise
 * realization; call with B = 1 for independent noise per vector.
 *
 * Monte-Carlo compares each chip's T' with the compiler's reconstruction T
 * (optinc_layer_transfer): device errors only, the compiler's own error is
 * the ideal chip's business.
 */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "chip.h"

/* Bytes of one mode's real (or imaginary) parts in a chunk: 64 doubles or
 * 128 floats, so a chunk's row costs the float path no more per MZI than the
 * double path (the per-MZI overhead is paid on twice the vectors) and a
 * mesh's sweep band (devices.c) stays in L1 for both. */
#define SIM_ROW 512

/* The kernels' clones.  The AVX-512 one is there for its 32 vector
 * registers more than its width: with 16, a pivot pair's eight coefficients
 * and six rows spill, and on an AVX-512 machine it measured double/zgemm
 * 1.14 -> 1.05 and float/cgemm 1.31 -> 1.17 at N = 256, B = 1024
 * (bench_sim).  No clone contracts into FMA (ISO C), so all give the same
 * bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define SIM_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SIM_CLONES
#endif

const char *const optinc_detect_names[] = {"field", "intensity", "coherent", NULL};

#define REAL double
#define SFX _d
#define PROG_MAT(p) ((const double *)(p)->m)
#define PROG_SCREEN(p) ((const double *)(p)->screen)
#include "sim_kernel.h"
#undef REAL
#undef SFX
#undef PROG_MAT
#undef PROG_SCREEN

#define REAL float
#define SFX _f
#define PROG_MAT(p) ((p)->mf)
#define PROG_SCREEN(p) ((p)->screenf)
#include "sim_kernel.h"
#undef REAL
#undef SFX
#undef PROG_MAT
#undef PROG_SCREEN

static optinc_status oom(optinc_error *err)
{
    return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
}

/* ------------------------------------------------------------------ layers */

optinc_status optinc_chip_layer_apply(optinc_chip *chip, int layer, const optinc_cmat *in,
                                      optinc_cmat *out, optinc_precision prec,
                                      optinc_error *err)
{
    if (layer < 0 || layer >= chip->n_layers)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "no layer %d: the circuit has %d layers, counted from 0", layer,
                           chip->n_layers);
    const optinc_layer *L = &chip->circuit->layers[layer];
    if (in->rows != L->cols || out->rows != L->rows || out->cols != in->cols || in == out)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "layer '%s' maps %d modes to %d, but the batch is %dx%d -> %dx%d; "
                           "give it %d rows (one per input mode), one column per vector, and "
                           "a separate output of %d rows", L->name, L->cols, L->rows, in->rows,
                           in->cols, out->rows, out->cols, L->cols, L->rows);
    chip_layer *cl = &chip->layer[layer];
    const chip_prog *progs[OPTINC_STAGES_MAX];
    chip_prog noisy[OPTINC_STAGES_MAX];
    memset(noisy, 0, sizeof noisy);
    int modes = 0, bad = 0;
    for (int s = 0; s < cl->n_stages; s++) {
        chip_stage *cs = &cl->stage[s];
        modes = cs->modes_in > modes ? cs->modes_in : modes;
        modes = cs->modes_out > modes ? cs->modes_out : modes;
        progs[s] = &cs->prog;
        if (cs->kind == OPTINC_STAGE_MESH && cs->noise_sigma > 0) {
            if (optinc_chip_prog_alloc(&noisy[s], cs->n_mzi, cs->modes_in)) {
                bad = 1;
                break;
            }
            optinc_chip_stage_noisy(cs, &chip->noise, &noisy[s]);
            progs[s] = &noisy[s];
        }
    }
    modes = cl->park + cl->pass_through > modes ? cl->park + cl->pass_through : modes;
    size_t plane = (size_t)modes * SIM_ROW;
    char *buf = bad ? NULL : aligned_alloc(64, 2 * plane + 64);
    if (buf) {
        if (prec == OPTINC_FLOAT)
            run_f(cl, progs, in, out, (float *)buf, (float *)(buf + plane));
        else
            run_d(cl, progs, in, out, (double *)buf, (double *)(buf + plane));
    }
    free(buf);
    for (int s = 0; s < cl->n_stages; s++)
        optinc_chip_prog_free(&noisy[s]);
    return buf ? OPTINC_OK : oom(err);
}

optinc_cmat *optinc_chip_layer_transfer(optinc_chip *chip, int layer)
{
    if (layer < 0 || layer >= chip->n_layers)
        return NULL;
    const optinc_layer *L = &chip->circuit->layers[layer];
    optinc_cmat *id = optinc_cmat_identity(L->cols), *T = optinc_cmat_new(L->rows, L->cols);
    if (!id || !T || optinc_chip_layer_apply(chip, layer, id, T, OPTINC_DOUBLE, NULL)) {
        optinc_cmat_free(T);
        T = NULL;
    }
    optinc_cmat_free(id);
    return T;
}

optinc_status optinc_chip_circuit_matrix(optinc_chip *chip, optinc_cmat **out,
                                         optinc_error *err)
{
    const optinc_circuit *c = chip->circuit;
    if (c->n_layers < 1)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "circuit '%s' has no layers, so it has no transfer matrix", c->name);
    for (int l = 0; l < c->n_layers; l++)
        if (c->layers[l].activation != OPTINC_ACT_NONE)
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "layer '%s' has a nonlinear activation, so circuit '%s' has no "
                               "transfer matrix; evaluate it on input vectors instead",
                               c->layers[l].name, c->name);
    optinc_cmat *M = NULL;
    for (int l = 0; l < c->n_layers; l++) {
        optinc_cmat *T = optinc_chip_layer_transfer(chip, l), *P = T;
        if (T) {
            optinc_layer_apply_gain(&c->layers[l], chip->layer[l].gain, T);
            if (M) {
                P = optinc_cmat_new(T->rows, M->cols);
                if (P)
                    optinc_cmat_mul(T, M, P);
                optinc_cmat_free(T);
            }
        }
        optinc_cmat_free(M);
        M = P;
        if (!M)
            return oom(err);
    }
    *out = M;
    return OPTINC_OK;
}

/* ------------------------------------------------------------------ evaluation */

void optinc_activation_apply(optinc_activation act, optinc_cmat *y)
{
    size_t n = (size_t)y->rows * (size_t)y->cols;
    for (size_t i = 0; i < n && act != OPTINC_ACT_NONE; i++) {
        double complex v = y->a[i];
        if (act == OPTINC_ACT_ABS2)
            y->a[i] = creal(v) * creal(v) + cimag(v) * cimag(v);
        else
            y->a[i] = creal(v) > 0 ? creal(v) : 0.0;
    }
}

void optinc_detect_apply(optinc_detect d, double reference_phase_rad, optinc_cmat *y)
{
    size_t n = (size_t)y->rows * (size_t)y->cols;
    double complex lo = cexp(-I * reference_phase_rad);
    for (size_t i = 0; i < n && d != OPTINC_DETECT_FIELD; i++) {
        double complex v = y->a[i];
        y->a[i] = d == OPTINC_DETECT_INTENSITY ? creal(v) * creal(v) + cimag(v) * cimag(v)
                                               : creal(v * lo);
    }
}

void optinc_eval_options_default(optinc_eval_options *o)
{
    memset(o, 0, sizeof *o);
    o->precision = OPTINC_DOUBLE;
    o->detect = OPTINC_DETECT_FIELD;
}

optinc_status optinc_chip_eval(optinc_chip *chip, const optinc_cmat *in, optinc_cmat **out,
                               const optinc_eval_options *opt, optinc_error *err)
{
    optinc_eval_options defaults;
    if (!opt) {
        optinc_eval_options_default(&defaults);
        opt = &defaults;
    }
    const optinc_circuit *c = chip->circuit;
    if (c->n_layers < 1 || in->rows != c->layers[0].cols)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "circuit '%s' takes %d input modes, but the input has %d rows; give "
                           "one row per input mode and one column per vector", c->name,
                           c->n_layers ? c->layers[0].cols : 0, in->rows);
    optinc_cmat *x = optinc_cmat_copy(in);
    if (!x)
        return oom(err);
    for (int l = 0; l < c->n_layers; l++) {
        const optinc_layer *L = &c->layers[l];
        optinc_cmat *y = optinc_cmat_new(L->rows, in->cols);
        optinc_status st = y ? optinc_chip_layer_apply(chip, l, x, y, opt->precision, err)
                             : oom(err);
        optinc_cmat_free(x);
        x = y;
        if (!st) {
            optinc_layer_apply_gain(L, chip->layer[l].gain, y);
            if (opt->activation)
                st = opt->activation(opt->activation_ctx, L, l, y, err);
            else
                optinc_activation_apply(L->activation, y);
        }
        if (st) {
            optinc_cmat_free(x);
            return st;
        }
    }
    optinc_detect_apply(opt->detect, opt->reference_phase_rad, x);
    *out = x;
    return OPTINC_OK;
}

/* ------------------------------------------------------------------ metrics */

optinc_status optinc_fidelity_compute(const optinc_cmat *M, const optinc_cmat *Mp,
                                      optinc_fidelity *f, optinc_error *err)
{
    if (M->rows != Mp->rows || M->cols != Mp->cols)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "cannot compare a %dx%d matrix with a %dx%d one; both must have "
                           "the same shape", Mp->rows, Mp->cols, M->rows, M->cols);
    int n = M->rows * M->cols;
    double complex tr = 0;
    cblas_zdotc_sub(n, M->a, 1, Mp->a, 1, &tr);
    double nm = optinc_cmat_frobenius(M), np = optinc_cmat_frobenius(Mp);
    double maxd = 0, sum = 0;
    for (int i = 0; i < n; i++) {
        double complex d = Mp->a[i] - M->a[i];
        double a = cabs(d);
        maxd = a > maxd ? a : maxd;
        sum += creal(d) * creal(d) + cimag(d) * cimag(d);
    }
    f->max_abs = maxd;
    f->rel_frobenius = nm > 0 ? sqrt(sum) / nm : (sum > 0 ? INFINITY : 0);
    if (nm > 0 && np > 0) {
        double a = cabs(tr) / (nm * np);
        f->fidelity = a * a;
    } else {
        f->fidelity = nm == np ? 1 : 0;
    }
    return OPTINC_OK;
}

/* ------------------------------------------------------------------ Monte-Carlo */

void optinc_mc_result_free(optinc_mc_result *r)
{
    if (!r)
        return;
    OPTINC_FREE_ALL(r->before, r->after, r->samples, r);
}

static void fid_values(const optinc_fidelity *f, double x[3])
{
    x[0] = f->max_abs;
    x[1] = f->rel_frobenius;
    x[2] = f->fidelity;
}

/* Per layer: mean and sample standard deviation over K chips (two passes). */
static void summarize(const optinc_fidelity *s, int K, int n, optinc_mc_stats *out)
{
    for (int l = 0; l < n; l++) {
        double m[3] = {0, 0, 0}, v[3] = {0, 0, 0}, x[3];
        for (int k = 0; k < K; k++) {
            fid_values(&s[(size_t)k * n + l], x);
            for (int j = 0; j < 3; j++)
                m[j] += x[j];
        }
        for (int j = 0; j < 3; j++)
            m[j] /= K;
        for (int k = 0; k < K; k++) {
            fid_values(&s[(size_t)k * n + l], x);
            for (int j = 0; j < 3; j++)
                v[j] += (x[j] - m[j]) * (x[j] - m[j]);
        }
        for (int j = 0; j < 3; j++)
            v[j] = K > 1 ? sqrt(v[j] / (K - 1)) : 0;
        out[l].mean = (optinc_fidelity){m[0], m[1], m[2]};
        out[l].std = (optinc_fidelity){v[0], v[1], v[2]};
    }
}

/* Fidelity of every layer of chip against ref[] into f[]. */
static optinc_status measure(optinc_chip *chip, optinc_cmat *const *ref, optinc_fidelity *f,
                             optinc_error *err)
{
    for (int l = 0; l < chip->n_layers; l++) {
        optinc_cmat *T = optinc_chip_layer_transfer(chip, l);
        if (!T)
            return oom(err);
        optinc_status st = optinc_fidelity_compute(ref[l], T, &f[l], err);
        optinc_cmat_free(T);
        if (st)
            return st;
    }
    return OPTINC_OK;
}

optinc_status optinc_monte_carlo(const optinc_circuit *c, const optinc_mc_options *opt,
                                 optinc_mc_result **out, optinc_error *err)
{
    if (opt->chips < 1)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "a Monte-Carlo run needs at least 1 chip, not %d", opt->chips);
    int n = c->n_layers, K = opt->chips;
    optinc_mc_result *r = calloc(1, sizeof *r);
    optinc_cmat **ref = calloc((size_t)n + 1, sizeof *ref);
    optinc_fidelity *after = opt->calibrate ? calloc((size_t)K * n + 1, sizeof *after) : NULL;
    optinc_status st = OPTINC_OK;
    if (!r || !ref || (opt->calibrate && !after))
        st = oom(err);
    if (!st) {
        r->chips = K;
        r->n_layers = n;
        r->before = calloc((size_t)n + 1, sizeof *r->before);
        r->after = opt->calibrate ? calloc((size_t)n + 1, sizeof *r->after) : NULL;
        r->samples = calloc((size_t)K * n + 1, sizeof *r->samples);
        if (!r->before || !r->samples || (opt->calibrate && !r->after))
            st = oom(err);
    }
    for (int l = 0; !st && l < n; l++)
        if (!(ref[l] = optinc_layer_transfer(&c->layers[l])))
            st = oom(err);
    for (int k = 0; !st && k < K; k++) {
        optinc_chip *chip = NULL;
        st = optinc_chip_new(c, &opt->chip, optinc_chip_seed(opt->seed, k), &chip, err);
        if (!st)
            st = measure(chip, ref, r->samples + (size_t)k * n, err);
        if (!st && opt->calibrate)
            st = optinc_chip_calibrate(chip, NULL, opt->method, err);
        if (!st && opt->calibrate)
            st = measure(chip, ref, after + (size_t)k * n, err);
        optinc_chip_free(chip);
    }
    if (!st) {
        summarize(r->samples, K, n, r->before);
        if (opt->calibrate)
            summarize(after, K, n, r->after);
    }
    for (int l = 0; ref && l < n; l++)
        optinc_cmat_free(ref[l]);
    free(ref);
    free(after);
    if (st) {
        optinc_mc_result_free(r);
        return st;
    }
    *out = r;
    return OPTINC_OK;
}
