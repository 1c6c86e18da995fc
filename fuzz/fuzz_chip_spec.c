/*
 * fuzz_chip_spec.c - libFuzzer target: the reader of chip files
 * (optinc_chip_spec_parse), on libFuzzer's bytes as they are.  Any input
 * must end in OPTINC_OK or a clean error record; an accepted chip must be
 * one the simulator can draw: every standard deviation and loss finite and
 * at least 0, the drivers' bits in 0..16.
 */
#include <math.h>
#include <stdlib.h>
#include "optinc/spec.h"
#include "fuzz.h"

static int bad(double x)
{
    return !(x >= 0) || isinf(x);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    optinc_read_opts opts = {fz_limits(), NULL, NULL, NULL};
    optinc_input in = {"chip.yaml", (const char *)data, size};
    optinc_chip_spec chip;
    optinc_error err;
    if (optinc_chip_spec_parse(&in, &opts, &chip, &err) != OPTINC_OK)
        return 0;
    const optinc_components *k = &chip.components;
    if (bad(k->mzi.insertion_loss_dB) || bad(k->mzi.phase_error_sigma_rad) ||
        bad(k->mzi.splitter_error_sigma) || bad(k->phase_shifter.thermal_crosstalk) ||
        bad(chip.calibration.phase_sigma_rad) || bad(chip.calibration.splitter_sigma) ||
        k->phase_shifter.bits < 0 || k->phase_shifter.bits > 16)
        abort();
    return 0;
}
