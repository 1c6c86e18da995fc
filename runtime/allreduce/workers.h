/*
 * workers.h - the job of the in-process all-reduce that injects no errors,
 * on the pool of compiler/core/workers.h.  Private to runtime/allreduce/.
 */
#ifndef OPTINC_ALLREDUCE_WORKERS_H
#define OPTINC_ALLREDUCE_WORKERS_H

#include <stddef.h>
#include <stdint.h>
#include "compiler/core/workers.h"

/* The job of an unquantized in-process all-reduce (ring, exact): the
 * servers' gradients g[0..servers), n floats each, reduced in place. */
typedef struct ar_floats {
    int servers;
    float *const *g;
    size_t n;
} ar_floats;

/* Runs part (whose ctx is an ar_floats) over w on g; such an all-reduce
 * injects no errors. */
static inline optinc_status ar_workers_run_floats(optinc_workers *w, optinc_job part, int servers,
                                                  float *const *g, size_t n, uint64_t *errors)
{
    ar_floats job = {servers, g, n};
    optinc_workers_run(w, part, &job);
    *errors = 0;
    return OPTINC_OK;
}

#endif
