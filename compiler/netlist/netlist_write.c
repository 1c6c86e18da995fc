/*
 * netlist_write.c - writes a compiled circuit as a PNL netlist
 * (optinc-netlist(5)): the SPICE-like photonic netlist that is the contract
 * between the compiler and the runtime.
 *
 * What is written, and why:
 *
 *   - A `*!` header carries everything that is not a physical element but is
 *     part of the circuit: per layer its shape, gain s, mesh kind, attenuator
 *     position (which fixes the stage plan V/S/U), activation and the whole
 *     optinc_components table (the simulator's device model), plus the seed
 *     and the wavelength, the spec it was compiled from, and for an ONN what
 *     the runtime needs to use it as one (`*! onn`).  Other SPICE tools read
 *     these lines as comments.
 *   - One `.subckt layer_NAME` per layer holds its stages in propagation
 *     order (then a segmented layer's pass-through modes, one thru card
 *     each: a net cannot join two ports of a cell by itself); a top
 *     `.subckt` named after the circuit chains the layers; the
 *     top instance line and `.end` close the file.  --flatten writes the same
 *     elements into the top cell, names joined with "__".
 *   - Every number is written as %.17g writes it (optinc_num_format, the
 *     same bytes without printf), which round-trips a double exactly
 *     (and is checked to be finite first: the reader refuses NaN and inf),
 *     and quantized settings also as integer codes; a target (the unquantized
 *     or unwrapped decomposition result) is written only when it differs from
 *     the programmed value, so nothing is lost and nothing is repeated.
 *     spec -> netlist -> read -> netlist is therefore byte-identical.
 *   - Names are deterministic: an instance is named by its card's prefix
 *     (optinc_cards), layer, stage tag and grid position (MZ_L1_V_c2_r3: the
 *     MZI in column 2 on modes 3 and 4 of mesh V), and a mode that no MZI
 *     touches in a column keeps its net, so net names say where a waveguide
 *     comes from.  Nothing time- or host-dependent is written under
 *     --reproducible.
 *
 * The writer never emits `+` continuations or comments inside cells, so its
 * output is also valid for simphony's stricter grammar.
 *
 * Why the writer counts its bytes.  A file the reader refuses is no netlist:
 * two 1024 x 1024 layers wrote 319 MB, and one expanded and flattened
 * 571 MB, which every command refused to read again (256 MiB, or the
 * input limit of the run).  So the file is held to the reader's own check
 * (optinc_input_size_check with the reader's limit and the caller's
 * limits), counted as it is written, and refused, with bad-input status,
 * before it replaces anything; past the limit nothing more reaches the disk.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "compiler/core/numtext.h"
#include "compiler/netlist/dialect.h"
#include "compiler/netlist/walk.h"
#include "optinc/fileio.h"
#include "optinc/netlist.h"

#define NET_MAX NL_NAME_MAX
#define PREFIX_MAX 72        /* X_ + 63 + __ */
#define MZI_CELL "mzi2x2"    /* the cell of an expanded MZI, written once */

typedef struct writer {
    FILE *f;
    const optinc_netlist_options *opt;
    const optinc_circuit *c;
    const optinc_layer *L;
    int layer;                  /* index of L */
    char prefix[PREFIX_MAX];    /* "" or "X_<layer>__" when flattening */
} writer;

/* ------------------------------------------------------------------ cards */

/* The parameters of one card line: v[k] (or the parameter name ref[k]) when
 * bit k of `has` is set. */
typedef struct card_line {
    double v[OPTINC_CARD_PARAMS_MAX];
    const char *ref[OPTINC_CARD_PARAMS_MAX];
    unsigned has;
} card_line;

static void set_value(card_line *cl, int k, double v)
{
    cl->v[k] = v;
    cl->has |= 1u << k;
}

static void set_ref(card_line *cl, int k, const char *name)
{
    cl->ref[k] = name;
    cl->has |= 1u << k;
}

/* An element line is built in memory and handed to the stream with one
 * fwrite: printf's format parsing and its %.17g were most of the writer's
 * time on a big mesh.  optinc_num_format writes the same bytes as %.17g.
 * A line longer than the buffer goes out in pieces. */
typedef struct line_out {
    FILE *f;
    size_t n;
    char b[4096];
} line_out;

static void line_put(line_out *l, const char *s, size_t len)
{
    if (l->n + len > sizeof l->b) {
        fwrite(l->b, 1, l->n, l->f);
        l->n = 0;
        if (len > sizeof l->b) {
            fwrite(s, 1, len, l->f);
            return;
        }
    }
    memcpy(l->b + l->n, s, len);
    l->n += len;
}

