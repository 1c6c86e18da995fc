/*
 * bench_allreduce.c - the all-reduce emulations against OpenMPI's
 * MPI_Allreduce and against the machine's memory bandwidth, and the
 * step-time overhead of OptINC aggregation over exact aggregation in
 * training.
 *
 * One run, 4 servers, a 1M-element float gradient per server:
 *   in process   optinc (the ONN's table) on every core and on one thread,
 *                quantized, ring, exact (every core);
 *   limit        the bytes an in-place all-reduce must touch, every
 *                server's gradient read once and written once (2 x 4 x 4
 *                MiB), at the triad bandwidth measured now (bench.h);
 *   on MPI       the program re-runs itself under `mpirun -np R` for R = 2,
 *                4, 8 and 16 and times MPI_Allreduce and the MPI backend's
 *                ring and optinc on gradients of 64 KiB to 64 MiB, rank 0
 *                reporting the medians, one row per size (skipped, with a
 *                note, when the build has no MPI);
 *   cascade      optinc through cascades of the exact 4-server unit for 4,
 *                16, 64 and 256 servers (1, 2, 3 and 4 levels), 64K floats
 *                per server on one thread: CPU time and the memory the step
 *                holds (bytes allocated after the call, plan alive, less
 *                before the servers' gradients were made: the gradients,
 *                the plan's scratch and table), against the quantized
 *                all-reduce of the same servers (one rounding of the flat
 *                sum, what a single N-server unit would compute);
 *   training     optinc_train on Fashion-MNIST (4 servers x batch 64,
 *                784-256-128-10), exact vs optinc, CPU time per step on one
 *                thread (what the emulation costs, whatever else runs): the
 *                median step of a run, the least over 5 runs of each.
 * Targets (TARGET lines, bench.h): optinc on the MPI backend >= 1.5x as
 * fast as MPI_Allreduce (4 ranks, 1M floats, wall time); the emulation on
 * every core within 1.2x of the bytes touched once at triad speed; the
 * training overhead <= 2 % (issue 43); the cascade's CPU time per server
 * and element at 256 servers <= 1.5x that at 16, the first cascade (the
 * lookups grow as N/4 + N/16 + ... < N/3, so linear growth in N is the
 * aim; 4 servers are one unit, whose index vectorizes, quantize.c).
 *
 * The machine these run on is often shared, so in-process figures are given
 * both in wall time and in the process's CPU time, and the load average is
 * printed with them.  MPI figures are wall time of 4 ranks, which is what
 * MPI_Allreduce costs.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/bench.h"
#include "optinc/allreduce.h"
#include "optinc/comm.h"
#include "optinc/rng.h"
#include "optinc/train.h"

#define SERVERS 4
#define N_ELEM (1u << 20)
#define REPS 15
#define TRAIN_STEPS 150

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[n / 2];
}

static void fill(float *g, size_t n, uint64_t seed)
{
    optinc_rng rng;
    optinc_rng_seed(&rng, seed);
    for (size_t j = 0; j < n; j++)
        g[j] = (float)(optinc_rng_normal(&rng) * 1e-3);
}

static optinc_allreduce *plan(const char *name, int threads)
{
    optinc_ar_config c = {.algorithm = optinc_ar_find(name), .servers = SERVERS,
                          .bits = OPTINC_AR_DEFAULT_BITS, .block_size = OPTINC_AR_DEFAULT_BLOCK,
                          .seed = 1, .threads = threads};
    optinc_allreduce *ar;
    optinc_error err;
    if (optinc_allreduce_new(&c, &ar, &err)) {
        fprintf(stderr, "bench_allreduce: %s\n", err.message);
        exit(1);
    }
    return ar;
}

/* Median wall and CPU seconds per in-process all-reduce by the algorithm
 * called name on `threads` threads. */
