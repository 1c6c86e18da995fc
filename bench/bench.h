/*
 * bench.h - what every benchmark measures with: the clocks (wall time on the
 * monotonic clock, and the CPU time of this process, which a shared machine
 * does not inflate), the machine's own limits measured in the same run (the
 * memory bandwidth of a STREAM triad, the dense BLAS rate of zgemm and
 * cgemm), the load average, and the one line format of a target that
 * `make bench` collects into its closing table; and the two chores of the
 * benchmarks that compile and write: a spec in memory compiled as the
 * program compiles it, and a scratch file name of this process.  Static, so
 * each benchmark takes only what it uses.
 *
 * Limits, not datasheet figures: a kernel is judged against what this
 * machine does at the same moment, on the same cores, with the same other
 * jobs running.
 */
#ifndef OPTINC_BENCH_H
#define OPTINC_BENCH_H

#include <cblas.h>
#include <complex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "optinc/circuit.h"
#include "optinc/spec.h"

/* Seconds on clock id. */
static inline double bench_seconds(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline double bench_wall(void) { return bench_seconds(CLOCK_MONOTONIC); }
static inline double bench_cpu(void) { return bench_seconds(CLOCK_PROCESS_CPUTIME_ID); }

/* The processors online (at least 1). */
static inline int bench_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* The circuit of the spec text yaml (display name name), parsed and
 * compiled as the program does; on an error, "who: message" on stderr and
 * exit status 1, since a benchmark without its circuit measures nothing. */
static inline optinc_circuit *bench_compile_text(const char *who, const char *name,
                                                 const char *yaml)
{
    optinc_input in = {name, yaml, strlen(yaml)};
    optinc_spec *spec = NULL;
    optinc_circuit *c = NULL;
    optinc_error err = {0};
    if (optinc_spec_parse(&in, NULL, &spec, &err) || optinc_compile(spec, &c, &err)) {
        fprintf(stderr, "%s: %s\n", who, err.message);
        exit(1);
    }
    optinc_spec_free(spec);
    return c;
}

/* A scratch file of this process, "$TMPDIR/stem.PID<suffix>" (/tmp without
 * TMPDIR), into buf. */
static inline const char *bench_scratch_path(char *buf, size_t size, const char *stem,
                                             const char *suffix)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, size, "%s/%s.%d%s", tmp && *tmp ? tmp : "/tmp", stem, (int)getpid(), suffix);
    return buf;
}

/* The three load averages, "1.23 0.98 0.50", into buf. */
static inline const char *bench_loadavg(char *buf, size_t size)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double l[3] = {-1, -1, -1};
    if (f) {
        if (fscanf(f, "%lf %lf %lf", &l[0], &l[1], &l[2]) != 3)
            l[0] = l[1] = l[2] = -1;
        fclose(f);
    }
    snprintf(buf, size, "%.2f %.2f %.2f", l[0], l[1], l[2]);
    return buf;
}

/* A target of the closing table (`make bench`): the line
 * TARGET|what|measured|op|target|unit, op "<=" or ">=". */
static inline void bench_target(const char *what, double measured, const char *op,
                                double target, const char *unit)
{
    printf("TARGET|%s|%.4g|%s|%g|%s\n", what, measured, op, target, unit);
    fflush(stdout);
}

/* ---- memory bandwidth: the STREAM triad a = b + s c ------------------------
 * Three arrays of doubles, each 4x the largest last-level caches of current
 * servers (64 MiB), so every pass goes to memory; counted as STREAM counts
 * it, 24 bytes per element (the read a write-allocate cache adds is not
 * counted, as the all-reduce, writing in place, does not cause one). */
#define BENCH_TRIAD_ELEMS ((size_t)8 << 20)
#define BENCH_TRIAD_REPS 6

typedef struct bench_triad_part {
    double *a, *b, *c;
    size_t lo, hi;
    int touch;                      /* first touch: place the pages on this thread */
} bench_triad_part;

static inline void *bench_triad_run(void *arg)
{
    bench_triad_part *p = arg;
    if (p->touch)
        for (size_t j = p->lo; j < p->hi; j++) {
            p->a[j] = 0.0;
            p->b[j] = 1.0;
            p->c[j] = 2.0;
        }
    else
        for (size_t j = p->lo; j < p->hi; j++)
            p->a[j] = p->b[j] + 3.0 * p->c[j];
    return NULL;
}

/* Best triad bandwidth in GB/s (1e9 bytes) on `threads` threads, each on a
 * fixed slice; 0 when the arrays cannot be had. */
static inline double bench_triad_gbs(int threads)
{
    size_t n = BENCH_TRIAD_ELEMS;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    bench_triad_part part[64];
    pthread_t tid[64];
    double best = 1e30;
    threads = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    for (int rep = -1; a && b && c && rep < BENCH_TRIAD_REPS; rep++) {
        double t0 = bench_wall();
        int started[64] = {0};
        for (int k = 0; k < threads; k++) {
            part[k] = (bench_triad_part){a, b, c, n * (size_t)k / (size_t)threads,
                                         n * (size_t)(k + 1) / (size_t)threads, rep < 0};
            started[k] = k && !pthread_create(&tid[k], NULL, bench_triad_run, &part[k]);
            if (k && !started[k])
                bench_triad_run(&part[k]);     /* no thread: this one does the slice */
        }
        bench_triad_run(&part[0]);
        for (int k = 1; k < threads; k++)
            if (started[k])
                pthread_join(tid[k], NULL);
        double t = bench_wall() - t0;
        if (rep >= 0 && t < best)
            best = t;
    }
    double gbs = a && b && c ? 24.0 * (double)n / best / 1e9 : 0.0;
    free(a);
    free(b);
    free(c);
    return gbs;
}

/* ---- dense BLAS rate ------------------------------------------------------
 * GFLOP/s of C = A B for n x n complex matrices (8 n^3 flops: a complex
 * multiply-add is 8 real flops), best of 3 after one warm-up call. */
static inline double bench_gemm_gflops(int n, int single)
{
    size_t nn = (size_t)n * (size_t)n;
    size_t elem = single ? sizeof(float complex) : sizeof(double complex);
    void *a = calloc(nn, elem), *b = calloc(nn, elem), *c = calloc(nn, elem);
    double best = 1e30;
    if (!a || !b || !c) {
        free(a);
        free(b);
        free(c);
        return 0.0;
    }
    for (size_t j = 0; j < nn; j++) {
        double x = (double)(j % 17) / 17.0 - 0.5, y = (double)(j % 13) / 13.0 - 0.5;
        if (single) {
            ((float complex *)a)[j] = (float)x + (float)y * I;
            ((float complex *)b)[j] = (float)y - (float)x * I;
        } else {
            ((double complex *)a)[j] = x + y * I;
            ((double complex *)b)[j] = y - x * I;
        }
    }
    const double complex one = 1.0, zero = 0.0;
    const float complex onef = 1.0f, zerof = 0.0f;
    for (int rep = 0; rep < 4; rep++) {
        double t0 = bench_wall();
        if (single)
            cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, &onef, a, n, b, n,
                        &zerof, c, n);
        else
            cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, &one, a, n, b, n,
                        &zero, c, n);
        double t = bench_wall() - t0;
        if (rep && t < best)
            best = t;
    }
    free(a);
    free(b);
    free(c);
    return 8.0 * (double)n * (double)n * (double)n / best / 1e9;
}

static inline double bench_zgemm_gflops(int n) { return bench_gemm_gflops(n, 0); }
static inline double bench_cgemm_gflops(int n) { return bench_gemm_gflops(n, 1); }

#endif
