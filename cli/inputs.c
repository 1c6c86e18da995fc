/*
 * inputs.c - the files a run reads: what the readers are given (the limits
 * of the environment, a resolver that records every file it fetches), and
 * the check that no output of the run is one of those files.
 *
 * Why a check of its own.  Every output is written atomically, so `optinc
 * compile S.yaml -o S.yaml` would replace the spec with a netlist without a
 * word, and `compile S.yaml -o W.csv` the spec's own matrix file.  A
 * command names its own inputs (cli_input); the files those name in turn
 * (a spec's `file:` matrices, a netlist's `.include`s) come through the
 * resolver of cli_read_opts(), which records each one.  Before it writes,
 * a command hands its outputs to cli_check_outputs(), which compares them
 * with every input by device and inode, so no other path, link or hard
 * link of an input passes.
 */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "optinc/fileio.h"

typedef struct input {
    char path[1024];
    char what[48];
} input;

static input *inputs;
static int n_inputs, cap_inputs;

void cli_input(const char *path, const char *what)
{
    if (!path || !*path)
        return;
    if (n_inputs == cap_inputs) {
        int cap = cap_inputs ? 2 * cap_inputs : 16;
        input *p = realloc(inputs, (size_t)cap * sizeof *p);
        if (!p)
            return;   /* out of memory: the run fails soon enough on its own */
        inputs = p;
        cap_inputs = cap;
    }
    input *in = &inputs[n_inputs++];
    snprintf(in->path, sizeof in->path, "%s", path);
    snprintf(in->what, sizeof in->what, "%s", what);
}

/* optinc_resolve_file, remembering what it read. */
static optinc_status record_resolve(void *ctx, const char *from, const char *rel,
                                    size_t max_bytes, const char *what, optinc_blob *out,
                                    optinc_error *err)
{
    optinc_status st = optinc_resolve_file(ctx, from, rel, max_bytes, what, out, err);
    if (!st)
        cli_input(out->name, what);
    return st;
}

const optinc_read_opts *cli_read_opts(void)
{
    static optinc_limits lim;
    static optinc_read_opts opts;
    if (!opts.limits) {
        optinc_limits_init(&lim);
        for (int id = 0; id < OPTINC_LIMIT_COUNT; id++)
            optinc_limits_set(&lim, (optinc_limit_id)id, getenv(optinc_limit_name(id)));
        opts.limits = &lim;
        opts.resolve = record_resolve;
    }
    return &opts;
}

optinc_status cli_check_outputs(const char *const *outputs, int n, optinc_error *err)
{
    for (int o = 0; o < n; o++)
        for (int i = 0; outputs[o] && i < n_inputs; i++)
            if (optinc_same_file(outputs[o], inputs[i].path))
                return optinc_fail(err, OPTINC_EINPUT, outputs[o], 0, 0,
                                   "this output is the %s '%s' this run reads; write it to "
                                   "another file", inputs[i].what, inputs[i].path);
    return OPTINC_OK;
}
