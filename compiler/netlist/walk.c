/*
 * walk.c - the one walk of a layer (walk.h): the elements the netlist
 * writes, in its order, with its names, each handed to the caller's visitor.
 *
 * Each mode carries the net it is on (its name in cur, its number in
 * cur_id); an element takes the nets of its input modes and starts new nets
 * on its output modes.  A stage that re-indexes modes (a split fans its
 * inputs out to the expanded modes, a comb sums them back) builds the next
 * modes' nets in next and swaps them in when it is done.
 */
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "compiler/netlist/dialect.h"
#include "compiler/netlist/walk.h"

void nl_top_net(const optinc_circuit *c, int i, int out, int k, char *buf, size_t size)
{
    int j = out ? i : i - 1;    /* the layer whose output this net is */
    if (j < 0)
        snprintf(buf, size, "in%d", k);
    else if (j == c->n_layers - 1)
        snprintf(buf, size, "out%d", k);
    else
        snprintf(buf, size, "%s_out%d", c->layers[j].name, k);
}

int nl_stage_is_wire(const optinc_stage *s)
{
    return (s->kind == OPTINC_STAGE_SPLIT || s->kind == OPTINC_STAGE_COMBINE) && s->fan == 1;
}

int nl_stage_width(const optinc_stage *s)
{
    if (nl_stage_is_wire(s))
        return 0;
    if (s->kind == OPTINC_STAGE_MESH)
        return s->mesh->n_columns + 1;
    if (s->kind == OPTINC_STAGE_ATT)
        return 1;
    return s->fan - 1 + (s->n_att > 0);
}

int nl_stage_column(const optinc_layer *L, int s)
{
    int column = 0;
    for (int k = 0; k < s && k < L->n_stages; k++)
        column += nl_stage_width(&L->stage[k]);
    return column;
}

/* ------------------------------------------------------------------ state */

typedef struct step {
    nl_walk *w;
    const optinc_layer *L;
    int stage, column0, last;   /* the stage walked, its first column, 1 if the layer's last */
    nl_elem e;
    char name[NL_NAME_MAX];
    char out[2][NL_NAME_MAX];   /* the names of the nets an element starts */
} step;

/* Port k of the layer on side out: its own in/out port, or the top-cell
 * net it stands for. */
static void port_net(const step *p, int out, int k, char *buf)
{
    if (p->w->top_ports)
        nl_top_net(p->w->c, p->w->layer, out, k, buf, NL_NAME_MAX);
    else
        snprintf(buf, NL_NAME_MAX, "%s%d", out ? "out" : "in", k);
}

/* A net's name into a mode's slot: its bytes, not the slot's (a mesh's
 * every MZI moves two). */
static void put_name(char *slot, const char *name)
{
    memcpy(slot, name, strlen(name) + 1);
}

/* Starts element e of kind at (column in the stage, row). */
static nl_elem *begin(step *p, optinc_card_kind kind, int column, int row)
{
    nl_elem *e = &p->e;
    e->kind = kind;
    e->name = p->name;
    e->n_pins = optinc_cards[kind].n_pins;
    e->n_in = optinc_cards[kind].n_in;
    e->has = 0;
    e->stage = p->stage;
    e->column = p->column0 + column;
    e->row = row;
    return e;
}

/* Pin j takes in the net on mode m. */
static void take(step *p, int j, int m)
{
    p->e.net[j] = p->w->cur[m];
    p->e.id[j] = p->w->cur_id[m];
}

/* Pin j starts a net named name (kept until the element is visited). */
static void start(step *p, int j, const char *name)
{
    p->e.net[j] = name;
    p->e.id[j] = p->w->n_ids++;
}

static void set(nl_elem *e, int k, double v)
{
    e->v[k] = v;
    e->has |= 1u << k;
}

/* Parameters rad, code (when quantized) and target (when it differs bit for
 * bit) of one programmed phase, and the driver's bits with a code. */
static void set_phase(step *p, int rad, int code, int target, int bits, const optinc_phase *ph)
{
    set(&p->e, rad, ph->rad);
    if (ph->code >= 0) {
        set(&p->e, code, ph->code);
        set(&p->e, bits, p->L->components.phase_shifter.bits);
    }
    if (memcmp(&ph->target_rad, &ph->rad, sizeof ph->rad))
        set(&p->e, target, ph->target_rad);
}

