/*
 * fuzz_npy.c - libFuzzer target: the .npy matrix reader, on libFuzzer's
 * bytes as they are (optinc_npy_parse; no file).
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fz_matrix_reader(optinc_npy_parse, "m.npy", data, size);
}
