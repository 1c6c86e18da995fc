/*
 * chip_recompile.c - a chip's drivers recompiled from what a lab measured
 * on it (optinc-calibration(5)): its couplers and its static phase offsets.
 *
 * The chip model (devices.c) realizes every phase shifter as
 *
 *   effective_i = drive_i + c . sum_{j in N(i)} (drive_j - lo) + offset_i,
 *
 * with c the heaters' thermal crosstalk, lo the low end of the driver range
 * (a heater at lo is off) and N(i) the neighbours the model lets leak: the
 * MZIs of the same column two modes away (theta heaters leak into theta
 * heaters, phi into phi) and, in the output screen, the adjacent modes.  The
 * crosstalk matrix is taken as known exactly (it is a property of the
 * layout, measured once per design, not per chip), the offsets and couplers
 * as measured.  Recompiling a mesh is then three steps:
 *
 *   1. the phases the measured couplers need to realize the mesh's targets:
 *      the error-aware correction of calibrate.c, continuous;
 *   2. drives whose crosstalk-mixed phases equal those phases minus the
 *      measured offsets: the sparse equations (I + c A) d = e - offset + c A lo
 *      solved by Gauss-Seidel sweeps in propagation order (A has at most two
 *      ones per row, so with c < 1/2 the sweep contracts by 2c each pass);
 *      each drive is wrapped into the driver range as it is updated, so the
 *      solution is the one the real heaters can hold;
 *   3. the same sweeps once more with every drive rounded to the chip's
 *      codes as it is updated: a neighbour rounded earlier is seen through
 *      its real leak, so rounding errors do not add up through crosstalk.
 *
 * With data (recompile_data.c) step 1 fits each mesh to what the data need
 * of it instead of to its matrix; steps 2 and 3 are the same, but coarse
 * codes are chosen in rounds first (round_in_rounds): a block of MZIs at a
 * time, in propagation order, takes the phases its rounded drives give,
 * and the fit moves the phases still free to absorb what the rounding cost.
 * A data set spans few input directions, so a mesh has far more phases
 * than the data constrain, and the free ones can take up the rounding of
 * the frozen ones.
 */
#include <math.h>
#include <stdlib.h>
#include "compiler/core/freeall.h"
#include "optinc/calibration.h"
#include "runtime/sim/chip.h"

/* Sweeps of the continuous solve: 2c <= 0.2 for any sensible crosstalk, so
 * 40 passes shrink the residual below 1e-28 of the leak. */
#define SOLVE_SWEEPS 40
/* L-BFGS iterations of the re-fit of a mesh with couplers out of reach. */
#define REFIT_ITERS 300
/* Work of a data-aware fit, in MZI x column updates per evaluation times
 * iterations: a mesh of K MZIs fitted on k columns gets WORK / (K k)
 * iterations, within [REFIT_ITERS, MAX_FIT_ITERS]; the fit is far from
 * converged at 300 on the big meshes, and small ones cost next to nothing.
 * 4.0e8 recompiles the shipped unit's 12-bit chip in about 7 s of one core
 * a pass (bench_onn: chip seed 1, one pass), the worst of its 10 realistic
 * chips exact on 99.94% of P outputs (OpenBLAS's Haswell kernel; 99.979%
 * on its Cooperlake one); with the fits this far from converged that
 * figure moves with any change of rounding (2.0e8: 99.85%, 3.0e8: 99.87%;
 * 4.0e8 with the dot products of lbfgs.c summed in four lanes: 99.90%;
 * optinc-onn(7)). */
#define DATA_FIT_WORK 4.0e8
#define MAX_FIT_ITERS 3000

static int data_fit_iters(int n_mzi, int k)
{
    double it = DATA_FIT_WORK / ((double)n_mzi * k + 1);
    return it < REFIT_ITERS ? REFIT_ITERS : it > MAX_FIT_ITERS ? MAX_FIT_ITERS : (int)it;
}

