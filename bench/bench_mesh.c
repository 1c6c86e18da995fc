/*
 * bench_mesh.c - decomposition speed against LAPACK and BLAS, measured in the
 * same run on the same Haar-random matrices: Clements and Reck against one
 * zgesdd (the SVD every layer needs anyway) and one zgemm of the same N, and
 * the reconstruction of the Clements mesh's transfer matrix from its MZIs
 * (what `optinc compile` does to report each layer's error) against the
 * same zgemm.
 * Each figure is the process CPU time (one OpenBLAS thread), best of a few
 * repetitions: CPU time, unlike wall time, is not inflated when other jobs
 * share the two cores.
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

static double best(double (*f)(const optinc_cmat *), const optinc_cmat *U, int reps)
{
    double b = 1e30;
    for (int r = 0; r < reps; r++) {
        double t = f(U);
        b = t < b ? t : b;
    }
    return b;
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
    static const int sizes[] = {64, 128, 256, 512, 1024};
    double clem_gemm = 0, rebuild_gemm = 0;
    printf("Decomposition of a Haar unitary vs LAPACK zgesdd and BLAS zgemm (CPU seconds, best of reps)\n");
    printf("%6s %10s %10s %10s %10s %12s %12s %10s %12s\n", "N", "clements", "reck", "zgesdd",
           "zgemm", "clem/gesdd", "clem/zgemm", "rebuild", "rebuild/zgemm");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int n = sizes[i], reps = n >= 1024 ? 2 : n >= 512 ? 3 : 5;
        optinc_rng rng;
        optinc_rng_seed(&rng, (uint64_t)n);
        optinc_cmat *U = optinc_cmat_haar(n, &rng);
        double tc = best(clements, U, reps), tr = best(reck, U, reps);
        double ts = best(time_gesdd, U, reps), tg = best(time_gemm, U, reps);
        double tb = best(rebuild, U, reps);
        printf("%6d %10.4f %10.4f %10.4f %10.4f %12.3f %12.3f %10.4f %12.3f\n", n, tc, tr, ts,
               tg, tc / ts, tc / tg, tb, tb / tg);
        fflush(stdout);
        if (n == 1024) {
            clem_gemm = tc / tg;
            rebuild_gemm = tb / tg;
        }
        optinc_cmat_free(U);
    }
    printf("TARGET|Clements decomposition / zgemm, N=1024|%.2f|<=|2.0|x\n", clem_gemm);
    printf("TARGET|reconstruction (rebuild) / zgemm, N=1024|%.2f|<=|2.0|x\n", rebuild_gemm);
    return 0;
}