static void time_inproc(const optinc_comm *comm, const char *name, int threads, float **g,
                        float *const *src, double *wall, double *cpu)
{
    optinc_allreduce *ar = plan(name, threads);
    double t[REPS], c[REPS];
    for (int r = 0; r < REPS; r++) {
        for (int i = 0; i < SERVERS; i++)
            memcpy(g[i], src[i], N_ELEM * sizeof(float));
        double t0 = optinc_comm_time(comm), c0 = bench_cpu();
        optinc_allreduce_inproc(ar, (uint64_t)r, g, N_ELEM, NULL, NULL);
        c[r] = bench_cpu() - c0;
        t[r] = optinc_comm_time(comm) - t0;
    }
    optinc_allreduce_free(ar);
    *wall = median(t, REPS);
    *cpu = median(c, REPS);
}

/* Bytes the allocator has handed out and not taken back (mallinfo2: heap
 * chunks in use and mmapped chunks), which, unlike the resident set, does
 * not depend on what earlier frees left mapped. */
static double allocated_bytes(void)
{
    struct mallinfo2 m = mallinfo2();
    return (double)m.uordblks + (double)m.hblkhd;
}

/* Median CPU seconds of REPS calls of the algorithm called name for N
 * servers' gradients g of n floats (table: the unit, NULL for its own), and
 * (held may be NULL) the bytes allocated after the last call above `base`. */
static double time_servers(const char *name, int N, const optinc_agg_lut *table, float **g,
                           size_t n, double base, double *held)
{
    optinc_ar_config cfg = {.algorithm = optinc_ar_find(name), .servers = N,
                            .bits = OPTINC_AR_DEFAULT_BITS,
                            .block_size = OPTINC_AR_DEFAULT_BLOCK, .lut = table, .seed = 1,
                            .threads = 1};
    optinc_allreduce *ar;
    optinc_error err;
    if (optinc_allreduce_new(&cfg, &ar, &err)) {
        fprintf(stderr, "bench_allreduce: %s\n", err.message);
        exit(1);
    }
    double c[REPS];
    for (int r = 0; r < REPS; r++) {
        for (int i = 0; i < N; i++)
            fill(g[i], n, 10 + (uint64_t)i);
        double c0 = bench_cpu();
        optinc_allreduce_inproc(ar, (uint64_t)r, g, n, NULL, NULL);
        c[r] = bench_cpu() - c0;
    }
    if (held)
        *held = allocated_bytes() - base;
    optinc_allreduce_free(ar);
    return median(c, REPS);
}

/* The cascade's time and memory per step for 4..256 servers. */
static void bench_cascade(void)
{
    const size_t n = 1u << 16;
    optinc_agg_lut *unit;
    optinc_error err;
    if (optinc_agg_lut_exact(4, OPTINC_AR_DEFAULT_BITS, &unit, &err)) {
        fprintf(stderr, "bench_allreduce: %s\n", err.message);
        exit(1);
    }
    char load[64];
    printf("optinc through a cascade of 4-server units, %zu floats per server, 1 thread, CPU "
           "time, median of %d calls (load average %s)\n", n, REPS,
           bench_loadavg(load, sizeof load));
    printf("%8s %7s %11s %13s %10s %13s %10s %12s\n", "servers", "levels", "optinc ms",
           "quantized ms", "/ quant", "ns/server-el", "MiB held", "MiB/server");
    double first_ns = 0.0, first_mib = 0.0, ns = 0.0, mib = 0.0, ns16 = 0.0;
    for (int N = 4; N <= 256; N *= 4) {
        double base = allocated_bytes(), held;
        float **g = malloc((size_t)N * sizeof *g);
        for (int i = 0; i < N; i++)
            g[i] = malloc(n * sizeof **g);
        double t = time_servers("optinc", N, unit, g, n, base, &held);
        double q = time_servers("quantized", N, NULL, g, n, base, NULL);
        ns = t / ((double)N * (double)n) * 1e9;
        mib = held / (1 << 20);
        if (N == 4) {
            first_ns = ns;
            first_mib = mib;
        }
        if (N == 16)
            ns16 = ns;
        int levels = 0;
        for (int k = N; k > 1; k /= 4)
            levels++;
        printf("%8d %7d %11.3f %13.3f %9.2fx %13.3f %10.1f %12.3f\n", N, levels, t * 1e3,
               q * 1e3, t / q, ns, mib, mib / N);
        for (int i = 0; i < N; i++)
            free(g[i]);
        free(g);
    }
    printf("from 4 to 256 servers (x64): time per server-element x%.2f (from 16: x%.2f), "
           "memory x%.1f\n", ns / first_ns, ns / ns16, mib / first_mib);
    bench_target("optinc cascade, CPU time per server-element, 256 vs 16 servers", ns / ns16,
                 "<=", 1.5, "x");
    optinc_agg_lut_free(unit);
}

