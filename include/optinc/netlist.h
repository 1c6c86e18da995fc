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
optinc_status optinc_netlist_read(const char *path, optinc_circuit **out, optinc_error *err);

/* A spec (.yaml/.yml: load + compile) or a netlist (anything else). */
optinc_status optinc_circuit_load(const char *path, optinc_circuit **out, optinc_error *err);

#endif