static optinc_status visit(step *p, optinc_error *err)
{
    return p->w->visit(p->w, &p->e, err);
}

/* ------------------------------------------------------------------ stages */

/* A mesh: its MZIs column by column, then the output phase screen, one ps
 * per mode in column n_columns.  A mode no MZI touches keeps its net. */
static optinc_status walk_mesh(step *p, const optinc_stage *s, optinc_error *err)
{
    nl_walk *w = p->w;
    const optinc_mesh *M = s->mesh;
    const char *layer = p->L->name;
    optinc_status st = OPTINC_OK;
    for (int i = 0; i < M->n_mzi && !st; i++) {
        const optinc_mzi *z = &M->mzi[i];
        int m = z->mode;
        nl_elem *e = begin(p, OPTINC_CARD_MZI, z->column, m);
        nl_element_name(p->name, sizeof p->name, w->prefix, OPTINC_CARD_MZI, layer, s->tag,
                        z->column, m);
        for (int j = 0; j < 2; j++) {
            nl_grid_name(p->out[j], NL_NAME_MAX, w->prefix, NULL, layer, s->tag, z->column, 'm',
                         m + j);
            take(p, j, m + j);
            start(p, 2 + j, p->out[j]);
        }
        set_phase(p, MZI_THETA, MZI_THETA_CODE, MZI_THETA_TARGET, MZI_BITS, &z->theta);
        set_phase(p, MZI_PHI, MZI_PHI_CODE, MZI_PHI_TARGET, MZI_BITS, &z->phi);
        st = visit(p, err);
        for (int j = 0; j < 2; j++) {
            put_name(w->cur[m + j], p->out[j]);
            w->cur_id[m + j] = e->id[2 + j];
        }
    }
    for (int m = 0; m < M->modes && !st; m++) {
        nl_elem *e = begin(p, OPTINC_CARD_PS, M->n_columns, m);
        nl_element_name(p->name, sizeof p->name, w->prefix, OPTINC_CARD_PS, layer, s->tag,
                        M->n_columns, m);
        if (p->last)
            port_net(p, 1, m, p->out[0]);
        else
            nl_grid_name(p->out[0], NL_NAME_MAX, w->prefix, NULL, layer, s->tag, M->n_columns,
                         'm', m);
        take(p, 0, m);
        start(p, 1, p->out[0]);
        set_phase(p, PS_PHASE, PS_CODE, PS_TARGET, PS_BITS, &M->screen[m]);
        st = visit(p, err);
        put_name(w->cur[m], p->out[0]);
        w->cur_id[m] = e->id[1];
    }
    return st;
}

/* The net output mode o of attenuator column s leaves on: the layer's port
 * after its last stage, else L_S_mO (L_T_mO for a split stage's trims). */
static void att_out_net(step *p, const optinc_stage *s, int o, char *out)
{
    if (p->last)
        port_net(p, 1, o, out);
    else
        snprintf(out, NL_NAME_MAX, "%s%s_%c_m%d", p->w->prefix, p->L->name, s->tag, o);
}

/* The term of mode k: the end of the net on mode k (ends = 1), or the start
 * of a dark net named out there. */
static optinc_status put_term(step *p, const optinc_stage *s, int column, int k, int ends,
                              optinc_error *err)
{
    nl_elem *e = begin(p, OPTINC_CARD_TERM, column, k);
    nl_element_name(p->name, sizeof p->name, p->w->prefix, OPTINC_CARD_TERM, p->L->name, 0, 0, k);
    e->n_in = ends;
    if (ends)
        take(p, 0, k);
    else {
        att_out_net(p, s, k, p->out[0]);
        start(p, 0, p->out[0]);
    }
    optinc_status st = visit(p, err);
    if (!ends) {
        put_name(p->w->cur[k], p->out[0]);
        p->w->cur_id[k] = e->id[0];
    }
    return st;
}

/* An attenuator column in column `column` of the stage, in input-mode
 * order: channel k joins input mode i to output mode o (optinc_att_channel:
 * i = o = k for a layer's one block; per block of a segmented layer); an
 * input without a channel ends in a term, and an unlit output of one block
 * starts at a term.  o <= i, so mode o's net is rewritten only after it has
 * been taken. */
