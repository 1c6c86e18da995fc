/*
 * devices.c - simulated chips: one realization of a compiled circuit on
 * imperfect hardware.
 *
 * The circuit is the program and is never changed here; a chip is drawn from
 * it, from each layer's `components` table and from a seed (FFTW's
 * plan/execute split).  Drawing a chip fixes everything that is
 * static on a real device: the drivers' settings (the compiler's quantized
 * codes, or the exact targets), one Gaussian phase error per phase shifter,
 * the splitting of every coupler, the loss of every element, the extinction
 * floor of every attenuator.  Realizing it folds those, plus thermal
 * crosstalk, into one 2x2 matrix per MZI and one phase factor per screen
 * mode, and turns them into the program propagation runs (chip.h: two
 * complex multiply-adds per MZI and vector, the rest folded into per-mode
 * factors), so that propagation (sim.c) is nothing but multiply-adds.
 *
 * Randomness: every model of every stage draws from its own stream,
 * optinc_rng_stream(seed, ((layer * 4 + stage) * 4 + model)), so switching a
 * model on or off, or changing sigma, never moves another model's draws; and
 * the coupler draws do not depend on the phases, so a chip drawn for a
 * re-calibrated circuit with the same seed has the same couplers.  Dynamic
 * noise has one stream per chip, advanced by every evaluation.
 *
 * Balanced loss (balance_loss): a mode that crosses a column of a mesh
 * without an MZI (the edge modes of a Clements mesh every other column)
 * would lose less than one that crosses an MZI there, so a uniform MZI loss
 * would weigh the paths differently and bend the function.  A balanced chip
 * has a padding element with one MZI's insertion loss in every such idle
 * slot: every path through a mesh of depth D then loses amplitude^D, a pure
 * factor.  An idle stretch of a mode commutes with nothing but itself, so it
 * is folded into the input of the next MZI on that mode, or after the mode's
 * last MZI into the output screen, and propagation stays 2x2 matrices.
 * The split and comb chains of a segmented layer are balanced the same way:
 * a branch that passes fewer than the chain's fan-1 fixed cards gets a
 * padding element for each one it skips, so every branch loses the chain's
 * full length.
 *
 * Crosstalk model: a heater's phase above its zero-power point (drive - lo
 * of the driver range) leaks, times the coefficient, into the heaters of the
 * same kind next to it in the same physical column: the MZIs at mode - 2 and
 * mode + 2 (adjacent MZI positions), or modes m - 1 and m + 1 of an output
 * screen.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "chip.h"

enum { STREAM_PHASE = 0, STREAM_COUPLER = 1 };

void optinc_chip_options_default(optinc_chip_options *o)
{
    o->models = OPTINC_DEV_ALL;
    o->drive_targets = OPTINC_DRIVE_CODES;
    o->balance_loss = 0;
    o->couplers = NULL;
}

uint64_t optinc_chip_seed(uint64_t seed, int k)
{
    if (k == 0)
        return seed;
    optinc_rng r;
    optinc_rng_stream(&r, seed, 0x4d4f4e5445000000ULL + (uint64_t)k);   /* "MONTE" + k */
    return optinc_rng_u64(&r);
}

void optinc_coupler_amplitudes(double kappa_in, double kappa_out, double cs[4])
{
    cs[0] = sqrt(1 - kappa_in);
    cs[1] = sqrt(kappa_in);
    cs[2] = sqrt(1 - kappa_out);
    cs[3] = sqrt(kappa_out);
}

void optinc_mzi_element(double complex et, double complex ep, const double cs[4],
                        double amplitude, double complex m[4])
{
    double c1 = cs[0], s1 = cs[1], c2 = cs[2], s2 = cs[3];
    ep = amplitude * ep;
    m[0] = ep * (c1 * c2 * et - s1 * s2);
    m[1] = amplitude * I * (s1 * c2 * et + c1 * s2);
    m[2] = ep * I * (c1 * s2 * et + s1 * c2);
    m[3] = amplitude * (c1 * c2 - s1 * s2 * et);
}

