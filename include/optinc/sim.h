/*
 * sim.h - the runtime simulator: a compiled circuit (the program) run on a
 * chip (the machine), with the device errors real MZI hardware has.
 *
 * FFTW's plan/execute split: optinc_compile() plans once and the circuit is
 * never changed by the runtime; optinc_chip_new() draws one simulated chip
 * from a circuit, its layers' `components` tables and a seed.  The chip holds
 * the realized per-element errors and the precomputed 2x2 matrix of every
 * MZI, so many chips can run one circuit and one chip can run many batches.
 *
 * A batch is an optinc_cmat of modes x B (row-major: row m holds mode m of
 * all B input vectors, column b is one input vector), so one MZI updates two
 * contiguous rows of length B.  Propagation costs O(N^2 B) per mesh.
 *
 * Device models (formulas in optinc-simulate(1)):
 *   quantization      phases and attenuations are the drivers' programmed
 *                     codes (the compiler quantized them); drive_targets
 *                     realizes the unquantized decomposition targets
 *                     instead, or rounds them to the codes of the drivers
 *                     of each layer's components table (another chip)
 *   phase error       static N(0, sigma^2) per phase shifter, per chip
 *   phase noise       dynamic N(0, sigma^2) per phase shifter, per evaluation
 *   loss              insertion loss of every MZI and attenuator (dB); with
 *                     balance_loss also of every idle slot of a mesh and of
 *                     the cards a branch of a split or comb chain skips
 *   coupler           each 50:50 coupler splits kappa = 0.5 + delta,
 *                     delta ~ N(0, sigma^2) per coupler, per chip
 *   crosstalk         a fraction of each heater's phase leaks to its
 *                     neighbours in the same column
 *   extinction        attenuators cannot go below 10^(-max_attenuation_dB/20)
 *
 * Ownership: a chip keeps a pointer to its circuit, which must outlive it.
 * Running a chip only reads it, so several threads may share one, except
 * when it has dynamic phase noise (every evaluation advances its generator)
 * or while optinc_chip_calibrate() re-programs it: then one chip per thread.
 */
#ifndef OPTINC_SIM_H
#define OPTINC_SIM_H

#include <stdint.h>
#include "optinc/circuit.h"
#include "optinc/rng.h"

/* ------------------------------------------------------------------ chips */

/* Device models a chip realizes (bit mask). */
enum {
    OPTINC_DEV_NONE = 0,
    OPTINC_DEV_PHASE_ERROR = 1 << 0,  /* components.mzi.phase_error_sigma_rad */
    OPTINC_DEV_PHASE_NOISE = 1 << 1,  /* components.phase_shifter.noise_sigma_rad */
    OPTINC_DEV_LOSS = 1 << 2,         /* mzi/attenuator insertion_loss_dB */
    OPTINC_DEV_COUPLER = 1 << 3,      /* components.mzi.splitter_error_sigma */
    OPTINC_DEV_CROSSTALK = 1 << 4,    /* components.phase_shifter.thermal_crosstalk */
    OPTINC_DEV_EXTINCTION = 1 << 5,   /* components.attenuator.max_attenuation_dB */
    OPTINC_DEV_ALL = (1 << 6) - 1
};

/* A chip's measured couplers: calibration.h. */
typedef struct optinc_calibration optinc_calibration;

/* Error-aware calibration methods (optinc-simulate(1)). */
typedef enum optinc_calibration_method {
    OPTINC_CAL_LOCAL = 0,   /* each MZI on its own, output phases pushed forward: O(N^2) */
    OPTINC_CAL_REFIT        /* local, then a global L-BFGS re-fit of every phase of each mesh
                               that has MZIs out of reach: O(N^3) per iteration, 300 at most */
} optinc_calibration_method;
/* Their words, by value and NULL-terminated: "local" "refit". */
extern const char *const optinc_calibration_method_names[];

/* What a chip's drivers are set to. */
enum {
    OPTINC_DRIVE_CODES = 0,     /* the compiler's codes (phase rad, attenuator t) */
    OPTINC_DRIVE_TARGETS = 1,   /* the unquantized targets (target_rad, t_target) */
    OPTINC_DRIVE_REQUANTIZE = 2 /* the targets quantized to the drivers of each layer's
                                   components table (bits, range_rad, attenuator bits and
                                   max_attenuation_dB), which may differ from the
                                   compiler's: a netlist run on another chip */
};

