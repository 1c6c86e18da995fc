/*
 * bench_mesh.c - decomposition speed against LAPACK and BLAS, measured in the
 * same run on the same Haar-random matrices: Clements and Reck against one
 * zgesdd (the SVD every layer needs anyway) and one zgemm of the same N, and
 * the reconstruction of the Clements mesh's transfer matrix from its MZIs
 * (what `optinc compile` does to report each layer's error) against the
 * same zgemm.
 * Each figure is the process CPU time (one OpenBLAS thread), the best of
 * repetitions worth at least a third of a second (and of 3 at least): CPU
 * time, unlike wall time, is not inflated when other jobs share the two
 * cores, and the best of many drops the calls that another job's cache
 * traffic slowed down (best of 5 read the N = 128 ratio 1.6x too high).
 *
 * The rate: a decomposition's arithmetic is its 2x2 elements applied to
 * pairs of entries, 20 flops a pair for a row element (12 multiplies and 8
 * adds, rows_apply_T) and 18 for a column element (12 and 6, rows_colops),
 * counted exactly below (about N^3/3 pairs, 6.3 N^3 flops against zgemm's
 * 8 N^3); its GFLOP/s over zgemm's is the fraction of the dense rate it
 * reaches.
 */
#include <cblas.h>
#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/bench.h"
#include "optinc/mesh.h"

static double time_mesh(const optinc_cmat *U, optinc_mesh_kind kind)
{
    optinc_mesh *m;
    double t0 = bench_cpu();
    optinc_mesh_decompose(U, kind, NULL, &m, NULL);
    double t = bench_cpu() - t0;
    optinc_mesh_free(m);
    return t;
}

static double time_gesdd(const optinc_cmat *U)
{
    int n = U->rows;
    optinc_cmat *a = optinc_cmat_copy(U), *u = optinc_cmat_new(n, n), *vt = optinc_cmat_new(n, n);
    double *s = malloc(sizeof *s * (size_t)n);
    double t0 = bench_cpu();
    LAPACKE_zgesdd(LAPACK_ROW_MAJOR, 'A', n, n, a->a, n, s, u->a, n, vt->a, n);
    double t = bench_cpu() - t0;
    optinc_cmat_free(a);
    optinc_cmat_free(u);
    optinc_cmat_free(vt);
    free(s);
    return t;
}

static double time_gemm(const optinc_cmat *U)
{
    optinc_cmat *c = optinc_cmat_new(U->rows, U->cols);
    double t0 = bench_cpu();
    optinc_cmat_mul(U, U, c);
    double t = bench_cpu() - t0;
    optinc_cmat_free(c);
    return t;
}

/* The best of at least 3 calls and a third of a second of them. */
static double best(double (*f)(const optinc_cmat *), const optinc_cmat *U)
{
    double b = 1e30, spent = 0;
    for (int r = 0; r < 3 || spent < 0.33; r++) {
        double t = f(U);
        b = t < b ? t : b;
        spent += t;
    }
    return b;
}

/* The flops of a decomposition's elements on N modes (the header's count):
 * Clements' even anti-diagonal k has column elements j = 0..k on the n-k+j
 * rows down to the entry they null, odd ones row elements on n-j columns
 * from the column they null; Reck has row elements only, n-c columns wide
 * for column c. */
static double mesh_flops(int n, optinc_mesh_kind kind)
{
    double f = 0;
    if (kind == OPTINC_MESH_RECK) {
        for (int c = 0; c <= n - 2; c++)
            f += 20.0 * (double)(n - 1 - c) * (double)(n - c);
        return f;
    }
    for (int k = 0; k <= n - 2; k++)
        for (int j = 0; j <= k; j++)
            f += k % 2 ? 20.0 * (n - j) : 18.0 * (n - k + j);
    return f;
}

static double clements(const optinc_cmat *U) { return time_mesh(U, OPTINC_MESH_CLEMENTS); }

static double rebuild(const optinc_cmat *U)
{
    optinc_mesh *m;
    optinc_mesh_decompose(U, OPTINC_MESH_CLEMENTS, NULL, &m, NULL);
    double t0 = bench_cpu();
    optinc_cmat *T = optinc_mesh_matrix(m);
    double t = bench_cpu() - t0;
    optinc_cmat_free(T);
    optinc_mesh_free(m);
    return t;
}
static double reck(const optinc_cmat *U) { return time_mesh(U, OPTINC_MESH_RECK); }

int main(void)
{
    static const int sizes[] = {64, 128, 256, 512, 1024, 2048};
    static const struct { int n; double most; } targets[] = {{128, 4}, {256, 3}, {1024, 1.5}};
    double clem_gemm[sizeof sizes / sizeof sizes[0]], rebuild_gemm = 0;
    printf("Decomposition of a Haar unitary vs LAPACK zgesdd and BLAS zgemm (CPU seconds, best of reps;\n"
           "rate: the elements' flops per second, as a fraction of zgemm's; zgesdd up to N=1024)\n");
    printf("%6s %10s %10s %10s %10s %11s %11s %9s %9s %10s %10s %10s\n", "N", "clements", "reck",
           "zgesdd", "zgemm", "clem/gesdd", "clem/zgemm", "clem rate", "reck rate", "zgemm GF/s",
           "rebuild", "rebuild/zgemm");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int n = sizes[i];
        optinc_rng rng;
        optinc_rng_seed(&rng, (uint64_t)n);
        optinc_cmat *U = optinc_cmat_haar(n, &rng);
        double tc = best(clements, U), tr = best(reck, U), tg = best(time_gemm, U);
        double ts = n <= 1024 ? best(time_gesdd, U) : 0, tb = best(rebuild, U);
        double gemm_rate = 8.0 * n * n * n / tg;
        printf("%6d %10.5f %10.5f %10.5f %10.5f %11.3f %11.3f %9.2f %9.2f %10.2f %10.5f %10.3f\n",
               n, tc, tr, ts, tg, ts > 0 ? tc / ts : 0, tc / tg,
               mesh_flops(n, OPTINC_MESH_CLEMENTS) / tc / gemm_rate,
               mesh_flops(n, OPTINC_MESH_RECK) / tr / gemm_rate, gemm_rate / 1e9, tb, tb / tg);
        fflush(stdout);
        clem_gemm[i] = tc / tg;
        if (n == 1024)
            rebuild_gemm = tb / tg;
        optinc_cmat_free(U);
    }
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            if (sizes[i] == targets[t].n) {
                char what[64];
                snprintf(what, sizeof what, "Clements decomposition / zgemm, N=%d", sizes[i]);
                bench_target(what, clem_gemm[i], "<=", targets[t].most, "x");
            }
    bench_target("reconstruction (rebuild) / zgemm, N=1024", rebuild_gemm, "<=", 2.0, "x");
    return 0;
}
