/*
 * read_check.c - pass 3 of the netlist reader: each cell on its own (models
 * exist, pin counts, unique instance names, every net with exactly two ends,
 * one when it is a port), then the hierarchy (no cell contains itself, none
 * nests too deep, and what the top instance flattens to fits the limit).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "compiler/netlist/read.h"

/* The model of statement s (token 1+nnets) as a card id or OPTINC_CARD_COUNT + cell. */
static int resolve_model(reader *r, int s, int nnets)
{
    int file = r->stmts[s].file;
    tok m = *stok(r, s, 1 + nnets);
    int c = nl_card(r, file, m);
    if (c < 0) {
        int id = nl_ht_find(&r->cell_names, tp(r, file, m), (int)m.len);
        if (id < 0) {
            char names[128] = "";
            for (int k = 0; k < OPTINC_CARD_COUNT; k++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                         k ? " " : "", optinc_cards[k].name);
            return nl_fail_at(r, file, m.off, "unknown model '%.*s': not a card (%s) nor a "
                              ".subckt of this netlist", (int)m.len, tp(r, file, m), names);
        }
        c = OPTINC_CARD_COUNT + id;
    }
    int want = c < OPTINC_CARD_COUNT ? optinc_cards[c].n_pins
                                     : r->cells[c - OPTINC_CARD_COUNT].nports;
    if (nnets != want) {
        if (c < OPTINC_CARD_COUNT) {
            char pins[64] = "";
            for (int j = 0; j < want; j++)
                snprintf(pins + strlen(pins), sizeof pins - strlen(pins), "%s%s", j ? " " : "",
                         optinc_cards[c].pin[j]);
            return nl_fail_at(r, file, stok(r, s, 0)->off, "card '%s' has %d pin%s (%s) but "
                              "'%.*s' gives %d net%s", optinc_cards[c].name, want,
                              want == 1 ? "" : "s", pins, (int)stok(r, s, 0)->len,
                              tp(r, file, *stok(r, s, 0)), nnets, nnets == 1 ? "" : "s");
        }
        return nl_fail_at(r, file, stok(r, s, 0)->off, ".subckt '%.*s' has %d port%s but '%.*s' "
                          "gives %d net%s", (int)m.len, tp(r, file, m), want, want == 1 ? "" : "s",
                          (int)stok(r, s, 0)->len, tp(r, file, *stok(r, s, 0)), nnets,
                          nnets == 1 ? "" : "s");
    }
    return c;
}

/* The lookups check_cell makes in the tables of a cell, in its order (each
 * instance's name, then its nets), hashed and their slots prefetched AHEAD
 * lookups before they are made: in a big mesh every lookup is a cache miss,
 * and this way a few of them are under way at once instead of one. */
enum { AHEAD = 16 };

typedef struct lookahead {
    const reader *r;
    const htab *names, *nets;
    int end;                /* the instance after the cell's last */
    int i, j;               /* the next lookup to hash: token j of instance i */
    unsigned issued, taken;
    uint32_t hv[AHEAD];
} lookahead;

static void ahead_issue(lookahead *a)
{
    if (a->i >= a->end)
        return;
    const inst *in = &a->r->insts[a->i];
    tok t = *stok(a->r, in->stmt, a->j);
    uint32_t hv = nl_ht_hash(tp(a->r, a->r->stmts[in->stmt].file, t), (int)t.len);
    nl_ht_prefetch(a->j ? a->nets : a->names, hv);
    a->hv[a->issued++ % AHEAD] = hv;
    if (++a->j > in->nnets) {
        a->j = 0;
        a->i++;
    }
}

static void ahead_start(lookahead *a, const reader *r, const cell *c, const htab *names,
                        const htab *nets)
{
    *a = (lookahead){.r = r, .names = names, .nets = nets, .end = c->first + c->n,
                     .i = c->first};
    for (int k = 0; k < AHEAD; k++)
        ahead_issue(a);
}

/* The hash of the next lookup (the order is check_cell's). */
static uint32_t ahead_take(lookahead *a)
{
    uint32_t hv = a->hv[a->taken++ % AHEAD];
    ahead_issue(a);
    return hv;
}

/* Instances, nets and their ends in one cell.  Each net's ends are counted
 * in a byte (a third end is an error at once), one per net the cell can
 * have, sized up front: a big mesh has a million nets, and every fresh page
 * costs a fault. */
