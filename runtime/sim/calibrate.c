/*
 * calibrate.c - error-aware compilation: programming a mesh so that a chip
 * with measured (imperfect) couplers still realizes the intended matrix, and
 * the calibration file that carries the measurements (optinc-calibration(5)).
 *
 * Method: local correction of each MZI with the output phases pushed forward
 * (after Hamerly et al., "Accurate self-configuration of rectangular
 * multiport interferometers", 2022).  An MZI whose couplers split
 * kappa_1 = sin^2(a1), kappa_2 = sin^2(a2) instead of 1/2 has
 *
 *   |M00|^2 = (A - B)^2 + 4AB sin^2(theta/2),   A = cos a1 cos a2, B = sin a1 sin a2,
 *
 * so it reaches every power split between (A - B)^2 (no longer 0: the cross
 * state is lost) and (A + B)^2 (no longer 1: the bar state is lost).  Walking
 * the mesh in propagation order, each MZI gets the internal phase theta' that
 * gives the ideal element's split (the nearest reachable one when out of
 * range), then the external phase that best aligns the remaining phases of
 * the 2x2 with the ideal element; what is left is a pair of output phases,
 * which are carried forward as a per-mode phase P: the next MZI's external
 * phase absorbs P[m] - P[m+1] and the output screen absorbs what remains.
 * Every step is closed-form except the external phase when the split is out
 * of reach, which maximizes a smooth function of one angle on a known arc.
 * O(N^2) per mesh; with ideal couplers it returns the original phases.
 *
 * The file format is plain text rather than YAML because it is a flat table
 * (one line per MZI, thousands of lines at N = 64) that measurement scripts
 * write with printf; every error still carries FILE:LINE:COL.
 */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/lbfgs.h"
#include "runtime/sim/chip.h"
#include "optinc/fileio.h"

/* L-BFGS iterations of a global re-fit (about 10 ms each at N = 64). */
#define REFIT_ITERS 300

/* ------------------------------------------------------------------ one MZI */

static double split_score(double complex g00, double complex g01, double complex g10,
                          double complex g11, double psi)
{
    double complex e = cexp(I * psi);
    return cabs(g00 * e + g01) + cabs(g10 * e + g11);
}

/* Best (theta, psi) for an MZI with couplers k1, k2 to match the ideal
 * element U up to output phases; theta is the root nearest theta_t.  Returns
 * 1 when U's split is out of reach. */
static int solve_mzi(const double complex U[4], double theta_t, double k1, double k2,
                     double *theta, double *psi)
{
    double A = sqrt((1 - k1) * (1 - k2)), B = sqrt(k1 * k2);
    double t00 = creal(U[0] * conj(U[0])), t01 = creal(U[1] * conj(U[1]));
    double num = t00 - (A - B) * (A - B);              /* 4AB sin^2(theta/2) */
    double den = (A + B - 1) * (A + B + 1) + t01;      /* 4AB cos^2(theta/2) */
    int unreachable = num < -1e-9 || den < -1e-9;
    if (A * B > 0) {
        double t0 = 2 * atan2(sqrt(num > 0 ? num : 0), sqrt(den > 0 ? den : 0));
        /* Roots t0 and -t0 (mod 2 pi): take the one nearer the target. */
        double d_pos = fabs(remainder(t0 - theta_t, 2 * M_PI));
        double d_neg = fabs(remainder(-t0 - theta_t, 2 * M_PI));
        *theta = d_pos <= d_neg ? t0 : -t0;
    } else {
        *theta = theta_t;      /* a coupler that does not split: theta cannot matter */
    }
    double complex M[4];
    optinc_mzi_device_matrix(*theta, 0, k1, k2, 1, M);
    double complex g00 = M[0] * conj(U[0]), g01 = M[1] * conj(U[1]);
    double complex g10 = M[2] * conj(U[2]), g11 = M[3] * conj(U[3]);
    double p1 = carg(g01) - carg(g00), p2 = carg(g11) - carg(g10);
    double arc = remainder(p2 - p1, 2 * M_PI);
    /* Each row's term peaks at its own angle; the best sum lies on the short
     * arc between the two peaks (they coincide when the split is reachable). */
    double lo = 0, hi = 1, best = 0;
    double best_f = split_score(g00, g01, g10, g11, p1);
    if (split_score(g00, g01, g10, g11, p1 + arc) > best_f) {
        best = 1;
        best_f = split_score(g00, g01, g10, g11, p1 + arc);
    }
    const double gr = 0.6180339887498949;
    for (int it = 0; it < 60 && fabs(arc) > 1e-15; it++) {
        double a = hi - gr * (hi - lo), b = lo + gr * (hi - lo);
        double fa = split_score(g00, g01, g10, g11, p1 + a * arc);
        double fb = split_score(g00, g01, g10, g11, p1 + b * arc);
        if (fa >= fb)
            hi = b;
        else
            lo = a;
        if (fa > best_f) {
            best_f = fa;
            best = a;
        }
        if (fb > best_f) {
            best_f = fb;
            best = b;
        }
    }
    *psi = p1 + best * arc;
    return unreachable;
}

