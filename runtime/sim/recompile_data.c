/*
 * recompile_data.c - a chip's drivers recompiled against the data it will
 * run: sequential, data-aware recompilation.
 *
 * The plain recompilation (chip_recompile.c) fits every mesh to its ideal
 * matrix on all its used inputs alike.  Where couplers leave MZIs out of
 * reach that fit is a few percent off per layer, and exact digit networks
 * do not tolerate that.  But a layer sees few input directions (the fields
 * of the data set span a low-rank subspace) and a later stage can absorb
 * what an earlier one got wrong.  So, stage by stage in propagation order:
 *
 *   1. X: the stage's input fields on every data point, on the chip AS
 *      MEASURED (the measured couplers and offsets, the known crosstalk and
 *      attenuators, every stage upstream already recompiled and rounded to
 *      its codes; the layers' gains and activations in between);
 *   2. T: the ideal circuit's field at the stage's output on the ideal
 *      inputs (for the last mesh of a layer the layer's ideal output);
 *   3. the mesh's phases minimize sum_p w_p |D.M'(x).X_p - T_p|^2 (w the
 *      points' weights): with G = X W X^H = V Lambda V^H (eigenvalues below
 *      a relative EIG_TOL dropped), A = V Lambda^{1/2} and
 *      T' = T W X^H V Lambda^{-1/2} that is |D.M'.A - T'|_F^2 + const, the
 *      re-fit of calibrate.c with A for its identity inputs and T' for its
 *      target: no more columns than the mesh has modes;
 *   4. drives for the measured offsets and the crosstalk, rounded to the
 *      codes (chip_recompile.c): the next stage sees the rounding in its X.
 *
 * Within a layer the biggest mesh absorbs the others' errors: the meshes
 * before it go first (against their ideal fields), the mesh after it (an
 * output-layer V S U with a small U) is fitted to its matrix, the big mesh
 * to the layer's ideal output seen back through it (absorbing_mesh), and
 * the small mesh once more to the fields the big one really gives it.
 *
 * Only Gram matrices travel through a layer: with X_in, X_ideal a layer's
 * inputs, G_in = X_in W X_in^H and C_in = X_ideal W X_in^H, and M, M0 the
 * measured and ideal transfers of the stages before, G = M G_in M^H and
 * T W X^H = M0' C_in M^H (M0' through the stage itself), so each stage
 * costs O(n^3); the batch itself is propagated once per layer.  The
 * transfers of the first s stages of a layer are the simulator's, run on a
 * view of the chip holding those stages.  Row weights (the significance of
 * the outputs) enter the fit of the last stage of the last layer when it is
 * a mesh.
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "optinc/calibration.h"
#include "runtime/sim/chip.h"

/* Input directions of less than this fraction of the strongest's power
 * carry no data worth fitting: a mesh a few percent off along a direction
 * of relative amplitude sqrt(1e-5) = 3e-3 moves the outputs by about 1e-4
 * of their size, below what the fit leaves, while every column dropped makes the fit
 * cheaper (on the shipped unit k falls from 87, 114, 126 to 41, 51, 92). */
#define EIG_TOL 1e-5

static optinc_status oom(optinc_error *err)
{
    return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory recompiling the chip");
}

/* The transfer of stages [from, to) of layer l of chip (modes out of stage
 * to - 1 x modes into stage from): the layer run on a view of the chip that
 * holds those stages alone, without the layer's pass-through waveguides and
 * with its input scale only when the view starts at the layer's input. */
static optinc_cmat *stages_transfer(optinc_chip *chip, int l, int from, int to)
{
    optinc_layer L = chip->circuit->layers[l];
    chip_layer cl = chip->layer[l];
    L.n_stages = cl.n_stages = to - from;
    for (int s = from; s < to; s++) {
        L.stage[s - from] = L.stage[s];
        cl.stage[s - from] = cl.stage[s];
    }
    L.rows = cl.rows = cl.stage[to - from - 1].modes_out;
    L.cols = cl.cols = cl.stage[0].modes_in;
    L.pass_through = cl.pass_through = 0;
    if (from > 0) {
        L.input_scale = NULL;
        cl.input_scale = NULL;
    }
    optinc_circuit c = *chip->circuit;
    c.n_layers = 1;
    c.layers = &L;
    optinc_chip view = *chip;
    view.circuit = &c;
    view.n_layers = 1;
    view.layer = &cl;
    return optinc_chip_layer_transfer(&view, 0);
}