static int check_cell(reader *r, int ci)
{
    cell *c = &r->cells[ci];
    int cs = c->stmt, cfile = r->stmts[cs].file, added;
    htab nets = {0}, names = {0};
    lookahead ahead;
    unsigned char *count = NULL;
    int rc = -1;
    /* A cell has at most ports + pins nets; a valid one (ports + pins) / 2. */
    size_t ends = (size_t)c->nports;
    for (int i = c->first; i < c->first + c->n; i++)
        ends += (size_t)r->insts[i].nnets;
    if (nl_ht_reserve(r, &nets, ends / 2 + 1) || nl_ht_reserve(r, &names, (size_t)c->n))
        goto out;
    if (!(count = malloc(ends + 1))) {
        nl_fail_run(r, "reading the netlist");
        goto out;
    }
    for (int p = 0; p < c->nports; p++) {
        if (nl_ht_id(r, &nets, tp(r, cfile, *stok(r, cs, 2 + p)), (int)stok(r, cs, 2 + p)->len,
                     &added) < 0)
            goto out;
        count[p] = 1;
    }
    if (r->npool + ends - (size_t)c->nports > (size_t)INT_MAX) {
        nl_fail_run(r, "(too many pins)");
        goto out;
    }
    while (r->npool + ends - (size_t)c->nports >= r->cpool)
        if (nl_grow(r, (void **)&r->pool, &r->cpool, sizeof *r->pool))
            goto out;
    ahead_start(&ahead, r, c, &names, &nets);
    for (int i = c->first; i < c->first + c->n; i++) {
        inst *in = &r->insts[i];
        int s = in->stmt, file = r->stmts[s].file;
        tok name = *stok(r, s, 0);
        if (nl_ht_id_hashed(r, &names, tp(r, file, name), (int)name.len, ahead_take(&ahead),
                            &added) < 0)
            goto out;
        if (!added) {
            nl_fail_at(r, file, name.off, "instance name '%.*s' is used twice in .subckt '%.*s'",
                       (int)name.len, tp(r, file, name), (int)stok(r, cs, 1)->len,
                       tp(r, cfile, *stok(r, cs, 1)));
            goto out;
        }
        if ((in->model = resolve_model(r, s, in->nnets)) < 0)
            goto out;
        in->pins = (int)r->npool;
        for (int j = 0; j < in->nnets; j++) {
            tok t = *stok(r, s, 1 + j);
            int id = nl_ht_id_hashed(r, &nets, tp(r, file, t), (int)t.len, ahead_take(&ahead),
                                     &added);
            if (id < 0)
                goto out;
            if (added)
                count[id] = 0;
            if (++count[id] == 3) {
                nl_fail_at(r, file, t.off, "net '%.*s' has a third end here; photonic nets are "
                           "point-to-point (two ends, or one inside a cell for a port): insert a "
                           "splitter card or rename one net", (int)t.len, tp(r, file, t));
                goto out;
            }
            r->pool[r->npool++] = id;
        }
    }
    c->nnets = nets.n;
    for (int id = 0; id < nets.n; id++) {
        if (id < c->nports && count[id] == 1) {
            tok p = *stok(r, cs, 2 + id);
            nl_fail_at(r, cfile, p.off, "port '%.*s' of .subckt '%.*s' is not connected inside "
                       "it (a dangling port)", (int)p.len, tp(r, cfile, p),
                       (int)stok(r, cs, 1)->len, tp(r, cfile, *stok(r, cs, 1)));
            goto out;
        }
        if (id >= c->nports && count[id] == 1) {
            /* Find the one end among the cell's instances. */
            for (int i = c->first; i < c->first + c->n; i++) {
                inst *in = &r->insts[i];
                for (int j = 0; j < in->nnets; j++)
                    if (r->pool[in->pins + j] == id) {
                        int file = r->stmts[in->stmt].file;
                        tok t = *stok(r, in->stmt, 1 + j);
                        nl_fail_at(r, file, t.off, "net '%.*s' is dangling: it has one end only; "
                                   "connect it to a second pin, end it in a term card, or make "
                                   "it a port of the .subckt", (int)t.len, tp(r, file, t));
                        goto out;
                    }
            }
        }
    }
    rc = 0;
out:
    nl_ht_free(&nets);
    nl_ht_free(&names);
    free(count);
    return rc;
}

/* No cell may instantiate itself, directly or through others, nor nest more
 * than OPTINC_NETLIST_NEST_MAX levels deep (flattening recurses once per
 * level).  depth is the number of cells above ci on the current path; the
 * height of every finished cell is kept, so each cell is walked once.  The
 * walk also sizes each cell's flattening (what flatten() will make and copy:
 * one per card, one per cell instance plus one per parameter it copies), so
 * a hierarchy that multiplies out to billions is refused before it starts;
 * sizes saturate just past OPTINC_CARDS_CAP. */