static void line_str(line_out *l, const char *s) { line_put(l, s, strlen(s)); }

static void line_char(line_out *l, char c) { line_put(l, &c, 1); }

/* " key=value" with value a number (%.17g's bytes) or, when whole is set, an integer. */
static void line_param(line_out *l, const char *key, double v, int whole)
{
    char num[OPTINC_NUM_TEXT_MAX];
    line_char(l, ' ');
    line_str(l, key);
    line_char(l, '=');
    line_put(l, num, whole ? optinc_int_format(num, (long long)v) : optinc_num_format(num, v));
}

static void line_end(line_out *l)
{
    line_char(l, '\n');
    fwrite(l->b, 1, l->n, l->f);
    l->n = 0;
}

/* "NAME NET... MODEL KEY=VALUE...\n": the card's nets in pin order, then
 * the parameters cl holds in the table's write order, whole numbers as
 * integers and the others with %.17g. */
static void put_card(FILE *f, optinc_card_kind kind, const char *name, const char *const *nets,
                     const card_line *cl)
{
    const optinc_card *cd = &optinc_cards[kind];
    line_out l = {.f = f};
    line_str(&l, name);
    for (int j = 0; j < cd->n_pins; j++) {
        line_char(&l, ' ');
        line_str(&l, nets[j]);
    }
    line_char(&l, ' ');
    line_str(&l, cd->name);
    for (int i = 0; i < cd->n_params; i++) {
        int k = cd->write_order[i];
        const optinc_card_param *p = &cd->param[k];
        if (!(cl->has & (1u << k)))
            continue;
        if (cl->ref[k]) {
            line_char(&l, ' ');
            line_str(&l, p->key);
            line_char(&l, '=');
            line_str(&l, cl->ref[k]);
        } else {
            line_param(&l, p->key, cl->v[k], p->type == 'i');
        }
    }
    line_end(&l);
}

/* A phase that its value alone says everything about: no code, and a
 * target that is the value bit for bit (the walk writes a target only when
 * it differs). */
static int phase_is_plain(const optinc_phase *p)
{
    return p->code < 0 && !memcmp(&p->target_rad, &p->rad, sizeof p->rad);
}

/* The .subckt mzi2x2 takes only the two phases, so only an MZI whose two
 * phases are plain can be an instance of it; the others are written out as
 * their four cards, which carry codes and targets (as in flat files).  On
 * an element of the walk: no parameter but the two settings. */
static int any_mzi_fits_cell(const optinc_circuit *c)
{
    for (int l = 0; l < c->n_layers; l++)
        for (int s = 0; s < c->layers[l].n_stages; s++) {
            const optinc_stage *st = &c->layers[l].stage[s];
            for (int i = 0; st->kind == OPTINC_STAGE_MESH && i < st->mesh->n_mzi; i++)
                if (phase_is_plain(&st->mesh->mzi[i].theta) && phase_is_plain(&st->mesh->mzi[i].phi))
                    return 1;
        }
    return 0;
}

static int mzi_fits_cell(const nl_elem *e)
{
    return e->has == optinc_cards[OPTINC_CARD_MZI].settings;
}

/* A ps card of one of the phases of MZI element mz (the internal theta when
 * theta is set, else the external phi), or, when mz is NULL, of the mzi2x2
 * cell's parameter of that name. */
static void put_ps(writer *w, const char *name, const char *in, const char *out,
                   const nl_elem *mz, int theta)
{
    static const int from[2][4] = {
        {[PS_PHASE] = MZI_PHI, [PS_CODE] = MZI_PHI_CODE, [PS_BITS] = MZI_BITS,
         [PS_TARGET] = MZI_PHI_TARGET},
        {[PS_PHASE] = MZI_THETA, [PS_CODE] = MZI_THETA_CODE, [PS_BITS] = MZI_BITS,
         [PS_TARGET] = MZI_THETA_TARGET},
    };
    card_line cl = {.has = 0};
    const char *nets[2] = {in, out};
    if (!mz)
        set_ref(&cl, PS_PHASE, optinc_cards[OPTINC_CARD_MZI].param[from[theta][PS_PHASE]].key);
    for (int k = 0; mz && k < 4; k++)   /* the bits go with this phase's code only */
        if (mz->has & 1u << from[theta][k] && (k != PS_BITS || mz->has & 1u << from[theta][PS_CODE]))
            set_value(&cl, k, mz->v[from[theta][k]]);
    put_card(w->f, OPTINC_CARD_PS, name, nets, &cl);
}