/* The mesh of layer l that absorbs the others' errors: the one with the
 * most MZIs whose downstream (an attenuator column, a mesh with one mode
 * per output, either or both) the fit can see through exactly: a lossless
 * mesh is unitary and an attenuator column diagonal, so
 * |U.S.Y - T|^2 = sum_k a_k^2 |Y_k - (U^H T)_k / a_k|^2 + const; *pull is
 * then 1 when there is a downstream.  Otherwise the last mesh, *pull 0: it
 * is fitted to its own ideal fields. */
static int absorbing_mesh(const optinc_layer *L, int *pull)
{
    int best = -1, last = -1;
    for (int s = 0; s < L->n_stages; s++) {
        const optinc_stage *st = &L->stage[s];
        if (st->kind != OPTINC_STAGE_MESH)
            continue;
        last = s;
        int ok = 1, next = s + 1;
        if (next < L->n_stages && L->stage[next].kind == OPTINC_STAGE_ATT
            && L->stage[next].block_in == L->stage[next].modes_in
            && L->stage[next].block_out == L->stage[next].modes_out)
            next++;
        if (next < L->n_stages)
            ok = L->stage[next].kind == OPTINC_STAGE_MESH && next + 1 == L->n_stages
                 && L->stage[next].modes_in == L->rows - L->pass_through;
        if (ok && (best < 0 || st->mesh->n_mzi > L->stage[best].mesh->n_mzi))
            best = s;
    }
    *pull = best >= 0 && best + 1 < L->n_stages;
    return best >= 0 ? best : last;
}

/* C (m x n) = A (m x k) . B^H (n x k rows), all row-major. */
static void mul_adj(const double complex *A, const double complex *B, double complex *C, int m,
                    int n, int k)
{
    const double complex one = 1, zero = 0;
    cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasConjTrans, m, n, k, &one, A, k, B, k, &zero, C,
                n);
}

/* G = X W X^H and C = Y W X^H (n x n) of a layer's batches, over their
 * first n rows (the inputs the stages read; a pass-through one they do not). */
static int layer_grams(const optinc_cmat *X, const optinc_cmat *Y, const double *w, int n,
                       double complex *G, double complex *C)
{
    optinc_cmat *Xw = optinc_cmat_copy(X);
    if (!Xw)
        return -1;
    for (int r = 0; w && r < n; r++)
        for (int p = 0; p < X->cols; p++)
            OPTINC_AT(Xw, r, p) *= w[p];
    mul_adj(X->a, Xw->a, G, n, n, X->cols);
    mul_adj(Y->a, Xw->a, C, n, n, X->cols);
    optinc_cmat_free(Xw);
    return 0;
}

/* The stage's inputs and targets from G = M G_in M^H (n x n) and
 * C = M0 C_in M^H (m x n): A = V Lambda^{1/2} (n x k) into sd->A and
 * T' = C V Lambda^{-1/2} (m x k) into Tc, over the kept eigenvalues. */
static int stage_compress(double complex *G, const double complex *C, int n, int m,
                          chip_stage_data *sd, double complex *Tc)
{
    double *lam = malloc(sizeof *lam * (size_t)n);
    if (!lam)
        return -1;
    if (LAPACKE_zheevd(LAPACK_ROW_MAJOR, 'V', 'U', n, G, n, lam) != 0) {
        free(lam);
        return -1;
    }
    int first = n;
    for (int j = n - 1; j >= 0 && lam[j] > EIG_TOL * lam[n - 1]; j--)
        first = j;
    int k = n - first;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < k; c++)
            sd->A[(size_t)i * k + c] = G[(size_t)i * n + first + c] * sqrt(lam[first + c]);
    for (int r = 0; r < m; r++)
        for (int c = 0; c < k; c++) {
            double complex z = 0;
            for (int i = 0; i < n; i++)
                z += C[(size_t)r * n + i] * G[(size_t)i * n + first + c];
            Tc[(size_t)r * k + c] = z / sqrt(lam[first + c]);
        }
    sd->k = k;
    free(lam);
    return 0;
}

