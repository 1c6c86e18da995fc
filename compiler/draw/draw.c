/*
 * draw.c - Graphviz drawings of compiled circuits (draw.h, optinc-draw(1)).
 * This is the only file that calls libcgraph and libgvc.
 *
 * optinc computes the geometry and Graphviz only draws.  A layer is laid
 * out left to right, stage by stage (V mesh, attenuator column S, U mesh),
 * on a grid: node x = column * 90 pt, y = (N-1-mode) * 36 pt,
 * an MZI at the midpoint of its two modes.  The `nop` engine (neato -n) takes
 * these positions as they are, so layout is linear in the number of MZIs,
 * modes never get permuted (dot permutes them and needs minutes at N = 256),
 * and the output is deterministic.  Wires are straight (splines=false) and
 * drawn first (outputorder=edgesfirst), so boxes sit on top of them.
 *
 * Full detail has one node per input, MZI, output-screen phase shifter,
 * attenuator, output and mode end (a `term` point where a mode stops or
 * starts inside the layer), wired with compass ports (nw/sw in, ne/se out).
 * MZIs, screen phase shifters and attenuators are named with the prefixes
 * the netlist gives their cards (optinc_cards); an MZI's and an attenuator's
 * node has the name of its card in the netlist.  A mode end is named by its
 * stage and mode (T_L_S_m3), as one mode may end or start before each stage.
 * The heat-map overview keeps only the MZIs and attenuators as small filled
 * boxes on a tighter grid and has no edges: at N = 256 it is about 65k boxes
 * that render in seconds, where the full-detail PNG would exceed cairo's and
 * gd's bitmap limits.
 *
 * Graphviz plugins.  The drawer preloads, with gvContextPlugins(), only the
 * core (svg, dot), neato_layout (nop), dot_layout (layer graph) and gd (png)
 * plugins of the installed Graphviz, and leaves out every textlayout plugin.
 * Text is then measured with Graphviz's built-in font metrics, so SVG and
 * dot files do not depend on the fonts a machine has (pango's metrics move
 * labels by half a point from one font set to the next), and a context starts
 * without initialising fontconfig.  gd draws PNG text with whatever font it
 * finds, or its built-in bitmap font.  When the caller asks for Graphviz's
 * configured plugins (OPTINC_DRAWER_CONFIGURED: optinc draw does when
 * GVBINDIR is set, the user having chosen a plugin set) or a plugin cannot
 * be loaded, the configured plugin set of gvContext() is used instead.  Either way there is one GVC_t per process.
 *
 * Graphviz's API drifts between releases (Debian 12's 2.42 takes char *, later
 * releases const char *), so the few calls live behind the gv_* wrappers.
 * Every file is rendered into a temporary file of optinc_out_*, and the
 * files of one call are renamed into place together when all are complete
 * (a set of outputs), so no file is ever partial and a failure leaves none
 * of them.  Graphs are freed in the order gvFreeLayout -> agclose, with
 * gvFreeContext last.
 */
#define _GNU_SOURCE     /* dladdr */
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>
#include "compiler/core/freeall.h"
#include "compiler/draw/plan.h"
#include "optinc/draw.h"
#include "optinc/fileio.h"
#include "optinc/netlist.h"

/* ------------------------------------------------------------ the drawer */

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OPTINC_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(OPTINC_ASAN)
/* LeakSanitizer's hook for built-in suppressions (sanitizer/lsan_interface.h).
 * Graphviz 2.42 leaks inside its layout engines (neato's init_nop, dot's rank
 * assignment), in gvconfig, and through fontconfig/pango when the configured
 * plugins are used.  Only stacks through libgvc and the plugins are
 * suppressed: a graph we forget to agclose is allocated in libcgraph from our
 * own code and is still reported. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libgvc.so\nleak:libgvplugin_\nleak:libfontconfig.so\n"
           "leak:libpango\nleak:libglib-2.0.so\nleak:libcairo.so\n";
}
#endif

static const struct plugin_lib {
    const char *file, *symbol;
} plugin_libs[] = {
    {"libgvplugin_core.so.6", "gvplugin_core_LTX_library"},
    {"libgvplugin_neato_layout.so.6", "gvplugin_neato_layout_LTX_library"},
    {"libgvplugin_dot_layout.so.6", "gvplugin_dot_layout_LTX_library"},
    {"libgvplugin_gd.so.6", "gvplugin_gd_LTX_library"},
};
#define N_PLUGIN_LIBS (sizeof plugin_libs / sizeof plugin_libs[0])

struct optinc_drawer {
    GVC_t *gvc;
    gvplugin_library_t lib[N_PLUGIN_LIBS];
    lt_symlist_t syms[N_PLUGIN_LIBS + 1];
    agerrlevel_t old_level;
    agusererrf old_errf;
    int verbose;
    char **written;
    int n_written, cap_written;
    optinc_outs *staged;    /* the set the call under way stages its drawings into */
};

/* Graphviz reports through one process-wide callback without a user pointer,
 * so its messages are collected here (one GVC_t per process anyway). */