/* Rounding sweeps: the second sees every neighbour at its final code. */
#define ROUND_SWEEPS 2

/* Codes coarser than this step (10-bit drivers on a 2 pi range and
 * coarser) are chosen in ROUNDS rounds, each re-fit getting 1/ROUND_ITER_DIV
 * of the mesh's fit iterations.  On the realistic 8-bit chip of the shipped
 * unit (chip seed 1) that took raw inputs from 66.5% to 99.8% exact (8
 * rounds of 1/4: 99.0%; 32 of 1/16: 99.7%) at about 5 times the
 * recompilation's time; with 12-bit codes (0.44 mrad of rounding, below
 * what the fit leaves) 8 rounds gained nothing over rounding at once.
 * On the offset unit's 10 realistic 8-bit chips re-fits of 1/8 instead of
 * 1/4 took 0.65 of the time and doubled the mean error (0.00039 LSB
 * against 0.00018; optinc-onn(7)). */
#define COARSE_STEP_RAD (2 * M_PI / 2048)
#define ROUNDS 16
#define ROUND_ITER_DIV 4

/* Leak into MZI i's theta (k = 0) or phi (k = 1) heater from drives d (2
 * per MZI), the neighbour pattern of the chip model. */
static double mzi_leak(const chip_stage *s, const double *d, int i, int k)
{
    double leak = 0;
    for (int j = i - 1; j <= i + 1; j += 2)
        if (j >= 0 && j < s->n_mzi && s->mzi[j].column == s->mzi[i].column
            && abs(s->mzi[j].mode - s->mzi[i].mode) == 2)
            leak += d[2 * j + k] - s->drive_lo;
    return s->crosstalk * leak;
}

static double screen_leak(const chip_stage *s, const double *d, int r)
{
    double leak = 0;
    if (r > 0)
        leak += d[r - 1] - s->drive_lo;
    if (r + 1 < s->modes_in)
        leak += d[r + 1] - s->drive_lo;
    return s->crosstalk * leak;
}

/* Sweeps that may still move a drive across the end of the driver range
 * (wrapping by 2 pi); after them every drive keeps its branch, so the
 * sweeps solve one linear system and cannot flip a drive back and forth
 * (a flip moves the neighbours' leak by 2 pi c). */
#define WRAP_SWEEPS 4

/* The drive for phase `want` on a fixed branch: clamped into the driver
 * range (a fixed point just outside it exists only when a neighbour's leak
 * pushes a drive over the end; then the end is the nearest drive), rounded
 * to a code when q has bits. */
static double branch_drive(const optinc_quantizer *q, double want)
{
    double top = q->hi - q->lo < 2 * M_PI ? q->hi : q->lo + 2 * M_PI;
    double x = want < q->lo ? q->lo : want > top ? top : want;
    if (q->bits <= 0)
        return x;
    double levels = ldexp(1.0, q->bits), step = (q->hi - q->lo) / levels;
    double code = nearbyint((x - q->lo) / step);
    code = code < 0 ? 0 : code > levels - 1 ? levels - 1 : code;
    return optinc_quantizer_value(q, (int)code);
}

/* One drive of a sweep: wrapped into range while branches may change, then
 * on the branch the previous value chose. */
static double sweep_drive(const optinc_quantizer *cont, const optinc_quantizer *use, int wrap,
                          double want, double prev)
{
    if (wrap) {
        optinc_phase p;
        optinc_quantize_phase(cont, want, &p);
        return p.rad;
    }
    return branch_drive(use, want + 2 * M_PI * nearbyint((prev - want) / (2 * M_PI)));
}

/* Steps 2 and 3 for one mesh stage: e holds the wanted effective phases (2
 * per MZI, then the screen), off the measured offsets, d the drives. */
