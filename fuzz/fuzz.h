/*
 * fuzz.h - what the libFuzzer targets in fuzz/ (make fuzz) share: the
 * lowered soft limits, and a resolver that serves the files an input names
 * from memory.
 *
 * Every reader takes its input as a buffer with a display name, and the
 * files that input names (a spec's `file:` matrices, a netlist's .include)
 * through the resolver of its read options (text.h), so a target hands the
 * reader libFuzzer's bytes and a table of files in memory: nothing is
 * written anywhere, and no environment variable is read or set.
 *
 * The matrix readers of fileio.h (.npy, .csv) share one signature, and so
 * one body: fz_matrix_reader.
 *
 * The soft resource limits are lowered for fuzzing (optinc-limits(7)): a
 * 64-mode matrix exercises every code path a 1024-mode one does, and keeps
 * each execution in the microseconds, so the fuzzer spends its time on
 * inputs, not on decomposing big meshes.
 */
#ifndef OPTINC_FUZZ_H
#define OPTINC_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/fileio.h"
#include "optinc/limits.h"
#include "optinc/text.h"

static inline const optinc_limits *fz_limits(void)
{
    static optinc_limits lim;
    if (!lim.value[OPTINC_LIMIT_MODES]) {
        optinc_limits_init(&lim);
        lim.value[OPTINC_LIMIT_MODES] = 64;
        lim.value[OPTINC_LIMIT_CARDS] = 100000;
    }
    return &lim;
}

/* The files a resolver serves, each an input whose name is the one an
 * input names it by: ctx of fz_resolve. */
typedef struct fz_files {
    const optinc_input *file;
    int n;
} fz_files;

/* The resolver (optinc_resolver) over an fz_files: a copy of the file named
 * rel, as optinc_blob_read would make it (a '\0' after the bytes, the name
 * messages give it), or the refusals of that reader for a name the table
 * does not hold and for a file larger than max_bytes. */
static inline optinc_status fz_resolve(void *ctx, const char *from, const char *rel,
                                       size_t max_bytes, const char *what, optinc_blob *out,
                                       optinc_error *err)
{
    const fz_files *files = ctx;
    (void)from;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < files->n; i++) {
        const optinc_input *f = &files->file[i];
        if (strcmp(rel, f->name))
            continue;
        if (f->len > max_bytes)
            return optinc_fail(err, OPTINC_EINPUT, rel, 0, 0, "%s '%s' is larger than %zu "
                               "bytes, the reader's limit", what, rel, max_bytes);
        if (!(out->data = malloc(f->len + 1)))
            return optinc_fail(err, OPTINC_ERUN, rel, 0, 0, "out of memory");
        if (f->len)
            memcpy(out->data, f->data, f->len);
        out->data[f->len] = '\0';
        out->len = f->len;
        snprintf(out->name, sizeof out->name, "%s", rel);
        return OPTINC_OK;
    }
    return optinc_fail(err, OPTINC_EINPUT, rel, 0, 0, "cannot open %s '%s': No such file or "
                       "directory", what, rel);
}

/* A matrix reader of fileio.h (optinc_npy_parse, optinc_csv_parse). */
typedef optinc_status (*fz_matrix_parse)(const optinc_input *in, optinc_cmat **out,
                                         int *is_complex, optinc_error *err);

/* The body of a matrix reader's target: parse on libFuzzer's bytes as they
 * are (no file, no terminating NUL) under the display name name, the
 * matrix freed when it reads. */
static inline int fz_matrix_reader(fz_matrix_parse parse, const char *name, const uint8_t *data,
                                   size_t size)
{
    optinc_input in = {name, (const char *)data, size};
    optinc_cmat *m = NULL;
    optinc_error err;
    int is_complex;
    if (parse(&in, &m, &is_complex, &err) == OPTINC_OK)
        optinc_cmat_free(m);
    return 0;
}

#endif
