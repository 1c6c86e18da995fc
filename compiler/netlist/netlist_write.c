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
 *     and the wavelength.  Other SPICE tools read these lines as comments.
 *   - One `.subckt layer_NAME` per layer holds its stages in propagation
 *     order; a top `.subckt` named after the circuit chains the layers; the
 *     top instance line and `.end` close the file.  --flatten writes the same
 *     elements into the top cell, names joined with "__".
 *   - Every number is written with %.17g, which round-trips a double exactly,
 *     and quantized settings also as integer codes; a target (the unquantized
 *     or unwrapped decomposition result) is written only when it differs from
 *     the programmed value, so nothing is lost and nothing is repeated.
 *     spec -> netlist -> read -> netlist is therefore byte-identical.
 *   - Names are deterministic (grid positions, formats.md §4.4), and a mode
 *     that no MZI touches in a column keeps its net, so net names say where a
 *     waveguide comes from.  Nothing time- or host-dependent is written under
 *     --reproducible.
 *
 * The writer never emits `+` continuations or comments inside cells, so its
 * output is also valid for simphony's stricter grammar.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "optinc/fileio.h"
#include "optinc/netlist.h"

#define NET_MAX 256          /* > X_ + 63 + __ + MZ_ + 63 + _V_c<int>_r<int> + __PS_ext */
#define PREFIX_MAX 72        /* X_ + 63 + __ */

typedef struct writer {
    FILE *f;
    const optinc_netlist_options *opt;
    const optinc_circuit *c;
    const optinc_layer *L;
    int layer;                  /* index of L */
    char prefix[PREFIX_MAX];    /* "" or "X_<layer>__" when flattening */
    char (*cur)[NET_MAX];       /* the net each mode is on */
} writer;

/* ------------------------------------------------------------------ names */

/* Net of mode k at the input (out = 0) or output (out = 1) of layer i, as
 * seen from the top cell: the circuit's ports at the ends, "<layer>_out<k>"
 * between two layers. */
static void top_net(const optinc_circuit *c, int i, int out, int k, char *buf)
{
    int j = out ? i : i - 1;    /* the layer whose output this net is */
    if (j < 0)
        snprintf(buf, NET_MAX, "in%d", k);
    else if (j == c->n_layers - 1)
        snprintf(buf, NET_MAX, "out%d", k);
    else
        snprintf(buf, NET_MAX, "%s_out%d", c->layers[j].name, k);
}

/* Port k of the current layer cell: its own in/out port, or when flattening
 * the top-cell net it stands for. */
static void port_net(const writer *w, int out, int k, char *buf)
{
    if (w->opt->flatten)
        top_net(w->c, w->layer, out, k, buf);
    else
        snprintf(buf, NET_MAX, "%s%d", out ? "out" : "in", k);
}

/* ------------------------------------------------------------------ params */

/* A target is written only when it differs, bit for bit, from the value. */
static int target_is_value(const optinc_phase *p)
{
    return !memcmp(&p->target_rad, &p->rad, sizeof p->rad);
}

/* " RAD=x [CODE=c] [TARGET=t]" of one programmed phase. */
static void put_phase(FILE *f, const char *rad, const char *code, const char *target,
                      const optinc_phase *p)
{
    fprintf(f, " %s=%.17g", rad, p->rad);
    if (p->code >= 0)
        fprintf(f, " %s=%d", code, p->code);
    if (!target_is_value(p))
        fprintf(f, " %s=%.17g", target, p->target_rad);
}

/* A phase that " RAD=x" alone says everything about: no code, target = x. */
static int phase_is_plain(const optinc_phase *p)
{
    return p->code < 0 && target_is_value(p);
}

/* The .subckt mzi2x2 takes only the two phases, so only an MZI whose two
 * phases are plain can be an instance of it; the others are written out as
 * their four cards, which carry codes and targets (as in flat files). */
static int mzi_fits_cell(const optinc_mzi *z)
{
    return phase_is_plain(&z->theta) && phase_is_plain(&z->phi);
}

static int any_mzi_fits_cell(const optinc_circuit *c)
{
    for (int l = 0; l < c->n_layers; l++)
        for (int s = 0; s < c->layers[l].n_stages; s++) {
            const optinc_stage *st = &c->layers[l].stage[s];
            for (int i = 0; st->kind == OPTINC_STAGE_MESH && i < st->mesh->n_mzi; i++)
                if (mzi_fits_cell(&st->mesh->mzi[i]))
                    return 1;
        }
    return 0;
}

static void put_ps_params(const writer *w, const optinc_phase *p)
{
    put_phase(w->f, "phase_rad", "code", "phase_target_rad", p);
    if (p->code >= 0)
        fprintf(w->f, " bits=%d", w->L->components.phase_shifter.bits);
}

/* ------------------------------------------------------------------ cards */

/* The four cards of one expanded MZI (the body of .subckt mzi2x2): the
 * external phase on in0, a 50:50 coupler, the internal phase on the upper
 * arm, a 50:50 coupler.  pfx prefixes instance and internal net names;
 * phi/theta print the two phase shifters' parameters. */
