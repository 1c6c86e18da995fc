/*
 * onn_screen.c - the verifier's fast first pass (onn_screen.h).
 *
 * The bound.  Let x_l be the input of layer l as the verifier's complex
 * evaluation computes it and x'_l the screen's, e_l >= max_i |x_l,i - x'_l,i|
 * (e_0 = 0: the P outputs and carriers are small integers, exact in both)
 * and X_l = max_i |x'_l,i|.  Layer l computes y = S T x (S: the gain on the
 * rows it amplifies, 1 on pass-through rows), the screen y' = (S Re T) x'.
 * With |.| taken elementwise,
 *     |S T x - S Re T x'| <= S |T| |x - x'| + S |Im T| |x'|,
 * and the rounding of the four products involved (the complex matrix
 * product, within sqrt(2) gamma_{n+2} |T| |x| for n = cols (Higham,
 * Accuracy and Stability of Numerical Algorithms, 3.6), the real one within
 * gamma_n |Re T| |x'|, and the two multiplications by the gain, u each) adds
 * less than 4 gamma_{n+2} S |T| (|x'| + e), gamma_k = k u / (1 - k u), u =
 * 2^-53, whatever order the BLAS sums in.  Taking the largest row sums,
 *     e_{l+1} <= N_l e_l + I_l X_l + 4 gamma N_l (X_l + e_l),
 * N_l = max_r S_r sum_c |T_rc|, I_l = max_r S_r sum_c |Im T_rc|.  The
 * activations keep it: |relu(Re a) - relu(b)| <= |a - b| for real b, and
 * the decoder reads | |y| - |y'| | <= e_L.  The screen computes e_L for
 * every point from its own X_l and calls a point sure when the amplitudes
 * the decoder reads are farther than e_L (plus a relative 10^-9 for the
 * rounding of the bound itself) from every threshold.
 *
 * On a chip without errors the transfer matrices are real to rounding (I_l
 * 10^-15 to 10^-14 of N_l), and e_L is at most 1.7e-5 levels for the
 * 16-bit unit (3.2e-6 for the 8-bit one) at the box's largest inputs; the
 * points the verifier evaluates again are those that close to a threshold:
 * none of the 16-bit unit's 13^8.  On a chip with errors Im T is of the
 * order of the errors, every point would be evaluated twice, so the screen
 * is not used (onn_screen_init returns 1) when the bound at the box's
 * largest inputs exceeds SCREEN_MAX_BOUND levels.
 */
#include <cblas.h>
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/sim.h"
#include "runtime/onn/onn_screen.h"

#define SCREEN_MAX_BOUND 0.01

void onn_screen_free(onn_screen *s)
{
    for (int l = 0; l < s->L; l++)
        free(s->R[l]);
    memset(s, 0, sizeof *s);
}

int onn_screen_init(onn_screen *s, const optinc_circuit *c, const optinc_onn_task *task,
                    optinc_cmat *const *T, const double *gain)
{
    memset(s, 0, sizeof *s);
    s->task = task;
    s->L = c->n_layers;
    const double u = DBL_EPSILON / 2;
    double X = 1, e = 0;     /* the bound at the box's largest inputs (P outputs below 4^16) */
    for (int l = 0; l < s->L; l++) {
        const optinc_layer *Y = &c->layers[l];
        if (Y->activation != OPTINC_ACT_NONE && Y->activation != OPTINC_ACT_RELU_EO)
            return onn_screen_free(s), 1;
        s->relu[l] = Y->activation == OPTINC_ACT_RELU_EO;
        int R = s->rows[l] = T[l]->rows, C = s->cols[l] = T[l]->cols;
        s->width = R > s->width ? R : s->width;
        s->width = C > s->width ? C : s->width;
        if (!(s->R[l] = malloc(sizeof *s->R[l] * (size_t)R * (size_t)C)))
            return onn_screen_free(s), -1;
        for (int r = 0; r < R; r++) {
            double S = r < Y->rows - Y->pass_through ? gain[l] : 1, n = 0, im = 0;
            for (int k = 0; k < C; k++) {
                double complex t = OPTINC_AT(T[l], r, k);
                s->R[l][(size_t)r * C + k] = S * creal(t);
                n += cabs(t);
                im += fabs(cimag(t));
            }
            s->norm[l] = fmax(s->norm[l], fabs(S) * n);
            s->imag[l] = fmax(s->imag[l], fabs(S) * im);
        }
        s->gamma[l] = (C + 2) * u / (1 - (C + 2) * u);
        if (l == 0)
            X = task->pre == OPTINC_P_DIGIT_SUMS ? 3.0 * task->servers : (double)task->in_max
                                                                           * task->servers;
        e = s->norm[l] * e + s->imag[l] * X + 4 * s->gamma[l] * s->norm[l] * (X + e);
        X = s->norm[l] * X;
    }
    if (!(e <= SCREEN_MAX_BOUND))
        return onn_screen_free(s), 1;
    return 0;
}

