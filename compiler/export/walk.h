/*
 * walk.h - what the export modules share (compiler/export/, not installed):
 * one layer of the compiled circuit as the netlist's walk visits it
 * (compiler/netlist/walk.h), its elements with their netlist names, card
 * kinds and parameters, and the nets between their pins, numbered, each
 * with the two ends light flows between.
 *
 * Why gathered: every format writes the same elements joined the same way;
 * taken from the one walk the netlist writer and the drawings also follow,
 * the SAX connections, the gdsfactory connections and the INTERCONNECT nets
 * cannot disagree with the netlist, and no format re-derives which
 * waveguide an output continues on.
 */
#ifndef OPTINC_EXPORT_WALK_H
#define OPTINC_EXPORT_WALK_H

#include <stdio.h>
#include "optinc/export.h"
#include "optinc/netlist.h"

#define EX_NAME_MAX 160    /* > MZ_ + a 63-byte layer + _V_c<int>_r<int> */

typedef struct ex_element {
    optinc_card_kind kind;
    char name[EX_NAME_MAX];      /* the netlist's instance name (the walk's, nl_walk) */
    int n_pins;                  /* the card's pins, in its order */
    int n_in;                    /* the first n_in pins take light in, the rest give it out */
    int net[OPTINC_CARD_PINS_MAX];
    double v[OPTINC_CARD_PARAMS_MAX];  /* the card's parameters (those of `has`) */
    unsigned has;
    int column, mode;            /* on the placement grid (an MZI on modes m, m+1: m) */
    int stage;                   /* the layer's stage it belongs to (n_stages: a thru) */
} ex_element;

/* One end of a net: pin `pin` of element `elem`, or with elem == -1 the
 * layer's port in<pin> (where a net starts) or out<pin> (where it ends). */
typedef struct ex_end {
    int elem, pin;
} ex_end;

typedef struct ex_layer {
    const optinc_layer *L;
    int index;
    ex_element *el;
    int n_el;
    int n_nets;
    ex_end (*end)[2];            /* per net: [0] where its light comes from, [1] where it goes */
    int *boundary;               /* per net: the stage boundary it crosses (s: the input of
                                  * stage s, n_stages: the layer's output), or -1 */
    int *boundary_mode;          /* per net: the mode it is on at that boundary */
} ex_layer;

/* The elements and nets of layer `layer` of c, in the netlist writer's
 * order.  OPTINC_ERUN when out of memory. */
optinc_status ex_layer_build(const optinc_circuit *c, int layer, ex_layer *x, optinc_error *err);
void ex_layer_free(ex_layer *x);

/* Pin `pin` of e as SAX spells it: the card's pin names each with a number
 * (in0, in1, out0, out1; a one-in one-out card in0, out0; a term that
 * starts a dark waveguide out0). */
const char *ex_sax_pin(const ex_element *e, int pin);

/* The inside of a JSON string holding s: '"' and '\\' escaped, control
 * bytes as \\u00XX; other bytes as they are (a name is UTF-8 or ASCII). */
void ex_json_chars(FILE *f, const char *s);

/* The parameters of card kind that its device is set to (the card table's
 * settings), in the order the netlist writes them, into key[]; their count. */
int ex_settings(optinc_card_kind kind, int key[OPTINC_CARD_PARAMS_MAX]);

/* x in the shortest text that reads back exactly. */
void ex_number(FILE *f, double x);

/* The companions of the formats (optinc_export_format.companions). */
#define EX_SAX_MODELS "_models.py"
#define EX_IC_CIRCUIT "_circuit.spi"
#define EX_IC_SCRIPT ".lsf"
#define EX_PATH_MAX 1100

/* The circuit must have layers and PNL names (the netlist's rule). */
optinc_status ex_check(const optinc_circuit *c, optinc_error *err);
/* The circuit's name must not be a card's, a cell the exports write
 * (layer_<layer>, stage_<layer>_<stage>) or one of extra (NULL-ended): a
 * format's cells and models share one namespace. */
optinc_status ex_check_cell_names(const optinc_circuit *c, const char *const *extra,
                                  optinc_error *err);

#endif
