/*
 * bench_export.c - export throughput (optinc-export(1)) for one N x N
 * Clements mesh of a Haar-random unitary (N = 256, or the sizes on the
 * command line): each text format written through files, as the program
 * writes them, in MB/s over wall and CPU time.  No issue sets a target for
 * these, so no TARGET lines are printed.
 *
 *   build/bench/bench_export [N ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bench/bench.h"
#include "optinc/export.h"
#include "optinc/spec.h"

/* The circuit of a spec with one N x N Haar unitary and no attenuators. */
static optinc_circuit *unitary_circuit(int n)
{
    char text[512];
    snprintf(text, sizeof text, "schema_version: 1\nname: bench\nmatrices:\n  U: {shape: [%d, %d], "
             "dtype: complex, generate: {kind: haar_unitary, seed: 4242}}\nlayers:\n"
             "  - {name: L1, matrix: U, attenuators: none}\n", n, n);
    return bench_compile_text("bench_export", "bench.yaml", text);
}

int main(int argc, char **argv)
{
    int sizes[16] = {256}, ns = 1;
    if (argc > 1)
        for (ns = 0; ns < argc - 1 && ns < 16; ns++)
            sizes[ns] = atoi(argv[ns + 1]);
    optinc_layout layout = OPTINC_LAYOUT_DEFAULT;
    printf("export throughput: one Clements mesh of an N x N Haar unitary\n");
    printf("%6s %-13s %9s %8s %11s %11s\n", "N", "format", "size_MB", "write_s", "MB/s_wall",
           "MB/s_cpu");
    for (int i = 0; i < ns; i++) {
        optinc_circuit *c = unitary_circuit(sizes[i]);
        for (const optinc_export_format *f = optinc_export_formats; f->name; f++) {
            char path[1024];
            optinc_error err = {0};
            bench_scratch_path(path, sizeof path, "bench_export", f->extension);
            double w0 = bench_wall(), c0 = bench_cpu();
            if (f->write(c, &layout, path, &err)) {
                fprintf(stderr, "bench_export: %s: %s\n", f->name, err.message);
                return 1;
            }
            double wall = bench_wall() - w0, cpu = bench_cpu() - c0;
            /* the main file and the companions beside it, named after its stem */
            static const char *const companions[] = {"", "_models.py", "_circuit.spi", ".lsf"};
            double mb = 0;
            char *dot = strrchr(path, '.');
            for (int k = 0; k < 4; k++) {
                char name[1100];
                struct stat st;
                snprintf(name, sizeof name, "%.*s%s", (int)(dot - path), path,
                         k ? companions[k] : f->extension);
                if (!stat(name, &st)) {
                    mb += (double)st.st_size / 1e6;
                    unlink(name);
                }
            }
            printf("%6d %-13s %9.2f %8.3f %11.1f %11.1f\n", sizes[i], f->name, mb, wall,
                   mb / wall, mb / cpu);
        }
        optinc_circuit_free(c);
    }
    return 0;
}