static char gv_msg[1024];

static int gv_collect(char *s)
{
    size_t n = strlen(gv_msg);
    snprintf(gv_msg + n, sizeof gv_msg - n, "%s", s);
    return 0;
}

/* The last Graphviz message as one line, for an error message. */
static const char *gv_message(void)
{
    size_t n = strlen(gv_msg);
    while (n && (gv_msg[n - 1] == '\n' || gv_msg[n - 1] == ' '))
        gv_msg[--n] = '\0';
    for (char *p = gv_msg; *p; p++)
        if (*p == '\n')
            *p = ' ';
    return n ? gv_msg : "no message (run with --verbose)";
}

/* The plugin libraries stay loaded until the process exits: Graphviz keeps
 * pointers into them (gd's font cache, the layout engines' statics) past
 * gvFreeContext, and one context per process is all we ever make. */
static void unload_plugins(optinc_drawer *d)
{
    for (size_t i = 0; i < N_PLUGIN_LIBS; i++) {
        free(d->lib[i].apis);
        d->lib[i].apis = NULL;
    }
}

/* Loads the minimal plugin set into d->syms; 0 on success. */
static int load_plugins(optinc_drawer *d)
{
    Dl_info info;
    char dir[1024], path[1100];
    if (!dladdr((void *)gvContext, &info) || !info.dli_fname
        || snprintf(dir, sizeof dir, "%s", info.dli_fname) >= (int)sizeof dir)
        return -1;
    char *slash = strrchr(dir, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    for (size_t i = 0; i < N_PLUGIN_LIBS; i++) {
        snprintf(path, sizeof path, "%s/graphviz/%s", dir, plugin_libs[i].file);
        void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        const gvplugin_library_t *L = dl ? dlsym(dl, plugin_libs[i].symbol) : NULL;
        if (!L)
            goto fail;
        int n = 0;
        while (L->apis[n].types)
            n++;
        gvplugin_api_t *apis = calloc((size_t)n + 1, sizeof *apis);
        if (!apis)
            goto fail;
        for (int k = 0, j = 0; k < n; k++)
            if (L->apis[k].api != API_textlayout)
                apis[j++] = L->apis[k];
        d->lib[i].packagename = L->packagename;
        d->lib[i].apis = apis;
        d->syms[i].name = plugin_libs[i].symbol;
        d->syms[i].address = &d->lib[i];
    }
    return 0;
fail:
    unload_plugins(d);
    return -1;
}

optinc_status optinc_drawer_new(unsigned flags, optinc_drawer **out, optinc_error *err)
{
    int verbose = (flags & OPTINC_DRAWER_VERBOSE) != 0;
    optinc_drawer *d = calloc(1, sizeof *d);
    if (!d)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    d->verbose = verbose;
    d->old_level = agseterr(verbose ? AGWARN : AGERR);
    d->old_errf = verbose ? NULL : agseterrf(gv_collect);
    gv_msg[0] = '\0';
    d->gvc = !(flags & OPTINC_DRAWER_CONFIGURED) && load_plugins(d) == 0
                 ? gvContextPlugins(d->syms, 0) : gvContext();
    if (!d->gvc) {
        optinc_drawer_free(d);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0,
                           "cannot start Graphviz (%s); check that libgvc6 is installed",
                           gv_message());
    }
    *out = d;
    return OPTINC_OK;
}

/* Drops the names from the n-th on. */
static void forget(optinc_drawer *d, int n)
{
    while (d->n_written > n)
        free(d->written[--d->n_written]);
}

void optinc_drawer_free(optinc_drawer *d)
{
    if (!d)
        return;
    if (d->gvc)
        gvFreeContext(d->gvc);
    unload_plugins(d);
    agseterr(d->old_level);
    if (!d->verbose)
        agseterrf(d->old_errf);
    forget(d, 0);
    free(d->written);
    free(d);
}

int optinc_drawer_n_written(const optinc_drawer *d)
{
    return d->n_written;
}

const char *optinc_drawer_written(const optinc_drawer *d, int i)
{
    return i >= 0 && i < d->n_written ? d->written[i] : NULL;
}

/* Notes path as the next name written; -1 when out of memory. */
static int remember(optinc_drawer *d, const char *path)
{
    if (d->n_written == d->cap_written) {
        int cap = d->cap_written ? 2 * d->cap_written : 16;
        char **w = realloc(d->written, (size_t)cap * sizeof *w);
        if (!w)
            return -1;
        d->written = w;
        d->cap_written = cap;
    }
    char *copy = strdup(path);
    if (!copy)
        return -1;
    d->written[d->n_written++] = copy;
    return 0;
}

/* ------------------------------------------------------ Graphviz wrappers */

static Agsym_t *gv_attr(Agraph_t *g, int kind, const char *name, const char *dflt)
{
    return agattr(g, kind, (char *)name, (char *)dflt);
}

static void gv_set(void *obj, Agsym_t *sym, const char *value)
{
    agxset(obj, sym, (char *)value);
}

