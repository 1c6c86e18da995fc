/*
 * calibration.h - a chip's measured coupler errors and phase offsets
 * (optinc-calibration(5)), error-aware compilation against them, and the
 * recompilation of a chip from its measurement.
 *
 * Three modules.  calibration_file.c owns the data and its file format: read
 * (from memory or a path), write, the couplers of a simulated chip as a
 * perfect measurement, and a lab's measurement of a chip (couplers and
 * offsets with a measurement error).  calibrate.c owns the coupler
 * correction: it re-programs the phases of a circuit, or the drivers of a
 * chip, so that the measured couplers realize the intended matrices.
 * chip_recompile.c builds on it: the whole recompilation of a chip's
 * drivers (couplers, offsets, crosstalk, driver codes).
 *
 * The simulator depends on this header in two places, which is why it is a
 * runtime header beside sim.h: a chip can realize the couplers of a
 * calibration instead of random draws (optinc_chip_options.couplers), and
 * the Monte-Carlo of optinc_monte_carlo() calibrates each chip it draws when
 * asked (optinc_mc_options.calibrate).
 */
#ifndef OPTINC_CALIBRATION_H
#define OPTINC_CALIBRATION_H

#include "optinc/circuit.h"
#include "optinc/error.h"
#include "optinc/fileio.h"
#include "optinc/sim.h"
#include "optinc/text.h"

/* Measured coupler errors of one chip (optinc-calibration(5)): for each
 * layer, each mesh stage and each MZI, the power coupling of its input and
 * output coupler, kappa = 0.5 + delta, and (format 2) the static phase
 * offsets of its phase shifters: what the chip's effective phase is beyond
 * its drive, heater crosstalk apart; for each split or comb stage of a
 * segmented layer the power tap of every fixed card, chain by chain and
 * link by link (the ideal optinc_chain_tap() unless measured).  Shaped like
 * the circuit it was read against. */
struct optinc_calibration {
    int n_layers;
    int has_offsets;                      /* 1: offset[] holds measured phase offsets */
    struct optinc_calibration_layer {
        int n_stages;
        int n_mzi[OPTINC_STAGES_MAX];     /* 0 for attenuator stages */
        double *kappa[OPTINC_STAGES_MAX]; /* 2 per MZI: input, output coupler */
        double *offset[OPTINC_STAGES_MAX];/* 2 per MZI (theta, phi), then 1 per mode of
                                             the output screen; 0 unless measured */
        int n_tap[OPTINC_STAGES_MAX];     /* chains x (fan - 1) for split and comb stages */
        double *tap[OPTINC_STAGES_MAX];   /* power tap of link k of chain x at x(fan-1)+k */
    } *layer;
};

/* ------------------------------------------------ the file (calibration_file.c) */

/* Parses a calibration file held in memory and matches it to circuit c
 * (every entry must name an MZI of c; unlisted MZIs get ideal couplers).
 * Errors carry in->name, the line and the column; *out is NULL on failure. */
optinc_status optinc_calibration_parse(const optinc_input *in, const optinc_circuit *c,
                                       optinc_calibration **out, optinc_error *err);
/* The same from the regular file at path, read whole without blocking (a
 * FIFO or a device is bad input) and at most 1 MiB plus 256 bytes per MZI of
 * c, and at most the input limit of opts' limits (NULL: the default). */
optinc_status optinc_calibration_read(const char *path, const optinc_circuit *c,
                                      const optinc_read_opts *opts, optinc_calibration **out,
                                      optinc_error *err);
/* Writes a calibration for circuit c (all MZIs, in propagation order); the
 * add form as a member of a set of outputs (fileio.h). */
optinc_status optinc_calibration_add(optinc_outs *s, const optinc_calibration *cal,
                                     const optinc_circuit *c, const char *path,
                                     optinc_error *err);
optinc_status optinc_calibration_write(const optinc_calibration *cal, const optinc_circuit *c,
                                       const char *path, optinc_error *err);
/* The couplers a chip realizes, as a calibration (a perfect measurement). */
optinc_status optinc_calibration_from_chip(const optinc_chip *chip, optinc_calibration **out,
                                           optinc_error *err);
void optinc_calibration_free(optinc_calibration *cal);

/* What a lab measures on a chip: its couplers, the taps of its fixed split
 * and comb cards and its static phase offsets, each with a Gaussian
 * measurement error of standard deviation splitter_sigma (on kappa, and
 * relative on a tap t, t (1 + 2 splitter_sigma N): a power ratio, at 50:50
 * as accurate as a coupler; clamped to [0, 1]) and phase_sigma_rad, drawn from streams of
 * `seed` of their own (the chip's seed gives each chip its own, repeatable
 * measurement).  Zero sigmas give the chip's true values. */
optinc_status optinc_calibration_measure(const optinc_chip *chip, double phase_sigma_rad,
                                         double splitter_sigma, uint64_t seed,
                                         optinc_calibration **out, optinc_error *err);

/* ------------------------------------------------------ correcting (calibrate.c) */

typedef struct optinc_calibration_report {
    int n_layers;
    struct optinc_calibration_layer_report {
        double fidelity_before;   /* chip with the measured couplers vs ideal T */
        double fidelity_after;    /* the same chip with the corrected phases */
        int n_mzi;
        int n_unreachable;        /* MZIs whose target split the couplers cannot reach */
    } *layer;
} optinc_calibration_report;