void optinc_mzi_device_matrix(double theta, double phi, double kappa_in, double kappa_out,
                              double amplitude, double complex m[4])
{
    double cs[4];
    optinc_coupler_amplitudes(kappa_in, kappa_out, cs);
    optinc_mzi_element(cexp(I * theta), cexp(I * phi), cs, amplitude, m);
}

/* ------------------------------------------------------------------ programs */

int optinc_chip_prog_alloc(chip_prog *p, int n_mzi, int modes)
{
    p->step = malloc(sizeof *p->step * ((size_t)n_mzi + 1));
    p->m = malloc(sizeof *p->m * (4 * (size_t)n_mzi + 1));
    p->mf = malloc(sizeof *p->mf * (8 * (size_t)n_mzi + 1));
    p->screen = malloc(sizeof *p->screen * ((size_t)modes + 1));
    p->screenf = malloc(sizeof *p->screenf * (2 * (size_t)modes + 1));
    if (p->step && p->m && p->mf && p->screen && p->screenf)
        return 0;
    optinc_chip_prog_free(p);
    return -1;
}

void optinc_chip_prog_free(chip_prog *p)
{
    OPTINC_FREE_ALL(p->step, p->m, p->mf, p->screen, p->screenf);
    memset(p, 0, sizeof *p);
}

/* Leak into MZI i from its column neighbours (theta and phi heaters). */
void optinc_chip_mzi_leak(const chip_stage *s, int i, double *dth, double *dph)
{
    const chip_mzi *z = &s->mzi[i];
    *dth = *dph = 0;
    for (int j = i - 1; j <= i + 1; j += 2) {
        if (j < 0 || j >= s->n_mzi)
            continue;
        const chip_mzi *n = &s->mzi[j];
        if (n->column == z->column && abs(n->mode - z->mode) == 2) {
            *dth += n->theta_drive - s->drive_lo;
            *dph += n->phi_drive - s->drive_lo;
        }
    }
    *dth *= s->crosstalk;
    *dph *= s->crosstalk;
}

double optinc_chip_screen_leak(const chip_stage *s, int m)
{
    double leak = 0;
    if (m > 0)
        leak += s->screen_drive[m - 1] - s->drive_lo;
    if (m + 1 < s->modes_in)
        leak += s->screen_drive[m + 1] - s->drive_lo;
    return s->crosstalk * leak;
}

/* Effective phases (drive + crosstalk + static error [+ dynamic noise]). */
static void effective(const chip_stage *s, optinc_rng *rng, double *th, double *ph, double *sc)
{
    int modes = s->modes_in;
    for (int i = 0; i < s->n_mzi; i++) {
        const chip_mzi *z = &s->mzi[i];
        double dth = 0, dph = 0;
        if (s->crosstalk != 0)
            optinc_chip_mzi_leak(s, i, &dth, &dph);
        th[i] = z->theta_drive + dth + z->dtheta;
        ph[i] = z->phi_drive + dph + z->dphi;
        if (rng) {
            th[i] += s->noise_sigma * optinc_rng_normal(rng);
            ph[i] += s->noise_sigma * optinc_rng_normal(rng);
        }
    }
    for (int m = 0; m < modes; m++) {
        sc[m] = s->screen_drive[m] + optinc_chip_screen_leak(s, m) + s->screen_err[m];
        if (rng)
            sc[m] += s->noise_sigma * optinc_rng_normal(rng);
    }
}

/* Keeps a pending factor within [2^-24, 2^24] (chip.h): returns the power of
 * two its row is multiplied by, 1 when it stays.  Powers of two keep
 * p . v exact, and 2^24 of headroom keeps v far from overflow even in
 * float. */
static double settle(double complex *p)
{
    double a = cabs(*p);
    if (a >= 0x1p-24 && a <= 0x1p24)
        return 1;
    int e;
    frexp(a, &e);
    *p = CMPLX(ldexp(creal(*p), -e), ldexp(cimag(*p), -e));
    return ldexp(1, e);
}

static double largest_entry(const double complex m[4])
{
    double big = 0;
    for (int k = 0; k < 4; k++)
        big = cabs(m[k]) > big ? cabs(m[k]) : big;
    return big;
}

