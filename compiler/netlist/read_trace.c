/*
 * read_trace.c - pass 5 of the netlist reader: the light from the top cell's
 * input ports through the layers the header lists, stage by stage as the
 * layer's attenuator position plans them, into the circuit's meshes and
 * attenuator columns.  A mesh is MZIs (each on two adjacent modes, in0 on
 * the lower index) closed by one ps per mode; an attenuator column is one
 * att per channel, a term on each extra input, and a term starting each
 * extra (unlit) output.
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

typedef struct placed { long long key; int i; } placed;

static int cmp_placed(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static void set_phase(const prim *p, int rad, int code, int target, optinc_phase *ph)
{
    ph->rad = p->v[rad];
    ph->target_rad = p->has & (1u << target) ? p->v[target] : ph->rad;
    ph->code = p->has & (1u << code) ? (int)p->v[code] : -1;
}

/* A code's bits must be the layer's. */
static int check_bits(reader *r, int pi, int code, int bits, int want, const char *what)
{
    const prim *p = &r->prims[pi];
    if (!(p->has & (1u << code)) || (int)p->v[bits] == want)
        return 0;
    return fail_prim(r, pi, "bits=%d differs from the layer's %s bits=%d (its *! header line)",
                     (int)p->v[bits], what, want);
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
    s->mesh = optinc_mesh_new(L->mesh_kind, n);
    if (!s->mesh)
        return nl_fail_run(r, "rebuilding a mesh");
    optinc_mesh *M = s->mesh;
    M->n_mzi = t->np;
    M->n_columns = 0;
    /* Column-major, then by mode: the compiler's propagation order. */
    placed *key = malloc(sizeof *key * (size_t)(t->np + 1));
    if (!key)
        return nl_fail_run(r, "rebuilding a mesh");
    for (int i = 0; i < t->np; i++)
        key[i] = (placed){(long long)t->pcol[i] * n + t->pmode[i], i};
    qsort(key, (size_t)t->np, sizeof *key, cmp_placed);
    for (int i = 0; i < t->np; i++) {
        int k = key[i].i;
        optinc_mzi *z = &M->mzi[i];
        const prim *p = &r->prims[t->pm[k]];
        z->mode = t->pmode[k];
        z->column = t->pcol[k];
        if (z->column + 1 > M->n_columns)
            M->n_columns = z->column + 1;
        set_phase(p, MZI_THETA, MZI_THETA_CODE, MZI_THETA_TARGET, &z->theta);
        set_phase(p, MZI_PHI, MZI_PHI_CODE, MZI_PHI_TARGET, &z->phi);
        if (check_bits(r, t->pm[k], MZI_THETA_CODE, MZI_BITS, L->components.phase_shifter.bits,
                       "phase_shifter")
            || check_bits(r, t->pm[k], MZI_PHI_CODE, MZI_BITS, L->components.phase_shifter.bits,
                          "phase_shifter")) {
            free(key);
            return -1;
        }
    }
    free(key);
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
        set_phase(p, PS_PHASE, PS_CODE, PS_TARGET, &M->screen[m]);
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
    for (int k = 0; k < s->modes_in; k++) {
        int e = consumer(t, k), want = k < s->n_att ? OPTINC_CARD_ATT : OPTINC_CARD_TERM;
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
        if (k >= s->n_att)
            continue;
        optinc_att *a = &s->att[k];
        a->att_dB = p->v[ATT_DB];
        a->t = pow(10.0, -a->att_dB / 20.0);
        a->t_target = p->has & (1u << ATT_T_TARGET) ? p->v[ATT_T_TARGET] : a->t;
        a->code = p->has & (1u << ATT_CODE) ? (int)p->v[ATT_CODE] : -1;
        if (p->has & (1u << ATT_T_TARGET)) {
            /* Capped as the compiler caps: the target asks for more than
             * max_attenuation_dB (the same function decides). */
            optinc_att programmed;
            optinc_att_program(&programmed, a->t_target, &L->components, &t->capped);
        }
        if (check_bits(r, q, ATT_CODE, ATT_BITS, L->components.attenuator.bits, "attenuator"))
            return -1;
        t->net[k] = p->pin[1];
        t->from[k] = q * 4 + 1;
    }
    for (int k = s->n_att; k < s->modes_out; k++)
        t->net[k] = -1;     /* unlit: starts at a term the next stage finds */
    t->n = s->modes_out;
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
    }
    tracer t = {.r = r, .n = r->nin};
    t.net = malloc(sizeof *t.net * (size_t)widest);
    t.from = malloc(sizeof *t.from * (size_t)widest);
    t.last = malloc(sizeof *t.last * (size_t)widest);
    int rc = -1;
    if (!t.net || !t.from || !t.last) {
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
        L->n_stages = optinc_netlist_stage_plan(L->attenuators, L->rows, L->cols, L->stage);
        t.capped = 0;
        for (int s = 0; s < L->n_stages; s++) {
            optinc_stage *st = &L->stage[s];
            snprintf(t.where, sizeof t.where, "%s %c of layer %s",
                     st->kind == OPTINC_STAGE_MESH ? "mesh" : "attenuator column", st->tag,
                     L->name);
            if (st->kind == OPTINC_STAGE_MESH ? trace_mesh(&t, L, st) : trace_att(&t, L, st))
                goto out;
        }
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
    free(t.net);
    free(t.from);
    free(t.last);
    free(t.pm);
    free(t.pmode);
    free(t.pcol);
    return rc;
}