void optinc_calibration_report_free(optinc_calibration_report *rep);

/* Error-aware compilation: re-programs every mesh of c so that the chip with
 * the measured couplers of cal realizes the circuit's target phases as well as
 * the hardware allows (local correction of each MZI, output phases pushed
 * forward into the next MZIs and the output screen; with OPTINC_CAL_REFIT
 * then a global re-fit), re-quantized to the phase drivers.  Modifies c in
 * place (it is part of compiling) and adds a warning to c for each layer with
 * MZIs out of reach; rep (may be NULL) receives each layer's fidelity before
 * and after; free it with optinc_calibration_report_free(). */
optinc_status optinc_calibrate_circuit(optinc_circuit *c, const optinc_calibration *cal,
                                       optinc_calibration_method method,
                                       optinc_calibration_report *rep, optinc_error *err);
/* The same correction applied to a chip's drivers (cal NULL: the chip's own
 * couplers, i.e. a perfect measurement).  The circuit is not changed. */
optinc_status optinc_chip_calibrate(optinc_chip *chip, const optinc_calibration *cal,
                                    optinc_calibration_method method, optinc_error *err);

/* Recompilation of a chip's drivers from a measurement (chip_recompile.c):
 * the error-aware correction of every mesh against the measured couplers
 * (continuous phases, local method), the measured offsets subtracted, the
 * heaters' thermal crosstalk pre-compensated (the drives solve
 * d + c . sum_neighbours (d_j - lo) = target - offset, the crosstalk
 * coefficient c and the neighbour pattern being the chip model's, sim.h),
 * then rounded onto the chip's driver codes in the same sweeps so each
 * neighbour's rounding is compensated too.  The circuit is not changed.
 * With data (NULL: none), the recompilation is sequential and data-aware
 * (recompile_data.c): stage by stage in propagation order each mesh is
 * fitted, in the least-squares sense over the data's inputs (weighted), to
 * the ideal circuit's fields, fed the fields the chip as measured (every
 * stage upstream recompiled and rounded, the layers' gains and activations
 * in between) gives it; in each layer its biggest mesh absorbs the others'
 * errors.  Only the light the data carry is fitted. */
typedef struct optinc_recompile_data {
    const optinc_cmat *inputs;      /* the first layer's inputs: its cols x P */
    const double *weight;           /* weight of each input (its multiplicity); NULL: 1 */
    const double *output_weight;    /* weight of each output of the last layer, NULL: 1;
                                       it enters only when that layer ends in a mesh (not
                                       in an attenuator column, nor cut in segments) */
    int rounds;    /* codes chosen in this many rounds, each rounding the next block of a
                      mesh's MZIs and re-fitting the others; 0: 16 for codes coarser than
                      11 bits on 2 pi, else 1 (all at once) */
    /* Optional (NULL: one pass): after each pass, the last layer's outputs
     * act(gain . T' . x) on every input as the chip AS MEASURED gives them
     * (rows x P).  The hook returns the pass's cost (lower is better), may
     * raise inputs' weights (the caller's array behind `weight`) and sets
     * *again for another pass, which recompiles the whole chip against the
     * new weights; when it raised none, that pass would repeat the last bit
     * for bit, and it is not run.  The chip keeps the drives of the pass of
     * least cost (the first of equal ones). */
    double (*rescore)(void *ctx, const optinc_cmat *outputs, int *again);
    void *ctx;
} optinc_recompile_data;
optinc_status optinc_chip_recompile(optinc_chip *chip, const optinc_calibration *meas,
                                    const optinc_recompile_data *data, optinc_error *err);
/* Whether drivers of components c are coarse for the recompilation (a code
 * step over 2 pi / 2048, 10-bit drivers on 2 pi and coarser): their codes
 * are then chosen in rounds (optinc_recompile_data.rounds 0). */
int optinc_recompile_coarse_codes(const optinc_components *c);
/* The same recompilation written into the circuit's programmed phases (the
 * netlist of one measured chip): the chip is c's drivers with the measured
 * couplers and c's own thermal crosstalk (layer components); the phases'
 * targets are kept. */
optinc_status optinc_recompile_circuit(optinc_circuit *c, const optinc_calibration *meas,
                                       optinc_error *err);

/* ------------------------------------------------ drive codes (drive_codes.c) */

/* Writes the DAC codes chip's phase drivers hold (optinc-drive(5)): one CSV
 * row per heater, every mesh stage's MZIs (theta, then phi) in propagation
 * order and then its output screen, named as in the netlist, with the drive
 * each code programs, the crosstalk its neighbours add, the offset meas
 * measured (NULL, or a measurement without offsets: 0) and the phase they
 * realize.  The layers' phase drivers must have bits (codes). */
optinc_status optinc_drive_codes_write(const optinc_chip *chip, const optinc_calibration *meas,
                                       const char *path, optinc_error *err);
/* Sets the heaters of mesh stage `stage` of `layer` to codes (the file's
 * order: theta and phi of each MZI, then the screen's modes) on the layer's
 * phase drivers, and realizes the stage.  OPTINC_EINPUT when the stage is
 * no mesh or a code is not one of the drivers'. */
optinc_status optinc_chip_set_drive_codes(optinc_chip *chip, int layer, int stage,
                                          const long *codes, optinc_error *err);

#endif
