/*
 * fuzz_netlist.c - libFuzzer target: the PNL netlist reader
 * (optinc_netlist_parse), lexing through rebuilding the circuit, on
 * libFuzzer's bytes in memory, with the lowered limits of fuzz.h.  An input
 * may .include files by name, served from memory by fuzz.h's resolver:
 * "p.inc" (a .param line) and "net.pnl.sp", the input itself (an include
 * cycle); any other name is missing.
 */
#include "optinc/netlist.h"
#include "fuzz.h"

static const char p_inc[] = ".param w=1.5\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const optinc_input file[] = {{"p.inc", p_inc, sizeof p_inc - 1},
                                 {"net.pnl.sp", (const char *)data, size}};
    fz_files files = {file, 2};
    optinc_read_opts opts = {fz_limits(), fz_resolve, &files, NULL};
    optinc_input in = {"net.pnl.sp", (const char *)data, size};
    optinc_circuit *c = NULL;
    optinc_error err;
    if (optinc_netlist_parse(&in, &opts, &c, &err) == OPTINC_OK)
        optinc_circuit_free(c);
    return 0;
}