typedef struct optinc_chip_options {
    unsigned models;                      /* OPTINC_DEV_* mask; default OPTINC_DEV_ALL */
    int drive_targets;                    /* OPTINC_DRIVE_*: what the drivers are set to;
                                             default OPTINC_DRIVE_CODES */
    const optinc_calibration *couplers;   /* coupler errors to realize instead of random
                                             draws (only with OPTINC_DEV_COUPLER); NULL */
    int balance_loss;                     /* 1: every idle waveguide slot of a mesh (a
                                             column a mode crosses without an MZI) carries
                                             one MZI's insertion loss, and every branch of
                                             a split or comb chain the loss of the fan-1
                                             cards of its longest branch, so every path
                                             through a layer loses the same; default 0 */
} optinc_chip_options;

void optinc_chip_options_default(optinc_chip_options *o);

typedef struct optinc_chip optinc_chip;

/* Draws a chip for circuit c.  opt NULL means the defaults.  Every random
 * draw comes from optinc_rng_stream(seed, ...) with one stream per layer,
 * stage and model, so enabling one model never changes another's draws. */
optinc_status optinc_chip_new(const optinc_circuit *c, const optinc_chip_options *opt,
                              uint64_t seed, optinc_chip **out, optinc_error *err);
void optinc_chip_free(optinc_chip *chip);
/* Seed of chip k of a Monte-Carlo run started from seed (k = 0 gives seed). */
uint64_t optinc_chip_seed(uint64_t seed, int k);

/* One realized MZI, for inspection. */
typedef struct optinc_chip_mzi {
    int mode, column;
    double theta_drive_rad, phi_drive_rad;  /* what the drivers are set to */
    double theta_rad, phi_rad;              /* effective: drive + crosstalk + static error */
    double kappa_in, kappa_out;             /* power coupling of the two couplers */
    double amplitude;                       /* 10^(-insertion_loss_dB/20) */
} optinc_chip_mzi;

/* MZI `index` (propagation order) of mesh stage `stage` of `layer`.
 * OPTINC_EINPUT when there is no such MZI. */
optinc_status optinc_chip_mzi_get(const optinc_chip *chip, int layer, int stage, int index,
                                  optinc_chip_mzi *out, optinc_error *err);
/* Effective output-screen phase of mode `mode` of a mesh stage; realized
 * amplitude of attenuator channel `mode` of an attenuator stage.  NAN when
 * there is no such element. */
double optinc_chip_screen_rad(const optinc_chip *chip, int layer, int stage, int mode);
double optinc_chip_att_amplitude(const optinc_chip *chip, int layer, int stage, int mode);

/* The 2x2 matrix (row-major) of an MZI with imperfect couplers and loss:
 *   amplitude . C(kappa_out) . diag(e^{i theta}, 1) . C(kappa_in) . diag(e^{i phi}, 1),
 *   C(k) = [[sqrt(1-k), i sqrt(k)], [i sqrt(k), sqrt(1-k)]]
 * (kappa = 0.5 and amplitude 1 give optinc_mzi_matrix). */
void optinc_mzi_device_matrix(double theta, double phi, double kappa_in, double kappa_out,
                              double amplitude, double complex m[4]);

/* The amplitude every path through layer `layer` keeps on a chip drawn with
 * balance_loss: the product over its meshes of amplitude^depth (depth: the
 * mesh's columns), over its attenuator columns of their insertion loss and
 * over its split and comb chains of fan-1 cards' loss (half an MZI's each);
 * 1 without OPTINC_DEV_LOSS.  A pass-through mode is a waveguide outside
 * this and outside the gain.  The balanced layer's T' is this factor times
 * its loss-free T', so a gain divided by it trims the loss away.  NAN when
 * there is no such layer. */
double optinc_chip_layer_path_amplitude(const optinc_chip *chip, int layer);
/* The electronic gain the chip applies after layer `layer`: the circuit
 * layer's, unless a recompilation re-trimmed the layer's attenuators and
 * the gain with them (optinc_chip_recompile).  NAN when there is no such
 * layer. */
double optinc_chip_layer_gain(const optinc_chip *chip, int layer);

/* ------------------------------------------------------------------ running */

typedef enum optinc_precision { OPTINC_DOUBLE = 0, OPTINC_FLOAT = 1 } optinc_precision;

/* out (L.rows x B) = T' . in (L.cols x B), the chip's realization of layer
 * T without the gain.  out must be allocated by the caller and distinct from
 * in.  OPTINC_FLOAT propagates in single precision (about 1e-6 relative). */
optinc_status optinc_chip_layer_apply(optinc_chip *chip, int layer, const optinc_cmat *in,
                                      optinc_cmat *out, optinc_precision prec,
                                      optinc_error *err);
