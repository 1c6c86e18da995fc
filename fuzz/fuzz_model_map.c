/*
 * fuzz_model_map.c - libFuzzer target: the INTERCONNECT model map reader of
 * optinc-export(1), on libFuzzer's bytes as they are
 * (optinc_interconnect_map_parse; no file, no terminating NUL).
 */
#include <stddef.h>
#include <stdint.h>
#include "optinc/export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    optinc_input in = {"m.map", (const char *)data, size};
    optinc_interconnect_map map;
    optinc_error err;
    optinc_interconnect_map_defaults(&map);
    optinc_interconnect_map_parse(&in, &map, &err);
    return 0;
}
