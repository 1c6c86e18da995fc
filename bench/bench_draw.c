/*
 * bench_draw.c - seconds to draw one layer with Graphviz (build the graph,
 * nop layout, render, atomic write): the N = 64 full detail and the N = 256
 * heat-map overview that `optinc draw` produces, plus the N = 256 full detail
 * it writes only with --detail.  Each row is the best of a few runs of
 * optinc_draw_layer() into a temporary directory.
 *
 * usage: bench_draw [--quick]     (--quick: one run per row, N = 256 detail skipped)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bench/bench.h"
#include "optinc/circuit.h"
#include "optinc/draw.h"
#include "optinc/rng.h"

/* A one-layer circuit: Haar-random n x n unitary, Clements, attenuators in
 * the middle, ideal devices. */
static optinc_circuit *haar_circuit(int n)
{
    optinc_spec spec;
    optinc_spec_matrix m;
    optinc_spec_layer L;
    optinc_rng rng;
    memset(&spec, 0, sizeof spec);
    memset(&m, 0, sizeof m);
    memset(&L, 0, sizeof L);
    snprintf(spec.name, sizeof spec.name, "bench%d", n);
    snprintf(spec.path, sizeof spec.path, "bench");
    optinc_rng_seed(&rng, 1);
    optinc_cmat *U = optinc_cmat_haar(n, &rng);
    snprintf(m.name, sizeof m.name, "W");
    m.rows = m.cols = n;
    m.is_complex = 1;
    m.data = U->a;
    snprintf(L.name, sizeof L.name, "L1");
    L.components.phase_shifter.range_rad[1] = 2 * M_PI;
    L.components.attenuator.max_attenuation_dB = 60;
    spec.matrices = &m;
    spec.n_matrices = 1;
    spec.layers = &L;
    spec.n_layers = 1;
    optinc_circuit *c = NULL;
    optinc_error err;
    if (optinc_compile(&spec, &c, &err)) {
        fprintf(stderr, "bench_draw: compile failed: %s\n", err.message);
        exit(1);
    }
    optinc_cmat_free(U);
    return c;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void row(optinc_drawer *d, const optinc_circuit *c, optinc_draw_style style,
                unsigned format, const char *ext, int reps, const char *dir)
{
    double best = INFINITY;
    optinc_error err;
    for (int r = 0; r < reps; r++) {
        double t0 = bench_wall();
        if (optinc_draw_layer(d, c, 0, style, format, dir, &err)) {
            fprintf(stderr, "bench_draw: %s\n", err.message);
            exit(1);
        }
        double t = bench_wall() - t0;
        best = t < best ? t : best;
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/%s_L1%s.%s", dir, c->name,
             style == OPTINC_DRAW_OVERVIEW ? "_overview" : "", ext);
    const optinc_layer *L = &c->layers[0];
    printf("%-18s %5d %7d %6s %9.3f %9.2f\n",
           style == OPTINC_DRAW_OVERVIEW ? "heat-map overview" : "full detail",
           optinc_draw_layer_modes(L), optinc_layer_mzis(L), ext, best,
           (double)file_size(path) / 1e6);
    unlink(path);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    int reps = quick ? 1 : 3;
    char dir[] = "/tmp/optinc-bench-draw.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_draw: mkdtemp");
        return 1;
    }
    optinc_drawer *d = NULL;
    optinc_error err;
    if (optinc_drawer_new(0, &d, &err)) {
        fprintf(stderr, "bench_draw: %s\n", err.message);
        return 1;
    }
    optinc_circuit *c64 = haar_circuit(64), *c256 = haar_circuit(256);
    printf("draw: build graph + nop layout + render + write one layer, best of %d (seconds)\n",
           reps);
    printf("%-18s %5s %7s %6s %9s %9s\n", "drawing", "modes", "MZIs", "format", "seconds", "MB");
    row(d, c64, OPTINC_DRAW_DETAIL, OPTINC_DRAW_SVG, "svg", reps, dir);
    row(d, c64, OPTINC_DRAW_DETAIL, OPTINC_DRAW_DOT, "dot", reps, dir);
    row(d, c64, OPTINC_DRAW_OVERVIEW, OPTINC_DRAW_PNG, "png", reps, dir);
    row(d, c256, OPTINC_DRAW_OVERVIEW, OPTINC_DRAW_SVG, "svg", reps, dir);
    row(d, c256, OPTINC_DRAW_OVERVIEW, OPTINC_DRAW_PNG, "png", reps, dir);
    if (!quick)
        row(d, c256, OPTINC_DRAW_DETAIL, OPTINC_DRAW_SVG, "svg", 1, dir);
    optinc_circuit_free(c64);
    optinc_circuit_free(c256);
    optinc_drawer_free(d);
    rmdir(dir);
    return 0;
}