static optinc_status walk_att(step *p, const optinc_stage *s, int column, optinc_error *err)
{
    nl_walk *w = p->w;
    optinc_status st = OPTINC_OK;
    for (int i = 0, k = 0; i < s->modes_in && !st; i++) {
        int in = -1, o = -1;
        if (k < s->n_att)
            optinc_att_channel(s, k, &in, &o);
        if (in != i) {
            st = put_term(p, s, column, i, 1, err);
            continue;
        }
        const optinc_att *a = &s->att[k];
        nl_elem *e = begin(p, OPTINC_CARD_ATT, column, o);
        nl_element_name(p->name, sizeof p->name, w->prefix, OPTINC_CARD_ATT, p->L->name,
                        s->tag == 'S' ? 0 : s->tag, 0, k);
        att_out_net(p, s, o, p->out[0]);
        take(p, 0, i);
        start(p, 1, p->out[0]);
        set(e, ATT_DB, a->att_dB);
        if (a->code >= 0) {
            set(e, ATT_CODE, a->code);
            set(e, ATT_BITS, p->L->components.attenuator.bits);
        }
        /* On every card, even where it equals 10^(-att_dB/20): whether it
         * does is decided by the last bit of an SVD, and a card's shape must
         * not differ from one BLAS to another. */
        set(e, ATT_T_TARGET, a->t_target);
        st = visit(p, err);
        put_name(w->cur[o], p->out[0]);
        w->cur_id[o] = e->id[1];
        k++;
    }
    for (int o = s->n_att; o < s->modes_out && !st; o++)
        st = put_term(p, s, column, o, 0, err);
    return st;
}

/* The fixed chains of a segmented layer (circuit.h): SPLIT fans input x
 * out along fan-1 split cards (link k taps block row k, its out1 feeds link
 * k+1, the last out1 is block row fan-1); COMBINE adds the fan block
 * columns of output y along fan-1 comb cards (link k adds block column k+1
 * on in1 to the running sum on in0).  Link k of chain x sits in column k
 * on row x.  Taps are optinc_chain_tap's, so every branch carries
 * 1/sqrt(fan).  Then the split's trim attenuators, one column more. */
static optinc_status walk_chains(step *p, const optinc_stage *s, optinc_error *err)
{
    nl_walk *w = p->w;
    int split = s->kind == OPTINC_STAGE_SPLIT, n = split ? s->modes_in : s->modes_out;
    optinc_card_kind kind = split ? OPTINC_CARD_SPLIT : OPTINC_CARD_COMB;
    const char *layer = p->L->name;
    char run[NL_NAME_MAX];
    optinc_status st = OPTINC_OK;
    for (int x = 0; x < n && !st; x++) {
        int from = split ? x : optinc_combine_source(s, x, 0);
        put_name(run, w->cur[from]);
        int run_id = w->cur_id[from];
        for (int k = 0; k + 1 < s->fan && !st; k++) {
            int end = k + 2 == s->fan;
            nl_elem *e = begin(p, kind, k, x);
            nl_grid_name(p->name, sizeof p->name, w->prefix, optinc_cards[kind].prefix, layer,
                         s->tag, k, 'r', x);
            e->net[0] = run;
            e->id[0] = run_id;
            char *out = p->out[1];
            if (split) {
                snprintf(p->out[0], NL_NAME_MAX, "%s%s_P_m%d", w->prefix, layer,
                         optinc_split_target(s, x, k));
                if (end)
                    snprintf(out, NL_NAME_MAX, "%s%s_P_m%d", w->prefix, layer,
                             optinc_split_target(s, x, k + 1));
                else
                    nl_grid_name(out, NL_NAME_MAX, w->prefix, NULL, layer, s->tag, k, 'x', x);
                start(p, 1, p->out[0]);
                start(p, 2, out);
            } else {
                if (end && p->last)
                    port_net(p, 1, x, out);
                else if (end)
                    snprintf(out, NL_NAME_MAX, "%s%s_C_m%d", w->prefix, layer, x);
                else
                    nl_grid_name(out, NL_NAME_MAX, w->prefix, NULL, layer, s->tag, k, 'x', x);
                take(p, 1, optinc_combine_source(s, x, k + 1));
                start(p, 2, out);
            }
            set(e, TAP_POWER, optinc_chain_tap(s, k));
            st = visit(p, err);
            if (split) {
                int t = optinc_split_target(s, x, k);
                put_name(w->next[t], p->out[0]);
                w->next_id[t] = e->id[1];
            }
            put_name(run, out);
            run_id = e->id[2];
        }
        int m = split ? optinc_split_target(s, x, s->fan - 1) : x;
        put_name(w->next[m], run);
        w->next_id[m] = run_id;
    }
    int modes = s->modes_out;
    memcpy(w->cur, w->next, sizeof *w->next * (size_t)modes);
    memcpy(w->cur_id, w->next_id, sizeof *w->next_id * (size_t)modes);
    if (st || !s->n_att)
        return st;
    optinc_stage trims = optinc_split_trims(s);
    int last = p->last;
    p->last = 0;
    st = walk_att(p, &trims, s->fan - 1, err);
    p->last = last;
    return st;
}