static Agnode_t *gv_node(Agraph_t *g, const char *name)
{
    return agnode(g, (char *)name, 1);
}

/* Renders the laid-out g in one format straight into an atomic output file.
 * (gvRenderData would hold the whole file in memory, grown one page per
 * realloc: quadratic copying for the 20-50 MB SVGs of big layers.) */
static optinc_status render(optinc_drawer *d, Agraph_t *g, const char *format, const char *path,
                            optinc_error *err)
{
    optinc_out o;
    optinc_status st = optinc_out_open(&o, path, err);
    if (st)
        return st;
    gv_msg[0] = '\0';
    if (gvRender(d->gvc, g, format, o.f) != 0) {
        optinc_out_abort(&o);
        return optinc_fail(err, OPTINC_ERUN, path, 0, 0,
                           "Graphviz could not render %s: %s; check the Graphviz install "
                           "(libgvc6) or pick another --format", format, gv_message());
    }
    st = optinc_outs_add(d->staged, &o, err);
    if (!st && remember(d, path))   /* a name for each staged file, in order */
        st = optinc_fail(err, OPTINC_ERUN, path, 0, 0, "out of memory drawing '%s'", path);
    return st;
}

/* Lays g out with engine, writes DIR/STEM.EXT for every format in the mask,
 * frees g. */
static optinc_status finish(optinc_drawer *d, Agraph_t *g, const char *engine, unsigned mask,
                            const char *dir, const char *stem, optinc_error *err)
{
    gv_msg[0] = '\0';
    if (gvLayout(d->gvc, g, engine) != 0) {
        optinc_status st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0,
                                       "Graphviz layout '%s' of %s failed: %s", engine, stem,
                                       gv_message());
        agclose(g);
        return st;
    }
    optinc_status st = OPTINC_OK;
    for (size_t i = 0; i < DRAW_N_FORMATS && !st; i++) {
        if (!(mask & draw_formats[i].bit))
            continue;
        char path[1024];
        if (snprintf(path, sizeof path, "%s/%s.%s", dir, stem, draw_formats[i].name)
            >= (int)sizeof path)
            st = optinc_fail(err, OPTINC_EINPUT, dir, 0, 0,
                             "output path for %s is too long; use a shorter -o DIR", stem);
        else
            st = render(d, g, draw_formats[i].name, path, err);
    }
    gvFreeLayout(d->gvc, g);
    agclose(g);
    return st;
}

/* ------------------------------------------------------------ the layout */

#define DETAIL_XPITCH 90.0        /* pt per column */
#define DETAIL_YPITCH 36.0        /* pt per mode: the MZI box height */
#define OVERVIEW_XPITCH 8.0
#define OVERVIEW_YPITCH 4.0

typedef struct look {
    const char *shape, *width, *height;     /* inches */
} look;

static const look look_port = {"circle", "0.3", "0.3"};
static const look look_screen = {"box", "0.3", "0.25"};
static const look look_att = {"invtrapezium", "0.5", "0.3"};
static const look look_term = {"point", "0.08", "0.08"};
static const look look_overview_att = {"box", "0.0972", "0.0556"};   /* 7 x 4 pt */
static const look look_split = {"triangle", "0.35", "0.3"};
static const look look_comb = {"invtriangle", "0.35", "0.3"};

typedef struct builder {
    Agraph_t *g;
    Agsym_t *pos, *shape, *width, *height, *label, *fill, *tip;
    Agsym_t *tailport, *headport;
    const optinc_layer *L;
    int detail, labels, N;
    double xpitch, ypitch;
    Agnode_t **cur;               /* per mode: node whose output is that wire (NULL: unlit) */
    const char **port;            /* ... and its port */
} builder;

/* A phase wrapped into [0, 2 pi). */
static double wrapped(double rad)
{
    double x = fmod(rad, 2 * M_PI);
    return x < 0 ? x + 2 * M_PI : x;
}

/* Fill of an MZI by theta, which sets its power splitting: theta and
 * 2 pi - theta split alike, so theta is folded into [0, pi] and mapped onto
 * hue 2/3 (blue, theta = 0: all power crosses) .. 1/3 (green, pi/2: 50:50)
 * .. 0 (red, theta = pi: bar state). */
static void theta_colour(double rad, char *buf, size_t size)
{
    double x = wrapped(rad);
    if (x > M_PI)
        x = 2 * M_PI - x;
    snprintf(buf, size, "%.3f 0.550 0.950", (2.0 / 3.0) * (1 - x / M_PI));
}

/* Fill of an output-screen phase shifter: phase on the colour wheel, hue
 * phase / 2 pi (red 0, green 2 pi/3, blue 4 pi/3), paler than the MZIs. */
static void phase_colour(double rad, char *buf, size_t size)
{
    snprintf(buf, size, "%.3f 0.300 1.000", wrapped(rad) / (2 * M_PI));
}