static void put_mzi_body(writer *w, const char *pfx, const char *const nets[4],
                         const optinc_phase *theta, const optinc_phase *phi)
{
    FILE *f = w->f;
    fprintf(f, "%sPS_ext %s %sext ps", pfx, nets[0], pfx);
    if (phi)
        put_ps_params(w, phi);
    else
        fputs(" phase_rad=phi_rad", f);
    fprintf(f, "\n%sDC_a %sext %s %sup %slo dc coupling=0.5\n", pfx, pfx, nets[1], pfx, pfx);
    fprintf(f, "%sPS_int %sup %sint ps", pfx, pfx, pfx);
    if (theta)
        put_ps_params(w, theta);
    else
        fputs(" phase_rad=theta_rad", f);
    fprintf(f, "\n%sDC_b %sint %slo %s %s dc coupling=0.5\n", pfx, pfx, pfx, nets[2], nets[3]);
}

static void put_mzi(writer *w, const optinc_stage *s, const optinc_mzi *z)
{
    FILE *f = w->f;
    char name[NET_MAX], out[2][NET_MAX];
    int m = z->mode;
    snprintf(name, sizeof name, "%sMZ_%s_%c_c%d_r%d", w->prefix, w->L->name, s->tag, z->column, m);
    for (int j = 0; j < 2; j++)
        snprintf(out[j], NET_MAX, "%s%s_%c_c%d_m%d", w->prefix, w->L->name, s->tag, z->column,
                 m + j);
    const char *nets[4] = {w->cur[m], w->cur[m + 1], out[0], out[1]};
    if (w->opt->expand_mzi && (w->opt->flatten || !mzi_fits_cell(z))) {
        char pfx[NET_MAX + 2];
        snprintf(pfx, sizeof pfx, "%s__", name);
        put_mzi_body(w, pfx, nets, &z->theta, &z->phi);
    } else if (w->opt->expand_mzi) {
        fprintf(f, "%s %s %s %s %s mzi2x2 theta_rad=%.17g phi_rad=%.17g\n", name, nets[0],
                nets[1], nets[2], nets[3], z->theta.rad, z->phi.rad);
    } else {
        fprintf(f, "%s %s %s %s %s mzi", name, nets[0], nets[1], nets[2], nets[3]);
        put_phase(f, "theta_rad", "theta_code", "theta_target_rad", &z->theta);
        put_phase(f, "phi_rad", "phi_code", "phi_target_rad", &z->phi);
        if (z->theta.code >= 0 || z->phi.code >= 0)
            fprintf(f, " bits=%d", w->L->components.phase_shifter.bits);
        fputc('\n', f);
    }
    memcpy(w->cur[m], out[0], NET_MAX);
    memcpy(w->cur[m + 1], out[1], NET_MAX);
}

/* A mesh: its MZIs column by column, then the output phase screen, one ps
 * per mode in column n_columns. */
static void put_mesh(writer *w, const optinc_stage *s, int last)
{
    const optinc_mesh *M = s->mesh;
    for (int i = 0; i < M->n_mzi; i++)
        put_mzi(w, s, &M->mzi[i]);
    for (int m = 0; m < M->modes; m++) {
        char out[NET_MAX];
        if (last)
            port_net(w, 1, m, out);
        else
            snprintf(out, sizeof out, "%s%s_%c_c%d_m%d", w->prefix, w->L->name, s->tag,
                     M->n_columns, m);
        fprintf(w->f, "%sPS_%s_%c_c%d_r%d %s %s ps", w->prefix, w->L->name, s->tag,
                M->n_columns, m, w->cur[m], out);
        put_ps_params(w, &M->screen[m]);
        fputc('\n', w->f);
        memcpy(w->cur[m], out, NET_MAX);
    }
}

/* An attenuator column: channel k joins input mode k to output mode k;
 * extra inputs end in a term, extra (unlit) outputs start at a term. */
static void put_att(writer *w, const optinc_stage *s, int last)
{
    FILE *f = w->f;
    const char *L = w->L->name;
    int extra = s->modes_in > s->modes_out ? s->modes_in : s->modes_out;
    for (int k = 0; k < extra; k++) {
        char out[NET_MAX];
        if (k >= s->n_att && k < s->modes_in) {
            fprintf(f, "%sTM_%s_r%d %s term\n", w->prefix, L, k, w->cur[k]);
            continue;
        }
        if (last)
            port_net(w, 1, k, out);
        else
            snprintf(out, sizeof out, "%s%s_S_m%d", w->prefix, L, k);
        if (k >= s->n_att) {
            fprintf(f, "%sTM_%s_r%d %s term\n", w->prefix, L, k, out);
        } else {
            const optinc_att *a = &s->att[k];
            fprintf(f, "%sAT_%s_r%d %s %s att att_dB=%.17g", w->prefix, L, k, w->cur[k], out,
                    a->att_dB);
            if (a->code >= 0)
                fprintf(f, " code=%d bits=%d", a->code, w->L->components.attenuator.bits);
            if (memcmp(&a->t_target, &a->t, sizeof a->t))
                fprintf(f, " t_target=%.17g", a->t_target);
            fputc('\n', f);
        }
        memcpy(w->cur[k], out, NET_MAX);
    }
}