static void solve_drives(const chip_stage *s, const optinc_quantizer *q, const double *e,
                         const double *off, double *d)
{
    optinc_quantizer cont = *q;
    cont.bits = 0;
    int n = s->n_mzi, modes = s->modes_in;
    double *sd = d + 2 * n;
    const double *se = e + 2 * n, *so = off + 2 * n;
    for (int i = 0; i < 2 * n + modes; i++)
        d[i] = sweep_drive(&cont, &cont, 1, e[i] - off[i], 0);
    for (int sweep = 0; sweep < SOLVE_SWEEPS + ROUND_SWEEPS; sweep++) {
        const optinc_quantizer *use = sweep < SOLVE_SWEEPS ? &cont : q;
        int wrap = sweep < WRAP_SWEEPS;
        if (s->crosstalk == 0 && sweep < SOLVE_SWEEPS)
            continue;
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 2; k++) {
                double *x = &d[2 * i + k];
                *x = sweep_drive(&cont, use, wrap, e[2 * i + k] - off[2 * i + k]
                                                       - mzi_leak(s, d, i, k), *x);
            }
        for (int r = 0; r < modes; r++)
            sd[r] = sweep_drive(&cont, use, wrap, se[r] - so[r] - screen_leak(s, sd, r), sd[r]);
    }
}

/* The modes of mesh stage s that matter: an attenuator column of one block
 * after it reads only its first n_att outputs, one before it feeds only its
 * first n_att inputs (channel k joins mode k to mode k).  A blocked column
 * (a segmented layer's) reads rows of every block: all rows are fitted. */
static void used_block(const optinc_layer *L, int s, int *rows, int *cols)
{
    int n = L->stage[s].mesh->modes;
    *rows = *cols = n;
    if (s + 1 < L->n_stages && L->stage[s + 1].kind == OPTINC_STAGE_ATT
        && L->stage[s + 1].n_att < n && L->stage[s + 1].block_in == n)
        *rows = L->stage[s + 1].n_att;
    if (s > 0 && L->stage[s - 1].kind == OPTINC_STAGE_ATT && L->stage[s - 1].n_att < n
        && L->stage[s - 1].block_out == n)
        *cols = L->stage[s - 1].n_att;
}

/* The wanted effective phases e (2 per MZI, then the screen) of ph (th,
 * then phi, then the screen). */
static void wanted_phases(const optinc_phase *ph, int n, int modes, double *e)
{
    for (int i = 0; i < n; i++) {
        e[2 * i] = ph[i].rad;
        e[2 * i + 1] = ph[n + i].rad;
    }
    for (int r = 0; r < modes; r++)
        e[2 * n + r] = ph[2 * n + r].rad;
}

/* Whether the codes of q are coarser than COARSE_STEP_RAD. */
static int coarse_codes(const optinc_quantizer *q)
{
    return q->bits > 0 && (q->hi - q->lo) / ldexp(1.0, q->bits) > COARSE_STEP_RAD;
}

/* How many rounds the codes of q are chosen in: `asked`, or for 0 ROUNDS
 * when its step is coarse, else 1 (all at once). */
static int code_rounds(int asked, const optinc_quantizer *q)
{
    if (q->bits <= 0)
        return 1;
    if (asked > 0)
        return asked;
    return coarse_codes(q) ? ROUNDS : 1;
}

int optinc_recompile_coarse_codes(const optinc_components *c)
{
    optinc_quantizer q;
    optinc_quantizer_from_components(&q, c);
    return coarse_codes(&q);
}

/* Chooses the codes of a data-fitted mesh in `rounds` rounds: round r
 * freezes MZIs [r n / rounds, (r + 1) n / rounds) at the effective phases
 * their rounded drives give (the drives of the continuous solve of step 2,
 * each moved onto its nearest code on its branch; a neighbour's later
 * rounding moves its leak by c times half a step), then re-fits the MZIs
 * still free.  ph ends with every MZI phase at a rounded drive's value, so
 * the rounding sweeps of step 3 find the same codes.  e and d are scratch
 * of 2 n + modes.  Returns -1 when out of memory. */
