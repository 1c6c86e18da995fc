/*
 * main.c - the optinc command: dispatches to one function per subcommand,
 * and owns what only the program may do for the library: the printing of
 * errors and warnings (the environment's soft limits are read in
 * inputs.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "optinc/fileio.h"
#include "optinc/matrix.h"

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"compile", cmd_compile, "compile a YAML spec into MZI meshes (and a netlist)"},
    {"draw", cmd_draw, "draw the meshes of a spec or netlist with Graphviz"},
    {"export", cmd_export, "write a circuit for SAX, gdsfactory or INTERCONNECT"},
    {"netlist", cmd_netlist, "read, validate and rewrite a netlist (round trip, forms)"},
    {"simulate", cmd_simulate, "simulate a compiled circuit with device errors"},
    {"onn", cmd_onn, "train, verify and export the OptINC ONN; check a two-level cascade"},
    {"train", cmd_train, "data-parallel training with ring or OptINC all-reduce"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: optinc [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'optinc COMMAND --help' for a command's options; man optinc-COMMAND.\n");
}

/* A report or JSON on standard output that could not be written (a full
 * disk behind a redirection) is a failed run, not a success with an empty
 * file: exit status 1 unless the command failed already.  (A command that
 * also writes files found that out before it put them in place:
 * cli_outs_end.) */
static int flushed(const char *name, int status)
{
    optinc_error err;
    const cli_cmd cmd = {.name = name};
    optinc_status st = cli_flush(&err);
    if (!st)
        return status;
    cli_report(&cmd, &err, st);
    return status ? status : (int)st;
}

/* Under an address-space limit (ulimit -v), runs the program again with
 * OPENBLAS_NUM_THREADS=1, unless it is so already.  OpenBLAS starts its
 * thread pool when it is loaded, before main, and each thread of it takes
 * a working buffer of 128 MiB, retrying forever when the limit leaves no
 * room; the main thread's own buffer (optinc_linalg_reserve) can lose that
 * race too.  optinc computes on one BLAS thread anyway
 * (optinc_linalg_deterministic), so without the pool nothing changes but
 * that a limit is met with one buffer, or refused at start.  When the
 * program cannot be run again (no /proc), it carries on as it is. */
static void one_blas_thread_under_a_limit(char **argv)
{
    struct rlimit lim;
    const char *n = getenv("OPENBLAS_NUM_THREADS");
    if (getrlimit(RLIMIT_AS, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY ||
        (n && !strcmp(n, "1")) || setenv("OPENBLAS_NUM_THREADS", "1", 1) != 0)
        return;
    execv("/proc/self/exe", argv);
}

int main(int argc, char **argv)
{
    one_blas_thread_under_a_limit(argv);
    optinc_linalg_deterministic();
    if (optinc_linalg_reserve()) {
        fprintf(stderr, "optinc: error: the address-space limit (ulimit -v) leaves no room for "
                        "the 136 MiB working buffer of the linear algebra library; raise it\n");
        /* Not exit(): OpenBLAS's destructor waits forever for the threads
         * of its pool that could not start under the same limit. */
        _exit(2);
    }
    optinc_out_remove_on_signals();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return flushed("--help", 0);
    }
    if (!strcmp(argv[1], "--version")) {
        printf("optinc %s\nlinear algebra: %s\n", OPTINC_VERSION, optinc_linalg_name());
        return flushed("--version", 0);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return flushed(commands[i].name, commands[i].run(argc - 1, argv + 1));
    fprintf(stderr, "optinc: error: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}

int cli_report(const struct cli_cmd *cmd, const optinc_error *err, optinc_status status)
{
    char buf[2300];
    /* An error of no file (an option, the MPI job, memory) says which
     * command it comes from, as the usage errors do; one write, as there. */
    fprintf(stderr, "%s%s%s%s\n", err->file[0] ? "" : "optinc ", err->file[0] ? "" : cmd->name,
            err->file[0] ? "" : ": ", optinc_error_format(err, buf, sizeof buf));
    return (int)status;
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "optinc: warning: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