static int check_recursion(reader *r, int ci, int depth)
{
    cell *c = &r->cells[ci];
    if (c->state == 2 && depth + c->height <= OPTINC_NETLIST_NEST_MAX)
        return 0;
    c->state = 1;
    c->height = 1;
    c->size = 0;
    for (int i = c->first; i < c->first + c->n; i++) {
        int m = r->insts[i].model - OPTINC_CARD_COUNT;
        if (m < 0) {
            c->size = c->size < OPTINC_CARDS_CAP ? c->size + 1 : OPTINC_CARDS_CAP + 1;
            continue;
        }
        int s = r->insts[i].stmt, file = r->stmts[s].file;
        tok t = *stok(r, s, 1 + r->insts[i].nnets);
        if (r->cells[m].state == 1)
            return nl_fail_at(r, file, t.off, "recursive cell: instantiating '%.*s' here makes "
                              "'%.*s' contain itself", (int)t.len, tp(r, file, t),
                              (int)stok(r, c->stmt, 1)->len,
                              tp(r, r->stmts[c->stmt].file, *stok(r, c->stmt, 1)));
        if (depth + 2 > OPTINC_NETLIST_NEST_MAX)
            return nl_fail_at(r, file, t.off, "cells nest more than %d levels deep here, the "
                              "reader's limit (OPTINC_NETLIST_NEST_MAX); optinc writes 3 levels, "
                              "so flatten part of the hierarchy", OPTINC_NETLIST_NEST_MAX);
        if (check_recursion(r, m, depth + 1))
            return -1;
        if (r->cells[m].height + 1 > c->height)
            c->height = r->cells[m].height + 1;
        c->size += 1 + r->cells[m].nparams + r->cells[m].size;
        if (c->size > OPTINC_CARDS_CAP)
            c->size = OPTINC_CARDS_CAP + 1;
    }
    c->state = 2;
    return 0;
}

int nl_check(reader *r)
{
    for (int ci = 0; ci < r->ncells; ci++)
        if (check_cell(r, ci))
            return -1;
    for (int ci = 0; ci < r->ncells; ci++)
        if (check_recursion(r, ci, 0))
            return -1;
    int s = r->top, file = r->stmts[s].file;
    int nnets = r->stmts[s].ntok - 2;
    tok k = {0, 0, 0, 0}, v = {0, 0, 0, 0};
    while (nnets > 0 && nl_split_param(r, file, *stok(r, s, nnets + 1), &k, &v))
        nnets--;
    if (nnets + 2 != r->stmts[s].ntok)
        return nl_fail_at(r, file, stok(r, s, nnets + 2)->off, "the top instance line takes no "
                          "parameters");
    int m = resolve_model(r, s, nnets);
    if (m < 0)
        return -1;
    if (m < OPTINC_CARD_COUNT)
        return nl_fail_at(r, file, stok(r, s, 1 + nnets)->off, "the top instance line must "
                          "instantiate a .subckt, not the card '%s'", optinc_cards[m].name);
    const cell *top = &r->cells[m - OPTINC_CARD_COUNT];
    if (top->size > optinc_limits_get(r->lim, OPTINC_LIMIT_CARDS)) {
        char lim[160];
        tok t = *stok(r, s, 1 + nnets);
        return nl_fail_at(r, file, t.off, "'%.*s' flattens to %s%ld cards and cell instances "
                          "(with one per parameter a cell instance copies), more than %s",
                          (int)t.len, tp(r, file, t), top->size > OPTINC_CARDS_CAP ? "over " : "",
                          top->size > OPTINC_CARDS_CAP ? OPTINC_CARDS_CAP : top->size,
                          optinc_limits_text(r->lim, OPTINC_LIMIT_CARDS, lim, sizeof lim));
    }
    htab seen = {0};    /* a mesh's top line has thousands of nets */
    int added = 1;
    for (int i = 1; i <= nnets && added; i++) {
        tok t = *stok(r, s, i);
        if (nl_ht_id(r, &seen, tp(r, file, t), (int)t.len, &added) < 0)
            break;
        if (!added)
            nl_fail_at(r, file, t.off, "net '%.*s' appears twice on the top instance line; each "
                       "port needs its own net", (int)t.len, tp(r, file, t));
    }
    nl_ht_free(&seen);
    if (r->st)
        return -1;
    r->top_cell = m - OPTINC_CARD_COUNT;
    return 0;
}

