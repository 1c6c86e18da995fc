/*
 * plan.h - the plan of a circuit's drawings that the drawer (draw.c) and
 * the check of their names (plan.c) share: the formats, the file name of
 * each drawing, and the styles a layer is drawn in.
 */
#ifndef OPTINC_DRAW_PLAN_H
#define OPTINC_DRAW_PLAN_H

#include "optinc/draw.h"

typedef struct draw_format {
    unsigned bit;           /* OPTINC_DRAW_* */
    const char *name;       /* --format name, file extension, Graphviz format */
} draw_format;

#define DRAW_N_FORMATS 3
extern const draw_format draw_formats[DRAW_N_FORMATS];

/* The formats opt asks for (the default: SVG and PNG). */
unsigned draw_formats_of(const optinc_draw_options *opt);

/* The file name of a drawing of c without its extension: C_L, C_L_overview
 * for the layer of index layer, C_layers for the layer graph (layer -1). */
#define DRAW_STEM_MAX 256
void draw_stem(const optinc_circuit *c, int layer, optinc_draw_style style,
               char stem[DRAW_STEM_MAX]);

/* The formats optinc_draw_circuit draws layer L in, in one style (0: it is
 * not drawn in it): the thresholds on its size, and what opt forces. */
unsigned draw_drawn_in(const optinc_layer *L, optinc_draw_style style, unsigned mask,
                       const optinc_draw_options *opt);

#endif