static void put_layer_elements(writer *w)
{
    const optinc_layer *L = w->L;
    for (int k = 0; k < L->cols; k++)
        port_net(w, 0, k, w->cur[k]);
    for (int s = 0; s < L->n_stages; s++) {
        int last = s == L->n_stages - 1;
        if (L->stage[s].kind == OPTINC_STAGE_MESH)
            put_mesh(w, &L->stage[s], last);
        else
            put_att(w, &L->stage[s], last);
    }
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
        for (const char *p = c->spec_path; *p; p++) {
            if (*p == '"' || *p == '\\')
                fputc('\\', f);
            fputc(*p, f);
        }
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
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        fprintf(f, "*! layer.%s = rows=%d cols=%d gain=%.17g mesh=%s attenuators=%s "
                "activation=%s approximation_error=%.17g attenuators_capped=%d\n", L->name,
                L->rows, L->cols, L->gain, optinc_mesh_kind_names[L->mesh_kind],
                optinc_att_position_names[L->attenuators],
                optinc_activation_names[L->activation], L->approximation_error,
                L->n_warnings_capped);
        const char *section = NULL;
        for (int k = 0; k < optinc_netlist_n_fields; k++) {
            const optinc_netlist_field *fd = &optinc_netlist_fields[k];
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
    static const char *const reserved[] = {"mzi", "ps", "att", "dc", "wg", "cross", "pd",
                                           "src", "term", "mzi2x2"};
    if (!optinc_netlist_is_name(c->name))
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "circuit name '%s' is not a PNL name ([A-Za-z_][A-Za-z0-9_]*); "
                           "rename it in the spec", c->name);
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (!strcmp(c->name, reserved[i]))
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "circuit name '%s' is a PNL card or cell name; rename it in "
                               "the spec", c->name);
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

/* ------------------------------------------------------------------ entry */

optinc_status optinc_netlist_write_stream(const optinc_circuit *c, FILE *f,
                                          const optinc_netlist_options *opt,
                                          optinc_error *err)
{
    static const optinc_netlist_options defaults;
    if (!opt)
        opt = &defaults;
    optinc_status st = check_names(c, err);
    if (st)
        return st;
    if (c->n_layers < 1)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "circuit '%s' has no layers; a netlist needs at least one", c->name);
    int widest = 1;
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        widest = L->rows > widest ? L->rows : widest;
        widest = L->cols > widest ? L->cols : widest;
    }
    writer w = {.f = f, .opt = opt, .c = c};
    w.cur = malloc(sizeof *w.cur * (size_t)widest);
    if (!w.cur)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory writing the netlist");

    put_header(&w);
    if (opt->expand_mzi && !opt->flatten && any_mzi_fits_cell(c)) {
        static const char *const ports[4] = {"in0", "in1", "out0", "out1"};
        fputs("\n.subckt mzi2x2 in0 in1 out0 out1 theta_rad=0 phi_rad=0\n", f);
        put_mzi_body(&w, "", ports, NULL, NULL);
        fputs(".ends mzi2x2\n", f);
    }
    int n_in = c->layers[0].cols, n_out = c->layers[c->n_layers - 1].rows;
    if (!opt->flatten) {
        for (w.layer = 0; w.layer < c->n_layers; w.layer++) {
            w.L = &c->layers[w.layer];
            fprintf(f, "\n.subckt layer_%s", w.L->name);
            put_ports(f, w.L->cols, w.L->rows);
            fputc('\n', f);
            put_layer_elements(&w);
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
            put_layer_elements(&w);
            continue;
        }
        char net[NET_MAX];
        fprintf(f, "X_%s", w.L->name);
        for (int k = 0; k < w.L->cols; k++) {
            top_net(c, w.layer, 0, k, net);
            fprintf(f, " %s", net);
        }
        for (int k = 0; k < w.L->rows; k++) {
            top_net(c, w.layer, 1, k, net);
            fprintf(f, " %s", net);
        }
        fprintf(f, " layer_%s\n", w.L->name);
    }
    fprintf(f, ".ends %s\n\n%s", c->name, c->name);
    put_ports(f, n_in, n_out);
    fprintf(f, " %s\n.end\n", c->name);
    free(w.cur);
    if (ferror(f))
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "cannot write the netlist (I/O error)");
    return OPTINC_OK;
}

optinc_status optinc_netlist_write(const optinc_circuit *c, const char *path,
                                   const optinc_netlist_options *opt, optinc_error *err)
{
    optinc_out o;
    optinc_status st = optinc_out_open(&o, path, err);
    if (st)
        return st;
    char *buf = malloc(1 << 20);    /* fewer write(2) calls for big meshes */
    if (buf)
        setvbuf(o.f, buf, _IOFBF, 1 << 20);
    st = optinc_netlist_write_stream(c, o.f, opt, err);
    if (st)
        optinc_out_abort(&o);
    else
        st = optinc_out_commit(&o, err);
    free(buf);
    return st;
}
