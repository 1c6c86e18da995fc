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
#include "optinc/text.h"

typedef struct optinc_netlist_options {
    int flatten;          /* one flat cell, hierarchy joined with "__" */
    int expand_mzi;       /* each MZI as a .subckt of ps/dc/ps/dc */
    int reproducible;     /* leave out time- and host-dependent header lines */
} optinc_netlist_options;

/* Writes c as a netlist to path, atomically. */
optinc_status optinc_netlist_write(const optinc_circuit *c, const char *path,
                                   const optinc_netlist_options *opt, optinc_error *err);
/* Writes c to an open stream (used by the file writer and by tests). */
optinc_status optinc_netlist_write_stream(const optinc_circuit *c, FILE *f,
                                          const optinc_netlist_options *opt,
                                          optinc_error *err);
/* Reads and validates a netlist; rebuilds the compiled circuit. */
optinc_status optinc_netlist_read(const char *path, const optinc_read_opts *opts,
                                  optinc_circuit **out, optinc_error *err);

/* A spec (.yaml/.yml: load + compile) or a netlist (anything else). */
optinc_status optinc_circuit_load(const char *path, const optinc_read_opts *opts,
                                  optinc_circuit **out, optinc_error *err);

/* ------------------------------------------------------------------------
 * Reader limits: larger inputs are refused with a message naming the limit.
 */
#define OPTINC_NETLIST_BYTES_MAX (256L << 20)  /* a netlist and its includes together */
#define OPTINC_NETLIST_LINE_MAX (1L << 20)     /* one physical line */
#define OPTINC_NETLIST_INCLUDE_DEPTH_MAX 16    /* nested .include levels */

/* ------------------------------------------------------------------------
 * The dialect's vocabulary, shared by the writer and the reader
 * (netlist_dialect.c), so that what one writes the other reads.
 */

/* One device parameter of a layer's `*! layer.NAME.SECTION = key=value ...`
 * header line: where it lives in optinc_components, its type ('d' double,
 * 'i' int) and its allowed range. */
typedef struct optinc_netlist_field {
    const char *section, *key;
    size_t offset;
    char type;
    double min, max;
} optinc_netlist_field;

extern const optinc_netlist_field optinc_netlist_fields[];
extern const int optinc_netlist_n_fields;

/* The stages a layer of this shape and attenuator position has, in
 * propagation order (kind, tag, modes_in, modes_out, n_att filled; mesh and
 * att left NULL).  Returns the number of stages (1..3). */
int optinc_netlist_stage_plan(optinc_att_position att, int rows, int cols, optinc_stage plan[3]);

/* 1 when s is a PNL name, [A-Za-z_][A-Za-z0-9_]*. */
int optinc_netlist_is_name(const char *s);

#endif