/* The step (chip.h) of the element e (row-major) on two modes whose pending
 * factors are p[0], p[1], which it updates; t gets its 4 coefficients.  The
 * larger pivot product makes both ratios together at most 1 in modulus (tan
 * and cot of the splitting for a lossless element).  A pivot that is zero
 * or tiny against the element, or an element darker than 2^-60 (360 dB),
 * takes the general form: so a new factor is at least 2^-114 and its
 * power-of-two rescale a normal float. */
static unsigned char step_of(const double complex e[4], double complex p[2],
                             double complex t[4])
{
    double complex f[4] = {e[0] * p[0], e[1] * p[1], e[2] * p[0], e[3] * p[1]};
    double big = largest_entry(f);
    int anti = cabs(f[0]) * cabs(f[3]) < cabs(f[1]) * cabs(f[2]);
    double complex u = anti ? f[1] : f[0], w = anti ? f[2] : f[3];
    if (!(largest_entry(e) >= 0x1p-60) || cabs(u) < 0x1p-30 * big || cabs(w) < 0x1p-30 * big) {
        memcpy(t, f, sizeof f);
        p[0] = p[1] = 1;
        return CHIP_STEP_FULL;
    }
    t[0] = (anti ? f[0] : f[1]) / u;
    t[1] = (anti ? f[3] : f[2]) / w;
    p[0] = u;
    p[1] = w;
    t[2] = settle(&p[0]);
    t[3] = settle(&p[1]);
    return (unsigned char)((anti ? CHIP_STEP_ANTI : CHIP_STEP_DIAG)
                           | (t[2] != 1 ? CHIP_STEP_SCALE_X : 0)
                           | (t[3] != 1 ? CHIP_STEP_SCALE_Y : 0));
}

/* The program of a mesh stage from its effective phases: O(n_mzi), so a
 * fresh one per noisy evaluation stays cheap. */
static void build(const chip_stage *s, const double *th, const double *ph, const double *sc,
                  chip_prog *p)
{
    double complex *pending = p->screen;    /* until the screen is written */
    for (int r = 0; r < s->modes_in; r++)
        pending[r] = 1;
    for (int k = 0; k < s->n_mzi; k++) {
        int i = s->sweep[k];
        double complex e[4], *t = p->m + 4 * (size_t)k;
        float *f = p->mf + 8 * (size_t)k;
        optinc_mzi_device_matrix(th[i], ph[i], s->mzi[i].kappa[0], s->mzi[i].kappa[1],
                                 s->amplitude, e);
        if (s->pad_in) {             /* row-major: input k is column k */
            e[0] *= s->pad_in[2 * i];
            e[2] *= s->pad_in[2 * i];
            e[1] *= s->pad_in[2 * i + 1];
            e[3] *= s->pad_in[2 * i + 1];
        }
        p->step[k] = step_of(e, pending + s->mzi[i].mode, t);
        for (int j = 0; j < 4; j++) {
            f[2 * j] = (float)creal(t[j]);
            f[2 * j + 1] = (float)cimag(t[j]);
        }
    }
    for (int r = 0; r < s->modes_in; r++) {
        p->screen[r] *= (s->pad_out ? s->pad_out[r] : 1.0) * cexp(I * sc[r]);
        p->screenf[2 * r] = (float)creal(p->screen[r]);
        p->screenf[2 * r + 1] = (float)cimag(p->screen[r]);
    }
}

void optinc_chip_stage_realize(chip_stage *s)
{
    double *th = s->work, *ph = th + s->n_mzi;
    effective(s, NULL, th, ph, s->screen_eff);
    for (int i = 0; i < s->n_mzi; i++) {
        s->mzi[i].theta = th[i];
        s->mzi[i].phi = ph[i];
    }
    build(s, th, ph, s->screen_eff, &s->prog);
}

void optinc_chip_stage_noisy(chip_stage *s, optinc_rng *rng, chip_prog *p)
{
    double *th = s->work, *ph = th + s->n_mzi, *sc = ph + s->n_mzi;
    effective(s, rng, th, ph, sc);
    build(s, th, ph, sc, p);
}

/* ------------------------------------------------------------------ drawing */

static void stage_stream(optinc_rng *r, uint64_t seed, int layer, int stage, int model)
{
    optinc_rng_stream(r, seed, ((uint64_t)layer * 4 + (uint64_t)stage) * 4 + (uint64_t)model);
}

