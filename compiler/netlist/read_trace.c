/*
 * read_trace.c - pass 5 of the netlist reader: the light from the top cell's
 * input ports through the layers the header lists, stage by stage as the
 * layer's attenuator position plans them, into the circuit's meshes and
 * attenuator columns.  A mesh is MZIs (each on two adjacent modes, in0 on
 * the lower index) closed by one ps per mode; an attenuator column is one
 * att per channel, a term on each extra input, and a term starting each
 * extra (unlit) output.  A segmented layer's pass-through modes wait while
 * its stages are traced and then take one thru card each to their outputs.
 *
 * Why trace the connectivity instead of trusting instance names: the names
 * are a convenience for people; the wiring is the circuit.  Tracing makes
 * hierarchical, --flatten and --expand-mzi files (and hand-written ones)
 * rebuild the same meshes, and any mis-wiring is an error at the card that
 * breaks the structure.  MZI columns are recomputed as early as their modes
 * allow, which is how the compiler places them.  An unlit mode (a term that
 * starts a waveguide) has no position of its own; it takes the mode of the
 * MZI input it feeds, and MZIs fed only by unlit modes are placed when a lit
 * MZI needs their output ("pulled").
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "compiler/netlist/dialect.h"
#include "compiler/netlist/read.h"

/* "X_L1__MZ_L1_V_c0_r0": the flattened name of primitive p. */
static void prim_name(const reader *r, const prim *p, char *buf, size_t size)
{
    int chain[64], n = 0;
    for (int f = p->frame; f >= 0 && n < 64; f = r->frames[f].parent)
        chain[n++] = r->frames[f].stmt;
    size_t len = 0;
    buf[0] = '\0';
    for (int i = n - 1; i >= -1 && len < size; i--) {
        int s = i >= 0 ? chain[i] : p->stmt;
        tok t = *stok(r, s, 0);
        len += (size_t)snprintf(buf + len, size - len, "%s%.*s", i == n - 1 ? "" : "__",
                                (int)t.len, tp(r, r->stmts[s].file, t));
    }
}