/* ------------------------------------------------------------------ global re-fit */

/* Rows m, m+1 of A (n columns) := e . rows, or e^H . rows (adjoint). */
static void rows2(double complex *A, int n, int m, const double complex e[4], int adjoint)
{
    double complex a = e[0], b = e[1], c = e[2], d = e[3];
    if (adjoint) {
        a = conj(e[0]);
        b = conj(e[2]);
        c = conj(e[1]);
        d = conj(e[3]);
    }
    double complex *restrict x = A + (size_t)m * n, *restrict y = x + n;
    for (int k = 0; k < n; k++) {
        double complex u = x[k], v = y[k];
        x[k] = a * u + b * v;
        y[k] = c * u + d * v;
    }
}

typedef struct fit {
    const optinc_mesh *mesh;
    const double *kappa;
    const double complex *T;    /* target, n x n */
    double complex *Q, *L;      /* n x n scratch: partial products, adjoint */
    int n;
} fit;

/* f(x) = min over output screens D of |D.M'(x) - T|_F^2 (M' the mesh with
 * the measured couplers, x = theta_0, phi_0, theta_1, ...) and, when g is
 * not NULL, its gradient by one backward sweep (reverse mode: Q walks back
 * through the partial products, L carries the adjoint). */
static double fit_eval(const double *x, double *g, void *ctx)
{
    fit *F = ctx;
    int n = F->n, K = F->mesh->n_mzi;
    double complex *Q = F->Q, *L = F->L, E[4];
    const double complex *T = F->T;
    memset(Q, 0, sizeof *Q * (size_t)n * n);
    for (int r = 0; r < n; r++)
        Q[(size_t)r * n + r] = 1;
    for (int i = 0; i < K; i++) {
        optinc_mzi_device_matrix(x[2 * i], x[2 * i + 1], F->kappa[2 * i], F->kappa[2 * i + 1],
                                 1, E);
        rows2(Q, n, F->mesh->mzi[i].mode, E, 0);
    }
    double f = 0;
    for (int r = 0; r < n; r++) {
        const double complex *q = Q + (size_t)r * n, *t = T + (size_t)r * n;
        double complex z = 0;
        for (int c = 0; c < n; c++) {
            z += conj(t[c]) * q[c];
            f += creal(q[c] * conj(q[c])) + creal(t[c] * conj(t[c]));
        }
        f -= 2 * cabs(z);
        double complex d = cabs(z) > 0 ? z / cabs(z) : 1;   /* the best screen is conj(d) */
        for (int c = 0; c < n; c++)
            L[(size_t)r * n + c] = q[c] - d * t[c];
    }
    for (int i = K - 1; g && i >= 0; i--) {
        int m = F->mesh->mzi[i].mode;
        double th = x[2 * i], ph = x[2 * i + 1];
        double k1 = F->kappa[2 * i], k2 = F->kappa[2 * i + 1];
        double c1 = sqrt(1 - k1), s1 = sqrt(k1), c2 = sqrt(1 - k2), s2 = sqrt(k2);
        optinc_mzi_device_matrix(th, ph, k1, k2, 1, E);
        rows2(Q, n, m, E, 1);                 /* Q = product of the elements before i */
        double complex W[2][2] = {{0, 0}, {0, 0}};   /* W[b][a] = (Q L^H)[m+b][m+a] */
        for (int b = 0; b < 2; b++)
            for (int a = 0; a < 2; a++) {
                const double complex *q = Q + (size_t)(m + b) * n, *l = L + (size_t)(m + a) * n;
                for (int c = 0; c < n; c++)
                    W[b][a] += q[c] * conj(l[c]);
            }
        double complex et = cexp(I * th), ep = cexp(I * ph);
        double complex dth[4] = {I * ep * c1 * c2 * et, -s1 * c2 * et, -ep * c1 * s2 * et,
                                 -I * s1 * s2 * et};
        double complex dph[4] = {I * E[0], 0, I * E[2], 0};
        double gt = 0, gp = 0;
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                gt += 2 * creal(W[b][a] * dth[2 * a + b]);
                gp += 2 * creal(W[b][a] * dph[2 * a + b]);
            }
        g[2 * i] = gt;
        g[2 * i + 1] = gp;
        rows2(L, n, m, E, 1);                 /* adjoint before element i */
    }
    return f;
}

