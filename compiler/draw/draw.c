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
 * Full detail has one node per input, output and element of the netlist's
 * walk of the layer (compiler/netlist/walk.h): MZIs, screen phase shifters,
 * attenuators, splitters and combiners, and the term points where a mode
 * stops or starts inside the layer, each under its netlist instance name
 * (a pass-through waveguide is drawn as the wire it is), wired along the
 * walk's nets with compass ports (nw/sw in, ne/se out).  How each card is
 * drawn is one row of card_draws.
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
#include "compiler/netlist/dialect.h"
#include "compiler/netlist/walk.h"
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
    Agnode_t **src;               /* per net of the walk: the node it leaves (NULL: none) */
    const char **port;            /* ... and the compass port it leaves by */
    size_t cap;                   /* of src and port */
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

/* "1.0472 rad (target 1.0472, code 43)": parameter rad of e, with its code
 * when it has one and its target (the value when the card has none). */
static void phase_text(const nl_elem *e, int rad, int code, int target, char *buf, size_t size)
{
    double t = e->has & 1u << target ? e->v[target] : e->v[rad];
    if (e->has & 1u << code)
        snprintf(buf, size, "%.6g rad (target %.6g, code %d)", e->v[rad], t, (int)e->v[code]);
    else
        snprintf(buf, size, "%.6g rad (target %.6g)", e->v[rad], t);
}

/* What a card's node shows: fill, tooltip after the name, label, each in
 * TEXT_MAX bytes. */
#define TEXT_MAX 512
static void mzi_text(const nl_elem *e, char *fill, char *tip, char *label, size_t size)
{
    char th[128], ph[128];
    theta_colour(e->v[MZI_THETA], fill, size);
    phase_text(e, MZI_THETA, MZI_THETA_CODE, MZI_THETA_TARGET, th, sizeof th);
    phase_text(e, MZI_PHI, MZI_PHI_CODE, MZI_PHI_TARGET, ph, sizeof ph);
    snprintf(tip, size, "modes %d,%d; θ = %s; φ = %s", e->row, e->row + 1, th, ph);
    snprintf(label, size, "θ %.3f\\nφ %.3f", e->v[MZI_THETA], e->v[MZI_PHI]);
}

static void ps_text(const nl_elem *e, char *fill, char *tip, char *label, size_t size)
{
    char ph[128];
    phase_colour(e->v[PS_PHASE], fill, size);
    phase_text(e, PS_PHASE, PS_CODE, PS_TARGET, ph, sizeof ph);
    snprintf(tip, size, "output phase screen, mode %d; φ = %s", e->row, ph);
    *label = '\0';
}

static void att_text(const nl_elem *e, char *fill, char *tip, char *label, size_t size)
{
    char code[32] = "";
    double t = pow(10, -e->v[ATT_DB] / 20);
    if (e->has & 1u << ATT_CODE)
        snprintf(code, sizeof code, ", code %d", (int)e->v[ATT_CODE]);
    att_colour(t, fill, size);
    snprintf(tip, size, "mode %d; att_dB = %.6g (t = %.6g, target t = %.6g%s)", e->row,
             e->v[ATT_DB], t, e->v[ATT_T_TARGET], code);
    snprintf(label, size, "%.1f dB", e->v[ATT_DB] + 0.0);   /* no "-0.0" */
}

static void term_text(const nl_elem *e, char *fill, char *tip, char *label, size_t size)
{
    snprintf(fill, size, "black");
    snprintf(tip, size, "%s mode %d", e->n_in ? "terminated" : "unlit", e->row);
    *label = '\0';
}

static void chain_text(const nl_elem *e, char *fill, char *tip, char *label, size_t size)
{
    snprintf(fill, size, "white");
    snprintf(tip, size, "link %d of the %s chain of %s %d, tap %.6g", e->column,
             optinc_cards[e->kind].name, e->kind == OPTINC_CARD_SPLIT ? "input" : "output",
             e->row, e->v[TAP_POWER]);
    snprintf(label, size, "%.2f", e->v[TAP_POWER]);
}

/* How each card is drawn: its look in full detail and in the overview
 * (NULL: not in the overview; a card without a text is no node, a wire),
 * where it sits (dx columns and dy modes off its grid point), its pins'
 * compass ports, its texts. */
typedef struct card_draw {
    const look *detail, *overview;
    double dx, dy;
    const char *pin[OPTINC_CARD_PINS_MAX];
    void (*text)(const nl_elem *e, char *fill, char *tip, char *label, size_t size);
} card_draw;

static const card_draw card_draws[OPTINC_CARD_COUNT] = {
    [OPTINC_CARD_MZI] = {NULL, NULL, 0, 0.5, {"nw", "sw", "ne", "se"}, mzi_text},
    [OPTINC_CARD_PS] = {&look_screen, NULL, 0, 0, {"", ""}, ps_text},
    [OPTINC_CARD_ATT] = {&look_att, &look_overview_att, 0, 0, {"", ""}, att_text},
    [OPTINC_CARD_TERM] = {&look_term, NULL, -0.5, 0, {""}, term_text},
    [OPTINC_CARD_SPLIT] = {&look_split, &look_overview_att, 0, 0, {"", "", ""}, chain_text},
    [OPTINC_CARD_COMB] = {&look_comb, &look_overview_att, 0, 0, {"", "", ""}, chain_text},
    /* DC is no element of the walk; THRU is a waveguide, drawn as its wire */
};

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