size_t onn_screen_buffer(const onn_screen *s, int n)
{
    return 2 * (size_t)n * ((size_t)s->width + 1);
}

typedef struct screen_job {
    const onn_screen *s;
    int n;
    const double *x;
    double near, *buf;
    uint64_t *got;
    double *margin;
    unsigned char *sure;
} screen_job;

#define SCREEN_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

/* The activation on y[0..n) (relu: max(y, 0)), and the largest |y| after
 * it, over 8 running maxima so that it vectorizes. */
SCREEN_CLONES static double activate(double *y, int n, int relu)
{
    double m[8] = {0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++) {
            double v = relu ? (y[i + k] > 0 ? y[i + k] : 0) : fabs(y[i + k]);
            if (relu)
                y[i + k] = v;
            m[k] = v > m[k] ? v : m[k];
        }
    for (; i < n; i++) {
        double v = relu ? (y[i] > 0 ? y[i] : 0) : fabs(y[i]);
        if (relu)
            y[i] = v;
        m[0] = v > m[0] ? v : m[0];
    }
    for (int k = 1; k < 8; k++)
        m[0] = m[k] > m[0] ? m[k] : m[0];
    return m[0];
}

/* Points [n part / parts, n (part + 1) / parts) of the batch. */
static void screen_part(void *ctx, int part, int parts)
{
    const screen_job *j = ctx;
    const onn_screen *s = j->s;
    int lo = (int)((long)j->n * part / parts), n = (int)((long)j->n * (part + 1) / parts) - lo;
    if (n <= 0)
        return;
    size_t W = (size_t)s->width;
    double *plane[2] = {j->buf + (size_t)lo * W, j->buf + ((size_t)j->n + lo) * W};
    double *e = j->buf + 2 * (size_t)j->n * W + 2 * (size_t)lo, *X = e + n;
    const double *in = j->x + (size_t)lo * s->cols[0];
    size_t ld = (size_t)s->cols[0];
    for (int k = 0; k < n; k++) {
        e[k] = 0;
        X[k] = 0;
        for (int i = 0; i < s->cols[0]; i++)
            X[k] = fabs(in[(size_t)k * ld + i]) > X[k] ? fabs(in[(size_t)k * ld + i]) : X[k];
    }
    for (int l = 0; l < s->L; l++) {
        double *out = plane[l & 1];
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, s->rows[l], s->cols[l], 1.0, in,
                    (int)ld, s->R[l], s->cols[l], 0.0, out, (int)W);
        for (int k = 0; k < n; k++) {
            e[k] = s->norm[l] * e[k] + s->imag[l] * X[k]
                   + 4 * s->gamma[l] * s->norm[l] * (X[k] + e[k]);
            X[k] = activate(out + (size_t)k * W, s->rows[l], s->relu[l]);
        }
        in = out;
        ld = W;
    }
    for (int k = 0; k < n; k++) {
        double *m = &j->margin[lo + k];
        j->got[lo + k] = optinc_onn_decode_margin(s->task, 1.0, in + (size_t)k * W, m);
        j->sure[lo + k] = *m > e[k] * (1 + 1e-9) + j->near;
    }
}

void onn_screen_run(const onn_screen *s, optinc_workers *w, int n, const double *x, double near,
                    double *buf, uint64_t *got, double *margin, unsigned char *sure)
{
    screen_job j = {s, n, x, near, buf, got, margin, sure};
    optinc_workers_run(w, screen_part, &j);
}
