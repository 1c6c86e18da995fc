/*
 * cascade.c - the optinc all-reduce through a cascade of units: N = F^L
 * servers aggregated by L levels of the table's F-server unit (optinc-onn(7),
 * "Cascades of any depth").  Level 1 looks up each group of F servers'
 * codes in the unit's table; every later level looks up groups of F of the
 * codes the level below output, which are codes of the servers' width and
 * offset, so one table serves every level: L lookups per element on the
 * path to the result, N/F + N/F^2 + ... + 1 in all.
 */
#include <string.h>
#include "runtime/allreduce/plan.h"

/* One unit's lookups: o[t] from the codes g[0..F-1][t], of type T. */
#define UNIT_LOOKUP(T)                                                    \
    do {                                                                  \
        const T *const *g_ = (const T *const *)g;                         \
        for (size_t t = 0; t < len; t++) {                                \
            uint32_t idx = 0;                                             \
            for (int i = 0; i < F; i++)                                   \
                idx += weight[g_[i][t]];                                  \
            o[t] = table[idx];                                            \
        }                                                                 \
    } while (0)

void optinc_ar_cascade(const optinc_allreduce *ar, const void *const *codes, int wide,
                       size_t len, void *out)
{
    /* level l's outputs overwrite rows of the level below that are read
     * first: unit u writes row u, element by element after reading them,
     * and its inputs are rows u F.. u F + F - 1 >= u.  The servers' codes
     * are bytes or 16-bit units (wide); the levels' own are 16-bit. */
    uint16_t buf[OPTINC_AR_MAX_SERVERS / 2][TILE];
    const optinc_agg_lut *lut = ar->cfg.lut ? ar->cfg.lut : ar->own_lut;
    const uint32_t *weight = lut->weight;
    const uint16_t *table = lut->code;
    const void *in[OPTINC_AR_MAX_SERVERS];
    int F = lut->servers, n = ar->cfg.servers, w = wide;
    memcpy(in, codes, (size_t)n * sizeof *in);
    for (int l = 0; l < ar->levels; l++, n /= F, w = 1) {
        for (int u = 0; u < n / F; u++) {
            const void *const *g = in + u * F;
            uint16_t *o = buf[u];
            if (w)
                UNIT_LOOKUP(uint16_t);
            else
                UNIT_LOOKUP(uint8_t);
        }
        for (int u = 0; u < n / F; u++)
            in[u] = buf[u];
    }
    const uint16_t *res = in[0];
    if (wide)
        memcpy(out, res, len * sizeof *res);
    else
        for (size_t t = 0; t < len; t++)
            ((uint8_t *)out)[t] = (uint8_t)res[t];
}

int optinc_allreduce_levels(const optinc_allreduce *ar)
{
    return ar->levels;
}

uint64_t optinc_allreduce_level_bytes(const optinc_allreduce *ar, size_t n, int level)
{
    if (level < 0 || level >= ar->levels)
        return 0;
    uint64_t streams = (uint64_t)ar->cfg.servers;
    for (int l = 0; l < level; l++)
        streams /= (uint64_t)(ar->cfg.lut ? ar->cfg.lut : ar->own_lut)->servers;
    return streams * (((uint64_t)n * (uint64_t)ar->cfg.bits + 7) / 8);
}
