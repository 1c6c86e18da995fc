/*
 * fuzz_npy.c - libFuzzer target: the .npy matrix reader, on libFuzzer's
 * bytes as they are (optinc_npy_parse; no file).
 */
#include <stddef.h>
#include <stdint.h>
#include "optinc/fileio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    optinc_input in = {"m.npy", (const char *)data, size};
    optinc_cmat *m = NULL;
    optinc_error err;
    int is_complex;
    if (optinc_npy_parse(&in, &m, &is_complex, &err) == OPTINC_OK)
        optinc_cmat_free(m);
    return 0;
}