/* The absorbing mesh's target from the layer's (Tc, L.rows x k): seen back
 * through the measured stages after it (absorbing_mesh), row k of the mesh
 * wants (U^H Tc)_k / a_k with weight a_k^2.  Returns -1 when out of memory. */
static int pull_back(optinc_chip *mc, int l, int s, const double complex *Tc,
                     chip_stage_data *sd, double *wrow)
{
    const optinc_layer *L = &mc->circuit->layers[l];
    int n = mc->layer[l].stage[s].modes_in, k = sd->k, rows = L->rows - L->pass_through;
    int last = L->n_stages - 1;
    const chip_stage *att = mc->layer[l].stage[s + 1].kind == OPTINC_STAGE_ATT
                                ? &mc->layer[l].stage[s + 1] : NULL;
    double complex *UT = malloc(sizeof *UT * ((size_t)rows * k + 1));
    optinc_cmat *U = last > s && mc->layer[l].stage[last].kind == OPTINC_STAGE_MESH
                         ? stages_transfer(mc, l, last, last + 1) : NULL;
    if (!UT || (!U && last > s && !att)) {
        free(UT);
        return -1;
    }
    if (U) {
        const double complex one = 1, zero = 0;
        cblas_zgemm(CblasRowMajor, CblasConjTrans, CblasNoTrans, rows, k, rows, &one, U->a,
                    rows, Tc, k, &zero, UT, k);
    } else {
        memcpy(UT, Tc, sizeof *UT * (size_t)rows * k);
    }
    for (int r = 0; r < n; r++) {
        double a = att ? (r < att->n_att ? att->att[r] : 0) : 1;
        wrow[r] = r < rows ? a * a : 0;
        for (int c = 0; c < k; c++)
            sd->T[(size_t)r * k + c] = wrow[r] > 0 ? UT[(size_t)r * k + c] / a : 0;
    }
    sd->w = wrow;
    optinc_cmat_free(U);
    free(UT);
    return 0;
}

/* M . S . N^H for n1 x c M, c x c S, n2 x c N into out (n1 x n2); tmp
 * holds n1 x c. */
static void sandwich(const optinc_cmat *M, const double complex *S, const optinc_cmat *N,
                     double complex *tmp, double complex *out)
{
    const double complex one = 1, zero = 0;
    int c = M->cols;
    cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M->rows, c, c, &one, M->a, c, S, c,
                &zero, tmp, c);
    mul_adj(tmp, N->a, out, M->rows, N->rows, c);
}

/* The measured view takes the drives just chosen for stage s of layer l. */
static void measured_follows(const optinc_chip *chip, optinc_chip *mc, int l, int s)
{
    const chip_stage *cs = &chip->layer[l].stage[s];
    chip_stage *ms = &mc->layer[l].stage[s];
    for (int i = 0; i < cs->n_mzi; i++) {
        ms->mzi[i].theta_drive = cs->mzi[i].theta_drive;
        ms->mzi[i].phi_drive = cs->mzi[i].phi_drive;
    }
    memcpy(ms->screen_drive, cs->screen_drive, sizeof *ms->screen_drive * (size_t)cs->modes_in);
    optinc_chip_stage_realize(ms);
}

/* What the first stage of L receives from the layer's inputs beside its
 * pass-through ones: diag(input scale), or the identity. */
static optinc_cmat *input_drive(const optinc_layer *L)
{
    int c = L->cols - L->pass_through;
    optinc_cmat *D = optinc_cmat_identity(c);
    for (int k = 0; D && L->input_scale && k < c; k++)
        OPTINC_AT(D, k, k) = L->input_scale[k];
    return D;
}

