/*
 * draw.h - Graphviz drawings of compiled circuits (optinc-draw(1)).
 *
 * optinc computes every position itself and Graphviz only draws: each node
 * gets pos = (column * 90 pt, (N-1-mode) * 36 pt), an MZI sits at the
 * midpoint of its two modes, and the graph is laid out with the `nop` engine
 * (neato -n), which is linear and keeps the modes in order.  One drawer owns
 * the process's one Graphviz context; create it once, draw any number of
 * circuits, free it last.
 *
 * Files written into DIR for a circuit C and each layer L (formats chosen by
 * a mask of OPTINC_DRAW_SVG/PNG/DOT):
 *
 *     C_L.svg C_L.png C_L.dot                     full detail
 *     C_L_overview.svg C_L_overview.png ...       heat-map overview
 *     C_layers.svg C_layers.png C_layers.dot      one node per layer
 *
 * Full detail is drawn when the layer's widest mesh has at most
 * OPTINC_DRAW_DETAIL_MAX modes (PNG only up to OPTINC_DRAW_PNG_MAX); the
 * heat-map overview when it has more than OPTINC_DRAW_PNG_MAX.
 */
#ifndef OPTINC_DRAW_H
#define OPTINC_DRAW_H

#include "optinc/circuit.h"
#include "optinc/error.h"
#include "optinc/fileio.h"

#define OPTINC_DRAW_SVG 1u
#define OPTINC_DRAW_PNG 2u
#define OPTINC_DRAW_DOT 4u

#define OPTINC_DRAW_PNG_MAX 32      /* full-detail PNG up to this many modes */
#define OPTINC_DRAW_DETAIL_MAX 128  /* full-detail SVG/dot up to this many modes */
#define OPTINC_DRAW_LABEL_MAX 16    /* theta/phi printed in the cells up to this */

typedef enum optinc_draw_style {
    OPTINC_DRAW_DETAIL = 0,         /* every MZI, screen, attenuator, wire */
    OPTINC_DRAW_OVERVIEW            /* heat map: one small box per MZI/attenuator */
} optinc_draw_style;

/* What optinc_draw_circuit draws beyond the size thresholds. */
typedef struct optinc_draw_options {
    unsigned formats;               /* OPTINC_DRAW_* mask; 0 = SVG|PNG */
    int force_detail;               /* full detail at any size (never PNG above 32) */
    int force_overview;             /* heat-map overview at any size */
} optinc_draw_options;

typedef struct optinc_drawer optinc_drawer;

/* How optinc_drawer_new() starts Graphviz. */
enum {
    OPTINC_DRAWER_VERBOSE = 1,      /* Graphviz's warnings to stderr; else kept out
                                     * (agseterr(AGERR)) and its errors turned into
                                     * err messages */
    OPTINC_DRAWER_CONFIGURED = 2    /* load the plugins Graphviz's own configuration
                                     * names (its GVBINDIR and config file), instead of
                                     * the minimal set next to libgvc */
};

/* Creates the Graphviz context; flags is a mask of OPTINC_DRAWER_*. */
optinc_status optinc_drawer_new(unsigned flags, optinc_drawer **out, optinc_error *err);
void optinc_drawer_free(optinc_drawer *d);

/* The files written so far, in order (paths as DIR/NAME), and those staged
 * by optinc_draw_circuit_add (in place once their set is). */
int optinc_drawer_n_written(const optinc_drawer *d);
const char *optinc_drawer_written(const optinc_drawer *d, int i);

/* Parses a comma-separated list of svg, png, dot into a mask. */
optinc_status optinc_draw_parse_formats(const char *list, unsigned *formats, optinc_error *err);

/* What optinc_draw_circuit refuses before it writes anything: two of the
 * drawings it would make of c (under opt's thresholds and formats) with one
 * file name, the later overwriting the earlier.  A layer named "layers" is
 * drawn to C_layers.EXT, the layer graph's file, and the overview of a
 * layer L to C_L_overview.EXT, the drawing of a layer named L_overview.
 * Status 2 naming the two drawings, their layers and the file, at the later
 * layer's line and column in input (the spec or netlist c was read from,
 * for the message; NULL: none). */
optinc_status optinc_draw_check(const optinc_circuit *c, const optinc_draw_options *opt,
                                const char *input, optinc_error *err);

/* Every drawing of c the thresholds (and opt) call for, into dir (created
 * when missing).  The drawings of one call are written atomically and
 * together: when one fails, none is written (the old files stay) and a
 * folder the call made is removed; two of one name are refused first
 * (optinc_draw_check). */
optinc_status optinc_draw_circuit(optinc_drawer *d, const optinc_circuit *c, const char *dir,
                                  const optinc_draw_options *opt, optinc_error *err);
/* The same, its drawings and the folders it makes staged in the caller's
 * set (fileio.h) instead: in place when the caller ends the set, which may
 * hold other outputs of the run, and removed when it ends in failure, as
 * the caller ends it when this call fails. */
optinc_status optinc_draw_circuit_add(optinc_drawer *d, optinc_outs *set,
                                      const optinc_circuit *c, const char *dir,
                                      const optinc_draw_options *opt, optinc_error *err);

/* One layer in one style, in the given formats, whatever its size. */
optinc_status optinc_draw_layer(optinc_drawer *d, const optinc_circuit *c, int layer,
                                optinc_draw_style style, unsigned formats, const char *dir,
                                optinc_error *err);

/* The layer-level graph (dot, rankdir=LR, one node per layer). */
optinc_status optinc_draw_layers(optinc_drawer *d, const optinc_circuit *c, unsigned formats,
                                 const char *dir, optinc_error *err);

/* Modes of the layer's widest mesh (what the thresholds compare). */
int optinc_draw_layer_modes(const optinc_layer *L);

#endif
