/*
 * bench_gds.c - seconds to write the GDSII layout (optinc-gds(5)) of one
 * N x N Clements mesh (N = 256, or the N on the command line), from a
 * spec in memory compiled as the program compiles it, through the atomic
 * output as the program writes it.  A plain figure: the layout is written
 * once per compile, so its time only has to stay small beside the
 * compile's; wall and CPU time both, the second being what the code costs
 * on a shared machine.
 *
 *   build/bench/bench_gds [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bench/bench.h"
#include "optinc/export.h"

/* One layer, a Haar-random N x N unitary, no attenuators: a single mesh. */
static optinc_circuit *mesh_circuit(int n)
{
    char text[512];
    snprintf(text, sizeof text,
             "schema_version: 1\nname: bench%d\nsettings: {mesh: clements}\n"
             "matrices:\n  U:\n    shape: [%d, %d]\n    dtype: complex\n"
             "    generate: {kind: haar_unitary, seed: %d}\n"
             "layers:\n  - {name: L1, matrix: U, attenuators: none}\n", n, n, n, 4242 + n);
    return bench_compile_text("bench_gds", "bench_gds.yaml", text);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 256;
    char path[1024];
    bench_scratch_path(path, sizeof path, "bench_gds", ".gds");
    optinc_layout layout = OPTINC_LAYOUT_DEFAULT;
    optinc_circuit *c = mesh_circuit(n);
    optinc_error err;
    double t0 = bench_wall(), c0 = bench_cpu();
    if (optinc_export_gds(c, &layout, path, &err)) {
        fprintf(stderr, "bench_gds: %s\n", err.message);
        return 1;
    }
    double wall = bench_wall() - t0, cpu = bench_cpu() - c0;
    struct stat sb;
    stat(path, &sb);
    printf("GDSII export of one Clements mesh, N = %d (%d MZIs, %.2f MB): %.3f s "
           "(%.3f s CPU)\n", n, optinc_layer_mzis(&c->layers[0]), (double)sb.st_size / 1e6,
           wall, cpu);
    unlink(path);
    optinc_circuit_free(c);
    return 0;
}