/* ------------------------------------------------------------------ one mesh */

/* The ideal mesh from its target phases into T (n x n). */
static void mesh_target(const optinc_mesh *mesh, double complex *T)
{
    int n = mesh->modes;
    memset(T, 0, sizeof *T * (size_t)n * n);
    for (int r = 0; r < n; r++)
        T[(size_t)r * n + r] = 1;
    for (int i = 0; i < mesh->n_mzi; i++) {
        double complex E[4];
        optinc_mzi_matrix(mesh->mzi[i].theta.target_rad, mesh->mzi[i].phi.target_rad, E);
        rows2(T, n, mesh->mzi[i].mode, E, 0);
    }
    for (int r = 0; r < n; r++) {
        double complex e = cexp(I * mesh->screen[r].target_rad);
        for (int c = 0; c < n; c++)
            T[(size_t)r * n + c] *= e;
    }
}

/* Global re-fit of a locally corrected mesh: from the local solution's
 * continuous phases, L-BFGS on every theta and phi; kept only when, once
 * quantized, it beats the local solution.  Returns -1 when out of memory. */
static int refit(const optinc_mesh *mesh, const double *kappa, const optinc_quantizer *q,
                 int iters, optinc_phase *th, optinc_phase *ph, optinc_phase *screen)
{
    int n = mesh->modes, K = mesh->n_mzi;
    size_t nn = (size_t)n * n;
    double complex *buf = malloc(sizeof *buf * 3 * nn);
    double *x = malloc(sizeof *x * (4 * (size_t)K + 1));
    if (!buf || !x) {
        free(buf);
        free(x);
        return -1;
    }
    fit F = {mesh, kappa, buf, buf + nn, buf + 2 * nn, n};
    mesh_target(mesh, buf);
    double *xq = x + 2 * K;
    for (int i = 0; i < K; i++) {
        x[2 * i] = th[i].target_rad;
        x[2 * i + 1] = ph[i].target_rad;
        xq[2 * i] = th[i].rad;
        xq[2 * i + 1] = ph[i].rad;
    }
    double f_local = fit_eval(xq, NULL, &F);
    int st = optinc_lbfgs(fit_eval, &F, x, 2 * K, iters, NULL);
    optinc_phase *nt = st ? NULL : malloc(sizeof *nt * (2 * (size_t)K + 1));
    if (!st && !nt)
        st = -1;
    if (!st) {
        for (int i = 0; i < K; i++) {
            optinc_quantize_phase(q, x[2 * i], &nt[i]);
            optinc_quantize_phase(q, x[2 * i + 1], &nt[K + i]);
            xq[2 * i] = nt[i].rad;
            xq[2 * i + 1] = nt[K + i].rad;
        }
        if (fit_eval(xq, NULL, &F) < f_local) {
            memcpy(th, nt, sizeof *th * (size_t)K);
            memcpy(ph, nt + K, sizeof *ph * (size_t)K);
            /* F.Q holds the refit mesh: each screen phase aligns its row with T. */
            for (int r = 0; r < n; r++) {
                double complex z = 0;
                for (int c = 0; c < n; c++)
                    z += conj(F.T[(size_t)r * n + c]) * F.Q[(size_t)r * n + c];
                optinc_quantize_phase(q, -carg(z), &screen[r]);
            }
        }
    }
    free(nt);
    free(buf);
    free(x);
    return st;
}