/* Grey of an attenuator: value 0.2 + 0.6 t, darker the more it attenuates. */
static void att_colour(double t, char *buf, size_t size)
{
    snprintf(buf, size, "0.000 0.000 %.3f", 0.2 + 0.6 * (t < 0 ? 0 : t > 1 ? 1 : t));
}

/* "1.0472 (target 1.0472, code 43)" */
static void phase_text(const optinc_phase *p, char *buf, size_t size)
{
    if (p->code >= 0)
        snprintf(buf, size, "%.6g rad (target %.6g, code %d)", p->rad, p->target_rad, p->code);
    else
        snprintf(buf, size, "%.6g rad (target %.6g)", p->rad, p->target_rad);
}

static Agnode_t *put(builder *b, const char *name, double column, double mode, const look *lk,
                     const char *label, const char *fill, const char *tip)
{
    char pos[64];
    Agnode_t *n = gv_node(b->g, name);
    snprintf(pos, sizeof pos, "%.1f,%.1f!", column * b->xpitch, (b->N - 1 - mode) * b->ypitch);
    gv_set(n, b->pos, pos);
    if (lk) {
        gv_set(n, b->shape, lk->shape);
        gv_set(n, b->width, lk->width);
        gv_set(n, b->height, lk->height);
    }
    if (label && *label)
        gv_set(n, b->label, label);
    if (fill)
        gv_set(n, b->fill, fill);
    gv_set(n, b->tip, tip);
    return n;
}

/* Connects the wire of `mode` to head (at headport) and moves the wire on
 * to head's tailport. */
static void wire(builder *b, int mode, Agnode_t *head, const char *headport, const char *tailport)
{
    if (b->cur[mode]) {
        Agedge_t *e = agedge(b->g, b->cur[mode], head, NULL, 1);
        if (*b->port[mode])
            gv_set(e, b->tailport, b->port[mode]);
        if (*headport)
            gv_set(e, b->headport, headport);
    }
    b->cur[mode] = head;
    b->port[mode] = tailport;
}

/* Before a stage that carries `width` modes (or the outputs): a lit mode at
 * or beyond width ends in a term point; an unlit mode below width starts at
 * one. */
static void mode_ends(builder *b, int width, double column, const char *where)
{
    char name[160], tip[96];
    for (int k = 0; k < b->N; k++) {
        int lit = b->cur[k] != NULL;
        if (lit == (k < width))
            continue;
        snprintf(name, sizeof name, "T_%s_%s_m%d", b->L->name, where, k);
        snprintf(tip, sizeof tip, "%s mode %d", lit ? "terminated" : "unlit", k);
        Agnode_t *t = put(b, name, column - 0.5, k, &look_term, NULL, "black", tip);
        if (lit) {
            wire(b, k, t, "", "");
            b->cur[k] = NULL;
        } else {
            b->cur[k] = t;
            b->port[k] = "";
        }
    }
}

static void put_mesh(builder *b, const optinc_stage *s, int start)
{
    const optinc_mesh *m = s->mesh;
    char name[160], label[64], fill[48], tip[512], th[128], ph[128];
    if (b->detail) {
        char where[2] = {s->tag, '\0'};
        mode_ends(b, m->modes, start, where);
    }
    for (int i = 0; i < m->n_mzi; i++) {
        const optinc_mzi *z = &m->mzi[i];
        snprintf(name, sizeof name, "%s_%s_%c_c%d_r%d", optinc_cards[OPTINC_CARD_MZI].prefix,
                 b->L->name, s->tag, z->column, z->mode);
        phase_text(&z->theta, th, sizeof th);
        phase_text(&z->phi, ph, sizeof ph);
        snprintf(tip, sizeof tip, "%s: modes %d,%d; θ = %s; φ = %s", name, z->mode, z->mode + 1,
                 th, ph);
        if (b->labels)
            snprintf(label, sizeof label, "θ %.3f\\nφ %.3f", z->theta.rad, z->phi.rad);
        theta_colour(z->theta.rad, fill, sizeof fill);
        Agnode_t *n = put(b, name, start + z->column, z->mode + 0.5, NULL,
                          b->labels ? label : NULL, fill, tip);
        if (b->detail) {
            wire(b, z->mode, n, "nw", "ne");
            wire(b, z->mode + 1, n, "sw", "se");
        }
    }
    if (!b->detail)
        return;
    for (int k = 0; k < m->modes; k++) {
        snprintf(name, sizeof name, "%s_%s_%c_m%d", optinc_cards[OPTINC_CARD_PS].prefix,
                 b->L->name, s->tag, k);
        phase_text(&m->screen[k], th, sizeof th);
        snprintf(tip, sizeof tip, "%s: output phase screen, mode %d; φ = %s", name, k, th);
        phase_colour(m->screen[k].rad, fill, sizeof fill);
        wire(b, k, put(b, name, start + m->n_columns, k, &look_screen, NULL, fill, tip), "", "");
    }
}

