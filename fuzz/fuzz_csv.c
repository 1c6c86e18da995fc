/*
 * fuzz_csv.c - libFuzzer target: the .csv matrix reader, on libFuzzer's
 * bytes as they are (optinc_csv_parse; no file, no terminating NUL).
 */
#include <stddef.h>
#include <stdint.h>
#include "optinc/fileio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    optinc_input in = {"m.csv", (const char *)data, size};
    optinc_cmat *m = NULL;
    optinc_error err;
    int is_complex;
    if (optinc_csv_parse(&in, &m, &is_complex, &err) == OPTINC_OK)
        optinc_cmat_free(m);
    return 0;
}