/* The four cards of one expanded MZI (the body of .subckt mzi2x2): the
 * external phase on in0, a 50:50 coupler, the internal phase on the upper
 * arm, a 50:50 coupler.  pfx prefixes instance and internal net names; mz
 * is the MZI whose phases the two phase shifters take, or NULL in the cell,
 * which passes its parameters phi_rad and theta_rad on. */
static void put_mzi_body(writer *w, const char *pfx, const char *const nets[4], const nl_elem *mz)
{
    const char *ps = optinc_cards[OPTINC_CARD_PS].prefix, *dc = optinc_cards[OPTINC_CARD_DC].prefix;
    char name[NET_MAX + 8], ext[NET_MAX + 4], up[NET_MAX + 4], lo[NET_MAX + 4], in[NET_MAX + 4];
    snprintf(ext, sizeof ext, "%sext", pfx);
    snprintf(up, sizeof up, "%sup", pfx);
    snprintf(lo, sizeof lo, "%slo", pfx);
    snprintf(in, sizeof in, "%sint", pfx);
    card_line half = {.has = 0};
    set_value(&half, DC_COUPLING, 0.5);

    snprintf(name, sizeof name, "%s%s_ext", pfx, ps);
    put_ps(w, name, nets[0], ext, mz, 0);
    snprintf(name, sizeof name, "%s%s_a", pfx, dc);
    put_card(w->f, OPTINC_CARD_DC, name, (const char *[]){ext, nets[1], up, lo}, &half);
    snprintf(name, sizeof name, "%s%s_int", pfx, ps);
    put_ps(w, name, up, in, mz, 1);
    snprintf(name, sizeof name, "%s%s_b", pfx, dc);
    put_card(w->f, OPTINC_CARD_DC, name, (const char *[]){in, lo, nets[2], nets[3]}, &half);
}

/* An MZI under --expand-mzi: an instance of the mzi2x2 cell, or in a flat
 * file (or with codes and targets) its four cards. */
static void put_expanded_mzi(writer *w, const nl_elem *e)
{
    if (w->opt->flatten || !mzi_fits_cell(e)) {
        char pfx[NET_MAX + 2];
        snprintf(pfx, sizeof pfx, "%s__", e->name);
        put_mzi_body(w, pfx, e->net, e);
        return;
    }
    const optinc_card_param *mz = optinc_cards[OPTINC_CARD_MZI].param;
    line_out l = {.f = w->f};
    line_str(&l, e->name);
    for (int j = 0; j < 4; j++) {
        line_char(&l, ' ');
        line_str(&l, e->net[j]);
    }
    line_str(&l, " " MZI_CELL);
    line_param(&l, mz[MZI_THETA].key, e->v[MZI_THETA], 0);
    line_param(&l, mz[MZI_PHI].key, e->v[MZI_PHI], 0);
    line_end(&l);
}

/* Each element of the walk as its card line. */
static optinc_status put_element(nl_walk *wk, const nl_elem *e, optinc_error *err)
{
    writer *w = wk->ctx;
    (void)err;
    if (e->kind == OPTINC_CARD_MZI && w->opt->expand_mzi) {
        put_expanded_mzi(w, e);
        return OPTINC_OK;
    }
    card_line cl = {.has = e->has};
    memcpy(cl.v, e->v, sizeof cl.v);
    put_card(w->f, e->kind, e->name, e->net, &cl);
    return OPTINC_OK;
}

static optinc_status put_layer_elements(writer *w, optinc_error *err)
{
    nl_walk wk = {.c = w->c, .layer = w->layer, .prefix = w->prefix,
                  .top_ports = w->opt->flatten, .visit = put_element, .ctx = w};
    return nl_walk_layer(&wk, err);
}

/* "in0 .. in{n-1} out0 .. out{m-1}" */
static void put_ports(FILE *f, int n_in, int n_out)
{
    for (int k = 0; k < n_in; k++)
        fprintf(f, " in%d", k);
    for (int k = 0; k < n_out; k++)
        fprintf(f, " out%d", k);
}

/* ------------------------------------------------------------------ header */

/* The inside of a quoted string (optinc-netlist(5)): '"' and '\\' after a
 * '\\', a control byte as \\xHH, so that any path stays on its line and
 * reads back as it was. */
static void put_quoted(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else
            fputc(*p, f);
    }
}

