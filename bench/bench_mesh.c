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
 *
 * Both paths of each decomposition (compiler/mesh/mesh_path.h: sequential,
 * and blocked, its rotations applied to the rest of the matrix as waves of
 * several sequences) go in the scaling table, time and rate against N; the
 * first table and the TARGET lines take the path optinc_mesh_decompose
 * takes at each N.  N = 2048 is timed once per figure, to keep the run short.
 */
#include <cblas.h>
#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/bench.h"
#include "compiler/mesh/mesh_path.h"
#include "optinc/mesh.h"

/* What a figure times: a decomposition of U on a path, or (kind < 0) one of
 * the references below. */
typedef struct timed { int what; optinc_mesh_kind kind; optinc_mesh_path path; } timed;
enum { DECOMPOSE, GESDD, GEMM, REBUILD };

static double time_mesh(const optinc_cmat *U, optinc_mesh_kind kind, optinc_mesh_path path)
{
    optinc_mesh *m;
    double t0 = bench_cpu();
    optinc_mesh_decompose_path(U, kind, NULL, path, &m, NULL);
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

/* The reconstruction of the Clements mesh's transfer matrix from its MZIs. */
static double time_rebuild(const optinc_cmat *U)
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

static double time_once(const optinc_cmat *U, timed f)
{
    switch (f.what) {
    case GESDD: return time_gesdd(U);
    case GEMM: return time_gemm(U);
    case REBUILD: return time_rebuild(U);
    default: return time_mesh(U, f.kind, f.path);
    }
}

/* The best of at least 3 calls and a third of a second of them; one call
 * from N = 2048 on (a second or more each). */
static double best(const optinc_cmat *U, timed f)
{
    double b = 1e30, spent = 0;
    int once = U->rows >= 2048;
    for (int r = 0; r < (once ? 1 : 3) || (!once && spent < 0.33); r++) {
        double t = time_once(U, f);
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

enum { SIZES = 6, PATHS = 2, KINDS = 2 };
static const int sizes[SIZES] = {64, 128, 256, 512, 1024, 2048};
static const optinc_mesh_path paths[PATHS] = {OPTINC_MESH_PATH_SEQUENTIAL, OPTINC_MESH_PATH_BLOCKED};
static const char *const path_names[PATHS] = {"seq", "blk"};
static const optinc_mesh_kind kinds[KINDS] = {OPTINC_MESH_CLEMENTS, OPTINC_MESH_RECK};
static const char *const kind_names[KINDS] = {"clements", "reck"};

int main(void)
{
    static const struct { int n; double most; } targets[] = {{128, 4}, {256, 3}, {1024, 1.5}};
    double tm[SIZES][KINDS][PATHS], tg[SIZES], ts[SIZES], tb[SIZES];
    for (int i = 0; i < SIZES; i++) {
        int n = sizes[i];
        optinc_rng rng;
        optinc_rng_seed(&rng, (uint64_t)n);
        optinc_cmat *U = optinc_cmat_haar(n, &rng);
        tg[i] = best(U, (timed){GEMM, 0, 0});
        ts[i] = n <= 1024 ? best(U, (timed){GESDD, 0, 0}) : 0;
        tb[i] = best(U, (timed){REBUILD, 0, 0});
        for (int k = 0; k < KINDS; k++)
            for (int p = 0; p < PATHS; p++)
                tm[i][k][p] = best(U, (timed){DECOMPOSE, kinds[k], paths[p]});
        optinc_cmat_free(U);
    }
    /* The figures of the path optinc_mesh_decompose takes. */
    double ta[SIZES][KINDS];
    for (int i = 0; i < SIZES; i++)
        for (int k = 0; k < KINDS; k++)
            ta[i][k] = tm[i][k][optinc_mesh_path_for(kinds[k], sizes[i]) == OPTINC_MESH_PATH_BLOCKED];

    printf("Decomposition of a Haar unitary vs LAPACK zgesdd and BLAS zgemm (CPU seconds, best of reps;\n"
           "the path optinc_mesh_decompose takes; rate: the elements' flops per second, as a fraction\n"
           "of zgemm's; zgesdd up to N=1024)\n");
    printf("%6s %10s %10s %10s %10s %11s %11s %9s %9s %10s %10s %10s\n", "N", "clements", "reck",
           "zgesdd", "zgemm", "clem/gesdd", "clem/zgemm", "clem rate", "reck rate", "zgemm GF/s",
           "rebuild", "rebuild/zgemm");
    for (int i = 0; i < SIZES; i++) {
        int n = sizes[i];
        double gemm_rate = 8.0 * n * n * n / tg[i], tc = ta[i][0], tr = ta[i][1];
        printf("%6d %10.5f %10.5f %10.5f %10.5f %11.3f %11.3f %9.2f %9.2f %10.2f %10.5f %10.3f\n",
               n, tc, tr, ts[i], tg[i], ts[i] > 0 ? tc / ts[i] : 0, tc / tg[i],
               mesh_flops(n, OPTINC_MESH_CLEMENTS) / tc / gemm_rate,
               mesh_flops(n, OPTINC_MESH_RECK) / tr / gemm_rate, gemm_rate / 1e9, tb[i], tb[i] / tg[i]);
    }
    printf("\nScaling of both paths against N (CPU seconds; GF/s of the elements' flops; rate: the\n"
           "fraction of zgemm's GF/s; /zgemm: time over one zgemm of the same N; * the path taken)\n");
    printf("%6s %-14s %10s %8s %6s %8s\n", "N", "kernel", "seconds", "GF/s", "rate", "/zgemm");
    for (int i = 0; i < SIZES; i++) {
        int n = sizes[i];
        double gemm_rate = 8.0 * n * n * n / tg[i];
        printf("%6d %-14s %10.5f %8.2f %6.3f %8.3f\n", n, "zgemm", tg[i], gemm_rate / 1e9, 1.0, 1.0);
        for (int k = 0; k < KINDS; k++)
            for (int p = 0; p < PATHS; p++) {
                char name[32];
                double t = tm[i][k][p], rate = mesh_flops(n, kinds[k]) / t;
                int taken = optinc_mesh_path_for(kinds[k], n) == paths[p];
                snprintf(name, sizeof name, "%s %s%s", kind_names[k], path_names[p], taken ? "*" : "");
                printf("%6d %-14s %10.5f %8.2f %6.3f %8.3f\n", n, name, t, rate / 1e9,
                       rate / gemm_rate, t / tg[i]);
            }
    }
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++)
        for (int i = 0; i < SIZES; i++)
            if (sizes[i] == targets[t].n) {
                char what[64];
                snprintf(what, sizeof what, "Clements decomposition / zgemm, N=%d", sizes[i]);
                bench_target(what, ta[i][0] / tg[i], "<=", targets[t].most, "x");
            }
    for (int i = 0; i < SIZES; i++)
        if (sizes[i] == 1024)
            bench_target("reconstruction (rebuild) / zgemm, N=1024", tb[i] / tg[i], "<=", 2.0, "x");
    return 0;
}