int optinc_mesh_correct(const optinc_mesh *mesh, const double *kappa, const optinc_quantizer *q,
                        int refit_iters, optinc_phase *th, optinc_phase *ph,
                        optinc_phase *screen)
{
    double *P = calloc((size_t)mesh->modes + 1, sizeof *P);
    if (!P)
        return -1;
    int unreachable = 0;
    for (int i = 0; i < mesh->n_mzi; i++) {
        const optinc_mzi *z = &mesh->mzi[i];
        int m = z->mode;
        double k1 = kappa[2 * i], k2 = kappa[2 * i + 1];
        double complex U[4], R[4];
        double theta, psi;
        optinc_mzi_matrix(z->theta.target_rad, z->phi.target_rad, U);
        unreachable += solve_mzi(U, z->theta.target_rad, k1, k2, &theta, &psi);
        /* The field arrives with phases P: the external phase absorbs their difference. */
        double dp = P[m] - P[m + 1];
        optinc_quantize_phase(q, theta, &th[i]);
        optinc_quantize_phase(q, psi - dp, &ph[i]);
        /* What the programmed (quantized) element really does, up to e^{i P[m+1]}:
         * its best output phases against U become the new P of both modes. */
        optinc_mzi_device_matrix(th[i].rad, ph[i].rad + dp, k1, k2, 1, R);
        double complex g0 = R[0] * conj(U[0]) + R[1] * conj(U[1]);
        double complex g1 = R[2] * conj(U[2]) + R[3] * conj(U[3]);
        double base = P[m + 1];
        P[m] = base + carg(g0);
        P[m + 1] = base + carg(g1);
    }
    for (int r = 0; r < mesh->modes; r++)
        optinc_quantize_phase(q, mesh->screen[r].target_rad - P[r], &screen[r]);
    free(P);
    if (refit_iters > 0 && unreachable > 0
        && refit(mesh, kappa, q, refit_iters, th, ph, screen) < 0)
        return -1;
    return unreachable;
}

/* ------------------------------------------------------------------ calibrations */

void optinc_calibration_free(optinc_calibration *cal)
{
    if (!cal)
        return;
    for (int l = 0; cal->layer && l < cal->n_layers; l++)
        for (int s = 0; s < cal->layer[l].n_stages; s++)
            free(cal->layer[l].kappa[s]);
    free(cal->layer);
    free(cal);
}

/* A calibration shaped like c with ideal (0.5) couplers. */
static optinc_calibration *cal_new(const optinc_circuit *c)
{
    optinc_calibration *cal = calloc(1, sizeof *cal);
    if (!cal)
        return NULL;
    cal->n_layers = c->n_layers;
    cal->layer = calloc((size_t)c->n_layers + 1, sizeof *cal->layer);
    if (!cal->layer) {
        free(cal);
        return NULL;
    }
    for (int l = 0; l < c->n_layers; l++) {
        const optinc_layer *L = &c->layers[l];
        struct optinc_calibration_layer *cl = &cal->layer[l];
        cl->n_stages = L->n_stages;
        for (int s = 0; s < L->n_stages; s++) {
            if (L->stage[s].kind != OPTINC_STAGE_MESH)
                continue;
            int n = L->stage[s].mesh->n_mzi;
            cl->n_mzi[s] = n;
            cl->kappa[s] = malloc(sizeof *cl->kappa[s] * (2 * (size_t)n + 1));
            if (!cl->kappa[s]) {
                optinc_calibration_free(cal);
                return NULL;
            }
            for (int i = 0; i < 2 * n; i++)
                cl->kappa[s][i] = 0.5;
        }
    }
    return cal;
}

optinc_status optinc_calibration_check(const optinc_calibration *cal, const optinc_circuit *c,
                                       optinc_error *err)
{
    int ok = cal->n_layers == c->n_layers;
    for (int l = 0; ok && l < c->n_layers; l++) {
        const optinc_layer *L = &c->layers[l];
        ok = cal->layer[l].n_stages == L->n_stages;
        for (int s = 0; ok && s < L->n_stages; s++)
            ok = cal->layer[l].n_mzi[s]
                 == (L->stage[s].kind == OPTINC_STAGE_MESH ? L->stage[s].mesh->n_mzi : 0);
    }
    if (!ok)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "the coupler calibration does not have the shape of circuit '%s'; "
                           "read it with optinc_calibration_read() against this circuit",
                           c->name);
    return OPTINC_OK;
}

optinc_status optinc_calibration_from_chip(const optinc_chip *chip, optinc_calibration **out,
                                           optinc_error *err)
{
    optinc_calibration *cal = cal_new(chip->circuit);
    if (!cal)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    for (int l = 0; l < chip->n_layers; l++)
        for (int s = 0; s < chip->layer[l].n_stages; s++) {
            const chip_stage *cs = &chip->layer[l].stage[s];
            for (int i = 0; cs->kind == OPTINC_STAGE_MESH && i < cs->n_mzi; i++) {
                cal->layer[l].kappa[s][2 * i] = cs->mzi[i].kappa[0];
                cal->layer[l].kappa[s][2 * i + 1] = cs->mzi[i].kappa[1];
            }
        }
    *out = cal;
    return OPTINC_OK;
}

