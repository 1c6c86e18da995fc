/*
 * fuzz_spec.c - libFuzzer target: the YAML spec reader (optinc_spec_parse)
 * on libFuzzer's bytes as they are, and the compiler on every spec the
 * reader accepts, as `optinc compile` runs them.  Any input must end in
 * OPTINC_OK or a clean error record: never a crash, a sanitizer report, a
 * leak or a hang.
 *
 * The soft limits are lowered (fuzz.h).  The two matrix files a spec may
 * name ("file: w.csv", "file: w.npy") are served from memory by fuzz.h's
 * resolver; any other name is missing.
 */
#include "optinc/circuit.h"
#include "optinc/spec.h"
#include "fuzz.h"

/* A 2 x 2 .csv, and a 1 x 1 float64 .npy holding 0.0: magic, version 1.0,
 * a header of 118 bytes (the dict padded with blanks to end the header at
 * byte 128, as numpy.save pads it, and a newline), 8 data bytes. */
static const char w_csv[] = "1, 2\n3, -4.5\n";
static char w_npy[136];

static void make_npy(void)
{
    static const char dict[] = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }";
    static const char magic[10] = {(char)0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0};
    memcpy(w_npy, magic, sizeof magic);
    memset(w_npy + 10, ' ', 117);
    memcpy(w_npy + 10, dict, strlen(dict));
    w_npy[127] = '\n';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const optinc_input file[] = {{"w.csv", w_csv, sizeof w_csv - 1},
                                        {"w.npy", w_npy, sizeof w_npy}};
    static fz_files files = {file, 2};
    if (!w_npy[0])
        make_npy();
    optinc_read_opts opts = {fz_limits(), fz_resolve, &files, NULL};
    optinc_input in = {"spec.yaml", (const char *)data, size};
    optinc_spec *spec = NULL;
    optinc_circuit *c = NULL;
    optinc_error err;
    if (optinc_spec_parse(&in, &opts, &spec, &err) == OPTINC_OK &&
        optinc_compile(spec, &c, &err) == OPTINC_OK)
        optinc_circuit_free(c);
    optinc_spec_free(spec);
    return 0;
}