static void put_header(const writer *w)
{
    FILE *f = w->f;
    const optinc_circuit *c = w->c;
    fputs("* PNL 1.0 photonic netlist, see optinc-netlist(5)\n", f);
    fputs("*! generator = optinc " OPTINC_VERSION "\n", f);
    if (!w->opt->reproducible) {
        char when[64];
        time_t now = time(NULL);
        struct tm tm;
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
        fprintf(f, "*! created = %s\n", when);
    }
    if (c->spec_path[0]) {
        fputs("*! spec = path=\"", f);
        put_quoted(f, c->spec_path);
        fputs("\" sha256=\"", f);
        for (int i = 0; i < 32; i++)
            fprintf(f, "%02x", c->spec_sha256[i]);
        fputs("\"\n", f);
    }
    fputs("*! mzi_convention = M = B.diag(exp(i.theta_rad),1).B.diag(exp(i.phi_rad),1), "
          "B = [[1,i],[i,1]]/sqrt(2), (in0,in1) -> (out0,out1) = modes (m,m+1)\n", f);
    fputs("*! units = phase:rad attenuation:dB loss:dB length:um wavelength:um power:dBm\n", f);
    fprintf(f, "*! circuit = seed=%llu wavelength_um=%.17g\n", (unsigned long long)c->seed,
            c->wavelength_um);
    if (c->onn.present) {
        const optinc_circuit_onn *o = &c->onn;
        fputs("*! onn =", f);
        for (int k = 0; k < nl_n_onn_keys; k++) {
            const char *at = (const char *)o + nl_onn_keys[k].offset;
            if (nl_onn_keys[k].words)
                fprintf(f, " %s=%s", nl_onn_keys[k].key, at);
            else
                fprintf(f, " %s=%d", nl_onn_keys[k].key, *(const int *)at);
        }
        for (int l = 0; l < o->n_segments; l++)
            fprintf(f, "%s%dx%d", l ? "," : " segments=", o->segments[2 * l],
                    o->segments[2 * l + 1]);
        fputc('\n', f);
    }
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        fprintf(f, "*! layer.%s = rows=%d cols=%d gain=%.17g mesh=%s attenuators=%s "
                "activation=%s approximation_error=%.17g attenuators_capped=%d\n", L->name,
                L->rows, L->cols, L->gain, optinc_mesh_kind_names[L->mesh_kind],
                optinc_att_position_names[L->attenuators],
                optinc_activation_names[L->activation], L->approximation_error,
                L->n_warnings_capped);
        if (L->seg_rows)
            fprintf(f, "*! layer.%s.segments = rows=%d cols=%d", L->name, L->seg_rows,
                    L->seg_cols);
        if (L->pass_through)
            fprintf(f, " pass_through=%d", L->pass_through);
        if (L->seg_rows)
            fputc('\n', f);
        if (L->input_scale) {
            fprintf(f, "*! layer.%s.input_scale =", L->name);
            for (int k = 0; k < L->cols - L->pass_through; k++)
                fprintf(f, " in%d=%.17g", k, L->input_scale[k]);
            fputc('\n', f);
        }
        const char *section = NULL;
        for (int k = 0; k < optinc_component_n_fields; k++) {
            const optinc_component_field *fd = &optinc_component_fields[k];
            const char *at = (const char *)&L->components + fd->offset;
            if (!section || strcmp(section, fd->section)) {
                fprintf(f, "%s*! layer.%s.%s =", section ? "\n" : "", L->name, fd->section);
                section = fd->section;
            }
            if (fd->type == 'i')
                fprintf(f, " %s=%d", fd->key, *(const int *)at);
            else
                fprintf(f, " %s=%.17g", fd->key, *(const double *)at);
        }
        fputc('\n', f);
    }
}

/* ------------------------------------------------------------------ checks */

/* Names the writer builds from the circuit must be PNL names and must not
 * collide with a card or with the cells it writes itself. */
