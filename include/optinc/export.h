/*
 * export.h - the compiled circuit in the formats of the tools a photonics
 * engineer uses next (optinc-export(1)): a SAX circuit, a gdsfactory YAML
 * netlist, a Lumerical INTERCONNECT netlist and a GDSII layout.
 *
 * Each format is one module (compiler/export/FORMAT.c) and one entry of
 * optinc_export_formats; each writes from the circuit through the netlist's
 * vocabulary (netlist.h: card names, pins, instance names), so an exported
 * element has the name the netlist gives it.  The formats that place
 * elements share one grid (below), so the gdsfactory placements, the
 * INTERCONNECT lay_x/lay_y and the GDSII references agree.
 */
#ifndef OPTINC_EXPORT_H
#define OPTINC_EXPORT_H

#include "optinc/circuit.h"
#include "optinc/netlist.h"
#include "optinc/text.h"

/* Writes c in one format to path (and the companion files the format
 * names beside it), atomically; layout gives the placement grid. */
typedef optinc_status (*optinc_export_fn)(const optinc_circuit *c, const optinc_layout *layout,
                                          const char *path, optinc_error *err);

typedef struct optinc_export_format {
    const char *name;       /* the word of --format */
    const char *extension;  /* of the main output, with its dot */
    const char *summary;    /* one line for --help */
    optinc_export_fn write;
    const char *const *companions;  /* what replaces the extension in the names of the
                                     * files written beside the main output, NULL-ended
                                     * (NULL: none) */
    /* A text format's netlist (SAX's JSON, the gdsfactory YAML, the INTERCONNECT
     * circuit file) to an open stream, after the same checks; NULL for GDSII. */
    optinc_status (*stream)(const optinc_circuit *c, const optinc_layout *layout, FILE *f,
                            optinc_error *err);
} optinc_export_format;

extern const optinc_export_format optinc_export_formats[];  /* ends with name == NULL */
const optinc_export_format *optinc_export_format_find(const char *name);  /* NULL: none */
/* The companion of the output path whose name ends in suffix instead of the
 * extension, into buf[size]; OPTINC_EINPUT when it does not fit or would be
 * path itself. */
optinc_status optinc_export_companion(const char *path, const char *suffix, char *buf,
                                      size_t size, optinc_error *err);

optinc_status optinc_export_sax_stream(const optinc_circuit *c, const optinc_layout *layout,
                                       FILE *f, optinc_error *err);
optinc_status optinc_export_gdsfactory_stream(const optinc_circuit *c,
                                              const optinc_layout *layout, FILE *f,
                                              optinc_error *err);
optinc_status optinc_export_interconnect_stream(const optinc_circuit *c,
                                                const optinc_layout *layout, FILE *f,
                                                optinc_error *err);
optinc_status optinc_export_sax(const optinc_circuit *c, const optinc_layout *layout,
                                const char *path, optinc_error *err);
optinc_status optinc_export_gdsfactory(const optinc_circuit *c, const optinc_layout *layout,
                                       const char *path, optinc_error *err);
optinc_status optinc_export_interconnect(const optinc_circuit *c, const optinc_layout *layout,
                                         const char *path, optinc_error *err);
/* The element models an INTERCONNECT export names, one per card kind: the
 * model's name and the library it is in (optinc-export(1), the --model-map
 * file).  optinc_export_interconnect() writes with the defaults. */
#define OPTINC_IC_MODEL_MAX 64
#define OPTINC_IC_LIBRARY_MAX 256
typedef struct optinc_interconnect_map {
    char model[OPTINC_CARD_COUNT][OPTINC_IC_MODEL_MAX];
    char library[OPTINC_CARD_COUNT][OPTINC_IC_LIBRARY_MAX];
} optinc_interconnect_map;
void optinc_interconnect_map_defaults(optinc_interconnect_map *m);
/* Reads a model map over *m (lines `CARD MODEL LIBRARY`, '#' comments); bad
 * input at FILE:LINE:COL. */
optinc_status optinc_interconnect_map_parse(const optinc_input *in, optinc_interconnect_map *m,
                                            optinc_error *err);
optinc_status optinc_export_interconnect_mapped(const optinc_circuit *c,
                                                const optinc_layout *layout,
                                                const optinc_interconnect_map *map,
                                                const char *path, optinc_error *err);
optinc_status optinc_export_gds(const optinc_circuit *c, const optinc_layout *layout,
                                const char *path, optinc_error *err);

/* ------------------------------------------------------------------------
 * The placement grid.  The physical columns of the whole circuit are
 * numbered from 0 in propagation order: layer by layer, stage by stage; a
 * mesh stage takes its mesh's n_columns MZI columns and then one column for
 * its output phase screen, an attenuator column takes one.  An element of
 * global column k acting on mode m (an MZI: its upper mode) sits at
 * x = k * column_pitch_um, y = m * mode_pitch_um.
 */
int optinc_place_stage_column(const optinc_circuit *c, int layer, int stage);  /* first column */
int optinc_place_stage_width(const optinc_stage *s);   /* columns the stage takes */
int optinc_place_columns(const optinc_circuit *c);     /* columns of the whole circuit */
int optinc_place_modes(const optinc_circuit *c);       /* the widest stage's modes */
void optinc_place_xy(const optinc_layout *layout, int column, int mode, double *x_um,
                     double *y_um);

#endif