static int round_in_rounds(const chip_stage *cs, const optinc_mesh *mesh, const double *kappa,
                           const optinc_quantizer *q, const double *off, const chip_stage_data *sd,
                           int rows, int rounds, int iters, optinc_phase *ph, double *e, double *d)
{
    optinc_quantizer cont = *q;
    cont.bits = 0;
    int n = cs->n_mzi, modes = cs->modes_in;
    unsigned char *frozen = calloc(2 * (size_t)n + 1, 1);
    if (!frozen)
        return -1;
    int st = 0;
    for (int r = 0; !st && r < rounds; r++) {
        wanted_phases(ph, n, modes, e);
        solve_drives(cs, &cont, e, off, d);
        for (int i = n * r / rounds; i < n * (r + 1) / rounds; i++)
            for (int k = 0; k < 2; k++) {
                int j = 2 * i + k;
                optinc_phase *p = k ? &ph[n + i] : &ph[i];
                p->rad = e[j] + branch_drive(q, d[j]) - d[j];
                frozen[j] = 1;
            }
        for (int i = 0; i < 2 * n; i++)
            ph[i].target_rad = ph[i].rad;      /* the fit starts where the rounds stand */
        if (r + 1 < rounds)
            st = optinc_mesh_fit(mesh, kappa, &cont, iters, rows, sd->k, sd->A, sd->T, sd->w,
                                 frozen, ph, ph + n, ph + 2 * n);
    }
    free(frozen);
    return st;
}

optinc_status optinc_chip_program_mesh(optinc_chip *chip, int l, int s,
                                       const optinc_calibration *meas,
                                       const chip_stage_data *sd, optinc_error *err)
{
    const optinc_layer *L = &chip->circuit->layers[l];
    chip_stage *cs = &chip->layer[l].stage[s];
    optinc_quantizer q;
    optinc_quantizer_from_components(&q, &L->components);
    if (chip->opt.drive_targets == OPTINC_DRIVE_TARGETS)
        q.bits = 0;
    optinc_quantizer cont = q;
    cont.bits = 0;
    const optinc_mesh *mesh = L->stage[s].mesh;
    const double *kappa = meas->layer[l].kappa[s];
    int n = cs->n_mzi, modes = cs->modes_in, rows, cols;
    size_t len = 2 * (size_t)n + (size_t)modes + 1;
    optinc_phase *ph = malloc(sizeof *ph * len);
    double *e = malloc(sizeof *e * len), *d = malloc(sizeof *d * len);
    used_block(L, s, &rows, &cols);
    int bad = !ph || !e || !d
              || optinc_mesh_correct_block(mesh, kappa, &cont, sd ? 0 : REFIT_ITERS, rows, cols,
                                           ph, ph + n, ph + 2 * n) < 0
              || (sd && sd->k > 0
                  && optinc_mesh_fit(mesh, kappa, &cont, data_fit_iters(n, sd->k), rows, sd->k,
                                     sd->A, sd->T, sd->w, NULL, ph, ph + n, ph + 2 * n) < 0);
    int rounds = sd && sd->k > 0 ? code_rounds(sd->rounds, &q) : 1;
    if (!bad && rounds > 1)
        bad = round_in_rounds(cs, mesh, kappa, &q, meas->layer[l].offset[s], sd, rows, rounds,
                              data_fit_iters(n, sd->k) / ROUND_ITER_DIV, ph, e, d) < 0;
    if (!bad) {
        wanted_phases(ph, n, modes, e);
        solve_drives(cs, &q, e, meas->layer[l].offset[s], d);
        for (int i = 0; i < n; i++) {
            cs->mzi[i].theta_drive = d[2 * i];
            cs->mzi[i].phi_drive = d[2 * i + 1];
        }
        for (int r = 0; r < modes; r++)
            cs->screen_drive[r] = d[2 * n + r];
        optinc_chip_stage_realize(cs);
    }
    OPTINC_FREE_ALL(ph, e, d);
    return bad ? optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory") : OPTINC_OK;
}

