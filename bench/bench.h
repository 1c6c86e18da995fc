/*
 * bench.h - the clocks the benchmarks time with: wall time on the monotonic
 * clock, and the CPU time of this process, which a shared machine does not
 * inflate.  Static inline, so each benchmark takes only what it uses.
 */
#ifndef OPTINC_BENCH_H
#define OPTINC_BENCH_H

#include <time.h>

/* Seconds on clock id. */
static inline double bench_seconds(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline double bench_wall(void) { return bench_seconds(CLOCK_MONOTONIC); }
static inline double bench_cpu(void) { return bench_seconds(CLOCK_PROCESS_CPUTIME_ID); }

#endif