/* Fits and programs mesh stage s of layer l from the layer's Grams. */
static optinc_status fit_stage(optinc_chip *chip, optinc_chip *mc, optinc_chip *ic, int l, int s,
                               const optinc_calibration *meas, const double complex *G_in,
                               const double complex *C_in, const optinc_recompile_data *data,
                               optinc_error *err)
{
    const double *w = data->output_weight;
    const optinc_layer *L = &chip->circuit->layers[l];
    int n = chip->layer[l].stage[s].modes_in, c = L->cols - L->pass_through;
    int pull, a = absorbing_mesh(L, &pull);
    pull = pull && s == a;
    optinc_cmat *Mm = s ? stages_transfer(mc, l, 0, s) : input_drive(L);
    optinc_cmat *Mi = stages_transfer(ic, l, 0, pull ? L->n_stages : s + 1);
    int m = Mi ? Mi->rows : 0, big = (m > n ? m : n) > c ? (m > n ? m : n) : c;
    double complex *buf = malloc(sizeof *buf * ((size_t)5 * big * big));
    double *wrow = malloc(sizeof *wrow * (size_t)n);
    optinc_status st = OPTINC_OK;
    if (!Mm || !Mi || !buf || !wrow) {
        st = oom(err);
    } else {
        size_t sq = (size_t)big * big;
        double complex *G = buf, *C = G + sq, *tmp = C + sq, *Tc = tmp + sq;
        chip_stage_data sd = {Tc + sq, tmp, NULL, 0, data->rounds};
        sandwich(Mm, G_in, Mm, tmp, G);
        sandwich(Mi, C_in, Mm, Tc, C);
        /* Trims before the stage scaled the light down (the gain takes it
         * back after the layer): the stage's target is scaled with it. */
        double trimmed = 1;
        for (int u = 0; u < s; u++)
            trimmed *= mc->layer[l].stage[u].trim;
        for (size_t i = 0; trimmed != 1 && i < (size_t)m * n; i++)
            C[i] *= trimmed;
        if (stage_compress(G, C, n, m, &sd, Tc))
            st = oom(err);
        if (!st && pull) {
            if (pull_back(mc, l, s, Tc, &sd, wrow))
                st = oom(err);
        } else if (!st) {
            memcpy(sd.T, Tc, sizeof *Tc * (size_t)n * sd.k);
            /* The last stage's modes past the layer's rows are not read, nor
             * the rows of a block a blocked attenuator column after it has
             * no channel for. */
            const optinc_stage *next = s + 1 < L->n_stages ? &L->stage[s + 1] : NULL;
            int per = next && next->kind == OPTINC_STAGE_ATT && next->block_in < n
                      ? (next->block_in < next->block_out ? next->block_in : next->block_out)
                      : 0;
            for (int r = 0; r < n; r++)
                wrow[r] = next ? (per && r % next->block_in >= per ? 0 : 1)
                          : r >= L->rows - L->pass_through ? 0
                          : w && l + 1 == chip->n_layers ? w[r] : 1;
            if (!next || per)
                sd.w = wrow;
        }
        if (!st)
            st = optinc_chip_program_mesh(chip, l, s, meas, &sd, err);
    }
    if (!st)
        measured_follows(chip, mc, l, s);
    optinc_cmat_free(Mm);
    optinc_cmat_free(Mi);
    OPTINC_FREE_ALL(buf, wrow);
    return st;
}

/* The next layer's inputs: act(gain . T' . X) on chip (no loss to trim). */
static optinc_cmat *layer_forward(optinc_chip *chip, int l, const optinc_cmat *X)
{
    const optinc_layer *L = &chip->circuit->layers[l];
    optinc_cmat *T = optinc_chip_layer_transfer(chip, l);
    optinc_cmat *Y = T ? optinc_cmat_new(L->rows, X->cols) : NULL;
    if (Y) {
        optinc_cmat_mul(T, X, Y);
        optinc_layer_apply_gain(L, chip->layer[l].gain, Y);
        optinc_activation_apply(L->activation, Y);
    }
    optinc_cmat_free(T);
    return Y;
}