/* The fixed cards of a chain carry its branches with amplitudes b (their
 * measured taps, optinc_chain_branches) where the design wants 1/sqrt(g) on
 * every branch.  Each branch has one attenuator of its own: a split stage's
 * trim at its end, or the channel of the attenuator column that feeds a
 * comb branch.  Scaling it by 1/(sqrt(g) b) undoes the error exactly.  An
 * attenuator passes at most all its light, so the channels are then scaled
 * down to fit and the layer's gain up by as much: the electronic gain is
 * part of what a chip is programmed with.  Split errors are then trimmed
 * in front of the segments' meshes, comb errors behind them.
 *
 * For chain stage s of L (trims(L, s)): the new targets of its attenuators
 * into t, and the factor the gain is divided by (0 when out of memory). */
static double chain_trim(const optinc_layer *L, int s, const double *tap, double *t)
{
    const optinc_stage *cst = &L->stage[s];
    int split = cst->kind == OPTINC_STAGE_SPLIT, g = cst->fan, bk = cst->block;
    int n = split ? cst->modes_in : cst->modes_out, G = cst->modes_in / bk;
    const optinc_stage *ast = split ? cst : &L->stage[s - 1];
    double *b = malloc(sizeof *b * ((size_t)n * g + 1)), most = 0;
    if (!b)
        return 0;
    optinc_chain_branches(cst->kind, g, n, tap, 1, 0, b);
    for (int k = 0; k < ast->n_att; k++) {
        int in, m = k;
        if (!split)
            optinc_att_channel(ast, k, &in, &m);
        /* the branch of mode m: split_target(x, i) = m, combine_source(y, j) = m */
        int blk = m / bk, branch = split ? (blk % G * bk + m % bk) * g + blk / G
                                         : ((blk / g) * bk + m % bk) * g + blk % g;
        t[k] = b[branch] > 0 ? ast->att[k].t_target / (sqrt((double)g) * b[branch]) : 0;
        most = t[k] > most ? t[k] : most;
    }
    free(b);
    double fit = most > 1 ? 1 / most : 1;
    for (int k = 0; k < ast->n_att; k++)
        t[k] *= fit;
    return fit;
}

/* 1 when stage s of L is a chain with attenuators to trim: a split stage
 * with trims, or a comb stage after an attenuator column. */
static int trims(const optinc_layer *L, int s)
{
    const optinc_stage *st = &L->stage[s];
    return st->fan > 1 && ((st->kind == OPTINC_STAGE_SPLIT && st->n_att)
                           || (st->kind == OPTINC_STAGE_COMBINE && s > 0
                               && L->stage[s - 1].kind == OPTINC_STAGE_ATT));
}

/* Runs chain_trim on every chain stage of L that trims(); set(ctx, s, t)
 * takes the new targets of the attenuators of stage s, and fit[s] (NULL:
 * not wanted) that stage's fit; returns the product of the fits, 0 when
 * out of memory. */
static double trim_layer(const optinc_layer *L, const struct optinc_calibration_layer *meas,
                         void (*set)(void *ctx, int s, const double *t), void *ctx,
                         double *fits)
{
    double all = 1;
    for (int s = 0; s < L->n_stages && all > 0; s++) {
        if (!trims(L, s))
            continue;
        int a = L->stage[s].kind == OPTINC_STAGE_SPLIT ? s : s - 1;
        double *t = malloc(sizeof *t * ((size_t)L->stage[a].n_att + 1));
        double fit = t ? chain_trim(L, s, meas->tap[s], t) : 0;
        if (fit > 0)
            set(ctx, a, t);
        if (fits && fit > 0)
            fits[a] = fit;
        all *= fit;
        free(t);
    }
    return all;
}

typedef struct chip_at {
    optinc_chip *chip;
    int l;
} chip_at;

