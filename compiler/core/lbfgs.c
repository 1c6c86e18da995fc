/*
 * lbfgs.c - limited-memory BFGS minimization (lbfgs.h).
 *
 * The search direction is -H g, with H the inverse-Hessian estimate the two-
 * loop recursion builds from the last 10 steps s = x_{k+1} - x_k and
 * gradient changes y = g_{k+1} - g_k, scaled by s.y / y.y of the newest pair
 * (1e-2, a short first step, before there is one).  A pair with s.y <= 0
 * would make H indefinite, so it is dropped; a direction that does not
 * descend restarts from the scaled gradient and forgets the pairs.  The step
 * length backtracks from 1, halving up to 40 times, until the Armijo
 * condition f(x + t d) <= f(x) + 1e-4 t g.d holds; when it never does, x is
 * as good as this method gets it and the run stops.
 */
#include <stdlib.h>
#include <string.h>
#include "compiler/core/lbfgs.h"

static double dot(const double *a, const double *b, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* d += a x, then dot(next, d), in one pass: a dot product is one chain of
 * adds in the order of i, bound by an add's latency per element, and the
 * update rides along instead of taking a pass of its own (the recursion's
 * updates were a third of the minimizer's time in a recompilation).  The
 * same numbers as the two passes: d[i] - alpha y[i] is d[i] + (-alpha) y[i]
 * exactly, and the sum adds next[i] d[i] in dot's order. */
static double axpy_dot(double *d, double a, const double *x, const double *next, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        d[i] += a * x[i];
        s += next[i] * d[i];
    }
    return s;
}

int optinc_lbfgs(optinc_lbfgs_fn objective, void *ctx, double *x, int dim, int iters,
                 double *fmin)
{
    enum { PAIRS = 10 };
    double *mem = malloc(sizeof *mem * (size_t)dim * (2 * PAIRS + 4));
    if (!mem)
        return -1;
    double *S = mem, *Y = S + (size_t)PAIRS * dim, *g = Y + (size_t)PAIRS * dim;
    double *gn = g + dim, *d = gn + dim, *xn = d + dim, rho[PAIRS], alpha[PAIRS];
    int pairs = 0, newest = -1;
    double f = objective(x, g, ctx);
    for (int it = 0; it < iters; it++) {
        /* d = -H g by the two-loop recursion. */
        /* Each pass updates d and takes the dot product the next one needs
         * (axpy_dot): alpha of pair j from S_j.d, beta from Y_j.d, g.d last. */
        for (int i = 0; i < dim; i++)
            d[i] = -g[i];
        double sd = pairs ? dot(S + (size_t)newest * dim, d, dim) : 0;
        for (int j = 0; j < pairs; j++) {
            int k = (newest - j + PAIRS) % PAIRS, kn = (k - 1 + PAIRS) % PAIRS;
            alpha[k] = rho[k] * sd;
            if (j + 1 < pairs)
                sd = axpy_dot(d, -alpha[k], Y + (size_t)k * dim, S + (size_t)kn * dim, dim);
            else
                for (int i = 0; i < dim; i++)
                    d[i] -= alpha[k] * Y[(size_t)k * dim + i];
        }
        double gamma = 1e-2;
        if (pairs)
            gamma = 1 / (rho[newest] * dot(Y + (size_t)newest * dim, Y + (size_t)newest * dim, dim));
        for (int i = 0; i < dim; i++)
            d[i] *= gamma;
        int oldest = (newest - pairs + 1 + PAIRS) % PAIRS;
        double yd = dot(pairs ? Y + (size_t)oldest * dim : g, d, dim);
        for (int j = pairs - 1; j >= 0; j--) {
            int k = (newest - j + PAIRS) % PAIRS, kn = (k + 1) % PAIRS;
            double beta = rho[k] * yd;
            yd = axpy_dot(d, alpha[k] - beta, S + (size_t)k * dim, j ? Y + (size_t)kn * dim : g,
                          dim);
        }
        double gd = yd;
        if (!(gd < 0)) {          /* not a descent direction: restart with the gradient */
            for (int i = 0; i < dim; i++)
                d[i] = -gamma * g[i];
            gd = dot(g, d, dim);
            pairs = 0;
        }
        double step = 1, fn = f;
        int ok = 0;
        for (int ls = 0; ls < 40 && !ok; ls++, step *= 0.5) {
            for (int i = 0; i < dim; i++)
                xn[i] = x[i] + step * d[i];
            fn = objective(xn, gn, ctx);
            ok = fn <= f + 1e-4 * step * gd;
        }
        if (!ok)
            break;
        newest = (newest + 1) % PAIRS;
        double *s = S + (size_t)newest * dim, *y = Y + (size_t)newest * dim;
        for (int i = 0; i < dim; i++) {
            s[i] = xn[i] - x[i];
            y[i] = gn[i] - g[i];
        }
        double sy = dot(s, y, dim);
        if (sy > 0) {
            rho[newest] = 1 / sy;
            pairs = pairs < PAIRS ? pairs + 1 : PAIRS;
        } else {
            newest = (newest - 1 + PAIRS) % PAIRS;
        }
        double gain = f - fn;
        memcpy(x, xn, sizeof *x * (size_t)dim);
        memcpy(g, gn, sizeof *g * (size_t)dim);
        f = fn;
        if (gain <= 1e-14 * f)
            break;
    }
    free(mem);
    if (fmin)
        *fmin = f;
    return 0;
}
