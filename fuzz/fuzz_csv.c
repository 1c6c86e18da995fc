/*
 * fuzz_csv.c - libFuzzer target: the .csv matrix reader, on libFuzzer's
 * bytes as they are (optinc_csv_parse; no file, no terminating NUL).
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fz_matrix_reader(optinc_csv_parse, "m.csv", data, size);
}