static void set_chip_atts(void *ctx, int s, const double *t)
{
    chip_at *at = ctx;
    optinc_chip_set_atts(at->chip, at->l, s, t);
}

void optinc_chip_trim_chains(optinc_chip *chip, const optinc_calibration *meas)
{
    for (int l = 0; l < chip->n_layers; l++) {
        const optinc_layer *L = &chip->circuit->layers[l];
        chip_at at = {chip, l};
        double fits[OPTINC_STAGES_MAX];
        for (int s = 0; s < L->n_stages; s++)
            fits[s] = 1;
        double fit = trim_layer(L, &meas->layer[l], set_chip_atts, &at, fits);
        for (int s = 0; s < L->n_stages; s++)
            chip->layer[l].stage[s].trim = fits[s];
        /* out of memory: the chip keeps what was trimmed, valid if less exact */
        chip->layer[l].gain = L->gain / (fit > 0 ? fit : 1);
    }
}

optinc_status optinc_chip_recompile(optinc_chip *chip, const optinc_calibration *meas,
                                    const optinc_recompile_data *data, optinc_error *err)
{
    optinc_status st = optinc_calibration_check(meas, chip->circuit, err);
    if (!st)
        optinc_chip_trim_chains(chip, meas);
    if (!st && data)
        return optinc_chip_recompile_data(chip, meas, data, err);
    for (int l = 0; l < chip->n_layers && !st; l++)
        for (int s = 0; s < chip->layer[l].n_stages && !st; s++)
            if (chip->layer[l].stage[s].kind == OPTINC_STAGE_MESH)
                st = optinc_chip_program_mesh(chip, l, s, meas, NULL, err);
    return st;
}

/* A programmed phase from a drive the recompilation chose (on the code
 * grid when q has bits), keeping what the decomposition asked for. */
static void set_programmed(const optinc_quantizer *q, double drive, optinc_phase *p)
{
    double target = p->target_rad;
    optinc_quantize_phase(q, drive, p);
    p->target_rad = target;
}

static void set_circuit_atts(void *ctx, int s, const double *t)
{
    optinc_layer *L = ctx;
    for (int k = 0; k < L->stage[s].n_att; k++)
        optinc_att_program(&L->stage[s].att[k], t[k], &L->components, NULL);
}

optinc_status optinc_recompile_circuit(optinc_circuit *c, const optinc_calibration *meas,
                                       optinc_error *err)
{
    optinc_chip_options o;
    optinc_chip_options_default(&o);
    o.models = OPTINC_DEV_COUPLER | OPTINC_DEV_CROSSTALK;
    o.couplers = meas;
    optinc_chip *chip = NULL;
    optinc_status st = optinc_chip_new(c, &o, 0, &chip, err);
    if (!st)
        st = optinc_chip_recompile(chip, meas, NULL, err);
    for (int l = 0; !st && l < c->n_layers; l++) {
        optinc_quantizer q;
        optinc_quantizer_from_components(&q, &c->layers[l].components);
        for (int s = 0; s < c->layers[l].n_stages; s++) {
            const chip_stage *cs = &chip->layer[l].stage[s];
            optinc_mesh *mesh = c->layers[l].stage[s].mesh;
            if (cs->kind != OPTINC_STAGE_MESH)
                continue;
            for (int i = 0; i < mesh->n_mzi; i++) {
                set_programmed(&q, cs->mzi[i].theta_drive, &mesh->mzi[i].theta);
                set_programmed(&q, cs->mzi[i].phi_drive, &mesh->mzi[i].phi);
            }
            for (int r = 0; r < mesh->modes; r++)
                set_programmed(&q, cs->screen_drive[r], &mesh->screen[r]);
        }
        optinc_layer *L = &c->layers[l];
        double fit = trim_layer(L, &meas->layer[l], set_circuit_atts, L, NULL);
        if (fit == 0)
            st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
        else
            L->gain /= fit;
    }
    optinc_chip_free(chip);
    return st;
}
