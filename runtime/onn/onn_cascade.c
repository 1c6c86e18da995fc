/*
 * onn_cascade.c - cascades of any depth built from one F-server unit
 * (onn.h): L levels serve up to F^L servers, every unit the same ONN, the
 * codes a level outputs the codes the next level's units take in.
 *
 * The re-encoding between levels is the identity: a unit outputs the b-bit
 * code of its inputs' rounded average, which is a code of the same width
 * and offset as a server's, so the next level's preprocessing P forms its
 * digit sums exactly as the first level's does.  Rounding therefore enters
 * once per level, and nowhere else: with exact units the cascade computes
 * the hierarchical average (the rounded average of rounded averages), which
 * this file evaluates exactly from the units' task, and the report measures
 * both how far a chip's units are from it and how far it is from the flat
 * average rounded once (optinc-onn(7), "Cascades of any depth").  Idle
 * inputs (when N is not a power of F) carry the code of zero, so the
 * cascade outputs the sum over F^L slots: the receivers scale by F^L / N.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/onn.h"

optinc_status optinc_onn_cascade_shape(optinc_onn_cascade *c, int servers, int fan_in,
                                       int levels, int bits, optinc_error *err)
{
    memset(c, 0, sizeof *c);
    if (fan_in < 2 || servers < 2 || servers > OPTINC_ONN_CASCADE_MAX_SERVERS)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "a cascade of %d-server units for %d servers: use units of 2 or more "
                           "servers and 2..%d servers", fan_in, servers,
                           OPTINC_ONN_CASCADE_MAX_SERVERS);
    long slots = 1;
    int fewest = 0;
    for (; slots < servers; fewest++)
        slots *= fan_in;
    if (!levels)
        levels = fewest;
    for (; slots > 1 && fewest > levels; fewest--)
        slots /= fan_in;
    if (levels < 1 || levels > OPTINC_ONN_MAX_LEVELS || levels != fewest)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "%d levels of %d-server units serve %d servers: give %d levels "
                           "(the fewest whose %d^L slots hold every server), at most %d",
                           levels, fan_in, servers, fewest, fan_in, OPTINC_ONN_MAX_LEVELS);
    while (fewest < levels) {
        slots *= fan_in;
        fewest++;
    }
    c->fan_in = fan_in;
    c->levels = levels;
    c->servers = servers;
    c->slots = (int)slots;
    c->bits = bits;
    return OPTINC_OK;
}

int optinc_onn_cascade_depth(int fan_in, int servers)
{
    optinc_onn_cascade k;
    optinc_error no;
    return !optinc_onn_cascade_shape(&k, servers, fan_in, 0, 2, &no) && k.slots == servers
               ? k.levels
               : -1;
}

long optinc_onn_cascade_units(const optinc_onn_cascade *c, int level)
{
    long live = c->servers;
    for (int l = 0; l <= level; l++)
        live = (live + c->fan_in - 1) / c->fan_in;
    return live;
}

/* One level: the n codes in[] (idle slots past n carry the zero code) in
 * groups of F through the unit's table, or through its exact task when lut
 * is NULL (task then says which); writes the units' codes to out and
 * returns how many. */
static int level_run(const optinc_onn_cascade *c, const optinc_onn_lut *lut,
                     const optinc_onn_task *task, const uint32_t *in, int n, uint32_t *out)
{
    int F = c->fan_in, units = (n + F - 1) / F;
    uint32_t zero = optinc_code_zero(c->bits), top = (uint32_t)((1ull << c->bits) - 1);
    for (int u = 0; u < units; u++) {
        uint32_t v[OPTINC_ONN_CASCADE_MAX_FAN_IN];
        int p[OPTINC_ONN_MAX_DIGITS];
        for (int i = 0; i < F; i++)
            v[i] = u * F + i < n ? in[u * F + i] : zero;
        optinc_onn_preprocess(task, v, p);
        uint64_t y = lut ? optinc_onn_lut_lookup(lut, p) : optinc_onn_target(task, p);
        out[u] = (uint32_t)(y < top ? y : top);
    }
    return units;
}

