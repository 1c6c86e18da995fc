/*
 * lbfgs.h - private: a small L-BFGS minimizer over a smooth function of
 * dim doubles (lbfgs.c).  The calibration's global re-fit of a mesh
 * (runtime/sim/calibrate.c) is its user; it lives in core because it is
 * plain numerics and knows nothing of meshes.
 */
#ifndef OPTINC_CORE_LBFGS_H
#define OPTINC_CORE_LBFGS_H

/* The objective at x, and its gradient into g (dim entries) when g is not NULL. */
typedef double (*optinc_lbfgs_fn)(const double *x, double *g, void *ctx);

/* Minimizes objective from x (dim entries, overwritten with the last
 * accepted point) for at most iters iterations; stops early when a line
 * search finds no decrease or an iteration gains less than 1e-14 of the
 * objective.  *fmin (may be NULL) receives the objective at the final x.
 * Returns 0, or -1 when out of memory (x is then unchanged). */
int optinc_lbfgs(optinc_lbfgs_fn objective, void *ctx, double *x, int dim, int iters,
                 double *fmin);

#endif
