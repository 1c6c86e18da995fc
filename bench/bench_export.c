/*
 * bench_export.c - export throughput (optinc-export(1)) for one N x N
 * Clements mesh of a Haar-random unitary (N = 256, or the sizes on the
 * command line): each format written through files, as the program
 * writes them, in MB/s over wall and CPU time; then the shipped unit
 * (netlists/onn4x8.pnl.sp, so run from the repository root) in every format
 * that takes a segmented circuit, in seconds.
 *
 * Targets (issue 40): every text format >= 150 MB/s at N = 256 and the
 * unit's exports together in <= 2 s, by CPU time (the machine is shared;
 * the netlist writer's TARGET lines measure the same way).
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
#include "optinc/netlist.h"
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

/* The size in MB of the export at path (extension ext) and of the
 * companions beside it, named after its stem; removes them. */
static double remove_written(const char *path, const char *ext)
{
    static const char *const companions[] = {"", "_models.py", "_circuit.spi", ".lsf"};
    double mb = 0;
    const char *dot = strrchr(path, '.');
    for (int k = 0; k < 4; k++) {
        char name[1100];
        struct stat st;
        snprintf(name, sizeof name, "%.*s%s", (int)(dot - path), path, k ? companions[k] : ext);
        if (!stat(name, &st)) {
            mb += (double)st.st_size / 1e6;
            unlink(name);
        }
    }
    return mb;
}

/* The shipped unit in every format that takes it, one after the other. */
static int unit_exports(void)
{
    optinc_circuit *c = NULL;
    optinc_error err = {0};
    optinc_layout layout = OPTINC_LAYOUT_DEFAULT;
    if (optinc_netlist_read("netlists/onn4x8.pnl.sp", NULL, &c, &err)) {
        fprintf(stderr, "bench_export: %s\n", err.message);
        return 1;
    }
    double c0 = bench_cpu(), w0 = bench_wall(), mb = 0;
    int n = 0, mzis = 0;
    for (const optinc_export_format *f = optinc_export_formats; f->name; f++) {
        char path[1024];
        if (!f->stream)    /* the GDS layout does not place a segmented layer yet */
            continue;
        bench_scratch_path(path, sizeof path, "bench_unit", f->extension);
        if (f->write(c, &layout, path, &err)) {
            fprintf(stderr, "bench_export: the unit as %s: %s\n", f->name, err.message);
            return 1;
        }
        mb += remove_written(path, f->extension);
        n++;
    }
    double cpu = bench_cpu() - c0, wall = bench_wall() - w0;
    for (int l = 0; l < c->n_layers; l++)
        mzis += optinc_layer_mzis(&c->layers[l]);
    printf("the unit (%d MZIs) in its %d text formats, %.1f MB: %.2f s (%.2f s wall)\n", mzis,
           n, mb, cpu, wall);
    printf("TARGET|the unit's text exports together (CPU time)|%.2f|<=|2|s\n", cpu);
    optinc_circuit_free(c);
    return 0;
}

int main(int argc, char **argv)
{
    int sizes[16] = {256}, ns = 1;
    if (argc > 1)
        for (ns = 0; ns < argc - 1 && ns < 16; ns++)
            sizes[ns] = atoi(argv[ns + 1]);
    optinc_layout layout = OPTINC_LAYOUT_DEFAULT;
    double targets[8];
    const char *target_names[8];
    int n_targets = 0;
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
            double mb = remove_written(path, f->extension);
            printf("%6d %-13s %9.2f %8.3f %11.1f %11.1f\n", sizes[i], f->name, mb, wall,
                   mb / wall, mb / cpu);
            if (sizes[i] == 256 && f->stream && n_targets < 8) {
                target_names[n_targets] = f->name;
                targets[n_targets++] = mb / cpu;
            }
        }
        optinc_circuit_free(c);
    }
    for (int k = 0; k < n_targets; k++)
        printf("TARGET|export %s, N=256 (CPU time)|%.0f|>=|150|MB/s\n",
               target_names[k], targets[k]);
    return unit_exports();
}
