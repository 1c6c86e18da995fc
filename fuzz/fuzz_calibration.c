/*
 * fuzz_calibration.c - libFuzzer target: the calibration file reader
 * (optinc_calibration_parse, optinc-calibration(5)) on libFuzzer's bytes as
 * they are, matched against one small circuit: a layer of a 4 x 3 matrix,
 * a V mesh on 3 modes, an attenuator column and a U mesh on 4 (the circuit
 * of tests/bad/calibration/circuit.yaml), compiled once from memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/calibration.h"
#include "optinc/circuit.h"
#include "optinc/spec.h"

static optinc_circuit *circuit;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static const char text[] =
        "schema_version: 1\n"
        "name: calib_fixture\n"
        "matrices:\n"
        "  W: {shape: [4, 3], dtype: real, generate: {kind: gaussian, seed: 1}}\n"
        "layers:\n"
        "  - {name: L1, matrix: W, attenuators: middle}\n";
    optinc_input in = {"circuit.yaml", text, strlen(text)};
    optinc_spec *spec = NULL;
    optinc_error err;
    (void)argc;
    (void)argv;
    if (optinc_spec_parse(&in, NULL, &spec, &err) || optinc_compile(spec, &circuit, &err)) {
        fprintf(stderr, "fuzz_calibration: %s\n", err.message);
        exit(1);
    }
    optinc_spec_free(spec);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    optinc_input in = {"chip.cal", (const char *)data, size};
    optinc_calibration *cal = NULL;
    optinc_error err;
    if (optinc_calibration_parse(&in, circuit, &cal, &err) == OPTINC_OK)
        optinc_calibration_free(cal);
    return 0;
}
