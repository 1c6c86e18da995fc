/*
 * workers.h - the threads an all-reduce plan spreads its in-process work
 * over.  Private to runtime/allreduce/.
 *
 * A pool is made with the plan, for the thread count its caller gave
 * (optinc_ar_config.threads; the library never guesses it), and runs one job
 * at a time: fn(ctx, part, parts) once for every part 0..parts-1.  The parts
 * are a fixed partition of the job's work (the callers cut their slices by
 * part number and part count alone); the threads, the caller's among them,
 * take the parts in turn, so which thread runs a part, and when, changes no
 * value, and a thread the system leaves waiting does not hold up the others.
 */
#ifndef OPTINC_ALLREDUCE_WORKERS_H
#define OPTINC_ALLREDUCE_WORKERS_H

#include <stddef.h>
#include <stdint.h>
#include "optinc/error.h"

typedef struct ar_workers ar_workers;
typedef void (*ar_job)(void *ctx, int part, int parts);

/* A pool of `threads` threads in all, the caller's included (threads - 1
 * are started, with every signal blocked); *out is NULL for 1 thread. */
optinc_status ar_workers_new(int threads, ar_workers **out, optinc_error *err);
/* Runs fn over every part of ar_workers_parts(w) and returns when all are
 * done; w NULL runs the one part 0 of 1 here. */
void ar_workers_run(ar_workers *w, ar_job fn, void *ctx);
/* The parts of a job: a few per thread, so that they balance (1 for NULL). */
int ar_workers_parts(const ar_workers *w);
void ar_workers_free(ar_workers *w);

/* The job of an unquantized in-process all-reduce (ring, exact): the
 * servers' gradients g[0..servers), n floats each, reduced in place. */
typedef struct ar_floats {
    int servers;
    float *const *g;
    size_t n;
} ar_floats;

/* Runs part (whose ctx is an ar_floats) over w on g; such an all-reduce
 * injects no errors. */
static inline optinc_status ar_workers_run_floats(ar_workers *w, ar_job part, int servers,
                                                  float *const *g, size_t n, uint64_t *errors)
{
    ar_floats job = {servers, g, n};
    ar_workers_run(w, part, &job);
    *errors = 0;
    return OPTINC_OK;
}

#endif