static optinc_status check_names(const optinc_circuit *c, optinc_error *err)
{
    if (!optinc_netlist_is_name(c->name))
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "circuit name '%s' is not a PNL name ([A-Za-z_][A-Za-z0-9_]*); "
                           "rename it in the spec", c->name);
    if (optinc_card_find(c->name, strlen(c->name)) >= 0 || !strcmp(c->name, MZI_CELL))
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "circuit name '%s' is a PNL card or cell name; rename it in the "
                           "spec", c->name);
    if (!strncmp(c->name, "layer_", 6))
        for (int i = 0; i < c->n_layers; i++)
            if (!strcmp(c->name + 6, c->layers[i].name))
                return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                                   "circuit name '%s' is also the cell name of layer '%s'; "
                                   "rename one of them", c->name, c->layers[i].name);
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        if (!optinc_netlist_is_name(L->name))
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "layer name '%s' is not a PNL name ([A-Za-z_][A-Za-z0-9_]*)",
                               L->name);
        if (i > 0 && L->cols != c->layers[i - 1].rows)
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "layer '%s' takes %d modes but the layer before gives %d",
                               L->name, L->cols, c->layers[i - 1].rows);
    }
    return OPTINC_OK;
}

/* Bad input unless v, the value of key in layer L, is finite: a netlist
 * cannot hold a NaN or an infinity (the reader refuses them), and the
 * spec's numbers are what made it. */
static optinc_status need_finite(const optinc_layer *L, const char *key, double v,
                                 optinc_error *err)
{
    if (isfinite(v))
        return OPTINC_OK;
    return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "layer '%s': %s is %g, which a netlist "
                       "cannot hold (the reader refuses NaN and infinities); nothing was "
                       "written", L->name, key, v);
}

static optinc_status need_finite_phase(const optinc_layer *L, const optinc_phase *p,
                                       optinc_error *err)
{
    optinc_status st = need_finite(L, "a programmed phase", p->rad, err);
    return st ? st : need_finite(L, "a target phase", p->target_rad, err);
}

/* Every number the writer prints is finite, so that what it writes reads
 * back; checked before the first byte, so that no half file is left. */
static optinc_status check_finite(const optinc_circuit *c, optinc_error *err)
{
    optinc_status st = OPTINC_OK;
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        if ((st = need_finite(L, "gain", L->gain, err))
            || (st = need_finite(L, "approximation_error", L->approximation_error, err)))
            return st;
        for (int k = 0; k < optinc_component_n_fields; k++) {
            const optinc_component_field *fd = &optinc_component_fields[k];
            const char *at = (const char *)&L->components + fd->offset;
            if (fd->type != 'i' && (st = need_finite(L, fd->key, *(const double *)at, err)))
                return st;
        }
        for (int s = 0; s < L->n_stages; s++) {
            const optinc_stage *sg = &L->stage[s];
            for (int k = 0; sg->kind == OPTINC_STAGE_ATT && k < sg->n_att; k++)
                if ((st = need_finite(L, "att_dB", sg->att[k].att_dB, err))
                    || (st = need_finite(L, "t_target", sg->att[k].t_target, err)))
                    return st;
            if (sg->kind != OPTINC_STAGE_MESH)
                continue;
            for (int k = 0; k < sg->mesh->n_mzi; k++)
                if ((st = need_finite_phase(L, &sg->mesh->mzi[k].theta, err))
                    || (st = need_finite_phase(L, &sg->mesh->mzi[k].phi, err)))
                    return st;
            for (int m = 0; m < sg->mesh->modes; m++)
                if ((st = need_finite_phase(L, &sg->mesh->screen[m], err)))
                    return st;
        }
    }
    if (!isfinite(c->wavelength_um))
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "the wavelength is %g, which a "
                           "netlist cannot hold; nothing was written", c->wavelength_um);
    return OPTINC_OK;
}

/* ------------------------------------------------------------------ entry */