static void put_att(builder *b, const optinc_stage *s, int start)
{
    char name[160], label[32], fill[48], tip[512], code[32] = "";
    char tag[3] = {s->tag, 0};
    if (b->detail)
        mode_ends(b, s->n_att, start, tag);
    for (int k = 0; k < s->n_att; k++) {
        const optinc_att *a = &s->att[k];
        if (s->tag == 'S')
            snprintf(name, sizeof name, "%s_%s_r%d", optinc_cards[OPTINC_CARD_ATT].prefix,
                     b->L->name, k);
        else     /* a split stage's trims */
            snprintf(name, sizeof name, "%s_%s_%s_r%d", optinc_cards[OPTINC_CARD_ATT].prefix,
                     b->L->name, tag, k);
        if (a->code >= 0)
            snprintf(code, sizeof code, ", code %d", a->code);
        snprintf(tip, sizeof tip, "%s: mode %d; att_dB = %.6g (t = %.6g, target t = %.6g%s)",
                 name, k, a->att_dB, a->t, a->t_target, code);
        snprintf(label, sizeof label, "%.1f dB", a->att_dB + 0.0);   /* no "-0.0" */
        att_colour(a->t, fill, sizeof fill);
        Agnode_t *n = put(b, name, start, k, b->detail ? &look_att : &look_overview_att,
                          b->labels ? label : NULL, fill, tip);
        if (b->detail)
            wire(b, k, n, "", "");
    }
}

/* A segmented layer's attenuator column: channel k of each block joins
 * mode i to mode o <= i (optinc_att_channel); a block's other inputs end in
 * a term point. */
static void put_att_blocks(builder *b, const optinc_stage *s, int start)
{
    char name[160], label[32], fill[48], tip[512];
    for (int i = 0, k = 0; i < s->modes_in; i++) {
        int in = -1, o = -1;
        if (k < s->n_att)
            optinc_att_channel(s, k, &in, &o);
        if (in != i) {
            if (b->detail) {
                snprintf(name, sizeof name, "T_%s_S_m%d", b->L->name, i);
                wire(b, i, put(b, name, start - 0.5, i, &look_term, NULL, "black",
                               "terminated: not a row of its block"), "", "");
                b->cur[i] = NULL;
            }
            continue;
        }
        const optinc_att *a = &s->att[k];
        snprintf(name, sizeof name, "%s_%s_r%d", optinc_cards[OPTINC_CARD_ATT].prefix,
                 b->L->name, k);
        snprintf(tip, sizeof tip, "%s: mode %d -> %d; att_dB = %.6g (t = %.6g)", name, i, o,
                 a->att_dB, a->t);
        snprintf(label, sizeof label, "%.1f dB", a->att_dB + 0.0);
        att_colour(a->t, fill, sizeof fill);
        Agnode_t *n = put(b, name, start, o, b->detail ? &look_att : &look_overview_att,
                          b->labels ? label : NULL, fill, tip);
        if (b->detail) {
            wire(b, i, n, "", "");
            b->cur[i] = NULL;
            b->cur[o] = n;
            b->port[o] = "";
        }
        k++;
    }
}

/* The split or comb chains of a segmented layer: link k of chain x in
 * column start + k on the row of x (optinc-netlist(5) has their wiring). */
static void put_chains(builder *b, const optinc_stage *s, int start)
{
    int split = s->kind == OPTINC_STAGE_SPLIT, n = split ? s->modes_in : s->modes_out;
    optinc_card_kind kind = split ? OPTINC_CARD_SPLIT : OPTINC_CARD_COMB;
    char name[160], tip[256], label[32];
    for (int x = 0; x < n; x++) {
        Agnode_t *prev = NULL;
        int run = split ? x : optinc_combine_source(s, x, 0);
        for (int k = 0; k + 1 < s->fan; k++) {
            double tap = optinc_chain_tap(s, k);
            snprintf(name, sizeof name, "%s_%s_%c_c%d_r%d", optinc_cards[kind].prefix,
                     b->L->name, s->tag, k, x);
            snprintf(tip, sizeof tip, "%s: link %d of the %s chain of %s %d, tap %.6g", name, k,
                     optinc_cards[kind].name, split ? "input" : "output", x, tap);
            snprintf(label, sizeof label, "%.2f", tap);
            Agnode_t *node = put(b, name, start + k, x, b->detail ? (split ? &look_split
                                 : &look_comb) : &look_overview_att, b->labels ? label : NULL,
                                 "white", tip);
            if (!b->detail)
                continue;
            if (prev)
                agedge(b->g, prev, node, NULL, 1);
            else
                wire(b, run, node, "", "");
            if (split) {
                b->cur[optinc_split_target(s, x, k)] = node;
                b->port[optinc_split_target(s, x, k)] = "";
            } else {
                int m = optinc_combine_source(s, x, k + 1);
                wire(b, m, node, "", "");
                b->cur[m] = NULL;
            }
            prev = node;
        }
        if (!b->detail || !prev)
            continue;
        int m = split ? optinc_split_target(s, x, s->fan - 1) : x;
        if (!split)
            b->cur[run] = NULL;
        b->cur[m] = prev;
        b->port[m] = "";
    }
}

