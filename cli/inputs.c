/*
 * inputs.c - the files a run reads: what the readers are given (the limits
 * of the environment, a resolver that records every file it fetches, the
 * folders of OPTINC_INCLUDE_PATH), and the check that no output of the run
 * is one of those files.
 *
 * Why a check of its own.  Every output is written atomically, so `optinc
 * compile S.yaml -o S.yaml` would replace the spec with a netlist without a
 * word, and `compile S.yaml -o W.csv` the spec's own matrix file.  A
 * command names its own inputs (cli_input); the files those name in turn
 * (a spec's `file:` matrices, a netlist's `.include`s) come through the
 * resolver of cli_read_opts(), which records each one.  Before it writes,
 * a command hands its outputs to cli_check_outputs(), which compares them
 * with every input by device and inode, so no other path, link or hard
 * link of an input passes.  It also refuses, before the first file is
 * written, an output that cannot be written where it is (a folder, a
 * missing folder) and two outputs that are one file (the same name, a
 * link from one to the other, hard links), which the atomic writes would
 * otherwise resolve by keeping whichever came last.
 */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "optinc/fileio.h"
#include "optinc/text.h"

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
        opts.include_path = getenv("OPTINC_INCLUDE_PATH");
    }
    return &opts;
}

/* The file output path writes: what a link points at, else the path with
 * its folder resolved; path itself when its folder does not resolve (the
 * write then fails on its own). */
static void output_target(const char *path, char *out, size_t size)
{
    char *real = realpath(path, NULL);
    if (!real) {
        char dir[1024];
        const char *base = strrchr(path, '/');
        optinc_path_dir(path, dir, sizeof dir);
        char *d = realpath(dir, NULL);
        if (d)
            snprintf(out, size, "%s/%s", d, base ? base + 1 : path);
        else
            snprintf(out, size, "%s", path);
        free(d);
        return;
    }
    snprintf(out, size, "%s", real);
    free(real);
}

optinc_status cli_check_outputs(const char *const *outputs, int n, optinc_error *err)
{
    char (*target)[4096] = calloc((size_t)(n > 0 ? n : 1), sizeof *target);
    if (!target)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    optinc_status st = OPTINC_OK;
    for (int o = 0; !st && o < n; o++) {
        if (!outputs[o])
            continue;
        if ((st = optinc_out_check(outputs[o], err)))
            break;
        for (int i = 0; !st && i < n_inputs; i++)
            if (optinc_same_file(outputs[o], inputs[i].path))
                st = optinc_fail(err, OPTINC_EINPUT, outputs[o], 0, 0,
                                 "this output is the %s '%s' this run reads; write it to "
                                 "another file", inputs[i].what, inputs[i].path);
        output_target(outputs[o], target[o], sizeof target[o]);
        for (int q = 0; !st && q < o; q++)
            if (outputs[q] && (!strcmp(target[q], target[o]) ||
                               optinc_same_file(outputs[q], outputs[o])))
                st = optinc_fail(err, OPTINC_EINPUT, outputs[o], 0, 0,
                                 "this output is the file '%s' the run writes too; give each "
                                 "output a file of its own", outputs[q]);
    }
    free(target);
    return st;
}