/* The MPI table's gradient sizes, in floats: 64 KiB to 64 MiB, with the
 * 1M floats (4 MiB) of the target; and its rank counts. */
static const unsigned mpi_sizes[] = {1u << 14, 1u << 18, 1u << 20, 1u << 22, 1u << 24};
static const int mpi_ranks[] = {2, 4, 8, 16};
#define MPI_SIZES (sizeof mpi_sizes / sizeof mpi_sizes[0])

/* Under mpirun: for each size, rank 0 prints "floats native ring optinc",
 * the median wall seconds of MPI_Allreduce and of the MPI backend's ring
 * and optinc (REPS calls of each, interleaved, fewer above 4 MiB so 16 ranks
 * on a small machine finish in minutes; at least 3). */
static int mpi_part(int argc, char **argv)
{
    optinc_comm comm;
    optinc_error err;
    if (optinc_comm_open(&comm, "mpi", SERVERS, &argc, &argv, &err)) {
        fprintf(stderr, "bench_allreduce: %s\n", err.message);
        return 1;
    }
    size_t most = mpi_sizes[MPI_SIZES - 1];
    float *g = malloc(most * sizeof *g), *src = malloc(most * sizeof *src);
    fill(src, most, 10 + (uint64_t)comm.rank);
    const char *kinds[3] = {"exact", "ring", "optinc"};
    optinc_allreduce *ar[3] = {NULL, NULL, NULL};
    for (int k = 1; k < 3; k++) {
        optinc_ar_config c = {.algorithm = optinc_ar_find(kinds[k]), .servers = comm.servers,
                              .bits = OPTINC_AR_DEFAULT_BITS,
                              .block_size = OPTINC_AR_DEFAULT_BLOCK, .seed = 1, .threads = 1};
        if (optinc_allreduce_new(&c, &ar[k], &err)) {
            fprintf(stderr, "bench_allreduce: %s\n", err.message);
            return 1;
        }
    }
    for (size_t z = 0; z < MPI_SIZES; z++) {
        size_t n = mpi_sizes[z];
        int reps = n <= N_ELEM ? REPS : n <= 4 * N_ELEM ? 5 : 3;
        double med[3], t[3][REPS];
        for (int r = 0; r < reps; r++)      /* interleaved: a change of load hits all three */
            for (int k = 0; k < 3; k++) {
                memcpy(g, src, n * sizeof *g);
                optinc_comm_agree(&comm, OPTINC_OK, NULL);     /* a barrier */
                double t0 = optinc_comm_time(&comm);
                if (k)
                    optinc_comm_allreduce(&comm, ar[k], (uint64_t)r, &g, n, NULL, &err);
                else
                    optinc_comm_native_sum(&comm, g, n, &err);
                t[k][r] = optinc_comm_time(&comm) - t0;
            }
        for (int k = 0; k < 3; k++)
            med[k] = median(t[k], reps);
        if (comm.rank == 0) {
            printf("%zu %.9f %.9f %.9f\n", n, med[0], med[1], med[2]);
            fflush(stdout);
        }
    }
    for (int k = 1; k < 3; k++)
        optinc_allreduce_free(ar[k]);
    free(g);
    free(src);
    optinc_comm_close(&comm);
    return 0;
}

