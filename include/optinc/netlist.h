/*
 * netlist.h - the PNL photonic netlist (optinc-netlist(5)): writer, reader,
 * and the loader that lets every command take a netlist where it takes a spec.
 *
 * The netlist is the contract between compiler and runtime: it alone says
 * everything needed to rebuild a compiled circuit's transfer matrix, and
 * spec -> netlist -> read -> netlist is byte-identical.
 */
#ifndef OPTINC_NETLIST_H
#define OPTINC_NETLIST_H

#include <stdio.h>
#include "optinc/circuit.h"
#include "optinc/fileio.h"
#include "optinc/text.h"

typedef struct optinc_netlist_options {
    int flatten;          /* one flat cell, hierarchy joined with "__" */
    int expand_mzi;       /* each MZI as a .subckt of ps/dc/ps/dc */
    int reproducible;     /* leave out time- and host-dependent header lines */
    const optinc_limits *limits;    /* of the readers the file is for (NULL: the defaults) */
} optinc_netlist_options;

/* Writes c as a netlist to path, atomically.  A netlist the reader would
 * refuse under opt's limits (past OPTINC_NETLIST_BYTES_MAX or the input
 * limit, as optinc_netlist_read checks) is not written: status 2 naming
 * its size, the limit and a way to get under it. */
optinc_status optinc_netlist_write(const optinc_circuit *c, const char *path,
                                   const optinc_netlist_options *opt, optinc_error *err);
/* The same, staged in the caller's set of outputs (fileio.h): in place when
 * the caller ends the set. */
optinc_status optinc_netlist_add(optinc_outs *set, const optinc_circuit *c, const char *path,
                                 const optinc_netlist_options *opt, optinc_error *err);
/* Writes c to an open stream (used by the file writer and by tests). */
optinc_status optinc_netlist_write_stream(const optinc_circuit *c, FILE *f,
                                          const optinc_netlist_options *opt,
                                          optinc_error *err);
/* Reads and validates the netlist in, whose name is FILE in messages;
 * rebuilds the compiled circuit.  Files it .includes come from the resolver
 * of opts, by the name written (NULL: the file system, relative to the
 * folder of the including input).  in is not kept. */
optinc_status optinc_netlist_parse(const optinc_input *in, const optinc_read_opts *opts,
                                   optinc_circuit **out, optinc_error *err);
/* The same for the file at path (read whole, at most OPTINC_NETLIST_BYTES_MAX). */
optinc_status optinc_netlist_read(const char *path, const optinc_read_opts *opts,
                                  optinc_circuit **out, optinc_error *err);

/* 1 when path names a spec (.yaml/.yml), which optinc_circuit_load compiles. */
int optinc_path_is_spec(const char *path);
/* A spec (.yaml/.yml: load + compile) or a netlist (anything else). */
optinc_status optinc_circuit_load(const char *path, const optinc_read_opts *opts,
                                  optinc_circuit **out, optinc_error *err);

/* ------------------------------------------------------------------------
 * Reader limits: larger inputs are refused with a message naming the limit.
 */
#define OPTINC_NETLIST_BYTES_MAX (256L << 20)  /* a netlist and its includes together */
#define OPTINC_NETLIST_LINE_MAX (1L << 20)     /* one physical line */
#define OPTINC_NETLIST_INCLUDE_DEPTH_MAX 16    /* nested .include levels */
/* What an inclusion counts towards OPTINC_NETLIST_BYTES_MAX and the input
 * limit (OPTINC_MAX_INPUT_BYTES) at least, however small its file: reading
 * a file (resolving its path, opening it, holding it and its name) costs
 * the reader some microseconds and a few hundred bytes, as much as lexing
 * kilobytes of text; counted as its bytes alone, a million includes of an
 * empty file would count as nothing. */
#define OPTINC_NETLIST_INCLUDE_BYTES_MIN 4096

/* ------------------------------------------------------------------------
 * The cards: the primitive elements a netlist is made of (optinc-netlist(5),
 * CARDS), one table (netlist_cards.c) that the writer, the reader and the
 * drawings consult.  The kinds are stable: the table is indexed by them.
 */
typedef enum optinc_card_kind {
    OPTINC_CARD_MZI,      /* the physical MZI on two adjacent modes */
    OPTINC_CARD_PS,       /* phase shifter */
    OPTINC_CARD_ATT,      /* attenuator */
    OPTINC_CARD_DC,       /* directional coupler (the halves of an expanded MZI) */
    OPTINC_CARD_TERM,     /* terminator: the end or the dark start of a waveguide */
    OPTINC_CARD_SPLIT,    /* fixed 1x2 splitter: a link of a segmented layer's fan-out chain */
    OPTINC_CARD_COMB,     /* fixed 2x1 combiner: a link of its fan-in chain */
    OPTINC_CARD_THRU,       /* waveguide straight through: a pass-through mode of a segmented layer */
    OPTINC_CARD_COUNT
} optinc_card_kind;

#define OPTINC_CARD_PINS_MAX 4
#define OPTINC_CARD_PARAMS_MAX 7

/* One parameter of a card.  The unit is also the suffix of the key ("_rad",
 * "_dB"), as the dialect spells units; a code is bounded by the card's bits
 * parameter (0 <= code < 2^bits). */
typedef struct optinc_card_param {
    const char *key;
    const char *unit;     /* "rad", "dB", or "" (a ratio, a code, a count) */
    char type;            /* 'd' number, 'i' whole number */
    double min, max;      /* allowed range, inclusive */
    int required;
    int bits;             /* for a code: the index of its bits parameter; else -1 */
} optinc_card_param;

typedef struct optinc_card {
    const char *name;     /* the model name an instance line gives */
    const char *prefix;   /* of the instance names optinc writes ("MZ" in MZ_L1_V_c0_r0) */
    int n_pins;
    const char *pin[OPTINC_CARD_PINS_MAX];  /* in the order an instance lists its nets */
    int n_params;
    optinc_card_param param[OPTINC_CARD_PARAMS_MAX];  /* in the order messages list them */
    signed char write_order[OPTINC_CARD_PARAMS_MAX];  /* parameter indices, the order the
                                                      * writer puts them on a card line */
    int n_in;             /* the first n_in pins take light in, the others give it out
                           * (a term's one pin: where a waveguide ends or a dark one starts) */
    unsigned settings;    /* bit k: parameter k is what the device is set to, the value an
                           * export gives its model (codes, bits and targets are not) */
} optinc_card;

extern const optinc_card optinc_cards[OPTINC_CARD_COUNT];

/* The kind of the card named by the n bytes at name, or -1 when no card has
 * that name. */
int optinc_card_find(const char *name, size_t n);

/* ------------------------------------------------------------------------
 * The header's vocabulary, shared by the writer and the reader
 * (netlist_dialect.c), so that what one writes the other reads.
 */

/* The device parameters of a layer's `*! layer.NAME.SECTION = key=value ...`
 * header lines are the components table's rows (optinc_component_fields,
 * spec.h), the spec loader's own. */

/* The stages a layer of this shape and attenuator position has, in
 * propagation order (kind, tag, modes_in, modes_out, n_att filled; mesh and
 * att left NULL).  Returns the number of stages (1..3). */
int optinc_netlist_stage_plan(optinc_att_position att, int rows, int cols, optinc_stage plan[3]);

/* 1 when s is a PNL name, [A-Za-z_][A-Za-z0-9_]*. */
int optinc_netlist_is_name(const char *s);

#endif