static double clamp01(double x)
{
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* The drivers' setting for a programmed phase (OPTINC_DRIVE_*): the code's
 * value, the target wrapped into the driver range, or the target rounded to
 * a code of the layer's drivers q. */
static double drive(const optinc_phase *p, const optinc_quantizer *q, int mode)
{
    if (mode == OPTINC_DRIVE_CODES)
        return p->rad;
    optinc_quantizer use = *q;
    optinc_phase w;
    if (mode == OPTINC_DRIVE_TARGETS)
        use.bits = 0;
    optinc_quantize_phase(&use, p->target_rad, &w);
    return w.rad;
}

/* The padding of a balanced mesh (see the top): the idle slots of each mode
 * up to each MZI it enters, and after its last one, as amplitude.  The MZIs
 * of one mode come in propagation order, column by column. */
static int balance_mesh(chip_stage *cs, int modes)
{
    int n = cs->n_mzi, *last = malloc(sizeof *last * ((size_t)modes + 1));
    cs->pad_in = malloc(sizeof *cs->pad_in * (2 * (size_t)n + 1));
    cs->pad_out = malloc(sizeof *cs->pad_out * ((size_t)modes + 1));
    if (!last || !cs->pad_in || !cs->pad_out) {
        free(last);
        return -1;
    }
    for (int r = 0; r < modes; r++)
        last[r] = -1;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 2; k++) {
            int r = cs->mzi[i].mode + k, idle = cs->mzi[i].column - last[r] - 1;
            cs->pad_in[2 * i + k] = pow(cs->amplitude, idle > 0 ? idle : 0);
            last[r] = cs->mzi[i].column;
        }
    for (int r = 0; r < modes; r++)
        cs->pad_out[r] = pow(cs->amplitude, cs->depth - 1 - last[r]);
    free(last);
    return 0;
}

/* The order propagation runs the MZIs in (chip.h): bands of SWEEP_BAND
 * columns, each swept down the modes along its diagonals (by mode + column,
 * then column).  MZI (c, m) needs (c - 1, m - 1) and (c - 1, m + 1) first,
 * whose keys are smaller or equal with a smaller column, so the results are
 * those of column order; but a band touches a window of SWEEP_BAND + 1 rows
 * of the chunk that slides down by one row per diagonal, so the chunk
 * crosses L2 once per band instead of once per column.  16 columns of a
 * 64-vector chunk keep about 17 KiB of doubles in L1. */
enum { SWEEP_BAND = 16 };

