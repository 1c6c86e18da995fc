/*
 * calibrate.c - error-aware compilation: programming a mesh so that a chip
 * with measured (imperfect) couplers still realizes the intended matrix.
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
 * When MZIs are out of reach, OPTINC_CAL_REFIT then fits every phase of the
 * mesh at once against the ideal mesh (the fit of mesh_fit.c).
 *
 * Where it sits: the measurements come as an optinc_calibration, whose data
 * and file format are calibration_file.c's.  This file runs chips (a
 * couplers-only chip gives each layer's fidelity before and after) and
 * re-programs their drivers; the one call from the simulator back into it is
 * the Monte-Carlo of sim.c, which calibrates each chip it draws when asked
 * (optinc_mc_options.calibrate).  The chip itself (devices.c) needs only the
 * calibration's data, to realize measured couplers, never this file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "optinc/calibration.h"
#include "runtime/sim/chip.h"

const char *const optinc_calibration_method_names[] = {"local", "refit", NULL};

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

/* Rows m, m+1 of A (n columns) := e . rows. */
static void rows2(double complex *A, int n, int m, const double complex e[4])
{
    double complex a = e[0], b = e[1], c = e[2], d = e[3];
    double complex *restrict x = A + (size_t)m * n, *restrict y = x + n;
    for (int k = 0; k < n; k++) {
        double complex u = x[k], v = y[k];
        x[k] = a * u + b * v;
        y[k] = c * u + d * v;
    }
}

/* ------------------------------------------------------------------ one mesh */

/* The ideal mesh from its target phases on its first nc inputs into T
 * (n x nc). */
static void mesh_target(const optinc_mesh *mesh, int nc, double complex *T)
{
    int n = mesh->modes;
    memset(T, 0, sizeof *T * (size_t)n * nc);
    for (int r = 0; r < nc; r++)
        T[(size_t)r * nc + r] = 1;
    for (int i = 0; i < mesh->n_mzi; i++) {
        double complex E[4];
        optinc_mzi_matrix(mesh->mzi[i].theta.target_rad, mesh->mzi[i].phi.target_rad, E);
        rows2(T, nc, mesh->mzi[i].mode, E);
    }
    for (int r = 0; r < n; r++) {
        double complex e = cexp(I * mesh->screen[r].target_rad);
        for (int c = 0; c < nc; c++)
            T[(size_t)r * nc + c] *= e;
    }
}

/* Global re-fit of a locally corrected mesh against the ideal mesh on its
 * used block.  Returns -1 when out of memory. */
static int refit(const optinc_mesh *mesh, const double *kappa, const optinc_quantizer *q,
                 int iters, int nr, int nc, optinc_phase *th, optinc_phase *ph,
                 optinc_phase *screen)
{
    double complex *T = malloc(sizeof *T * (size_t)mesh->modes * nc);
    if (!T)
        return -1;
    mesh_target(mesh, nc, T);
    int st = optinc_mesh_fit(mesh, kappa, q, iters, nr, nc, NULL, T, NULL, NULL, th, ph, screen);
    free(T);
    return st;
}

int optinc_mesh_correct(const optinc_mesh *mesh, const double *kappa, const optinc_quantizer *q,
                        int refit_iters, optinc_phase *th, optinc_phase *ph,
                        optinc_phase *screen)
{
    return optinc_mesh_correct_block(mesh, kappa, q, refit_iters, mesh->modes, mesh->modes, th,
                                     ph, screen);
}

int optinc_mesh_correct_block(const optinc_mesh *mesh, const double *kappa,
                              const optinc_quantizer *q, int refit_iters, int rows, int cols,
                              optinc_phase *th, optinc_phase *ph, optinc_phase *screen)
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
        && refit(mesh, kappa, q, refit_iters, rows, cols, th, ph, screen) < 0)
        return -1;
    return unreachable;
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
    optinc_chip_options o = {OPTINC_DEV_COUPLER, OPTINC_DRIVE_CODES, cal, 0};
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
            L->reconstruction_error = optinc_layer_reconstruction(L);
            if (isnan(L->reconstruction_error)) {
                st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
                break;
            }
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
    OPTINC_FREE_ALL(ref, before, unreach, tmp);
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
            if (correct_stage(&c->layers[l], s, cal->layer[l].kappa[s],
                              chip->opt.drive_targets == OPTINC_DRIVE_TARGETS,
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
