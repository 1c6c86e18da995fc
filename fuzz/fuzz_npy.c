/*
 * fuzz_npy.c - libFuzzer target: the .npy matrix reader (optinc_npy_read).
 */
#include "optinc/fileio.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    optinc_cmat *m = NULL;
    optinc_error err;
    int is_complex;
    if (optinc_npy_read(fz_file("m.npy", data, size), &m, &is_complex, &err) == OPTINC_OK)
        optinc_cmat_free(m);
    return 0;
}
