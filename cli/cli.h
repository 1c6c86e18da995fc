/*
 * cli.h - what the optinc subcommands share: one entry point per command
 * (git's one-file-per-command), error printing, exit codes and JSON output.
 * Each command's options are one table (options.h).
 *
 * Exit codes: 0 success, 1 the run failed, 2 bad input (spec, netlist, matrix
 * file or command line).  Bad command lines print
 * "optinc COMMAND: error: MESSAGE" and the command's usage hint.
 */
#ifndef OPTINC_CLI_H
#define OPTINC_CLI_H

#include <stdio.h>
#include "optinc/error.h"
#include "optinc/fileio.h"
#include "optinc/text.h"

int cmd_compile(int argc, char **argv);
int cmd_draw(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_netlist(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_onn(int argc, char **argv);
int cmd_train(int argc, char **argv);

/* What the readers get: every soft limit of optinc-limits(7), each from the
 * environment variable of its name (optinc_limit_name()), read once, the
 * folders OPTINC_INCLUDE_PATH allows a netlist's includes besides its own,
 * and a resolver that records, as an input of the run, every file it
 * fetches (a spec's matrices, a netlist's includes; inputs.c). */
const optinc_read_opts *cli_read_opts(void);
/* Records path (NULL or "": nothing) as an input of the run; what names it
 * in messages ("spec", "calibration file"). */
void cli_input(const char *path, const char *what);
/* Refuses, with status 2 and before anything is written, an output that
 * cannot be written where it is (optinc_out_check), that is the same file
 * as an input recorded so far (by device and inode: links and other
 * spellings of its path too), or that is the same file as another of the
 * outputs.  NULL entries of outputs[0 .. n) are skipped. */
optinc_status cli_check_outputs(const char *const *outputs, int n, optinc_error *err);
/* Flushes standard output.  A write of it that failed, now or before (a
 * full disk behind a redirection; a reader gone, with SIGPIPE ignored), is
 * a failure of the run: status 1 and "cannot write the standard output:
 * REASON" in err, reported once (what was left unwritten is dropped). */
optinc_status cli_flush(optinc_error *err);
/* How a command that prints a report and writes files ends its run (st:
 * its status so far): standard output flushed first (cli_flush), then the
 * set of its outputs renamed into place only when both succeeded, or
 * removed, every old file left as it was (optinc_outs_end; finish.c says
 * why).  Returns the run's status, err filled on failure. */
optinc_status cli_outs_end(optinc_outs *set, optinc_status st, optinc_error *err);
struct cli_cmd;
/* Prints err as "FILE:LINE:COL: error: MESSAGE" on stderr, or as "optinc
 * CMD: error: MESSAGE" when it names no file; returns its status (the exit
 * code). */
int cli_report(const struct cli_cmd *cmd, const optinc_error *err, optinc_status status);
/* Prints "optinc CMD: error: MESSAGE\nTry 'optinc CMD --help'." and returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The default of a command's --threads (the library reads no environment):
 * OPTINC_THREADS, or 1 when it is unset or empty, into *threads.  Returns
 * -1, or the exit status of a usage error of cmd when it is not a whole
 * number of 1..OPTINC_AR_MAX_THREADS. */
int cli_threads_default(const char *cmd, int *threads);
/* Prints a warning line "optinc: warning: MESSAGE" on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes s as a JSON string literal (quoted, escaped). */
void cli_json_string(FILE *f, const char *s);
/* Writes a double as JSON: the shortest %.Ng (N = 1..17) that reads back
 * to x; null for NaN/Inf, which JSON lacks. */
void cli_json_number(FILE *f, double x);
/* Writes ", \"KEY\": X": a number member after the first of an object. */
void cli_json_field(FILE *f, const char *key, double x);
/* x in that shortest form, in buf; returns buf (optinc_shortest). */
#define CLI_SHORTEST_MAX OPTINC_SHORTEST_MAX
const char *cli_shortest(char buf[CLI_SHORTEST_MAX], double x);

/* The folder of the training data when --data is not given:
 * $OPTINC_FASHION_MNIST_DIR, else the packaged one (dataset.h). */
void cli_data_dir(char *dir, size_t size);
/* The number of processes mpirun started with this one (OpenMPI's or PMI's
 * environment; 1 when it does not say), and this one's rank in *rank (may
 * be NULL; 0 when unknown); 0 when mpirun did not start the program. */
int cli_mpirun_ranks(int *rank);
/* The files cli_plot_curves() writes into its folder, NULL-terminated. */
extern const char *const cli_plot_files[];
/* Plots out_dir/metrics.csv into curves.svg and curves.png with gnuplot
 * (script kept as curves.gp).  *have_gnuplot is set to 0, and nothing is
 * drawn, when gnuplot is not on PATH. */
optinc_status cli_plot_curves(const char *out_dir, const char *title, int *have_gnuplot,
                              optinc_error *err);

#endif