/* The flat target: the code of the sum of every slot's code over F^L,
 * rounded once by the units' rule. */
static uint32_t flat_target(const optinc_onn_cascade *c, const uint32_t *codes)
{
    optinc_onn_task whole = c->lut[c->levels - 1]->meta.task;
    uint64_t sum = (uint64_t)(c->slots - c->servers) * optinc_code_zero(c->bits);
    for (int i = 0; i < c->servers; i++)
        sum += codes[i];
    int q[OPTINC_ONN_MAX_DIGITS] = {(int)sum};
    whole.pre = OPTINC_P_WEIGHTED_SUM;
    whole.divisor = c->slots;
    return (uint32_t)optinc_onn_target(&whole, q);
}

static int hist_bin(long d)
{
    return (int)(d < -OPTINC_ONN_HIST ? 0 : d > OPTINC_ONN_HIST ? 2 * OPTINC_ONN_HIST
                                                                 : d + OPTINC_ONN_HIST);
}

/* A server's code: uniform, or the zero code plus a normal value of
 * standard deviation spread LSBs, rounded and clamped to the code range. */
static uint32_t server_code(optinc_rng *rng, int bits, double spread)
{
    if (spread <= 0)
        return (uint32_t)optinc_rng_below(rng, 1ull << bits);
    double v = nearbyint(optinc_code_zero(bits) + spread * optinc_rng_normal(rng));
    double top = (double)((1ull << bits) - 1);
    return (uint32_t)(v < 0 ? 0 : v > top ? top : v);
}

optinc_status optinc_onn_cascade_check(const optinc_onn_cascade *c, uint64_t samples,
                                       uint64_t seed, double spread,
                                       optinc_onn_cascade_report *r, optinc_error *err)
{
    memset(r, 0, sizeof *r);
    for (int l = 0; l < c->levels; l++)
        if (!c->lut[l] || c->lut[l]->meta.task.servers != c->fan_in
            || c->lut[l]->meta.bits != c->bits || c->lut[l]->meta.level != 0)
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "level %d of the cascade needs the table of one %d-server "
                               "unit of %d-bit codes", l + 1, c->fan_in, c->bits);
    optinc_rng rng;
    optinc_rng_stream(&rng, seed, 0);
    uint32_t codes[OPTINC_ONN_CASCADE_MAX_SERVERS];
    uint32_t chip[2][OPTINC_ONN_CASCADE_MAX_SERVERS], ideal[2][OPTINC_ONN_CASCADE_MAX_SERVERS];
    for (uint64_t s = 0; s < samples; s++) {
        for (int i = 0; i < c->servers; i++)
            codes[i] = server_code(&rng, c->bits, spread);
        const uint32_t *ci = codes, *ii = codes;
        int n = c->servers;
        for (int l = 0; l < c->levels; l++) {
            const optinc_onn_task *t = &c->lut[l]->meta.task;
            uint32_t own[OPTINC_ONN_CASCADE_MAX_SERVERS];
            int units = level_run(c, c->lut[l], t, ci, n, chip[l & 1]);
            level_run(c, NULL, t, ci, n, own);     /* exact units on the chip's inputs */
            level_run(c, NULL, t, ii, n, ideal[l & 1]);
            for (int u = 0; u < units; u++) {
                long dev = (long)chip[l & 1][u] - (long)ideal[l & 1][u];
                r->level[l].wrong += chip[l & 1][u] != own[u];
                r->level[l].deviating += dev != 0;
                r->level[l].hist[hist_bin(dev)]++;
            }
            r->level[l].outputs += (uint64_t)units;
            ci = chip[l & 1];
            ii = ideal[l & 1];
            n = units;
        }
        long flat = (long)flat_target(c, codes);
        r->exact_hierarchical += ci[0] == ii[0];
        r->exact_flat += (long)ci[0] == flat;
        r->ideal_exact_flat += (long)ii[0] == flat;
        r->hist_flat[hist_bin((long)ci[0] - flat)]++;
        r->ideal_hist_flat[hist_bin((long)ii[0] - flat)]++;
    }
    r->samples = samples;
    return OPTINC_OK;
}