optinc_status optinc_calibration_write(const optinc_calibration *cal, const optinc_circuit *c,
                                       const char *path, optinc_error *err)
{
    optinc_status st = optinc_calibration_check(cal, c, err);
    optinc_out o;
    if (st || (st = optinc_out_open(&o, path, err)))
        return st;
    fprintf(o.f, "# optinc coupler calibration, see optinc-calibration(5)\n"
                 "# circuit %s; coupling = 0.5 + delta\n"
                 "optinc-calibration 1\n"
                 "# layer mesh column mode delta_in delta_out\n", c->name);
    for (int l = 0; l < c->n_layers; l++) {
        const optinc_layer *L = &c->layers[l];
        for (int s = 0; s < L->n_stages; s++) {
            if (L->stage[s].kind != OPTINC_STAGE_MESH)
                continue;
            const optinc_mesh *mesh = L->stage[s].mesh;
            const double *k = cal->layer[l].kappa[s];
            for (int i = 0; i < mesh->n_mzi; i++)
                fprintf(o.f, "%s %c %d %d %.17g %.17g\n", L->name, L->stage[s].tag,
                        mesh->mzi[i].column, mesh->mzi[i].mode, k[2 * i] - 0.5,
                        k[2 * i + 1] - 0.5);
        }
    }
    if (ferror(o.f)) {
        optinc_out_abort(&o);
        return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "write error: %s", strerror(errno));
    }
    return optinc_out_commit(&o, err);
}

/* ------------------------------------------------------------------ reading */

typedef struct token { const char *s; int len, col; } token;

typedef struct reader {
    const char *path;
    const optinc_circuit *c;
    optinc_calibration *cal;
    int **index;          /* per (layer, stage): column * modes + mode -> MZI, or -1 */
    int **seen;           /* per (layer, stage): line that set each MZI, or 0 */
    optinc_error *err;
} reader;

static int tokenize(char *line, token *t, int max)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    int n = 0;
    for (char *p = line; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (!*p)
            break;
        char *q = p;
        while (*q && *q != ' ' && *q != '\t' && *q != '\r' && *q != '\n')
            q++;
        if (n < max)
            t[n] = (token){p, (int)(q - p), (int)(p - line) + 1};
        n++;
        p = q;
    }
    return n;
}

static int tok_is(const token *t, const char *s)
{
    return (size_t)t->len == strlen(s) && !strncmp(t->s, s, (size_t)t->len);
}

/* The token as a C string in buf; -1 when it does not fit. */
static int tok_cstr(const token *t, char *buf, size_t size)
{
    if ((size_t)t->len >= size)
        return -1;
    memcpy(buf, t->s, (size_t)t->len);
    buf[t->len] = 0;
    return 0;
}

static int tok_int(const token *t, long *v)
{
    char buf[32], *end;
    if (tok_cstr(t, buf, sizeof buf))
        return -1;
    errno = 0;
    *v = strtol(buf, &end, 10);
    return errno || *end || end == buf ? -1 : 0;
}

static int tok_double(const token *t, double *v)
{
    char buf[64], *end;
    if (tok_cstr(t, buf, sizeof buf))
        return -1;
    errno = 0;
    *v = strtod(buf, &end);
    return errno || *end || end == buf || !isfinite(*v) ? -1 : 0;
}

