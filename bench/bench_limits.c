/*
 * bench_limits.c - the machine's own limits, measured first in `make bench`
 * so that every later figure can be read against them: the memory bandwidth
 * (STREAM triad on arrays far beyond the caches, best of reps, on one
 * thread and on every core) and the dense BLAS rate (zgemm and cgemm of
 * square matrices, GFLOP/s, one BLAS thread as the benchmarks run it).
 *
 * Each figure is printed beside its reference: the triad on every core
 * against the triad on one (what more threads can gain on a memory-bound
 * kernel), zgemm against the floating-point peak the processor reports
 * (clock x 16 double flops per cycle: two 4-wide FMA units, the AVX2
 * machines we run on), and cgemm against zgemm (single precision packs
 * twice the numbers per vector, so about 2x is expected).  The benchmarks of the
 * kernels call the same functions (bench.h) for their own ratios.
 */
#include <stdio.h>
#include <string.h>
#include "bench/bench.h"

#define GEMM_N 512

/* The clock in MHz /proc/cpuinfo reports for the first processor; 0 if none. */
static double cpu_mhz(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    double mhz = 0.0;
    while (f && !mhz && fgets(line, sizeof line, f))
        if (!strncmp(line, "cpu MHz", 7) && strchr(line, ':'))
            mhz = atof(strchr(line, ':') + 1);
    if (f)
        fclose(f);
    return mhz;
}

int main(void)
{
    char load[64];
    int cores = bench_cores();
    printf("machine limits (%d cores online, load average %s)\n", cores,
           bench_loadavg(load, sizeof load));
    double one = bench_triad_gbs(1), all = cores > 1 ? bench_triad_gbs(cores) : one;
    printf("%-44s %10.2f GB/s\n", "memory bandwidth, triad, 1 thread", one);
    printf("%-44s %10.2f GB/s  (%.2fx one thread)\n", "memory bandwidth, triad, every core", all,
           all / one);
    double z = bench_zgemm_gflops(GEMM_N), c = bench_cgemm_gflops(GEMM_N);
    double mhz = cpu_mhz(), peak = mhz * 16.0 / 1e3;
    char name[64];
    snprintf(name, sizeof name, "zgemm, N = %d, 1 thread", GEMM_N);
    if (peak > 0.0)
        printf("%-44s %10.2f GFLOP/s (%.0f %% of %.1f GFLOP/s: 16 flops a cycle at the "
               "%.0f MHz cpuinfo reports; a boost clock goes beyond)\n", name, z,
               100.0 * z / peak, peak, mhz);
    else
        printf("%-44s %10.2f GFLOP/s (no clock in /proc/cpuinfo: peak unknown)\n", name, z);
    snprintf(name, sizeof name, "cgemm, N = %d, 1 thread", GEMM_N);
    printf("%-44s %10.2f GFLOP/s (%.2fx zgemm; reference 2x)\n", name, c, c / z);
    return 0;
}