static void put_ports(builder *b, const char *prefix, int n, double column)
{
    char name[32], label[16], tip[48];
    for (int k = 0; k < n; k++) {
        snprintf(name, sizeof name, "%s%d", prefix, k);
        snprintf(label, sizeof label, "%d", k);
        snprintf(tip, sizeof tip, "%s %d", prefix[0] == 'i' ? "input" : "output", k);
        Agnode_t *p = put(b, name, column, k, &look_port, label, "white", tip);
        if (prefix[0] == 'i') {
            b->cur[k] = p;
            b->port[k] = "";
        } else {
            wire(b, k, p, "", "");
        }
    }
}

/* Title: what the layer is, its stages, and the colour key. */
static void layer_title(const optinc_circuit *c, const optinc_layer *L, int detail, char *buf,
                        size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "%s / %s: %d×%d, %s, Σ %s, gain %.6g%s\\l",
                                c->name, L->name, L->rows, L->cols, optinc_mesh_kind_names[L->mesh_kind],
                                optinc_att_position_names[L->attenuators], L->gain, detail ? "" : ", heat map");
    for (int i = 0; i < L->n_stages && n < size; i++) {
        const optinc_stage *s = &L->stage[i];
        const char *sep = i ? "  →  " : "";
        if (s->kind == OPTINC_STAGE_MESH)
            n += (size_t)snprintf(buf + n, size - n, "%s%c mesh: %d modes, %d MZI", sep,
                                  s->tag, s->mesh->modes, s->mesh->n_mzi);
        else if (s->kind == OPTINC_STAGE_SPLIT || s->kind == OPTINC_STAGE_COMBINE)
            n += (size_t)snprintf(buf + n, size - n, "%s%c: %d %s%s", sep, s->tag,
                                  s->kind == OPTINC_STAGE_SPLIT ? optinc_layer_splitters(L)
                                  : optinc_layer_combiners(L), s->kind == OPTINC_STAGE_SPLIT
                                  ? "splitters" : "combiners", s->n_att ? " + trims" : "");
        else
            n += (size_t)snprintf(buf + n, size - n, "%sΣ: %d attenuators", sep, s->n_att);
    }
    if (L->pass_through && n < size)
        n += (size_t)snprintf(buf + n, size - n, "  +  %d pass-through waveguide%s",
                              L->pass_through, L->pass_through == 1 ? "" : "s");
    if (n < size)
        snprintf(buf + n, size - n, "%s", detail
                 ? "\\lMZI fill by θ: blue 0 (cross), green π/2 (50:50), red π (bar)\\l"
                   "screens: hue of the phase; attenuators: grey, darker = more loss; "
                   "hover for values\\l"
                 : "\\lθ: blue 0, green π/2, red π; attenuators grey\\l");
}

static Agraph_t *new_graph(const char *name, const char *engine, const char *title)
{
    Agraph_t *g = agopen((char *)name, Agdirected, NULL);
    if (!g)
        return NULL;
    gv_attr(g, AGRAPH, "layout", engine);   /* so `dot FILE.dot` redraws it the same way */
    gv_attr(g, AGRAPH, "label", title);
    gv_attr(g, AGRAPH, "labelloc", "t");
    gv_attr(g, AGRAPH, "labeljust", "l");
    /* Monospace for the title: Graphviz sizes the drawing from its built-in
     * metrics, and for Courier those (0.6 em a character) are what any
     * monospace font gd finds draws, so a long title is never cut off at the
     * right edge of a PNG (with Arial's metrics, DejaVu Sans overran).  Not
     * plain "Courier": gd maps that PostScript name to a Type 1 font that
     * Debian lacks and falls back to a bitmap font without UTF-8. */
    gv_attr(g, AGRAPH, "fontname", "Courier New");
    gv_attr(g, AGRAPH, "bgcolor", "white");
    gv_attr(g, AGRAPH, "truecolor", "true");
    gv_attr(g, AGRAPH, "pad", "0.2");
    return g;
}

