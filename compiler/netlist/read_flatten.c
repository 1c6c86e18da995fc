/*
 * read_flatten.c - pass 4 of the netlist reader: the top instance into the
 * cards it is made of, on global nets, resolving parameter references and
 * checking every value against its card's table (optinc_cards: known keys,
 * types, ranges, required keys, codes < 2^bits).  An expanded MZI (ps -> dc
 * -> ps -> dc, couplings 0.5, as --expand-mzi writes it, flat or as .subckt
 * mzi2x2) is fused back into one mzi card.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "compiler/netlist/read.h"

static int new_net(reader *r)
{
    if ((size_t)r->nnets >= r->cnets) {
        size_t cap = r->cnets;
        if (nl_grow(r, (void **)&r->end0, &cap, sizeof *r->end0))
            return -1;
        int *e1 = realloc(r->end1, sizeof *e1 * cap);
        if (!e1)
            return nl_fail_run(r, "reading the netlist");
        r->end1 = e1;
        r->cnets = cap;
    }
    r->end0[r->nnets] = r->end1[r->nnets] = INT_MIN;
    return r->nnets++;
}

static void add_end(reader *r, int net, int e)
{
    if (r->end0[net] == INT_MIN)
        r->end0[net] = e;
    else
        r->end1[net] = e;
}

/* The values v[k] of the parameters in has as card p's (nl_value). */
static int set_values(reader *r, prim *p, unsigned has, const double *v)
{
    if (r->nvals + OPTINC_CARD_PARAMS_MAX > (size_t)INT_MAX)
        return nl_fail_run(r, "(too many values)");
    while (r->nvals + OPTINC_CARD_PARAMS_MAX > r->cvals)
        if (nl_grow(r, (void **)&r->vals, &r->cvals, sizeof *r->vals))
            return -1;
    p->has = has;
    p->val = (int)r->nvals;
    for (int k = 0; k < OPTINC_CARD_PARAMS_MAX; k++)
        if (has & (1u << k))
            r->vals[r->nvals++] = v[k];
    return 0;
}

/* The parameters of a card instance, resolved in scope and checked. */
static int card_params(reader *r, int s, int nnets, int kind, const scope *sc, prim *p)
{
    const optinc_card *cd = &optinc_cards[kind];
    int file = r->stmts[s].file;
    tok at[OPTINC_CARD_PARAMS_MAX];
    double val[OPTINC_CARD_PARAMS_MAX];
    unsigned has = 0;
    for (int i = 2 + nnets; i < r->stmts[s].ntok; i++) {
        tok t = *stok(r, s, i), k = {0, 0, 0, 0}, v = {0, 0, 0, 0};
        nl_split_param(r, file, t, &k, &v);
        const char *kp = tp(r, file, k);
        int j = 0;      /* the first byte first: most keys differ in it */
        while (j < cd->n_params
               && (kp[0] != cd->param[j].key[0] || !teq(r, file, k, cd->param[j].key)))
            j++;
        if (j == cd->n_params) {
            char list[256] = "";
            for (int q = 0; q < cd->n_params; q++)
                snprintf(list + strlen(list), sizeof list - strlen(list), " %s", cd->param[q].key);
            return nl_fail_at(r, file, k.off, "unknown parameter '%.*s' for card '%s'; it takes:%s",
                              (int)k.len, tp(r, file, k), cd->name, cd->n_params ? list : " none");
        }
        if (has & (1u << j))
            return nl_fail_at(r, file, k.off, "parameter '%s' is given twice", cd->param[j].key);
        const optinc_card_param *cp = &cd->param[j];
        double x;
        if (nl_value_of(r, file, v, sc, &x))
            return -1;
        if (cp->type == 'i' && x != floor(x))
            return nl_fail_at(r, file, v.off, "%s must be a whole number, not %.17g", cp->key, x);
        if (x < cp->min || x > cp->max) {
            if (cp->max == INFINITY)
                return nl_fail_at(r, file, v.off, "%s = %.17g must be %s 0", cp->key, x,
                                  cp->min > 0 ? ">" : ">=");
            return nl_fail_at(r, file, v.off, "%s = %.17g is out of range; use %g..%g", cp->key, x,
                              cp->min, cp->max);
        }
        val[j] = x;
        has |= 1u << j;
        at[j] = v;
    }
    for (int j = 0; j < cd->n_params; j++) {
        const optinc_card_param *cp = &cd->param[j];
        if (cp->required && !(has & (1u << j)))
            return nl_fail_at(r, file, stok(r, s, 0)->off, "card '%s' needs %s=", cd->name,
                              cp->key);
        if (cp->bits >= 0 && (has & (1u << j))) {
            if (!(has & (1u << cp->bits)))
                return nl_fail_at(r, file, at[j].off, "%s needs bits= (the driver's resolution)",
                                  cp->key);
            double levels = ldexp(1.0, (int)val[cp->bits]);
            if (val[j] >= levels)
                return nl_fail_at(r, file, at[j].off, "%s = %.0f does not fit in bits=%d: codes "
                                  "are 0..%.0f", cp->key, val[j], (int)val[cp->bits],
                                  levels - 1);
        }
    }
    return set_values(r, p, has, val);
}