optinc_status optinc_netlist_write_stream(const optinc_circuit *c, FILE *f,
                                          const optinc_netlist_options *opt,
                                          optinc_error *err)
{
    static const optinc_netlist_options defaults;
    if (!opt)
        opt = &defaults;
    optinc_status st = check_names(c, err);
    if (st || (st = check_finite(c, err)))
        return st;
    if (c->n_layers < 1)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "circuit '%s' has no layers; a netlist needs at least one", c->name);
    writer w = {.f = f, .opt = opt, .c = c};
    put_header(&w);
    if (opt->expand_mzi && !opt->flatten && any_mzi_fits_cell(c)) {
        const optinc_card *mz = &optinc_cards[OPTINC_CARD_MZI];
        fprintf(f, "\n.subckt %s", MZI_CELL);
        for (int j = 0; j < mz->n_pins; j++)
            fprintf(f, " %s", mz->pin[j]);
        fprintf(f, " %s=0 %s=0\n", mz->param[MZI_THETA].key, mz->param[MZI_PHI].key);
        put_mzi_body(&w, "", optinc_cards[OPTINC_CARD_MZI].pin, NULL);
        fprintf(f, ".ends %s\n", MZI_CELL);
    }
    int n_in = c->layers[0].cols, n_out = c->layers[c->n_layers - 1].rows;
    if (!opt->flatten) {
        for (w.layer = 0; w.layer < c->n_layers; w.layer++) {
            w.L = &c->layers[w.layer];
            fprintf(f, "\n.subckt layer_%s", w.L->name);
            put_ports(f, w.L->cols, w.L->rows);
            fputc('\n', f);
            if ((st = put_layer_elements(&w, err)))
                return st;
            fprintf(f, ".ends layer_%s\n", w.L->name);
        }
    }
    fprintf(f, "\n.subckt %s", c->name);
    put_ports(f, n_in, n_out);
    fputc('\n', f);
    for (w.layer = 0; w.layer < c->n_layers; w.layer++) {
        w.L = &c->layers[w.layer];
        if (opt->flatten) {
            snprintf(w.prefix, sizeof w.prefix, "X_%s__", w.L->name);
            if ((st = put_layer_elements(&w, err)))
                return st;
            continue;
        }
        char net[NET_MAX];
        fprintf(f, "X_%s", w.L->name);
        for (int k = 0; k < w.L->cols; k++) {
            nl_top_net(c, w.layer, 0, k, net, sizeof net);
            fprintf(f, " %s", net);
        }
        for (int k = 0; k < w.L->rows; k++) {
            nl_top_net(c, w.layer, 1, k, net, sizeof net);
            fprintf(f, " %s", net);
        }
        fprintf(f, " layer_%s\n", w.L->name);
    }
    fprintf(f, ".ends %s\n\n%s", c->name, c->name);
    put_ports(f, n_in, n_out);
    fprintf(f, " %s\n.end\n", c->name);
    if (ferror(f))
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "cannot write the netlist (I/O error)");
    return OPTINC_OK;
}

typedef struct write_job {
    const optinc_circuit *c;
    const optinc_netlist_options *opt;
} write_job;

static optinc_status write_body(FILE *f, const void *ctx, optinc_error *err)
{
    const write_job *job = ctx;
    return optinc_netlist_write_stream(job->c, f, job->opt, err);
}

/* What to do about a netlist past the reader's limit: a smaller form, when
 * one was not asked for, or fewer cards. */
static const char *smaller_form(const optinc_netlist_options *opt)
{
    if (opt && opt->expand_mzi && opt->flatten)
        return "leave out --expand-mzi and --flatten (the hierarchical form is the smallest)";
    if (opt && opt->expand_mzi)
        return "leave out --expand-mzi (the hierarchical form is the smallest)";
    if (opt && opt->flatten)
        return "leave out --flatten (the hierarchical form is the smallest)";
    return "split the circuit's layers over several specs";
}

optinc_status optinc_netlist_add(optinc_outs *set, const optinc_circuit *c, const char *path,
                                 const optinc_netlist_options *opt, optinc_error *err)
{
    write_job job = {c, opt};
    const optinc_limits *lim = opt ? opt->limits : NULL;
    size_t bytes;
    optinc_status st = optinc_outs_write_max(set, path,
                                             optinc_input_bytes_max(OPTINC_NETLIST_BYTES_MAX,
                                                                    lim),
                                             write_body, &job, &bytes, err);
    optinc_error why;
    if (st != OPTINC_EINPUT ||
        !optinc_input_size_check(path, "netlist", bytes, OPTINC_NETLIST_BYTES_MAX, lim, &why))
        return st;
    /* past the reader's own limit no setting helps; under it, raising the
     * input limit (the message says how) is the other way */
    int fixed = bytes > (size_t)OPTINC_NETLIST_BYTES_MAX;
    char mib[32] = "";
    if (bytes >= 1 << 20)
        snprintf(mib, sizeof mib, " (%.0f MiB)", (double)bytes / (1 << 20));
    return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "the netlist would be %zu bytes%s, more "
                       "than the netlist reader takes, so nothing was written: %s%s; %s%s",
                       bytes, mib, why.message, fixed ? " (OPTINC_NETLIST_BYTES_MAX, which no "
                       "setting raises)" : "", fixed ? "" : "or ", smaller_form(opt));
}

optinc_status optinc_netlist_write(const optinc_circuit *c, const char *path,
                                   const optinc_netlist_options *opt, optinc_error *err)
{
    optinc_outs set = {0};
    return optinc_outs_end(&set, optinc_netlist_add(&set, c, path, opt, err), err);
}