/* Room for net id in src and port. */
static int room(builder *b, int id)
{
    if ((size_t)id < b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap <= (size_t)id)
        cap *= 2;
    Agnode_t **src = realloc(b->src, sizeof *src * cap);
    if (src)
        b->src = src;
    const char **port = realloc(b->port, sizeof *port * cap);
    if (!src || !port)
        return -1;
    b->port = port;
    memset(b->src + b->cap, 0, sizeof *src * (cap - b->cap));
    b->cap = cap;
    return 0;
}

/* Net id ends at node head (its compass port headport). */
static void wire(builder *b, int id, Agnode_t *head, const char *headport)
{
    if (!b->src[id])
        return;
    Agedge_t *e = agedge(b->g, b->src[id], head, NULL, 1);
    if (*b->port[id])
        gv_set(e, b->tailport, b->port[id]);
    if (*headport)
        gv_set(e, b->headport, headport);
}

static optinc_status oom_drawing(const builder *b, optinc_error *err)
{
    return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory drawing layer '%s'",
                       b->L->name);
}

/* One element of the walk: its node, in column 1 + its grid column (the
 * inputs are column 0), and in full detail the wires of its inputs. */
static optinc_status put_element(nl_walk *w, const nl_elem *e, optinc_error *err)
{
    builder *b = w->ctx;
    const card_draw *cd = &card_draws[e->kind];
    int top = 0;
    for (int j = 0; j < e->n_pins; j++)
        top = e->id[j] > top ? e->id[j] : top;
    if (room(b, top))
        return oom_drawing(b, err);
    if (!cd->text) {    /* a waveguide: its output net leaves where its input did */
        b->src[e->id[1]] = b->src[e->id[0]];
        b->port[e->id[1]] = b->port[e->id[0]];
        return OPTINC_OK;
    }
    const look *lk = b->detail ? cd->detail : cd->overview;
    if (!b->detail && !lk && e->kind != OPTINC_CARD_MZI)
        return OPTINC_OK;
    char fill[TEXT_MAX], tip[TEXT_MAX], label[TEXT_MAX], full[NL_NAME_MAX + TEXT_MAX + 2];
    cd->text(e, fill, tip, label, TEXT_MAX);
    snprintf(full, sizeof full, "%s: %s", e->name, tip);
    Agnode_t *n = put(b, e->name, 1 + e->column + cd->dx, e->row + cd->dy, lk,
                      b->labels ? label : NULL, fill, full);
    for (int j = 0; b->detail && j < e->n_pins; j++) {
        if (j < e->n_in) {
            wire(b, e->id[j], n, cd->pin[j]);
        } else {
            b->src[e->id[j]] = n;
            b->port[e->id[j]] = cd->pin[j];
        }
    }
    return OPTINC_OK;
}

/* A port of the layer: input k (out = 0) or output k, in column `column`. */
static Agnode_t *put_port(builder *b, int out, int k, double column)
{
    char name[32], label[16], tip[48];
    snprintf(name, sizeof name, "%s%d", out ? "out" : "in", k);
    snprintf(label, sizeof label, "%d", k);
    snprintf(tip, sizeof tip, "%s %d", out ? "output" : "input", k);
    return put(b, name, column, k, &look_port, label, "white", tip);
}

/* After the walk's last stage: the outputs end the nets it leaves them on. */
static optinc_status put_outputs(nl_walk *w, int s, int modes, const int *id, optinc_error *err)
{
    builder *b = w->ctx;
    (void)err;
    double column = 1 + nl_stage_column(b->L, b->L->n_stages);
    for (int k = 0; b->detail && s == b->L->n_stages && k < modes; k++)
        wire(b, id[k], put_port(b, 1, k, column), "");
    return OPTINC_OK;
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
    layer_title(c, L, b.detail, title, sizeof title);
    b.g = new_graph(stem, "nop", title);
    if (!b.g)
        return NULL;
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

    int inputs = room(&b, L->cols);
    for (int k = 0; !inputs && b.detail && k < L->cols; k++) {   /* the walk's nets 0 .. cols-1 */
        b.src[k] = put_port(&b, 0, k, 0);
        b.port[k] = "";
    }
    nl_walk w = {.c = c, .layer = (int)(L - c->layers), .prefix = "", .visit = put_element,
                 .boundary = put_outputs, .ctx = &b};
    optinc_error err;
    optinc_status st = inputs ? OPTINC_ERUN : nl_walk_layer(&w, &err);
    OPTINC_FREE_ALL(b.src, b.port);
    if (st) {
        agclose(b.g);
        return NULL;
    }
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
