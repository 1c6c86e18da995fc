/*
 * fuzz_spec.c - libFuzzer target: the YAML spec loader (optinc_spec_load),
 * and the compiler on every spec the loader accepts, as `optinc compile`
 * runs them.  Any input must end in OPTINC_OK or a clean error record:
 * never a crash, a sanitizer report, a leak or a hang.
 */
#include "optinc/circuit.h"
#include "optinc/spec.h"
#include "fuzz.h"

/* Matrix files a spec may name ("file: w.csv"), beside it: a 2 x 2 .csv
 * and a 1 x 1 .npy holding 0.0 (magic, 118-byte header, 8 data bytes). */
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
    static int once;
    if (!once++)
        matrix_files();
    optinc_spec *spec = NULL;
    optinc_circuit *c = NULL;
    optinc_error err;
    if (optinc_spec_load(fz_file("spec.yaml", data, size), NULL, &spec, &err) == OPTINC_OK &&
        optinc_compile(spec, &c, &err) == OPTINC_OK)
        optinc_circuit_free(c);
    optinc_spec_free(spec);
    return 0;
}
