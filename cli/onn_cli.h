/*
 * onn_cli.h - what the subcommands of `optinc onn` share across their two
 * files: cmd_onn.c (train, verify, export, and the dispatch) and
 * onn_cascade.c (cascade, cost): the task and device options, the loader of
 * an ONN with those options, and the device and histogram reports.
 */
#ifndef OPTINC_ONN_CLI_H
#define OPTINC_ONN_CLI_H

#include <stddef.h>
#include <stdint.h>
#include "cli/options.h"
#include "optinc/onn.h"
#include "optinc/sim.h"

/* The task of train, and of verify for a netlist whose spec is gone: a given
 * option overrides the ONN's own (verify) or the default (train). */
typedef struct task_opts {
    int servers, bits, level, pre, rounding, code;
    int servers_given, bits_given, level_given, pre_given, rounding_given, code_given;
} task_opts;

/* The ONN library takes 2..64 servers and even widths up to 30 bits (a
 * cascade keeps one extra digit of a 32-bit code), narrower than what
 * `optinc train` takes. */
/* The chip verify, export and cascade evaluate: dev.ideal is 1 (ideal
 * devices), 0 (--programmed) or OPTINC_ONN_CONTINUOUS (--continuous), the
 * last of those two given; --sigma alone means --programmed.  --chip FILE
 * gives the whole device model instead (a chip file), and excludes them. */
typedef struct device_opts {
    optinc_onn_devices dev;
    int sigma_given, chip_given;
    const char *chip_path;
    optinc_chip_spec chip;
} device_opts;

#define DEVICE_OPTIONS(d)                                                                    \
    {"programmed", 0, CLI_SET, CLI_DST(int, &(d)->dev.ideal), NULL,                          \
     "use the programmed phase-driver codes (quantized phases)", .set = 0},                  \
    CLI_OPT_PHASE_SIGMA("sigma", &(d)->dev.phase_sigma_rad, &(d)->sigma_given,               \
                        "static phase error of every phase shifter; implies --programmed"), \
    {"continuous", 0, CLI_SET, CLI_DST(int, &(d)->dev.ideal), NULL,                          \
     "with --sigma: drivers realize the unquantized targets", .set = OPTINC_ONN_CONTINUOUS}, \
    CLI_OPT_CHIP(&(d)->chip_path, &(d)->chip_given,                                          \
                 "a chip file: every device error of the chip (optinc-onn(1))"),              \
    CLI_OPT_CHIP_SEED(&(d)->dev.chip_seed, NULL, NULL, "seed of the chip's errors"),         \
    {"calibrate", 0, CLI_SET, CLI_DST(int, &(d)->dev.calibrate), NULL,                       \
     "with --chip: recompile each chip's drivers from its measurement", .set = 1}

void device_defaults(device_opts *d);
/* cli_parse, then the device options that exclude each other, as usage
 * errors: --chip replaces the others, and --calibrate needs it.  Returns -1
 * to go on, else the exit code. */
int parse_devices(const cli_cmd *cmd, const cli_opt *opts, int argc, char **argv,
                  const char **operand, const device_opts *d);
/* The chip the parsed options describe, its chip file read. */
optinc_status device_finish(device_opts *d, optinc_onn_devices *out, optinc_error *err);
/* The chip of d (parsed into o) in words. */
const char *devices_text(const device_opts *o, const optinc_onn_devices *d, char *buf,
                         size_t n);
/* ", \"devices\": {...}" of the JSON reports. */
void devices_json(const device_opts *d, const optinc_onn_devices *dev);
/* ", \"KEY\": {...}": the nonzero bins of a histogram in LSBs, counts h or
 * weights w. */
void hist_json(const char *key, const uint64_t *h, const double *w);
/* Loads path and applies the task options given in t (NULL: none, the ONN's
 * own task). */
optinc_status load_onn(const char *path, const task_opts *t, optinc_circuit **c,
                       optinc_onn_meta *m, optinc_error *err);

int onn_cascade(const cli_cmd *cmd, int argc, char **argv);
int onn_cost(const cli_cmd *cmd, int argc, char **argv);

#endif