/* The chip as measured: its circuit's drivers, the measured couplers and
 * offsets, the design's crosstalk and attenuators, no loss (the gain trims
 * it).  The ideal chip beside it gives the targets. */
static optinc_status model_chips(const optinc_chip *chip, const optinc_calibration *meas,
                                 optinc_chip **mc, optinc_chip **ic, optinc_error *err)
{
    optinc_chip_options o;
    optinc_chip_options_default(&o);
    o.models = OPTINC_DEV_COUPLER | OPTINC_DEV_CROSSTALK | OPTINC_DEV_EXTINCTION;
    o.drive_targets = chip->opt.drive_targets;
    o.couplers = meas;
    optinc_status st = optinc_chip_new(chip->circuit, &o, chip->seed, mc, err);
    o.models = OPTINC_DEV_NONE;
    o.drive_targets = OPTINC_DRIVE_TARGETS;
    o.couplers = NULL;
    if (!st) {
        optinc_chip_trim_chains(*mc, meas);
        st = optinc_chip_new(chip->circuit, &o, chip->seed, ic, err);
    }
    for (int l = 0; !st && l < (*mc)->n_layers; l++)
        for (int s = 0; s < (*mc)->layer[l].n_stages; s++) {
            chip_stage *ms = &(*mc)->layer[l].stage[s];
            const double *off = meas->layer[l].offset[s];
            if (ms->kind != OPTINC_STAGE_MESH)
                continue;
            for (int i = 0; i < ms->n_mzi; i++) {
                ms->mzi[i].dtheta = off[2 * i];
                ms->mzi[i].dphi = off[2 * i + 1];
            }
            memcpy(ms->screen_err, off + 2 * ms->n_mzi, sizeof *off * (size_t)ms->modes_in);
            optinc_chip_stage_realize(ms);
        }
    return st;
}

/* One pass of the recompilation: every stage of every layer fitted and
 * programmed in propagation order (mc follows chip's drives).  With out,
 * the last layer's outputs on the measured chip into *out. */
static optinc_status recompile_pass(optinc_chip *chip, optinc_chip *mc, optinc_chip *ic,
                                    const optinc_calibration *meas,
                                    const optinc_recompile_data *data, optinc_cmat **out,
                                    optinc_error *err)
{
    const optinc_circuit *c = chip->circuit;
    optinc_status st = OPTINC_OK;
    optinc_cmat *X = NULL, *Xi = NULL;
    if (!(X = optinc_cmat_copy(data->inputs)) || !(Xi = optinc_cmat_copy(X)))
        st = oom(err);
    for (int l = 0; !st && l < c->n_layers; l++) {
        int n = c->layers[l].cols - c->layers[l].pass_through;
        double complex *G = malloc(sizeof *G * 2 * (size_t)n * n);
        if (!G || layer_grams(X, Xi, data->weight, n, G, G + (size_t)n * n))
            st = oom(err);
        /* The meshes before the absorbing one against the ideal fields, those
         * after it against their ideal matrices, then the absorbing one, and
         * those after it once more against the fields it really gives them
         * (its rounding included; on the output layer with the outputs'
         * weights). */
        int pull, a = absorbing_mesh(&c->layers[l], &pull);
        for (int s = 0; !st && s < chip->layer[l].n_stages; s++) {
            if (chip->layer[l].stage[s].kind != OPTINC_STAGE_MESH || s == a)
                continue;
            if (s < a) {
                st = fit_stage(chip, mc, ic, l, s, meas, G, G + (size_t)n * n,
                               data, err);
            } else if (!(st = optinc_chip_program_mesh(chip, l, s, meas, NULL, err))) {
                measured_follows(chip, mc, l, s);
            }
        }
        for (int s = a; !st && a >= 0 && s < chip->layer[l].n_stages; s++)
            if (chip->layer[l].stage[s].kind == OPTINC_STAGE_MESH)
                st = fit_stage(chip, mc, ic, l, s, meas, G, G + (size_t)n * n,
                               data, err);
        free(G);
        if (!st && (l + 1 < c->n_layers || out)) {
            optinc_cmat *Xn = layer_forward(mc, l, X);
            optinc_cmat *Xin = l + 1 < c->n_layers ? layer_forward(ic, l, Xi) : NULL;
            optinc_cmat_free(X);
            optinc_cmat_free(Xi);
            X = Xn;
            Xi = Xin;
            if (!X || (!Xi && l + 1 < c->n_layers))
                st = oom(err);
        }
    }
    if (!st && out) {
        *out = X;
        X = NULL;
    }
    optinc_cmat_free(X);
    optinc_cmat_free(Xi);
    return st;
}

