/*
 * fuzz_netlist.c - libFuzzer target: the PNL netlist reader
 * (optinc_netlist_read), lexing through rebuilding the circuit.  An input
 * may .include files by name: "p.inc" (a .param line) exists beside it,
 * as does the input itself (an include cycle); any other name is missing.
 */
#include "optinc/netlist.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once++)
        fz_file("p.inc", (const uint8_t *)".param w=1.5\n", 13);
    optinc_circuit *c = NULL;
    optinc_error err;
    if (optinc_netlist_read(fz_file("net.pnl.sp", data, size), NULL, &c, &err) == OPTINC_OK)
        optinc_circuit_free(c);
    return 0;
}