static Agraph_t *build_layer(const optinc_circuit *c, const optinc_layer *L,
                             optinc_draw_style style, const char *stem)
{
    char title[1024];
    builder b = {0};
    b.L = L;
    b.detail = style == OPTINC_DRAW_DETAIL;
    b.N = optinc_draw_layer_modes(L);
    b.labels = b.detail && b.N <= OPTINC_DRAW_LABEL_MAX;
    b.xpitch = b.detail ? DETAIL_XPITCH : OVERVIEW_XPITCH;
    b.ypitch = b.detail ? DETAIL_YPITCH : OVERVIEW_YPITCH;
    b.cur = calloc((size_t)b.N + 1, sizeof *b.cur);
    b.port = calloc((size_t)b.N + 1, sizeof *b.port);
    layer_title(c, L, b.detail, title, sizeof title);
    b.g = new_graph(stem, "nop", title);
    if (!b.cur || !b.port || !b.g) {
        if (b.g)
            agclose(b.g);
        free(b.cur);
        free(b.port);
        return NULL;
    }
    gv_attr(b.g, AGRAPH, "splines", "false");
    gv_attr(b.g, AGRAPH, "outputorder", "edgesfirst");
    gv_attr(b.g, AGRAPH, "fontsize", b.detail ? "14" : "10");
    b.pos = gv_attr(b.g, AGNODE, "pos", "");
    b.shape = gv_attr(b.g, AGNODE, "shape", "box");
    b.width = gv_attr(b.g, AGNODE, "width", b.detail ? "0.6" : "0.0972");   /* 43 / 7 pt */
    b.height = gv_attr(b.g, AGNODE, "height", b.detail ? "0.5" : "0.1111"); /* 36 / 8 pt */
    b.label = gv_attr(b.g, AGNODE, "label", "");
    b.label->print = 1;     /* else the .dot file drops label="" and readers show \N */
    b.fill = gv_attr(b.g, AGNODE, "fillcolor", "white");
    b.tip = gv_attr(b.g, AGNODE, "tooltip", "");
    gv_attr(b.g, AGNODE, "fixedsize", "true");
    gv_attr(b.g, AGNODE, "style", "filled");
    gv_attr(b.g, AGNODE, "fontname", "Arial");
    gv_attr(b.g, AGNODE, "fontsize", "7");
    if (!b.detail)
        gv_attr(b.g, AGNODE, "color", "transparent");
    b.tailport = gv_attr(b.g, AGEDGE, "tailport", "");
    b.headport = gv_attr(b.g, AGEDGE, "headport", "");
    gv_attr(b.g, AGEDGE, "arrowhead", "none");
    gv_attr(b.g, AGEDGE, "color", "gray30");

    if (b.detail)
        put_ports(&b, "in", L->cols, 0);
    /* A pass-through mode is a waveguide from its input port to its output
     * port: its input node waits while the stages draw the others. */
    int K = L->pass_through;
    Agnode_t **pass = calloc((size_t)K + 1, sizeof *pass);
    if (!pass) {
        agclose(b.g);
        free(b.cur);
        free(b.port);
        return NULL;
    }
    memcpy(pass, b.cur + L->cols - K, sizeof *pass * (size_t)K);
    memset(b.cur + L->cols - K, 0, sizeof *pass * (size_t)K);
    int column = 1;
    for (int i = 0; i < L->n_stages; i++) {
        const optinc_stage *s = &L->stage[i];
        if (s->kind == OPTINC_STAGE_MESH) {
            put_mesh(&b, s, column);
            column += s->mesh->n_columns + 1;
        } else if (s->kind == OPTINC_STAGE_SPLIT || s->kind == OPTINC_STAGE_COMBINE) {
            put_chains(&b, s, column);
            column += s->fan - 1;
            if (s->n_att) {
                optinc_stage trims = optinc_split_trims(s);
                put_att(&b, &trims, column);
                column++;
            }
        } else if (s->block_in != s->modes_in) {
            put_att_blocks(&b, s, column);
            column++;
        } else {
            put_att(&b, s, column);
            column++;
        }
    }
    if (b.detail) {
        mode_ends(&b, L->rows - K, column, "out");
        for (int k = 0; k < K; k++) {
            b.cur[L->rows - K + k] = pass[k];
            b.port[L->rows - K + k] = "";
        }
        put_ports(&b, "out", L->rows, column);
    }
    OPTINC_FREE_ALL(pass, b.cur, b.port);
    return b.g;
}

/* ------------------------------------------------------------- public API */

/* The drawings of one call land together (a set of outputs, fileio.h): a
 * failure on the way (a full disk) leaves the files in dir as they were and
 * names none as written.  The drawers below stage into d->staged; the
 * public functions that write end the set, and keep the names of the files
 * it put in place (all, or those before a rename that failed). */
static optinc_status settle(optinc_drawer *d, optinc_outs *set, int n_written,
                            optinc_status st, optinc_error *err)
{
    st = optinc_outs_end(set, st, err);
    forget(d, n_written + set->placed);
    d->staged = NULL;
    return st;
}

static optinc_status draw_layer(optinc_drawer *d, const optinc_circuit *c, int layer,
                                optinc_draw_style style, unsigned mask, const char *dir,
                                optinc_error *err)
{
    char stem[DRAW_STEM_MAX];
    if (layer < 0 || layer >= c->n_layers)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "layer %d does not exist; the circuit has %d layer(s)", layer + 1,
                           c->n_layers);
    const optinc_layer *L = &c->layers[layer];
    draw_stem(c, layer, style, stem);
    Agraph_t *g = build_layer(c, L, style, stem);
    if (!g)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory drawing %s", stem);
    return finish(d, g, "nop", mask, dir, stem, err);
}