static optinc_status bad(reader *r, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static optinc_status bad(reader *r, int line, int col, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return optinc_fail(r->err, OPTINC_EINPUT, r->path, line, col, "%s", msg);
}

static optinc_status read_entry(reader *r, const token *t, int n, int line)
{
    char name[OPTINC_NAME_MAX], what[160];
    if (n != 6)
        return bad(r, line, n > 6 ? t[6].col : 1,
                   "expected 6 fields 'LAYER MESH COLUMN MODE DELTA_IN DELTA_OUT', found %d%s",
                   n, n > 6 ? "; put comments after '#'" : "");
    const optinc_circuit *c = r->c;
    int l = 0;
    if (tok_cstr(&t[0], name, sizeof name))
        return bad(r, line, t[0].col, "'%.*s...' is longer than any layer name (at most %d "
                   "characters)", 16, t[0].s, OPTINC_NAME_MAX - 1);
    while (l < c->n_layers && strcmp(c->layers[l].name, name))
        l++;
    if (l == c->n_layers)
        return bad(r, line, t[0].col,
                   "no layer '%s' in circuit '%s'; the first field names a layer of the "
                   "circuit the calibration is for", name, c->name);
    const optinc_layer *L = &c->layers[l];
    int s = 0;
    while (s < L->n_stages
           && !(L->stage[s].kind == OPTINC_STAGE_MESH && t[1].len == 1 && *t[1].s == L->stage[s].tag))
        s++;
    if (s == L->n_stages) {
        int k = 0;
        for (int j = 0; j < L->n_stages; j++)
            if (L->stage[j].kind == OPTINC_STAGE_MESH)
                k += snprintf(what + k, sizeof what - (size_t)k, "%s%c", k ? ", " : "",
                              L->stage[j].tag);
        return bad(r, line, t[1].col, "layer '%s' has no such mesh; its meshes are %s", name,
                   what);
    }
    const optinc_mesh *mesh = L->stage[s].mesh;
    long col, mode;
    if (tok_int(&t[2], &col) || col < 0 || col >= mesh->n_columns)
        return bad(r, line, t[2].col, "the column must be an integer from 0 to %d (mesh %c "
                   "of layer '%s' has %d columns)", mesh->n_columns - 1, L->stage[s].tag, name,
                   mesh->n_columns);
    if (tok_int(&t[3], &mode) || mode < 0 || mode >= mesh->modes - 1
        || r->index[l * 3 + s][col * mesh->modes + mode] < 0)
        return bad(r, line, t[3].col,
                   "no MZI of mesh %c of layer '%s' sits on modes (%.*s, %.*s+1) in column %ld; "
                   "the netlist's MZ_ instances name each MZI's column (c) and first mode (r)",
                   L->stage[s].tag, name, t[3].len, t[3].s, t[3].len, t[3].s, col);
    double d[2];
    for (int k = 0; k < 2; k++)
        if (tok_double(&t[4 + k], &d[k]) || d[k] < -0.5 || d[k] > 0.5)
            return bad(r, line, t[4 + k].col,
                       "'%.*s' is not a number in [-0.5, 0.5]: the %s coupler's power "
                       "coupling is 0.5 + delta", t[4 + k].len, t[4 + k].s,
                       k ? "output" : "input");
    int i = r->index[l * 3 + s][col * mesh->modes + mode];
    int *seen = &r->seen[l * 3 + s][i];
    if (*seen)
        return bad(r, line, t[0].col, "this MZI is already listed on line %d; list each MZI "
                   "once", *seen);
    *seen = line;
    r->cal->layer[l].kappa[s][2 * i] = 0.5 + d[0];
    r->cal->layer[l].kappa[s][2 * i + 1] = 0.5 + d[1];
    return OPTINC_OK;
}

static optinc_status read_lines(reader *r, FILE *f)
{
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, header = 0;
    optinc_status st = OPTINC_OK;
    token t[8];
    while (!st && getline(&line, &cap, f) >= 0) {
        lineno++;
        int n = tokenize(line, t, 8);
        if (n == 0)
            continue;
        if (header)
            st = read_entry(r, t, n, lineno);
        else if (n == 2 && tok_is(&t[0], "optinc-calibration") && tok_is(&t[1], "1"))
            header = 1;
        else
            st = bad(r, lineno, t[0].col,
                     "the first line must be 'optinc-calibration 1' (format version 1)");
    }
    free(line);
    if (!st && ferror(f))
        st = optinc_fail(r->err, OPTINC_ERUN, r->path, 0, 0, "read error: %s", strerror(errno));
    if (!st && !header)
        st = bad(r, lineno + 1, 1, "no 'optinc-calibration 1' line: the file is empty");
    return st;
}

optinc_status optinc_calibration_read(const char *path, const optinc_circuit *c,
                                      optinc_calibration **out, optinc_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return optinc_fail(err, OPTINC_EINPUT, path, 0, 0,
                           "cannot open the calibration file: %s", strerror(errno));
    reader r = {path, c, cal_new(c), calloc((size_t)c->n_layers * 3 + 1, sizeof(int *)),
                calloc((size_t)c->n_layers * 3 + 1, sizeof(int *)), err};
    optinc_status st = r.cal && r.index && r.seen ? OPTINC_OK
                                                 : optinc_fail(err, OPTINC_ERUN, NULL, 0, 0,
                                                               "out of memory");
    for (int l = 0; !st && l < c->n_layers; l++)
        for (int s = 0; !st && s < c->layers[l].n_stages; s++) {
            const optinc_mesh *mesh = c->layers[l].stage[s].mesh;
            if (c->layers[l].stage[s].kind != OPTINC_STAGE_MESH)
                continue;
            size_t cells = (size_t)mesh->n_columns * (size_t)mesh->modes;
            int *ix = r.index[l * 3 + s] = malloc(sizeof *ix * (cells + 1));
            r.seen[l * 3 + s] = calloc((size_t)mesh->n_mzi + 1, sizeof(int));
            if (!ix || !r.seen[l * 3 + s]) {
                st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
                break;
            }
            for (size_t k = 0; k < cells; k++)
                ix[k] = -1;
            for (int i = 0; i < mesh->n_mzi; i++)
                ix[(size_t)mesh->mzi[i].column * mesh->modes + mesh->mzi[i].mode] = i;
        }
    if (!st)
        st = read_lines(&r, f);
    fclose(f);
    for (int k = 0; k < c->n_layers * 3; k++) {
        if (r.index)
            free(r.index[k]);
        if (r.seen)
            free(r.seen[k]);
    }
    free(r.index);
    free(r.seen);
    if (st) {
        optinc_calibration_free(r.cal);
        return st;
    }
    *out = r.cal;
    return OPTINC_OK;
}

/* ------------------------------------------------------------------ applying */

void optinc_calibration_report_free(optinc_calibration_report *rep)
{
    if (rep) {
        free(rep->layer);
        rep->layer = NULL;
        rep->n_layers = 0;
    }
}

/* Fidelity of each layer of a couplers-only chip for c against ref[]. */
static optinc_status coupler_fidelity(const optinc_circuit *c, const optinc_calibration *cal,
                                      optinc_cmat *const *ref, double *fid, optinc_error *err)
{
    optinc_chip_options o = {OPTINC_DEV_COUPLER, 0, cal};
    optinc_chip *chip = NULL;
    optinc_status st = optinc_chip_new(c, &o, c->seed, &chip, err);
    for (int l = 0; !st && l < c->n_layers; l++) {
        optinc_cmat *T = optinc_chip_layer_transfer(chip, l);
        optinc_fidelity f;
        st = T ? optinc_fidelity_compute(ref[l], T, &f, err)
               : optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
        fid[l] = f.fidelity;
        optinc_cmat_free(T);
    }
    optinc_chip_free(chip);
    return st;
}

/* Corrected phases for stage s of layer L into th/ph/sc (scratch of the mesh's size). */
static int correct_stage(const optinc_layer *L, int s, const double *kappa, int continuous,
                         optinc_calibration_method method, optinc_phase *th, optinc_phase *ph,
                         optinc_phase *sc)
{
    optinc_quantizer q;
    optinc_quantizer_from_components(&q, &L->components);
    if (continuous)
        q.bits = 0;
    return optinc_mesh_correct(L->stage[s].mesh, kappa, &q,
                               method == OPTINC_CAL_REFIT ? REFIT_ITERS : 0, th, ph, sc);
}

static optinc_phase *phase_scratch(const optinc_circuit *c)
{
    size_t n = 1;
    for (int l = 0; l < c->n_layers; l++)
        for (int s = 0; s < c->layers[l].n_stages; s++)
            if (c->layers[l].stage[s].kind == OPTINC_STAGE_MESH) {
                const optinc_mesh *m = c->layers[l].stage[s].mesh;
                size_t k = 2 * (size_t)m->n_mzi + (size_t)m->modes;
                n = k > n ? k : n;
            }
    return malloc(n * sizeof(optinc_phase));
}

optinc_status optinc_calibrate_circuit(optinc_circuit *c, const optinc_calibration *cal,
                                       optinc_calibration_method method,
                                       optinc_calibration_report *rep, optinc_error *err)
{
    optinc_status st = optinc_calibration_check(cal, c, err);
    if (st)
        return st;
    int n = c->n_layers;
    optinc_cmat **ref = calloc((size_t)n + 1, sizeof *ref);
    double *before = calloc(2 * (size_t)n + 1, sizeof *before), *after = before + n;
    int *unreach = calloc((size_t)n + 1, sizeof *unreach);
    optinc_phase *tmp = phase_scratch(c);
    if (!ref || !before || !unreach || !tmp)
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    for (int l = 0; !st && l < n; l++)
        if (!(ref[l] = optinc_layer_transfer(&c->layers[l])))
            st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    if (!st)
        st = coupler_fidelity(c, cal, ref, before, err);
    for (int l = 0; !st && l < n; l++) {
        optinc_layer *L = &c->layers[l];
        for (int s = 0; !st && s < L->n_stages; s++) {
            if (L->stage[s].kind != OPTINC_STAGE_MESH)
                continue;
            optinc_mesh *mesh = L->stage[s].mesh;
            optinc_phase *th = tmp, *ph = th + mesh->n_mzi, *sc = ph + mesh->n_mzi;
            int u = correct_stage(L, s, cal->layer[l].kappa[s], 0, method, th, ph, sc);
            if (u < 0) {
                st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
                break;
            }
            unreach[l] += u;
            for (int i = 0; i < mesh->n_mzi; i++) {
                mesh->mzi[i].theta = th[i];
                mesh->mzi[i].phi = ph[i];
            }
            memcpy(mesh->screen, sc, sizeof *sc * (size_t)mesh->modes);
        }
        if (!st && L->target) {
            /* The ideal-device reconstruction now includes the pre-distortion. */
            optinc_cmat *T = optinc_layer_transfer(L);
            if (!T) {
                st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
                break;
            }
            double worst = 0;
            for (size_t i = 0; i < (size_t)L->rows * (size_t)L->cols; i++) {
                double d = cabs(L->target->a[i] - L->gain * T->a[i]);
                worst = d > worst ? d : worst;
            }
            L->reconstruction_error = worst / L->gain;
            optinc_cmat_free(T);
        }
        if (!st && unreach[l])
            optinc_circuit_warn(c, "layer '%s': %d of %d MZIs cannot reach their target "
                                "splitting with the measured couplers; they are set to the "
                                "nearest reachable one", L->name, unreach[l],
                                optinc_layer_mzis(L));
    }
    if (!st)
        st = coupler_fidelity(c, cal, ref, after, err);
    if (!st && rep) {
        rep->n_layers = n;
        rep->layer = calloc((size_t)n + 1, sizeof *rep->layer);
        if (!rep->layer)
            st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
        for (int l = 0; !st && l < n; l++)
            rep->layer[l] = (struct optinc_calibration_layer_report){
                before[l], after[l], optinc_layer_mzis(&c->layers[l]), unreach[l]};
    }
    for (int l = 0; ref && l < n; l++)
        optinc_cmat_free(ref[l]);
    free(ref);
    free(before);
    free(unreach);
    free(tmp);
    return st;
}

optinc_status optinc_chip_calibrate(optinc_chip *chip, const optinc_calibration *cal,
                                    optinc_calibration_method method, optinc_error *err)
{
    const optinc_circuit *c = chip->circuit;
    optinc_status st = cal ? optinc_calibration_check(cal, c, err) : OPTINC_OK;
    optinc_calibration *own = NULL;
    if (!st && !cal && !(st = optinc_calibration_from_chip(chip, &own, err)))
        cal = own;
    optinc_phase *tmp = st ? NULL : phase_scratch(c);
    if (!st && !tmp)
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    for (int l = 0; !st && l < chip->n_layers; l++)
        for (int s = 0; !st && s < chip->layer[l].n_stages; s++) {
            chip_stage *cs = &chip->layer[l].stage[s];
            if (cs->kind != OPTINC_STAGE_MESH)
                continue;
            optinc_phase *th = tmp, *ph = th + cs->n_mzi, *sc = ph + cs->n_mzi;
            if (correct_stage(&c->layers[l], s, cal->layer[l].kappa[s], chip->opt.drive_targets,
                              method, th, ph, sc) < 0) {
                st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
                break;
            }
            for (int i = 0; i < cs->n_mzi; i++) {
                cs->mzi[i].theta_drive = th[i].rad;
                cs->mzi[i].phi_drive = ph[i].rad;
            }
            for (int r = 0; r < cs->modes_in; r++)
                cs->screen_drive[r] = sc[r].rad;
            optinc_chip_stage_realize(cs);
        }
    free(tmp);
    optinc_calibration_free(own);
    return st;
}