/* The MPI table: each rank count under its own mpirun, each size a row,
 * MPI_Allreduce next to the MPI backend's ring and optinc (wall ms, and
 * optinc's speed over each).  The 4-rank, 1M-float row's speed over
 * MPI_Allreduce into *vs_native (0 when it was not measured).  0, or -1
 * when mpirun could not run. */
static int mpi_table(const char *prog, double *vs_native)
{
    *vs_native = 0;
    char load[64];
    printf("\non MPI (wall ms, median of calls interleaved over the three; OpenMPI, ranks "
           "oversubscribed beyond the cores; load average %s)\n", bench_loadavg(load, sizeof load));
    printf("%5s %10s %14s %10s %10s %12s %12s\n", "ranks", "floats", "MPI_Allreduce",
           "ring", "optinc", "opt/native", "opt/ring");
    for (size_t i = 0; i < sizeof mpi_ranks / sizeof mpi_ranks[0]; i++) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "mpirun -np %d '%s' --mpi", mpi_ranks[i], prog);
        FILE *p = popen(cmd, "r");
        size_t n;
        double mt[3];
        int rows = 0;
        while (p && fscanf(p, "%zu %lf %lf %lf", &n, &mt[0], &mt[1], &mt[2]) == 4) {
            printf("%5d %10zu %14.3f %10.3f %10.3f %11.2fx %11.2fx\n", mpi_ranks[i], n,
                   mt[0] * 1e3, mt[1] * 1e3, mt[2] * 1e3, mt[0] / mt[2], mt[1] / mt[2]);
            fflush(stdout);
            if (mpi_ranks[i] == SERVERS && n == N_ELEM)
                *vs_native = mt[0] / mt[2];
            rows++;
        }
        if (p)
            pclose(p);
        if (rows < (int)MPI_SIZES) {
            printf("MPI: skipped (mpirun -np %d failed)\n", mpi_ranks[i]);
            return -1;
        }
    }
    return 0;
}

/* The CPU time of each training step, from the trainer's progress callback
 * (called after every step): the intervals between calls. */
typedef struct step_clock {
    double last;              /* CPU seconds at the last call; < 0: none yet */
    double t[TRAIN_STEPS];
    int n;
} step_clock;

static int on_step(void *ctx, const optinc_train_progress *p)
{
    step_clock *c = ctx;
    double now = bench_cpu();
    if (c->last >= 0.0 && c->n < TRAIN_STEPS)
        c->t[c->n++] = now - c->last;
    c->last = now;
    return 0;
}

/* The median CPU seconds of a step of a 1-epoch training of TRAIN_STEPS + 1
 * steps with the algorithm called name: the steps alone (loading the data,
 * the first step and the test fall outside every interval but the last,
 * which the median leaves out), and the median of the steps, not their sum,
 * so that a step slowed by what shares its core (evicted caches, a
 * migration) does not count. */
static double step_cpu(const char *name, optinc_error *err)
{
    optinc_train_config cfg;
    optinc_train_defaults(&cfg);
    cfg.epochs = 1;
    cfg.limit_train = (TRAIN_STEPS + 1) * SERVERS * cfg.batch;
    cfg.limit_test = 100;
    cfg.allreduce = optinc_ar_find(name);
    step_clock clock = {.last = -1.0};
    cfg.progress = on_step;
    cfg.progress_ctx = &clock;
    optinc_comm comm;
    optinc_comm_inproc(&comm, SERVERS);
    optinc_train_result res;
    if (optinc_train(&cfg, &comm, &res, err))
        return -1.0;
    optinc_train_result_free(&res);
    return median(clock.t, clock.n);
}

/* CPU seconds per training step: the least over 5 interleaved runs of each
 * run's median step (on a shared machine the least disturbed run). */
