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
        for (int i = 0; i < dim; i++)
            d[i] = -g[i];
        for (int j = 0; j < pairs; j++) {
            int k = (newest - j + PAIRS) % PAIRS;
            alpha[k] = rho[k] * dot(S + (size_t)k * dim, d, dim);
            for (int i = 0; i < dim; i++)
                d[i] -= alpha[k] * Y[(size_t)k * dim + i];
        }
        double gamma = 1e-2;
        if (pairs)
            gamma = 1 / (rho[newest] * dot(Y + (size_t)newest * dim, Y + (size_t)newest * dim, dim));
        for (int i = 0; i < dim; i++)
            d[i] *= gamma;
        for (int j = pairs - 1; j >= 0; j--) {
            int k = (newest - j + PAIRS) % PAIRS;
            double beta = rho[k] * dot(Y + (size_t)k * dim, d, dim);
            for (int i = 0; i < dim; i++)
                d[i] += (alpha[k] - beta) * S[(size_t)k * dim + i];
        }
        double gd = dot(g, d, dim);
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