/* Passes past this many are not asked of a rescoring hook. */
#define MAX_PASSES 8

/* The drives of every mesh stage of chip, in stage order: MZIs' theta and
 * phi, then the output screen, copied into buf (NULL: only counted), or
 * with `restore` from buf back into the chip.  Returns how many. */
static size_t mesh_drives(optinc_chip *chip, double *buf, int restore)
{
    size_t n = 0;
    for (int l = 0; l < chip->n_layers; l++)
        for (int s = 0; s < chip->layer[l].n_stages; s++) {
            chip_stage *cs = &chip->layer[l].stage[s];
            if (cs->kind != OPTINC_STAGE_MESH)
                continue;
            for (int i = 0; buf && i < 2 * cs->n_mzi + cs->modes_in; i++) {
                double *x = i >= 2 * cs->n_mzi ? &cs->screen_drive[i - 2 * cs->n_mzi]
                            : i % 2            ? &cs->mzi[i / 2].phi_drive
                                               : &cs->mzi[i / 2].theta_drive;
                if (restore)
                    *x = buf[n + i];
                else
                    buf[n + i] = *x;
            }
            n += 2 * (size_t)cs->n_mzi + (size_t)cs->modes_in;
            if (restore)
                optinc_chip_stage_realize(cs);
        }
    return n;
}

optinc_status optinc_chip_recompile_data(optinc_chip *chip, const optinc_calibration *meas,
                                         const optinc_recompile_data *data, optinc_error *err)
{
    const optinc_circuit *c = chip->circuit;
    if (data->inputs->rows != c->layers[0].cols)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "the recompilation's data has %d rows, but the circuit's first layer "
                           "takes %d inputs; give one row per input mode", data->inputs->rows,
                           c->layers[0].cols);
    optinc_chip *mc = NULL, *ic = NULL;
    optinc_status st = model_chips(chip, meas, &mc, &ic, err);
    size_t nd = mesh_drives(chip, NULL, 0), np = (size_t)data->inputs->cols;
    double *best = data->rescore && !st ? malloc(sizeof *best * (nd + np + 1)) : NULL;
    double *was = best ? best + nd : NULL, best_cost = INFINITY;
    if (data->rescore && !st && !best)
        st = oom(err);
    for (int pass = 0, again = 1; !st && again; pass++) {
        optinc_cmat *Y = NULL;
        st = recompile_pass(chip, mc, ic, meas, data, data->rescore ? &Y : NULL, err);
        again = 0;
        if (!st && data->rescore) {
            if (data->weight)
                memcpy(was, data->weight, sizeof *was * np);
            double cost = data->rescore(data->ctx, Y, &again);
            /* The pass reads nothing else the hook may change: with the
             * weights as they were, another would repeat this one bit for
             * bit (on a chip the measured model decodes right everywhere,
             * two of the 12-bit unit's three passes). */
            again = again && pass + 1 < MAX_PASSES && data->weight
                    && memcmp(was, data->weight, sizeof *was * np) != 0;
            if (cost < best_cost) {
                best_cost = cost;
                mesh_drives(chip, best, 0);
            } else if (!again) {
                mesh_drives(chip, best, 1);
            }
        }
        optinc_cmat_free(Y);
    }
    free(best);
    optinc_chip_free(mc);
    optinc_chip_free(ic);
    return st;
}