static int time_training(double *exact_s, double *optinc_s)
{
    double best[2] = {1e30, 1e30};
    const char *kinds[2] = {"exact", "optinc"};
    optinc_error err;
    for (int rep = 0; rep < 5; rep++)
        for (int k = 0; k < 2; k++) {
            double t = step_cpu(kinds[k], &err);
            if (t < 0.0) {
                printf("training: skipped (%s)\n", err.message);
                return -1;
            }
            best[k] = t < best[k] ? t : best[k];
        }
    *exact_s = best[0];
    *optinc_s = best[1];
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--mpi"))
        return mpi_part(argc, argv);
    optinc_comm comm;
    optinc_comm_inproc(&comm, SERVERS);
    float *src[SERVERS], *g[SERVERS];
    for (int i = 0; i < SERVERS; i++) {
        src[i] = malloc(N_ELEM * sizeof(float));
        g[i] = malloc(N_ELEM * sizeof(float));
        fill(src[i], N_ELEM, 10 + (uint64_t)i);
    }
    int cores = bench_cores();
    char load[64];
    double bw = bench_triad_gbs(cores);
    /* in place: each server's floats read once and written once */
    double touched = 2.0 * SERVERS * N_ELEM * sizeof(float), limit = touched / (bw * 1e9);
    printf("all-reduce of %u floats per server, %d servers, median of %d calls "
           "(load average %s)\n", N_ELEM, SERVERS, REPS, bench_loadavg(load, sizeof load));
    printf("%-40s %10s %14s %10s %14s %8s\n", "algorithm", "wall ms", "elements/s", "CPU ms",
           "elements/s", "/ limit");
    const struct { const char *name, *algorithm; int threads; } rows[] = {
        {"optinc emulation (in-proc, every core)", "optinc", cores},
        {"optinc emulation (in-proc, 1 thread)", "optinc", 1},
        {"quantized reference (in-proc)", "quantized", cores},
        {"ring emulation (in-proc)", "ring", cores},
        {"exact mean (in-proc)", "exact", cores}};
    double t_opt = 0.0;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        double t, c;
        time_inproc(&comm, rows[r].algorithm, rows[r].threads, g, src, &t, &c);
        if (!r)
            t_opt = t;
        printf("%-40s %10.3f %14.4g %10.3f %14.4g %7.2fx\n", rows[r].name, t * 1e3, N_ELEM / t,
               c * 1e3, N_ELEM / c, t / limit);
    }
    printf("%-40s %10.3f   (%.0f MiB at the triad's %.2f GB/s, %d threads)\n",
           "limit: the bytes touched once", limit * 1e3, touched / (1 << 20), bw, cores);
    bench_target("optinc emulation (every core) / the bytes touched once at triad speed",
                 t_opt / limit, "<=", 1.2, "x");
    for (int i = 0; i < SERVERS; i++) {
        free(src[i]);
        free(g[i]);
    }
    optinc_error err;
    double vs_native;
    if (optinc_comm_backend_check("mpi", &err) != OPTINC_OK)
        printf("MPI_Allreduce: skipped (%s)\n", err.message);
    else if (mpi_table(argv[0], &vs_native) == 0)
        bench_target("optinc on the MPI backend vs MPI_Allreduce, 1M floats 4 ranks, wall",
                     vs_native, ">=", 1.5, "x");
    bench_cascade();
    double te, to;
    if (time_training(&te, &to) == 0) {
        printf("training step, CPU time (4 x batch 64, 784-256-128-10, 1 thread): exact %.3f ms, "
               "optinc %.3f ms, overhead %+.1f %% (target <= 2 %%)\n", te * 1e3, to * 1e3,
               100.0 * (to / te - 1.0));
        bench_target("training step overhead, optinc over exact, CPU time",
                     100.0 * (to / te - 1.0), "<=", 2.0, "%");
    }
    return 0;
}
