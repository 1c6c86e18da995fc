/*
 * cmd_netlist.c - `optinc netlist NET.sp -o OUT.sp`: reads a netlist,
 * validates it as every command that takes a circuit does, and writes it
 * again, in the form the options ask for (hierarchical by default, or
 * --flatten, with or without --expand-mzi).
 *
 * Why a command that only rewrites: the reader rebuilds the circuit from
 * the wiring alone and the writer prints what the compiler printed, so the
 * rewrite of a netlist optinc wrote is byte-identical to it (with the
 * header's created line left out, as --reproducible does).  That makes the
 * round trip a user can check with cmp(1), and it converts between the
 * forms without the spec.
 */
#include <stdio.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "optinc/circuit.h"
#include "optinc/netlist.h"

/* What --help says besides the options. */
static const cli_cmd netlist_cmd = {"netlist", "NET.sp", NULL,
    "Reads and validates a netlist and writes it again, in the form the "
    "options give;\na netlist optinc wrote comes back byte-identical, less its "
    "creation time."};

int cmd_netlist(int argc, char **argv)
{
    const char *output = NULL, *operand[CLI_MAX_OPERANDS];
    optinc_netlist_options nopt = {.reproducible = 1};
    const cli_opt opts[] = {
        CLI_OPT_OUTPUT(&output, "OUT.sp", CLI_REQUIRED, "the netlist written",
                       "write the netlist (atomically)"),
        CLI_OPT_FLATTEN(&nopt.flatten),
        CLI_OPT_HIERARCHICAL(&nopt.flatten),
        CLI_OPT_EXPAND_MZI(&nopt.expand_mzi),
        CLI_OPT_END};
    int rc = cli_parse(&netlist_cmd, opts, argc, argv, operand);
    if (rc >= 0)
        return rc;
    nopt.limits = cli_read_opts()->limits;   /* what it writes, the readers take */

    optinc_error err = {0};
    optinc_circuit *c = NULL;
    cli_input(operand[0], "netlist");
    /* Read first, so that the .include files are inputs the check knows. */
    optinc_status st = optinc_netlist_read(operand[0], cli_read_opts(), &c, &err);
    if (!st)
        st = cli_check_outputs(&output, 1, &err);
    if (!st)
        st = optinc_netlist_write(c, output, &nopt, &err);
    optinc_circuit_free(c);
    return st ? cli_report(&netlist_cmd, &err, st) : 0;
}