static int fail_prim(reader *r, int pi, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Fails at primitive pi's card line, naming its flattened instance. */
static int fail_prim(reader *r, int pi, const char *fmt, ...)
{
    char prefix[340], name[300];
    const prim *p = &r->prims[pi];
    prim_name(r, p, name, sizeof name);
    snprintf(prefix, sizeof prefix, "%s %s: ", optinc_cards[p->kind].name, name);
    va_list ap;
    va_start(ap, fmt);
    nl_vfail_at(r, r->stmts[p->stmt].file, stok(r, p->stmt, 0)->off, prefix, fmt, ap);
    va_end(ap);
    return -1;
}

typedef struct tracer {
    reader *r;
    int n;                  /* modes on the frontier */
    int *net, *from;        /* per mode: net (-1 = unlit), the end it was reached from */
    int *last;              /* per mode: next free column of the mesh being traced */
    int *pm, *pmode, *pcol, np, cp;   /* MZIs placed in the current mesh */
    int capped;             /* attenuators of the layer whose target lies beyond the cap */
    char where[128];        /* "mesh V of layer L1" */
    const struct layer_meta *lm;
} tracer;

static int meta_fail(reader *r, const layer_meta *lm, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int meta_fail(reader *r, const layer_meta *lm, const char *fmt, ...)
{
    const meta *m = &r->metas[lm->meta];
    va_list ap;
    va_start(ap, fmt);
    nl_vfail_at(r, m->file, m->key.off, "", fmt, ap);
    va_end(ap);
    return -1;
}

static int consumer(const tracer *t, int m)
{
    return t->net[m] < 0 ? INT_MIN : nl_other_end(t->r, t->net[m], t->from[m]);
}

static int place(tracer *t, int p, int m)
{
    reader *r = t->r;
    if (t->np >= t->cp) {
        int cp = t->cp ? t->cp * 2 : 256;
        int *a = realloc(t->pm, sizeof *a * (size_t)cp);
        int *b = a ? realloc(t->pmode, sizeof *b * (size_t)cp) : NULL;
        int *c = b ? realloc(t->pcol, sizeof *c * (size_t)cp) : NULL;
        if (a)
            t->pm = a;
        if (b)
            t->pmode = b;
        if (!c)
            return nl_fail_run(r, "reading the netlist");
        t->pcol = c;
        t->cp = cp;
    }
    int col = t->last[m] > t->last[m + 1] ? t->last[m] : t->last[m + 1];
    t->last[m] = t->last[m + 1] = col + 1;
    t->pm[t->np] = p;
    t->pmode[t->np] = m;
    t->pcol[t->np++] = col;
    prim *q = &r->prims[p];
    q->used = 1;
    for (int j = 0; j < 2; j++) {
        t->net[m + j] = q->pin[2 + j];
        t->from[m + j] = p * 4 + 2 + j;
    }
    return 0;
}

static int pull(tracer *t, int q, int m);

/* Is input pin `pin` of MZI p on mode `mode` of the frontier?  An unlit mode
 * accepts a term (the waveguide starts there) or an unlit MZI's output,
 * which is then placed first.  1 yes, 0 not (yet), -1 error. */
static int input_ok(tracer *t, int p, int pin, int mode)
{
    reader *r = t->r;
    if (mode < 0 || mode >= t->n)
        return 0;
    int g = r->prims[p].pin[pin];
    if (t->net[mode] >= 0)
        return t->net[mode] == g;
    int e = nl_other_end(r, g, p * 4 + pin);
    if (e < 0)
        return 0;
    prim *d = &r->prims[e >> 2];
    if (d->used)
        return 0;
    if (d->kind == OPTINC_CARD_TERM) {
        d->used = 1;
        t->net[mode] = g;
        t->from[mode] = e;
        return 1;
    }
    if (d->kind == OPTINC_CARD_MZI && (e & 3) >= 2) {
        int rc = pull(t, e >> 2, mode - ((e & 3) - 2));
        return rc == 1 ? t->net[mode] == g : rc;
    }
    return 0;
}

static int pull(tracer *t, int q, int m)
{
    reader *r = t->r;
    if (m < 0 || m + 1 >= t->n)
        return 0;
    if (r->prims[q].busy)
        return fail_prim(r, q, "is part of a loop of unlit MZIs; light must flow from the "
                         "inputs to the outputs");
    r->prims[q].busy = 1;
    int a = input_ok(t, q, 0, m), b = a == 1 ? input_ok(t, q, 1, m + 1) : a;
    r->prims[q].busy = 0;
    if (b != 1)
        return b;
    return place(t, q, m) ? -1 : 1;
}

/* The placed MZIs of t in the compiler's propagation order, column-major and
 * by mode within a column, into order[0 .. np): no two share a column and a
 * mode, and both are small, so two counting sorts (by mode, then stably by
 * column) put them in order in linear time.  -1 when out of memory. */
static int placement_order(const tracer *t, int modes, int *order)
{
    int ncols = 0;
    for (int i = 0; i < t->np; i++)
        ncols = t->pcol[i] + 1 > ncols ? t->pcol[i] + 1 : ncols;
    int span = ncols > modes ? ncols : modes;
    int *by_mode = malloc(sizeof *by_mode * (size_t)(t->np + 1));
    int *start = calloc((size_t)span + 1, sizeof *start);
    if (!by_mode || !start) {
        OPTINC_FREE_ALL(by_mode, start);
        return -1;
    }
    for (int i = 0; i < t->np; i++)
        start[t->pmode[i] + 1]++;
    for (int m = 0; m < modes; m++)
        start[m + 1] += start[m];
    for (int i = 0; i < t->np; i++)
        by_mode[start[t->pmode[i]]++] = i;
    memset(start, 0, sizeof *start * ((size_t)span + 1));
    for (int i = 0; i < t->np; i++)
        start[t->pcol[i] + 1]++;
    for (int c = 0; c < ncols; c++)
        start[c + 1] += start[c];
    for (int k = 0; k < t->np; k++)
        order[start[t->pcol[by_mode[k]]]++] = by_mode[k];
    OPTINC_FREE_ALL(by_mode, start);
    return 0;
}

static void set_phase(const reader *r, const prim *p, int rad, int code, int target,
                      optinc_phase *ph)
{
    ph->rad = nl_value(r, p, rad);
    ph->target_rad = p->has & (1u << target) ? nl_value(r, p, target) : ph->rad;
    ph->code = p->has & (1u << code) ? (int)nl_value(r, p, code) : -1;
}

/* A code's bits must be the layer's. */
static int check_bits(reader *r, int pi, int code, int bits, int want, const char *what)
{
    const prim *p = &r->prims[pi];
    if (!(p->has & (1u << code)) || (int)nl_value(r, p, bits) == want)
        return 0;
    return fail_prim(r, pi, "bits=%d differs from the layer's %s bits=%d (its *! header line)",
                     (int)nl_value(r, p, bits), what, want);
}

static int trace_mesh(tracer *t, optinc_layer *L, optinc_stage *s)
{
    reader *r = t->r;
    int n = s->modes_in;
    t->n = n;
    t->np = 0;
    memset(t->last, 0, sizeof *t->last * (size_t)n);
    for (int progress = 1; progress;) {
        progress = 0;
        for (int m = 0; m + 1 < n; m++) {
            int p = -1, e = consumer(t, m);
            if (nl_driver_kind(r, e, OPTINC_CARD_MZI, 0))
                p = e >> 2;
            else if (nl_driver_kind(r, (e = consumer(t, m + 1)), OPTINC_CARD_MZI, 1))
                p = e >> 2;
            if (p < 0)
                continue;
            int a = input_ok(t, p, 0, m), b = a == 1 ? input_ok(t, p, 1, m + 1) : a;
            if (b < 0)
                return -1;
            if (b == 1) {
                if (place(t, p, m))
                    return -1;
                progress = 1;
            }
        }
    }
    if (t->np > n * (n - 1) / 2)
        return fail_prim(r, t->pm[t->np - 1], "%s has more than %d MZIs, the most an %d-mode "
                         "mesh has", t->where, n * (n - 1) / 2, n);
    /* A segmented layer's mesh is block-diagonal: no MZI joins two blocks. */
    int block = L->seg_rows ? (L->cols - L->pass_through) / L->seg_cols : n;
    for (int i = 0; i < t->np; i++)
        if (t->pmode[i] % block == block - 1)
            return fail_prim(r, t->pm[i], "joins modes %d and %d of %s, which belong to two "
                             "blocks of %d modes; a segment's mesh stays on its own modes",
                             t->pmode[i], t->pmode[i] + 1, t->where, block);
    /* Exactly the MZIs found: an expanded segmented mesh has far fewer than
     * n(n-1)/2. */
    optinc_mesh *M = s->mesh = calloc(1, sizeof *M);
    if (M) {
        M->kind = L->mesh_kind;
        M->modes = n;
        M->mzi = malloc(sizeof *M->mzi * ((size_t)t->np + 1));
        M->screen = calloc((size_t)n + 1, sizeof *M->screen);
    }
    if (!M || !M->mzi || !M->screen)
        return nl_fail_run(r, "rebuilding a mesh");
    memset(&M->mzi[t->np], 0, sizeof *M->mzi);
    M->n_mzi = t->np;
    M->n_columns = 0;
    /* Column-major, then by mode: the compiler's propagation order. */
    int *order = malloc(sizeof *order * (size_t)(t->np + 1));
    if (!order || placement_order(t, n, order)) {
        free(order);
        return nl_fail_run(r, "rebuilding a mesh");
    }
    for (int i = 0; i < t->np; i++) {
        int k = order[i];
        optinc_mzi *z = &M->mzi[i];
        const prim *p = &r->prims[t->pm[k]];
        memset(z, 0, sizeof *z);    /* the padding too: a mesh compares bytewise */
        z->mode = t->pmode[k];
        z->column = t->pcol[k];
        if (z->column + 1 > M->n_columns)
            M->n_columns = z->column + 1;
        set_phase(r, p, MZI_THETA, MZI_THETA_CODE, MZI_THETA_TARGET, &z->theta);
        set_phase(r, p, MZI_PHI, MZI_PHI_CODE, MZI_PHI_TARGET, &z->phi);
        if (check_bits(r, t->pm[k], MZI_THETA_CODE, MZI_BITS, L->components.phase_shifter.bits,
                       "phase_shifter")
            || check_bits(r, t->pm[k], MZI_PHI_CODE, MZI_BITS, L->components.phase_shifter.bits,
                          "phase_shifter")) {
            free(order);
            return -1;
        }
    }
    free(order);
    /* The output phase screen: one ps per mode. */
    for (int m = 0; m < n; m++) {
        if (t->net[m] < 0)
            return meta_fail(r, t->lm, "mode %d of %s is unlit: no MZI joins it to a lit "
                             "mode", m, t->where);
        int e = consumer(t, m);
        if (!nl_driver_kind(r, e, OPTINC_CARD_PS, 0)) {
            if (e >= 0 && !r->prims[e >> 2].used && r->prims[e >> 2].kind == OPTINC_CARD_MZI)
                return fail_prim(r, e >> 2, "cannot be placed in %s: its in0 and in1 must "
                                 "carry two adjacent modes m and m+1 of the mesh", t->where);
            if (e >= 0)
                return fail_prim(r, e >> 2, "found where %s needs the output phase shifter "
                                 "(ps) of mode %d; every mesh ends with one ps per mode",
                                 t->where, m);
            return meta_fail(r, t->lm, "mode %d of %s reaches a port without passing the "
                             "mesh's output phase shifter (ps)", m, t->where);
        }
        int q = e >> 2;
        prim *p = &r->prims[q];
        set_phase(r, p, PS_PHASE, PS_CODE, PS_TARGET, &M->screen[m]);
        if (check_bits(r, q, PS_CODE, PS_BITS, L->components.phase_shifter.bits, "phase_shifter"))
            return -1;
        p->used = 1;
        t->net[m] = p->pin[1];
        t->from[m] = q * 4 + 1;
    }
    return 0;
}

static int trace_att(tracer *t, optinc_layer *L, optinc_stage *s)
{
    reader *r = t->r;
    s->att = calloc((size_t)s->n_att + 1, sizeof *s->att);
    if (!s->att)
        return nl_fail_run(r, "rebuilding an attenuator column");
    int per = s->block_in < s->block_out ? s->block_in : s->block_out;
    for (int k = 0; k < s->modes_in; k++) {
        /* Channel ch of block k / block_in joins mode k to mode o (optinc_att_channel). */
        int ch = k % s->block_in < per ? k / s->block_in * per + k % s->block_in : s->n_att;
        int o = k / s->block_in * s->block_out + k % s->block_in;
        int e = consumer(t, k), want = ch < s->n_att ? OPTINC_CARD_ATT : OPTINC_CARD_TERM;
        if (t->net[k] < 0)
            return meta_fail(r, t->lm, "mode %d is unlit at the input of %s", k, t->where);
        if (!nl_driver_kind(r, e, want, 0)) {
            if (e >= 0)
                return fail_prim(r, e >> 2, "found where %s needs %s on mode %d", t->where,
                                 want == OPTINC_CARD_ATT ? "an att card" : "a term card (an input "
                                 "without a channel)", k);
            return meta_fail(r, t->lm, "mode %d of %s reaches a port without its %s card", k,
                             t->where, want == OPTINC_CARD_ATT ? "att" : "term");
        }
        int q = e >> 2;
        prim *p = &r->prims[q];
        p->used = 1;
        if (ch >= s->n_att)
            continue;
        optinc_att *a = &s->att[ch];
        a->att_dB = nl_value(r, p, ATT_DB);
        a->t = pow(10.0, -a->att_dB / 20.0);
        a->t_target = p->has & (1u << ATT_T_TARGET) ? nl_value(r, p, ATT_T_TARGET) : a->t;
        a->code = p->has & (1u << ATT_CODE) ? (int)nl_value(r, p, ATT_CODE) : -1;
        if (p->has & (1u << ATT_T_TARGET)) {
            /* Capped as the compiler caps: the target asks for more than
             * max_attenuation_dB (the same function decides). */
            optinc_att programmed;
            optinc_att_program(&programmed, a->t_target, &L->components, &t->capped);
        }
        if (check_bits(r, q, ATT_CODE, ATT_BITS, L->components.attenuator.bits, "attenuator"))
            return -1;
        t->net[o] = p->pin[1];      /* o <= k: the modes before k are done */
        t->from[o] = q * 4 + 1;
    }
    for (int k = s->n_att; k < s->modes_out; k++)
        t->net[k] = -1;     /* unlit: starts at a term the next stage finds */
    t->n = s->modes_out;
    return 0;
}

/* Link k of the chain at end e: the split (in on in) or comb (the running
 * sum on in0) card a fan-s->fan chain has there, with the chain's tap.
 * The card's index, or -1 after the message. */
static int chain_link(tracer *t, const optinc_stage *s, int e, int x, int k)
{
    reader *r = t->r;
    int split = s->kind == OPTINC_STAGE_SPLIT, kind = split ? OPTINC_CARD_SPLIT : OPTINC_CARD_COMB;
    const char *card = optinc_cards[kind].name;
    if (!nl_driver_kind(r, e, kind, 0)) {
        if (e >= 0)
            return fail_prim(r, e >> 2, "found where link %d of the %s chain of %s %d in %s "
                             "needs a %s card (on its pin %s)", k, card, split ? "input" :
                             "output", x, t->where, card, optinc_cards[kind].pin[0]);
        return meta_fail(r, t->lm, "%s %d of %s reaches a port without link %d of its %s chain",
                         split ? "input" : "output", x, t->where, k, card);
    }
    int q = e >> 2;
    double want = optinc_chain_tap(s, k);
    if (!(fabs(nl_value(r, &r->prims[q], TAP_POWER) - want) <= 1e-9))
        return fail_prim(r, q, "has tap=%g, but link %d of a chain of %d in %s taps %.17g "
                         "(every branch carries 1/sqrt(%d)); write tap=%.17g", 
                         nl_value(r, &r->prims[q], TAP_POWER), k, s->fan, t->where, want, s->fan, want);
    r->prims[q].used = 1;
    return q;
}

/* A SPLIT or COMBINE stage: the chains of split or comb cards the writer
 * lays out (optinc-netlist(5)), onto the modes optinc_split_target and
 * optinc_combine_source name.  A fan of 1 is a plain waveguide. */
static int trace_chains(tracer *t, const optinc_stage *s, int *net, int *from)
{
    reader *r = t->r;
    int split = s->kind == OPTINC_STAGE_SPLIT, n = split ? s->modes_in : s->modes_out;
    for (int x = 0; x < n; x++) {
        int m0 = split ? x : optinc_combine_source(s, x, 0);
        int run = t->net[m0], rfrom = t->from[m0];
        if (run < 0)
            return meta_fail(r, t->lm, "mode %d is unlit at the input of %s", m0, t->where);
        for (int k = 0; k + 1 < s->fan; k++) {
            int q = chain_link(t, s, nl_other_end(r, run, rfrom), x, k);
            if (q < 0)
                return -1;
            const prim *p = &r->prims[q];
            if (split) {
                int m = optinc_split_target(s, x, k);
                net[m] = p->pin[1];
                from[m] = q * 4 + 1;
            } else {
                int m = optinc_combine_source(s, x, k + 1);
                if (t->net[m] != p->pin[1] || nl_other_end(r, t->net[m], t->from[m]) != q * 4 + 1)
                    return fail_prim(r, q, "is link %d of the comb chain of output %d in %s, so "
                                     "its in1 must carry mode %d (block column %d)", k, x,
                                     t->where, m, k + 1);
            }
            run = p->pin[2];
            rfrom = q * 4 + 2;
        }
        int m = split ? optinc_split_target(s, x, s->fan - 1) : x;
        net[m] = run;
        from[m] = rfrom;
    }
    memcpy(t->net, net, sizeof *net * (size_t)s->modes_out);
    memcpy(t->from, from, sizeof *from * (size_t)s->modes_out);
    t->n = s->modes_out;
    return 0;
}

/* The K pass-through modes of a segmented layer, whose inputs cols-K+k
 * were on net[k] (reached from from[k]) before its stages: one thru card each,
 * to output rows-K+k. */
static int trace_pass(tracer *t, const optinc_layer *L, const int *net, const int *from)
{
    reader *r = t->r;
    int K = L->pass_through;
    for (int k = 0; k < K; k++) {
        int in = L->cols - K + k, o = L->rows - K + k;
        int e = net[k] < 0 ? INT_MIN : nl_other_end(r, net[k], from[k]);
        if (net[k] < 0)
            return meta_fail(r, t->lm, "pass-through input %d of layer %s is unlit", in,
                             L->name);
        if (!nl_driver_kind(r, e, OPTINC_CARD_THRU, 0)) {
            if (e >= 0)
                return fail_prim(r, e >> 2, "found where pass-through input %d of layer %s "
                                 "needs its thru card (to output %d)", in, L->name, o);
            return meta_fail(r, t->lm, "pass-through input %d of layer %s reaches a port "
                             "without its thru card", in, L->name);
        }
        prim *p = &r->prims[e >> 2];
        p->used = 1;
        t->net[o] = p->pin[1];
        t->from[o] = (e >> 2) * 4 + 1;
    }
    t->n = L->rows;
    return 0;
}

int nl_top_ports(reader *r)
{
    const cell *c = &r->cells[r->top_cell];
    int file = r->stmts[c->stmt].file;
    r->nin = r->nout = 0;
    for (int p = 0; p < c->nports; p++) {
        tok t = *stok(r, c->stmt, 2 + p);
        char in[32], out[32];
        snprintf(in, sizeof in, "in%d", r->nin);
        snprintf(out, sizeof out, "out%d", r->nout);
        if (!r->nout && teq(r, file, t, in))
            r->nin++;
        else if (teq(r, file, t, out))
            r->nout++;
        else
            return nl_fail_at(r, file, t.off, "port '%.*s' of the top cell: its ports must be in0 "
                              "in1 ... then out0 out1 ..., in this order (expected '%s')",
                              (int)t.len, tp(r, file, t), r->nout ? out : r->nin ? "in.. or out0"
                              : in);
    }
    if (!r->nin || !r->nout)
        return nl_fail_at(r, file, stok(r, c->stmt, 1)->off, "the top cell needs input ports in0.. "
                          "and output ports out0..");
    return 0;
}

int nl_trace(reader *r, optinc_circuit *c, layer_meta *lm)
{
    int widest = r->nin > r->nout ? r->nin : r->nout;
    for (int i = 0; i < c->n_layers; i++) {
        widest = c->layers[i].rows > widest ? c->layers[i].rows : widest;
        widest = c->layers[i].cols > widest ? c->layers[i].cols : widest;
        const optinc_layer *L = &c->layers[i];
        if (L->seg_rows)    /* the expanded modes of a segmented layer */
            widest = L->seg_rows * L->cols > widest ? L->seg_rows * L->cols : widest;
    }
    tracer t = {.r = r, .n = r->nin};
    int *net = malloc(sizeof *net * (size_t)widest), *from = malloc(sizeof *from * (size_t)widest);
    int *pass_net = malloc(sizeof *pass_net * (size_t)widest);
    int *pass_from = malloc(sizeof *pass_from * (size_t)widest);
    t.net = malloc(sizeof *t.net * (size_t)widest);
    t.from = malloc(sizeof *t.from * (size_t)widest);
    t.last = malloc(sizeof *t.last * (size_t)widest);
    int rc = -1;
    if (!t.net || !t.from || !t.last || !net || !from || !pass_net || !pass_from) {
        nl_fail_run(r, "tracing the netlist");
        goto out;
    }
    for (int k = 0; k < r->nin; k++) {
        t.net[k] = k;
        t.from[k] = -(1 + k);
    }
    for (int i = 0; i < c->n_layers; i++) {
        optinc_layer *L = &c->layers[i];
        t.lm = &lm[i];
        if (L->cols != t.n) {
            meta_fail(r, &lm[i], "layer '%s' has cols=%d but %d modes reach it (%s)", L->name,
                      L->cols, t.n, i ? "the rows of the layer before" : "the top cell's inputs");
            goto out;
        }
        int K = L->pass_through;
        L->n_stages = L->seg_rows ? optinc_segment_plan(L->rows - K, L->cols - K, L->seg_rows,
                                                        L->seg_cols, L->stage)
                                  : optinc_netlist_stage_plan(L->attenuators, L->rows, L->cols,
                                                              L->stage);
        /* the pass-through modes wait while the stages trace the others */
        memcpy(pass_net, t.net + L->cols - K, sizeof *pass_net * (size_t)K);
        memcpy(pass_from, t.from + L->cols - K, sizeof *pass_from * (size_t)K);
        t.capped = 0;
        for (int s = 0; s < L->n_stages; s++) {
            optinc_stage *st = &L->stage[s];
            static const char *const what[] = {"mesh", "attenuator column", "splitters",
                                               "combiners"};
            snprintf(t.where, sizeof t.where, "%s %c of layer %s", what[st->kind], st->tag,
                     L->name);
            int bad = st->kind == OPTINC_STAGE_MESH  ? trace_mesh(&t, L, st)
                      : st->kind == OPTINC_STAGE_ATT ? trace_att(&t, L, st)
                                                     : trace_chains(&t, st, net, from);
            if (!bad && st->kind == OPTINC_STAGE_SPLIT && st->n_att) {
                optinc_stage trims = optinc_split_trims(st);
                snprintf(t.where, sizeof t.where, "trim attenuators T of layer %s", L->name);
                bad = trace_att(&t, L, &trims);
                st->att = trims.att;
            }
            if (bad)
                goto out;
        }
        if (K && trace_pass(&t, L, pass_net, pass_from))
            goto out;
        if (t.capped != L->n_warnings_capped) {
            meta_fail(r, &lm[i], "layer '%s' says attenuators_capped=%d, but %d of its att "
                      "cards have a t_target beyond max_attenuation_dB; write the count of "
                      "those", L->name, L->n_warnings_capped, t.capped);
            goto out;
        }
    }
    if (t.n != r->nout) {
        meta_fail(r, &lm[c->n_layers - 1], "the last layer gives %d modes but the top cell has "
                  "%d outputs", t.n, r->nout);
        goto out;
    }
    for (int k = 0; k < r->nout; k++) {
        int port = -(1 + r->nin + k);
        if (t.net[k] < 0) {
            int e = nl_other_end(r, r->nin + k, port);
            if (!nl_driver_kind(r, e, OPTINC_CARD_TERM, 0)) {
                meta_fail(r, &lm[c->n_layers - 1], "output out%d is unlit but not started by a "
                          "term card", k);
                goto out;
            }
            r->prims[e >> 2].used = 1;
        } else if (consumer(&t, k) != port) {
            int e = consumer(&t, k);
            if (e >= 0)
                fail_prim(r, e >> 2, "is past the last stage of the last layer; mode %d should "
                          "reach the top cell's port out%d here", k, k);
            else
                meta_fail(r, &lm[c->n_layers - 1], "mode %d of the last layer does not reach "
                          "port out%d", k, k);
            goto out;
        }
    }
    for (int p = 0; p < r->nprims; p++)
        if (!r->prims[p].used) {
            fail_prim(r, p, "is not on the light's path through the layers the header lists; "
                      "every card must belong to a stage");
            goto out;
        }
    rc = 0;
out:
    OPTINC_FREE_ALL(net, from, pass_net, pass_from, t.net, t.from, t.last, t.pm, t.pmode,
                    t.pcol);
    return rc;
}

