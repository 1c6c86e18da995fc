/*
 * walk.h - the one walk of a layer (compiler/netlist/, not installed): its
 * elements in the netlist's order, under the netlist's instance names, with
 * the nets between their pins, handed one at a time to a visitor.
 *
 * Why one walk (SQLite's walker.c): the netlist writer, the drawings and
 * every export visit the same elements; were each to work out the order,
 * the names and which waveguide an output continues on, they would drift
 * apart (the drawings once named a screen PS_L_V_m0 where the netlist said
 * PS_L_V_c4_r0).  Here it is worked out once: meshes (MZIs column by column,
 * then the output phase screen), attenuator columns (channels, terms on the
 * inputs beyond them and on unlit outputs), a segmented layer's split and
 * comb chains with the split's trim attenuators, and the pass-through
 * waveguides last.  A fan-1 chain writes nothing and passes its modes on.
 *
 * Every net has one start and one end.  Nets are numbered: the layer's
 * inputs are 0 .. cols-1, and each output pin of an element starts the next
 * number; the `boundary` callback gives the numbers on the modes entering a
 * stage and, after the last, leaving the layer.  Nets also have the names the
 * writer gives them, which a consumer that prints nets (the writer) uses.
 *
 * A visitor reads the element it is given and must not keep its pointers:
 * the walk reuses the names' storage for the next element.
 */
#ifndef OPTINC_NETLIST_WALK_H
#define OPTINC_NETLIST_WALK_H

#include "optinc/netlist.h"

#define NL_NAME_MAX 256     /* > X_ + 63 + __ + MZ_ + 63 + _V_c<int>_r<int> + __PS_ext */

typedef struct nl_elem {
    optinc_card_kind kind;
    const char *name;                      /* the instance name, with the walk's prefix */
    int n_pins;                            /* the card's pins, in its order */
    int n_in;                              /* the first n_in take light in (a term: 1 where a
                                            * waveguide ends, 0 where a dark one starts) */
    const char *net[OPTINC_CARD_PINS_MAX]; /* the nets' names as the netlist writes them */
    int id[OPTINC_CARD_PINS_MAX];          /* and their numbers */
    double v[OPTINC_CARD_PARAMS_MAX];      /* the card's parameters (dialect.h's indices) */
    unsigned has;                          /* bit k: parameter k is on the card */
    int stage;                             /* its stage in the layer (L->n_stages: a thru) */
    int column, row;                       /* the layer's grid: nl_stage_column + the column
                                            * in the stage; the mode it sits on (an MZI on
                                            * modes m, m+1: m) */
} nl_elem;

typedef struct nl_walk nl_walk;
struct nl_walk {
    /* what to walk and how to name it, set by the caller */
    const optinc_circuit *c;
    int layer;
    const char *prefix;      /* of instance and inner net names ("" or "X_<layer>__") */
    int top_ports;           /* 1: the layer's ports named as the top cell's nets (flattened) */
    optinc_status (*visit)(nl_walk *w, const nl_elem *e, optinc_error *err);
    /* NULL, or told the nets on modes 0..modes-1 entering stage s (s = n_stages: the
     * layer's outputs, after the pass-through waveguides) */
    optinc_status (*boundary)(nl_walk *w, int s, int modes, const int *id, optinc_error *err);
    void *ctx;
    /* the walk's state */
    char (*cur)[NL_NAME_MAX], (*next)[NL_NAME_MAX];
    int *cur_id, *next_id;
    int n_ids;               /* the nets numbered so far */
};

/* Walks layer w->layer of w->c.  The visitor's status stops it;
 * OPTINC_ERUN when out of memory. */
optinc_status nl_walk_layer(nl_walk *w, optinc_error *err);

/* 1 when stage s has no element: a fan-1 chain passes its modes on. */
int nl_stage_is_wire(const optinc_stage *s);
/* The grid columns stage s takes: a mesh its MZI columns and its screen, a
 * chain its links and the split's trims, an attenuator column one. */
int nl_stage_width(const optinc_stage *s);
/* The first grid column of stage s of L (the layer's first is 0). */
int nl_stage_column(const optinc_layer *L, int s);

/* Net of mode k at the input (out = 0) or output (out = 1) of layer i, as
 * the top cell names it: the circuit's ports at the ends, "<layer>_out<k>"
 * between two layers. */
void nl_top_net(const optinc_circuit *c, int i, int out, int k, char *buf, size_t size);

#endif