static int cmp_key(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static int sweep_order(chip_stage *cs, int modes)
{
    int n = cs->n_mzi;
    long long *key = malloc(sizeof *key * ((size_t)n + 1));
    cs->sweep = malloc(sizeof *cs->sweep * (2 * (size_t)n + 1));
    if (!key || !cs->sweep) {
        free(key);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        long long band = cs->mzi[i].column / SWEEP_BAND, c = cs->mzi[i].column % SWEEP_BAND;
        long long diagonal = band * (modes + SWEEP_BAND) + cs->mzi[i].mode + c;
        key[i] = (diagonal * SWEEP_BAND + c) * n + i;
    }
    qsort(key, (size_t)n, sizeof *key, cmp_key);
    cs->sweep_mode = cs->sweep + n;
    for (int k = 0; k < n; k++) {
        cs->sweep[k] = (int)(key[k] % n);
        cs->sweep_mode[k] = cs->mzi[cs->sweep[k]].mode;
    }
    free(key);
    return 0;
}

static int init_mesh_stage(chip_stage *cs, const optinc_stage *st, const optinc_layer *L,
                           const optinc_chip_options *o, uint64_t seed, int l, int s,
                           const double *kappa)
{
    const optinc_mesh *mesh = st->mesh;
    const optinc_components *cp = &L->components;
    int n = mesh->n_mzi, modes = mesh->modes;
    optinc_quantizer q;
    optinc_quantizer_from_components(&q, cp);

    cs->n_mzi = n;
    cs->mzi = calloc((size_t)n + 1, sizeof *cs->mzi);
    cs->screen_drive = calloc(3 * (size_t)modes + 1, sizeof *cs->screen_drive);
    cs->work = malloc(sizeof *cs->work * (2 * (size_t)n + (size_t)modes + 1));
    if (!cs->mzi || !cs->screen_drive || !cs->work
        || optinc_chip_prog_alloc(&cs->prog, n, modes))
        return -1;
    cs->screen_err = cs->screen_drive + modes;
    cs->screen_eff = cs->screen_err + modes;

    unsigned m = o->models;
    double sigma_ph = m & OPTINC_DEV_PHASE_ERROR ? cp->mzi.phase_error_sigma_rad : 0;
    double sigma_c = m & OPTINC_DEV_COUPLER ? cp->mzi.splitter_error_sigma : 0;
    cs->amplitude = m & OPTINC_DEV_LOSS ? pow(10, -cp->mzi.insertion_loss_dB / 20) : 1;
    cs->crosstalk = m & OPTINC_DEV_CROSSTALK ? cp->phase_shifter.thermal_crosstalk : 0;
    cs->noise_sigma = m & OPTINC_DEV_PHASE_NOISE ? cp->phase_shifter.noise_sigma_rad : 0;
    cs->drive_lo = q.lo;
    for (int i = 0; i < n; i++)
        cs->depth = mesh->mzi[i].column + 1 > cs->depth ? mesh->mzi[i].column + 1 : cs->depth;

    optinc_rng rph, rc;
    stage_stream(&rph, seed, l, s, STREAM_PHASE);
    stage_stream(&rc, seed, l, s, STREAM_COUPLER);
    for (int i = 0; i < n; i++) {
        const optinc_mzi *z = &mesh->mzi[i];
        chip_mzi *c = &cs->mzi[i];
        c->mode = z->mode;
        c->column = z->column;
        c->theta_drive = drive(&z->theta, &q, o->drive_targets);
        c->phi_drive = drive(&z->phi, &q, o->drive_targets);
        if (sigma_ph > 0) {
            c->dtheta = sigma_ph * optinc_rng_normal(&rph);
            c->dphi = sigma_ph * optinc_rng_normal(&rph);
        }
        for (int k = 0; k < 2; k++) {
            c->kappa[k] = 0.5;
            if (m & OPTINC_DEV_COUPLER) {
                if (kappa)
                    c->kappa[k] = kappa[2 * i + k];
                else if (sigma_c > 0)
                    c->kappa[k] = clamp01(0.5 + sigma_c * optinc_rng_normal(&rc));
            }
        }
    }
    for (int r = 0; r < modes; r++) {
        cs->screen_drive[r] = drive(&mesh->screen[r], &q, o->drive_targets);
        if (sigma_ph > 0)
            cs->screen_err[r] = sigma_ph * optinc_rng_normal(&rph);
    }
    if ((o->balance_loss && cs->amplitude != 1 && balance_mesh(cs, modes))
        || sweep_order(cs, modes))
        return -1;
    optinc_chip_stage_realize(cs);
    return 0;
}

/* What an attenuator set to amplitude t passes on the chip: at least its
 * extinction floor, times its insertion loss (as the chip's models say). */
static double att_device(const optinc_components *cp, const optinc_chip_options *o, double t)
{
    double max_db = cp->attenuator.max_attenuation_dB > 0 ? cp->attenuator.max_attenuation_dB
                                                          : 60.0;
    double floor_amp = pow(10, -max_db / 20);
    if ((o->models & OPTINC_DEV_EXTINCTION) && t < floor_amp)
        t = floor_amp;
    if (o->models & OPTINC_DEV_LOSS)
        t *= pow(10, -cp->attenuator.insertion_loss_dB / 20);
    return t;
}

/* The amplitude an attenuator's driver holds for amplitude `target`: the
 * target itself when the chip runs the targets, else its code for the
 * chip's components. */
static double att_drive(const optinc_components *cp, int drive_targets, double target)
{
    if (drive_targets == OPTINC_DRIVE_TARGETS)
        return target;
    optinc_att a;
    optinc_att_program(&a, target, cp, NULL);
    return a.t;
}

/* The attenuator channels of st (an attenuator column, or a split stage's
 * trims) as the drivers set them: the compiled codes, the targets, or the
 * targets re-quantized for the chip's components. */
static int init_att_channels(chip_stage *cs, const optinc_stage *st, const optinc_layer *L,
                             const optinc_chip_options *o)
{
    const optinc_components *cp = &L->components;
    cs->n_att = st->n_att;
    cs->att = calloc((size_t)st->n_att + 1, sizeof *cs->att);
    if (!cs->att)
        return -1;
    for (int k = 0; k < st->n_att; k++) {
        double t = o->drive_targets == OPTINC_DRIVE_CODES
                   ? st->att[k].t : att_drive(cp, o->drive_targets, st->att[k].t_target);
        cs->att[k] = att_device(cp, o, t);
    }
    return 0;
}

/* A chain stage's branches from its taps, with the trims of a split stage
 * at the end of each branch. */
static void realize_chains(chip_stage *cs, const optinc_stage *st, int balance)
{
    optinc_chain_branches(cs->kind, cs->fan, cs->n_chains, cs->tap, cs->amplitude, balance,
                          cs->branch);
    for (int x = 0; cs->n_att && x < cs->n_chains; x++)
        for (int i = 0; i < cs->fan; i++)
            cs->branch[(size_t)x * cs->fan + i] *= cs->att[optinc_split_target(st, x, i)];
}

void optinc_chip_set_atts(optinc_chip *chip, int l, int s, const double *target)
{
    const optinc_components *cp = &chip->circuit->layers[l].components;
    chip_stage *cs = &chip->layer[l].stage[s];
    for (int k = 0; k < cs->n_att; k++)
        cs->att[k] = att_device(cp, &chip->opt, att_drive(cp, chip->opt.drive_targets, target[k]));
    if (cs->kind == OPTINC_STAGE_SPLIT)
        realize_chains(cs, &chip->circuit->layers[l].stage[s], chip->opt.balance_loss);
}

/* A segmented layer's split or comb chains (circuit.h): link k is a
 * directional coupler of power tap t = sin^2(theta).  Fabrication spreads
 * its coupling strength, so theta relatively: theta (1 + 4/pi sigma N(0,1)),
 * sigma = components.mzi.splitter_error_sigma, which gives a 50:50 card
 * the power error sigma an MZI's coupler has (drawn as 0.5 + sigma N) and
 * a 1/25 tap a proportionate one (not one that could switch it off).  Or
 * the calibration's measured tap, when the chip realizes one
 * (optinc_chip_options.couplers).  A card loses half of
 * components.mzi.insertion_loss_dB (an MZI has two couplers).  A split
 * stage's trim attenuators, one at the end of every branch, are folded into
 * the branch amplitudes. */
static int init_chain_stage(chip_stage *cs, const optinc_stage *st, const optinc_layer *L,
                            const optinc_chip_options *o, uint64_t seed, int layer, int stage)
{
    int n = st->kind == OPTINC_STAGE_SPLIT ? st->modes_in : st->modes_out, g = st->fan;
    cs->fan = g;
    cs->block = st->block;
    cs->n_chains = n;
    cs->branch = calloc((size_t)n * g + 1, sizeof *cs->branch);
    cs->tap = calloc((size_t)n * (g - 1) + 1, sizeof *cs->tap);
    if (!cs->branch || !cs->tap)
        return -1;
    const double *known = o->couplers && (o->models & OPTINC_DEV_COUPLER)
                          ? o->couplers->layer[layer].tap[stage] : NULL;
    double sigma = o->models & OPTINC_DEV_COUPLER ? L->components.mzi.splitter_error_sigma : 0;
    optinc_rng rng;
    stage_stream(&rng, seed, layer, stage, 1);
    for (int x = 0; x < n; x++)
        for (int k = 0; k + 1 < g; k++) {
            double ideal = optinc_chain_tap(st, k), theta = asin(sqrt(ideal));
            double *t = &cs->tap[(size_t)x * (g - 1) + k];
            if (known) {
                *t = known[(size_t)x * (g - 1) + k];
            } else if (sigma > 0) {
                double s = sin(theta * (1 + 4 / M_PI * sigma * optinc_rng_normal(&rng)));
                *t = s * s;
            } else {
                *t = ideal;
            }
        }
    cs->amplitude = o->models & OPTINC_DEV_LOSS
                    ? pow(10, -L->components.mzi.insertion_loss_dB / 40) : 1;
    if (st->n_att && init_att_channels(cs, st, L, o))
        return -1;
    realize_chains(cs, st, o->balance_loss);
    return 0;
}

/* Branch amplitudes are the products along the chain: split branch i
 * passes links 0..i-1 on out1 and taps at link i (the last branch leaves
 * the last link's out1); comb branch j enters at link j-1 on in1 (branch 0
 * on in0 of link 0) and passes the later links on in0.  Balanced, a branch
 * that passes fewer than the chain's fan-1 cards gets a padding element for
 * each one it skips. */
void optinc_chain_branches(optinc_stage_kind kind, int g, int n, const double *tap,
                           double loss, int balance, double *branch)
{
    int split = kind == OPTINC_STAGE_SPLIT;
    for (int x = 0; x < n; x++) {
        const double *t = tap + (size_t)x * (g - 1);
        double *b = branch + (size_t)x * g;
        double pass = 1;     /* split: what reaches link i; comb: set from the end */
        if (split) {
            for (int i = 0; i < g; i++) {
                b[i] = i + 1 < g ? pass * sqrt(t[i]) * loss : pass;
                pass *= i + 1 < g ? sqrt(1 - t[i]) * loss : 1;
            }
        } else {
            for (int j = g - 1; j >= 0; j--) {
                b[j] = pass * (j ? sqrt(t[j - 1]) * loss : 1);
                pass *= j ? sqrt(1 - t[j - 1]) * loss : 1;
            }
        }
        /* split branch i passes min(i+1, g-1) cards, comb branch j g-max(j, 1) */
        for (int i = 0; balance && loss != 1 && i < g; i++) {
            int cards = split ? (i + 1 < g ? i + 1 : g - 1) : g - (i ? i : 1);
            b[i] *= pow(loss, g - 1 - cards);
        }
    }
}

optinc_status optinc_chip_new(const optinc_circuit *c, const optinc_chip_options *opt,
                              uint64_t seed, optinc_chip **out, optinc_error *err)
{
    optinc_chip_options defaults;
    if (!opt) {
        optinc_chip_options_default(&defaults);
        opt = &defaults;
    }
    if (opt->couplers) {
        optinc_status st = optinc_calibration_check(opt->couplers, c, err);
        if (st)
            return st;
    }
    optinc_chip *chip = calloc(1, sizeof *chip);
    if (!chip)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    chip->circuit = c;
    chip->opt = *opt;
    chip->seed = seed;
    optinc_rng_stream(&chip->noise, seed, UINT64_MAX);
    chip->n_layers = c->n_layers;
    chip->layer = calloc((size_t)c->n_layers + 1, sizeof *chip->layer);
    int bad = !chip->layer;
    for (int l = 0; !bad && l < c->n_layers; l++) {
        const optinc_layer *L = &c->layers[l];
        chip_layer *cl = &chip->layer[l];
        cl->n_stages = L->n_stages;
        cl->pass_through = L->pass_through;
        cl->cols = L->cols;
        cl->rows = L->rows;
        cl->input_scale = L->input_scale;
        cl->gain = L->gain;
        cl->park = L->cols > L->rows ? L->cols : L->rows;
        for (int s = 0; s < L->n_stages; s++)
            cl->park = L->stage[s].modes_out > cl->park ? L->stage[s].modes_out : cl->park;
        for (int s = 0; !bad && s < L->n_stages; s++) {
            const optinc_stage *st = &L->stage[s];
            chip_stage *cs = &chip->layer[l].stage[s];
            cs->kind = st->kind;
            cs->modes_in = st->modes_in;
            cs->modes_out = st->modes_out;
            cs->block_in = st->block_in;
            cs->block_out = st->block_out;
            cs->trim = 1;
            if (st->kind == OPTINC_STAGE_MESH)
                bad = init_mesh_stage(cs, st, L, opt, seed, l, s,
                                      opt->couplers ? opt->couplers->layer[l].kappa[s] : NULL);
            else if (st->kind == OPTINC_STAGE_ATT)
                bad = init_att_channels(cs, st, L, opt);
            else
                bad = init_chain_stage(cs, st, L, opt, seed, l, s);
        }
    }
    if (bad) {
        optinc_chip_free(chip);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    }
    *out = chip;
    return OPTINC_OK;
}

void optinc_chip_free(optinc_chip *chip)
{
    if (!chip)
        return;
    for (int l = 0; chip->layer && l < chip->n_layers; l++)
        for (int s = 0; s < chip->layer[l].n_stages; s++) {
            chip_stage *cs = &chip->layer[l].stage[s];
            optinc_chip_prog_free(&cs->prog);
            OPTINC_FREE_ALL(cs->mzi, cs->sweep, cs->screen_drive, cs->work, cs->att, cs->branch,
                            cs->tap, cs->pad_in, cs->pad_out);
        }
    OPTINC_FREE_ALL(chip->layer, chip);
}

/* ------------------------------------------------------------------ inspection */

static const chip_stage *find_stage(const optinc_chip *chip, int layer, int stage,
                                    optinc_stage_kind kind)
{
    if (layer < 0 || layer >= chip->n_layers || stage < 0
        || stage >= chip->layer[layer].n_stages)
        return NULL;
    const chip_stage *s = &chip->layer[layer].stage[stage];
    return s->kind == kind ? s : NULL;
}

optinc_status optinc_chip_mzi_get(const optinc_chip *chip, int layer, int stage, int index,
                                  optinc_chip_mzi *out, optinc_error *err)
{
    const chip_stage *s = find_stage(chip, layer, stage, OPTINC_STAGE_MESH);
    if (!s || index < 0 || index >= s->n_mzi)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "no MZI %d in stage %d of layer %d; stages are counted from 0 and "
                           "MZIs in propagation order", index, stage, layer);
    const chip_mzi *z = &s->mzi[index];
    out->mode = z->mode;
    out->column = z->column;
    out->theta_drive_rad = z->theta_drive;
    out->phi_drive_rad = z->phi_drive;
    out->theta_rad = z->theta;
    out->phi_rad = z->phi;
    out->kappa_in = z->kappa[0];
    out->kappa_out = z->kappa[1];
    out->amplitude = s->amplitude;
    return OPTINC_OK;
}