/* T' of a layer (rows x cols), double precision; NULL when out of memory. */
optinc_cmat *optinc_chip_layer_transfer(optinc_chip *chip, int layer);
/* The whole circuit as one matrix, prod_l gain_l . T'_l.  Defined only when
 * every layer's activation is none (OPTINC_EINPUT otherwise). */
optinc_status optinc_chip_circuit_matrix(optinc_chip *chip, optinc_cmat **out,
                                         optinc_error *err);

/* Called after each layer with y = gain . T' . x (rows x B), in place.  The
 * ONN supplies its own electro-optic activation here; it may call
 * optinc_activation_apply() for the built-in ones. */
typedef optinc_status (*optinc_activation_fn)(void *ctx, const optinc_layer *L, int layer,
                                              optinc_cmat *y, optinc_error *err);

/* The built-in activations, in place:
 *   none     y
 *   abs2     |y|^2 (a detector: real, imaginary part 0)
 *   relu_eo  max(Re y, 0) (coherent detection, rectified, re-modulated as a
 *            real field; the ONN overrides it through optinc_activation_fn) */
void optinc_activation_apply(optinc_activation act, optinc_cmat *y);

typedef enum optinc_detect {
    OPTINC_DETECT_FIELD = 0,   /* the complex output field itself */
    OPTINC_DETECT_INTENSITY,   /* |E|^2 */
    OPTINC_DETECT_COHERENT     /* Re(E . e^{-i psi}): balanced detection against a reference */
} optinc_detect;
/* Their words, by value and NULL-terminated: "field" "intensity" "coherent". */
extern const char *const optinc_detect_names[];

/* Detection in place (results real, imaginary parts 0). */
void optinc_detect_apply(optinc_detect d, double reference_phase_rad, optinc_cmat *y);

typedef struct optinc_eval_options {
    optinc_precision precision;           /* default OPTINC_DOUBLE */
    optinc_detect detect;                 /* on the last layer's output; default field */
    double reference_phase_rad;           /* psi of coherent detection; default 0 */
    optinc_activation_fn activation;      /* NULL: optinc_activation_apply(L->activation) */
    void *activation_ctx;
} optinc_eval_options;

void optinc_eval_options_default(optinc_eval_options *o);

/* Runs the whole circuit on a batch: for each layer y = act(gain . T' . x),
 * then detection.  in is layers[0].cols x B; *out (newly allocated) is
 * layers[n-1].rows x B.  opt NULL means the defaults. */
optinc_status optinc_chip_eval(optinc_chip *chip, const optinc_cmat *in, optinc_cmat **out,
                               const optinc_eval_options *opt, optinc_error *err);

/* ------------------------------------------------------------------ metrics */

typedef struct optinc_fidelity {
    double max_abs;        /* max |M' - M| */
    double rel_frobenius;  /* |M' - M|_F / |M|_F */
    double fidelity;       /* |Tr(M^H M')|^2 / (|M|_F^2 |M'|_F^2), phase-insensitive */
} optinc_fidelity;

/* Compares M' (measured) against M (reference).  OPTINC_EINPUT when the
 * shapes differ. */
optinc_status optinc_fidelity_compute(const optinc_cmat *M, const optinc_cmat *Mp,
                                      optinc_fidelity *f, optinc_error *err);

typedef struct optinc_mc_options {
    int chips;                            /* K >= 1 */
    uint64_t seed;                        /* chip k uses optinc_chip_seed(seed, k) */
    optinc_chip_options chip;
    int calibrate;                        /* also correct each chip for its own (perfectly
                                             measured) coupler errors: fills `after` */
    optinc_calibration_method method;     /* how, when calibrate is set */
} optinc_mc_options;

typedef struct optinc_mc_stats {
    optinc_fidelity mean, std;            /* std: sample standard deviation (0 for K = 1) */
} optinc_mc_stats;

typedef struct optinc_mc_result {
    int chips, n_layers;
    optinc_mc_stats *before;              /* per layer: chip T' against the ideal T */
    optinc_mc_stats *after;               /* per layer, after calibration; NULL unless asked */
    optinc_fidelity *samples;             /* chips x n_layers, chip-major (before) */
} optinc_mc_result;

/* Monte-Carlo over K chips: per layer, the statistics of the chip's T'
 * against the ideal T (programmed phases, no device errors).  Deterministic:
 * the same options give bit-identical results. */
optinc_status optinc_monte_carlo(const optinc_circuit *c, const optinc_mc_options *opt,
                                 optinc_mc_result **out, optinc_error *err);
void optinc_mc_result_free(optinc_mc_result *r);

#endif