static int stk_push(reader *r, size_t n)
{
    while (r->nstk + n > r->cstk)
        if (nl_grow(r, (void **)&r->stk, &r->cstk, sizeof *r->stk))
            return -1;
    r->nstk += n;
    return 0;
}

/* Flattens cell ci whose local nets map to the global nets map[]. */
static int flatten(reader *r, int ci, size_t map, int fr, const scope *sc)
{
    const cell *c = &r->cells[ci];
    for (int i = c->first; i < c->first + c->n; i++) {
        const inst *in = &r->insts[i];
        int s = in->stmt, file = r->stmts[s].file;
        if (in->model < OPTINC_CARD_COUNT) {
            if (GROW(r, r->prims, r->nprims, r->cprims))
                return -1;
            prim *p = &r->prims[r->nprims];
            memset(p, 0, sizeof *p);
            p->kind = (unsigned char)in->model;
            r->ncouplers += in->model == OPTINC_CARD_DC;
            p->stmt = s;
            p->frame = fr;
            if (card_params(r, s, in->nnets, in->model, sc, p))
                return -1;
            for (int j = 0; j < in->nnets; j++) {
                p->pin[j] = r->stk[map + (size_t)r->pool[in->pins + j]];
                add_end(r, p->pin[j], r->nprims * 4 + j);
            }
            r->nprims++;
            continue;
        }
        const cell *d = &r->cells[in->model - OPTINC_CARD_COUNT];
        /* Child scope: the cell's defaults overridden by this instance. */
        param *ps = malloc(sizeof *ps * (size_t)(d->nparams + 1));
        if (!ps)
            return nl_fail_run(r, "reading the netlist");
        if (d->nparams)
            memcpy(ps, r->cparams + d->param0, sizeof *ps * (size_t)d->nparams);
        for (int j = 2 + in->nnets; j < r->stmts[s].ntok; j++) {
            tok k = {0, 0, 0, 0}, v = {0, 0, 0, 0};
            nl_split_param(r, file, *stok(r, s, j), &k, &v);
            param *q = (param *)nl_find_param(ps, d->nparams, tp(r, file, k), (int)k.len);
            if (!q) {
                free(ps);
                return nl_fail_at(r, file, k.off, "unknown parameter '%.*s' for .subckt '%.*s': "
                                  "declare it on the .subckt line with a default", (int)k.len,
                                  tp(r, file, k), (int)stok(r, d->stmt, 1)->len,
                                  tp(r, r->stmts[d->stmt].file, *stok(r, d->stmt, 1)));
            }
            if (nl_value_of(r, file, v, sc, &q->v)) {
                free(ps);
                return -1;
            }
        }
        size_t child = r->nstk;
        if (stk_push(r, (size_t)d->nnets) || GROW(r, r->frames, r->nframes, r->cframes)) {
            free(ps);
            return -1;
        }
        for (int j = 0; j < d->nports; j++)
            r->stk[child + (size_t)j] = r->stk[map + (size_t)r->pool[in->pins + j]];
        for (int j = d->nports; j < d->nnets; j++) {
            int g = new_net(r);
            if (g < 0) {
                free(ps);
                return -1;
            }
            r->stk[child + (size_t)j] = g;
        }
        r->frames[r->nframes] = (frame){s, fr};
        scope csc = {ps, d->nparams};
        int rc = flatten(r, in->model - OPTINC_CARD_COUNT, child, r->nframes++, &csc);
        free(ps);
        r->nstk = child;
        if (rc)
            return -1;
    }
    return 0;
}

/* Finds expanded MZIs (PS_ext -> DC_a -> PS_int -> DC_b, as --expand-mzi
 * writes them) and fuses each into one mzi card on the outer four nets. */