double optinc_chip_screen_rad(const optinc_chip *chip, int layer, int stage, int mode)
{
    const chip_stage *s = find_stage(chip, layer, stage, OPTINC_STAGE_MESH);
    return s && mode >= 0 && mode < s->modes_in ? s->screen_eff[mode] : NAN;
}

double optinc_chip_att_amplitude(const optinc_chip *chip, int layer, int stage, int mode)
{
    const chip_stage *s = find_stage(chip, layer, stage, OPTINC_STAGE_ATT);
    return s && mode >= 0 && mode < s->n_att ? s->att[mode] : NAN;
}

double optinc_chip_layer_gain(const optinc_chip *chip, int layer)
{
    return layer >= 0 && layer < chip->n_layers ? chip->layer[layer].gain : NAN;
}

double optinc_chip_layer_path_amplitude(const optinc_chip *chip, int layer)
{
    if (layer < 0 || layer >= chip->n_layers)
        return NAN;
    const optinc_layer *L = &chip->circuit->layers[layer];
    double a = 1;
    for (int s = 0; s < chip->layer[layer].n_stages; s++) {
        const chip_stage *cs = &chip->layer[layer].stage[s];
        if (cs->kind == OPTINC_STAGE_MESH)
            a *= pow(cs->amplitude, cs->depth);
        else if (cs->kind == OPTINC_STAGE_ATT && (chip->opt.models & OPTINC_DEV_LOSS))
            a *= pow(10, -L->components.attenuator.insertion_loss_dB / 20);
        else if (cs->kind != OPTINC_STAGE_ATT && (chip->opt.models & OPTINC_DEV_LOSS))
            a *= pow(10, -L->components.mzi.insertion_loss_dB / 40 * (cs->fan - 1)
                             - (cs->n_att ? L->components.attenuator.insertion_loss_dB / 20 : 0));
    }
    return a;
}