/* ------------------------------------------------------------------ entry */

static optinc_status walk_stages(nl_walk *w, step *p, optinc_error *err)
{
    const optinc_layer *L = p->L;
    int last = L->n_stages - 1;
    while (last > 0 && nl_stage_is_wire(&L->stage[last]))
        last--;
    for (int k = 0; k < L->cols; k++) {
        port_net(p, 0, k, w->cur[k]);
        w->cur_id[k] = w->n_ids++;
    }
    optinc_status st = OPTINC_OK;
    for (int s = 0; s < L->n_stages && !st; s++) {
        const optinc_stage *sg = &L->stage[s];
        p->stage = s;
        p->column0 = nl_stage_column(L, s);
        p->last = s == last;
        if (nl_stage_is_wire(sg))
            continue;
        if (w->boundary && (st = w->boundary(w, s, sg->modes_in, w->cur_id, err)))
            break;
        if (sg->kind == OPTINC_STAGE_MESH)
            st = walk_mesh(p, sg, err);
        else if (sg->kind == OPTINC_STAGE_ATT)
            st = walk_att(p, sg, 0, err);
        else
            st = walk_chains(p, sg, err);
    }
    /* The pass-through modes: input cols-K+k is a waveguide to output rows-K+k. */
    p->stage = L->n_stages;
    p->column0 = 0;
    for (int k = 0, K = L->pass_through; k < K && !st; k++) {
        int i = L->cols - K + k, o = L->rows - K + k;
        nl_elem *e = begin(p, OPTINC_CARD_THRU, 0, o);
        nl_element_name(p->name, sizeof p->name, w->prefix, OPTINC_CARD_THRU, L->name, 0, 0, o);
        port_net(p, 0, i, p->out[0]);
        port_net(p, 1, o, p->out[1]);
        e->net[0] = p->out[0];
        e->id[0] = i;
        start(p, 1, p->out[1]);
        st = visit(p, err);
        w->cur_id[o] = e->id[1];
    }
    if (!st && w->boundary)
        st = w->boundary(w, L->n_stages, L->rows, w->cur_id, err);
    return st;
}

optinc_status nl_walk_layer(nl_walk *w, optinc_error *err)
{
    const optinc_layer *L = &w->c->layers[w->layer];
    size_t widest = (size_t)(L->cols > L->rows ? L->cols : L->rows);
    for (int s = 0; s < L->n_stages; s++)   /* a segmented layer's expanded modes */
        if ((size_t)L->stage[s].modes_out > widest)
            widest = (size_t)L->stage[s].modes_out;
    w->cur = malloc(sizeof *w->cur * widest);
    w->next = malloc(sizeof *w->next * widest);
    w->cur_id = malloc(sizeof *w->cur_id * widest * 2);
    w->next_id = w->cur_id ? w->cur_id + widest : NULL;
    w->n_ids = 0;
    step *p = calloc(1, sizeof *p);
    optinc_status st = OPTINC_OK;
    if (!w->cur || !w->next || !w->cur_id || !p)
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory walking layer '%s'",
                         L->name);
    else {
        p->w = w;
        p->L = L;
        st = walk_stages(w, p, err);
    }
    OPTINC_FREE_ALL(p, w->cur, w->next, w->cur_id);
    w->cur = w->next = NULL;
    w->cur_id = w->next_id = NULL;
    return st;
}