static int fuse_mzis(reader *r)
{
    int n = r->ncouplers ? r->nprims : 0;  /* a mesh of mzi cards: not a pass over them */
    for (int a = 0; a < n; a++) {
        prim *A = &r->prims[a];
        if (A->kind != OPTINC_CARD_DC || A->used || nl_value(r, A, 0) != 0.5)
            continue;
        int e_ext = nl_other_end(r, A->pin[0], a * 4 + 0);
        int e_int = nl_other_end(r, A->pin[2], a * 4 + 2);
        int e_lo = nl_other_end(r, A->pin[3], a * 4 + 3);
        if (!nl_driver_kind(r, e_ext, OPTINC_CARD_PS, 1)
            || !nl_driver_kind(r, e_int, OPTINC_CARD_PS, 0)
            || !nl_driver_kind(r, e_lo, OPTINC_CARD_DC, 1))
            continue;
        int ext = e_ext >> 2, in = e_int >> 2, b = e_lo >> 2;
        int e_b0 = nl_other_end(r, r->prims[in].pin[1], in * 4 + 1);
        if (e_b0 != b * 4 + 0 || nl_value(r, &r->prims[b], 0) != 0.5)
            continue;
        prim *P = &r->prims[ext], *Q = &r->prims[in];
        if ((P->has & (1u << PS_BITS)) && (Q->has & (1u << PS_BITS))
            && nl_value(r, P, PS_BITS) != nl_value(r, Q, PS_BITS))
            return nl_fail_at(r, r->stmts[Q->stmt].file, stok(r, Q->stmt, 0)->off, "the two "
                              "phase shifters of one expanded MZI have different bits");
        if (GROW(r, r->prims, r->nprims, r->cprims))
            return -1;
        A = &r->prims[a];
        P = &r->prims[ext];
        Q = &r->prims[in];
        prim *M = &r->prims[r->nprims];
        memset(M, 0, sizeof *M);
        M->kind = OPTINC_CARD_MZI;
        M->stmt = P->stmt;
        M->frame = P->frame;
        /* theta is the internal shifter, phi the external one. */
        static const int from[4][2] = {{PS_PHASE, MZI_THETA}, {PS_CODE, MZI_THETA_CODE},
                                       {PS_BITS, MZI_BITS}, {PS_TARGET, MZI_THETA_TARGET}};
        double val[OPTINC_CARD_PARAMS_MAX] = {0};
        unsigned has = 0;
        for (int k = 0; k < 4; k++) {
            if (Q->has & (1u << from[k][0])) {
                val[from[k][1]] = nl_value(r, Q, from[k][0]);
                has |= 1u << from[k][1];
            }
            int to = from[k][1] == MZI_THETA ? MZI_PHI : from[k][1] == MZI_THETA_CODE ? MZI_PHI_CODE
                     : from[k][1] == MZI_THETA_TARGET ? MZI_PHI_TARGET : MZI_BITS;
            if (P->has & (1u << from[k][0])) {
                val[to] = nl_value(r, P, from[k][0]);
                has |= 1u << to;
            }
        }
        if (set_values(r, M, has, val))
            return -1;
        int outer[4] = {P->pin[0], A->pin[1], r->prims[b].pin[2], r->prims[b].pin[3]};
        int old[4] = {ext * 4 + 0, a * 4 + 1, b * 4 + 2, b * 4 + 3};
        for (int k = 0; k < 4; k++) {
            M->pin[k] = outer[k];
            if (r->end0[outer[k]] == old[k])
                r->end0[outer[k]] = r->nprims * 4 + k;
            else
                r->end1[outer[k]] = r->nprims * 4 + k;
        }
        A->used = P->used = Q->used = r->prims[b].used = 1;
        r->nprims++;
    }
    return 0;
}

/* Flattens the top cell: its ports are global nets 0..P-1. */
int nl_flatten(reader *r)
{
    const cell *c = &r->cells[r->top_cell];
    if (stk_push(r, (size_t)c->nnets))
        return -1;
    for (int j = 0; j < c->nnets; j++) {
        int g = new_net(r);
        if (g < 0)
            return -1;
        r->stk[j] = g;
        if (j < c->nports)
            r->end0[g] = -(1 + j);
    }
    scope sc = {c->nparams ? r->cparams + c->param0 : NULL, c->nparams};
    if (flatten(r, r->top_cell, 0, -1, &sc))
        return -1;
    return fuse_mzis(r);
}

