/*
 * fuzz_spec.c - libFuzzer target: the YAML spec reader (optinc_spec_parse)
 * on libFuzzer's bytes as they are, and the compiler on every spec the
 * reader accepts, as `optinc compile` runs them.  Any input must end in
 * OPTINC_OK or a clean error record: never a crash, a sanitizer report, a
 * leak or a hang.
 *
 * The soft limits are lowered (optinc-limits(7)): a 64-mode matrix
 * exercises every code path a 1024-mode one does, and keeps each execution
 * in the microseconds.  The input's display name places it in the private
 * folder of fuzz.h, where the two matrix files a spec may name
 * ("file: w.csv", "file: w.npy") are written once; the reader finds them
 * relative to that name, as it would beside a spec file.
 */
#include "optinc/circuit.h"
#include "optinc/limits.h"
#include "optinc/spec.h"
#include "fuzz.h"

/* A 2 x 2 .csv and a 1 x 1 .npy holding 0.0 (magic, 118-byte header, 8
 * data bytes). */
static void matrix_files(void)
{
    static const char csv[] = "1, 2\n3, -4.5\n";
    static const char dict[] = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }";
    uint8_t npy[136] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0};
    memset(npy + 10, ' ', 117);
    memcpy(npy + 10, dict, strlen(dict));
    npy[127] = '\n';
    fz_file("w.csv", (const uint8_t *)csv, strlen(csv));
    fz_file("w.npy", npy, sizeof npy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static optinc_limits lim;
    static optinc_read_opts opts;
    static char name[300];
    if (!opts.limits) {
        matrix_files();
        optinc_limits_init(&lim);
        if (optinc_limits_set(&lim, OPTINC_LIMIT_MODES, "64") ||
            optinc_limits_set(&lim, OPTINC_LIMIT_CARDS, "100000"))
            abort();
        opts.limits = &lim;
        snprintf(name, sizeof name, "%s/spec.yaml", fz_dir);
    }
    optinc_input in = {name, (const char *)data, size};
    optinc_spec *spec = NULL;
    optinc_circuit *c = NULL;
    optinc_error err;
    if (optinc_spec_parse(&in, &opts, &spec, &err) == OPTINC_OK &&
        optinc_compile(spec, &c, &err) == OPTINC_OK)
        optinc_circuit_free(c);
    optinc_spec_free(spec);
    return 0;
}
