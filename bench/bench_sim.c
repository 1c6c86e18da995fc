/*
 * bench_sim.c - batch propagation through a compiled Clements mesh against
 * one cblas_zgemm with the mesh's reconstructed matrix, on the same batch, in
 * the same run: B = 1024 input vectors through N = 64, 128, 256 and 512
 * modes (the targets at N = 256).
 *
 * A mesh's program (runtime/sim/chip.h) is two complex multiply-adds per
 * MZI and vector, N(N-1) in all against the dense product's N^2: the same
 * multiplies, as plain multiplies and adds (no FMA, so every build gives the
 * same bits) where BLAS fuses them; on a core with two FMA pipes and two add
 * pipes (Zen) the adds run beside the multiplies, so what bounds the ratio
 * is the rows' loads and stores and the per-MZI overhead.  The float path
 * (the ONN's and the trainer's) is compared with cgemm, the double path (the
 * exact one) with zgemm.  Each figure is the process CPU time of one
 * thread, best of several repetitions: CPU time is not inflated by other
 * jobs on the cores.
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "bench/bench.h"
#include "optinc/sim.h"
#include "optinc/spec.h"

/* A one-layer circuit: N x N Haar unitary, Clements, no attenuators. */
static optinc_circuit *mesh_circuit(int n)
{
    char path[] = "/tmp/bench_sim.XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return NULL;
    fprintf(f, "schema_version: 1\nname: bench\nmatrices:\n"
               "  U: {shape: [%d, %d], dtype: complex, generate: {kind: haar_unitary, seed: 1}}\n"
               "layers:\n  - {name: L1, matrix: U, attenuators: none}\n", n, n);
    fclose(f);
    optinc_spec *spec = NULL;
    optinc_circuit *c = NULL;
    if (optinc_spec_load(path, NULL, &spec, NULL) || optinc_compile(spec, &c, NULL))
        c = NULL;
    optinc_spec_free(spec);
    remove(path);
    return c;
}

int main(void)
{
    const int sizes[] = {64, 128, 256, 512}, B = 1024;
    double targets[2] = {0, 0};
    printf("batch propagation, B = %d vectors, CPU ms, best of several runs\n", B);
    printf("%5s %8s %12s %12s %10s %10s %10s %10s %12s\n", "N", "MZIs", "mesh double",
           "mesh float", "zgemm", "cgemm", "dbl/zgemm", "flt/cgemm", "float err");
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        optinc_circuit *c = mesh_circuit(n);
        optinc_chip *chip;
        optinc_chip_options o = {OPTINC_DEV_NONE, OPTINC_DRIVE_CODES, NULL, 0};
        if (!c || optinc_chip_new(c, &o, 1, &chip, NULL)) {
            fprintf(stderr, "bench_sim: cannot build the N = %d circuit\n", n);
            return 1;
        }
        optinc_rng rng;
        optinc_rng_seed(&rng, 2);
        optinc_cmat *X = optinc_cmat_gaussian(n, B, 1, &rng), *Y = optinc_cmat_new(n, B);
        optinc_cmat *Yf = optinc_cmat_new(n, B), *Z = optinc_cmat_new(n, B);
        optinc_cmat *T = optinc_chip_layer_transfer(chip, 0);
        const double complex one = 1, zero = 0;
        const float complex onef = 1, zerof = 0;
        float complex *Tf = malloc(sizeof *Tf * (size_t)n * n), *Xf = malloc(sizeof *Xf * (size_t)n * B);
        float complex *Zf = malloc(sizeof *Zf * (size_t)n * B);
        for (size_t i = 0; i < (size_t)n * n; i++)
            Tf[i] = (float complex)T->a[i];
        for (size_t i = 0; i < (size_t)n * B; i++)
            Xf[i] = (float complex)X->a[i];
        double best[4] = {1e30, 1e30, 1e30, 1e30};
        int reps = n <= 64 ? 40 : 8;
        for (int r = 0; r < reps; r++) {
            double t0 = bench_cpu();
            optinc_chip_layer_apply(chip, 0, X, Y, OPTINC_DOUBLE, NULL);
            double t1 = bench_cpu();
            optinc_chip_layer_apply(chip, 0, X, Yf, OPTINC_FLOAT, NULL);
            double t2 = bench_cpu();
            cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, B, n, &one, T->a, n, X->a,
                        B, &zero, Z->a, B);
            double t3 = bench_cpu();
            cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, B, n, &onef, Tf, n, Xf, B,
                        &zerof, Zf, B);
            double t4 = bench_cpu(), t[4] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3};
            for (int i = 0; i < 4; i++)
                best[i] = t[i] < best[i] ? t[i] : best[i];
        }
        free(Tf);
        free(Xf);
        free(Zf);
        double ed = optinc_cmat_max_abs_diff(Y, Z), ef = optinc_cmat_max_abs_diff(Yf, Z);
        if (ed > 1e-10) {
            fprintf(stderr, "bench_sim: N = %d: mesh and zgemm disagree by %g\n", n, ed);
            return 1;
        }
        printf("%5d %8d %12.3f %12.3f %10.3f %10.3f %10.2f %10.2f %12.1e\n", n,
               c->layers[0].stage[0].mesh->n_mzi, 1e3 * best[0], 1e3 * best[1], 1e3 * best[2],
               1e3 * best[3], best[0] / best[2], best[1] / best[3], ef / optinc_cmat_max_abs(Z));
        if (n == 256) {
            targets[0] = best[0] / best[2];
            targets[1] = best[1] / best[3];
        }
        optinc_cmat *m[] = {X, Y, Yf, Z, T};
        for (int i = 0; i < 5; i++)
            optinc_cmat_free(m[i]);
        optinc_chip_free(chip);
        optinc_circuit_free(c);
    }
    printf("TARGET|mesh propagation double / zgemm, N=256 B=%d|%.2f|<=|1.2|x\n", B, targets[0]);
    printf("TARGET|mesh propagation float / cgemm, N=256 B=%d|%.2f|<=|1.3|x\n", B, targets[1]);
    return 0;
}