static optinc_status draw_layers(optinc_drawer *d, const optinc_circuit *c, unsigned mask,
                                 const char *dir, optinc_error *err)
{
    char stem[DRAW_STEM_MAX], title[160], label[256], tip[512], width[16];
    draw_stem(c, -1, OPTINC_DRAW_DETAIL, stem);
    snprintf(title, sizeof title, "%s: %d layer(s)", c->name, c->n_layers);
    Agraph_t *g = new_graph(stem, "dot", title);
    if (!g)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory drawing %s", stem);
    gv_attr(g, AGRAPH, "rankdir", "LR");
    Agsym_t *lab = gv_attr(g, AGNODE, "label", "");
    Agsym_t *tp = gv_attr(g, AGNODE, "tooltip", "");
    gv_attr(g, AGNODE, "shape", "box");
    gv_attr(g, AGNODE, "style", "rounded,filled");
    gv_attr(g, AGNODE, "fillcolor", "#eef3fb");
    gv_attr(g, AGNODE, "fontname", "Arial");
    gv_attr(g, AGNODE, "fontsize", "11");
    Agsym_t *elab = gv_attr(g, AGEDGE, "label", "");
    gv_attr(g, AGEDGE, "fontname", "Arial");
    gv_attr(g, AGEDGE, "fontsize", "9");
    Agnode_t *prev = NULL;
    for (int i = 0; i < c->n_layers; i++) {
        const optinc_layer *L = &c->layers[i];
        static const char *const act[] = {"none", "relu_eo", "abs2"};
        Agnode_t *n = gv_node(g, L->name);
        snprintf(label, sizeof label, "%s: %d×%d %s, %d MZI, %s%s", L->name, L->rows, L->cols,
                 optinc_mesh_kind_names[L->mesh_kind], optinc_layer_mzis(L),
                 L->attenuators == OPTINC_ATT_NONE ? "no " : "Σ ",
                 L->attenuators == OPTINC_ATT_NONE ? "Σ" : optinc_att_position_names[L->attenuators]);
        size_t len = (size_t)snprintf(tip, sizeof tip, "%s: gain %.6g, %d attenuators, "
                                      "%d columns, activation %s", L->name, L->gain,
                                      optinc_layer_attenuators(L), optinc_layer_columns(L),
                                      act[L->activation % 3]);
        if (L->reconstruction_error >= 0 && len < sizeof tip)   /* -1: from a netlist */
            snprintf(tip + len, sizeof tip - len, ", reconstruction error %.3g",
                     L->reconstruction_error);
        gv_set(n, lab, label);
        gv_set(n, tp, tip);
        if (prev) {
            snprintf(width, sizeof width, "%d", L->cols);
            gv_set(agedge(g, prev, n, NULL, 1), elab, width);
        }
        prev = n;
    }
    return finish(d, g, "dot", mask, dir, stem, err);
}

optinc_status optinc_draw_layer(optinc_drawer *d, const optinc_circuit *c, int layer,
                                optinc_draw_style style, unsigned mask, const char *dir,
                                optinc_error *err)
{
    optinc_outs set = {0};
    int n = d->n_written;
    d->staged = &set;
    return settle(d, &set, n, draw_layer(d, c, layer, style, mask, dir, err), err);
}

optinc_status optinc_draw_layers(optinc_drawer *d, const optinc_circuit *c, unsigned mask,
                                 const char *dir, optinc_error *err)
{
    optinc_outs set = {0};
    int n = d->n_written;
    d->staged = &set;
    return settle(d, &set, n, draw_layers(d, c, mask, dir, err), err);
}

optinc_status optinc_draw_circuit_add(optinc_drawer *d, optinc_outs *set,
                                      const optinc_circuit *c, const char *dir,
                                      const optinc_draw_options *opt, optinc_error *err)
{
    unsigned mask = draw_formats_of(opt);
    int n_written = d->n_written;
    d->staged = set;
    optinc_status st = optinc_draw_check(c, opt, NULL, err);
    if (!st)
        st = optinc_outs_mkdir(set, dir, err);
    for (int i = 0; i < c->n_layers && !st; i++) {
        unsigned detail = draw_drawn_in(&c->layers[i], OPTINC_DRAW_DETAIL, mask, opt);
        unsigned overview = draw_drawn_in(&c->layers[i], OPTINC_DRAW_OVERVIEW, mask, opt);
        if (detail)
            st = draw_layer(d, c, i, OPTINC_DRAW_DETAIL, detail, dir, err);
        if (!st && overview)
            st = draw_layer(d, c, i, OPTINC_DRAW_OVERVIEW, overview, dir, err);
    }
    if (!st)
        st = draw_layers(d, c, mask, dir, err);
    if (st)
        forget(d, n_written);
    d->staged = NULL;
    return st;
}

optinc_status optinc_draw_circuit(optinc_drawer *d, const optinc_circuit *c, const char *dir,
                                  const optinc_draw_options *opt, optinc_error *err)
{
    optinc_outs set = {0};
    int n = d->n_written;
    optinc_status st = optinc_draw_circuit_add(d, &set, c, dir, opt, err);
    return settle(d, &set, n, st, err);
}
