/*
 * onn.h - the OptINC optical neural network: PAM4 digits of the gradients'
 * offset-binary codes (quantized by the all-reduce, allreduce.h), the
 * optical preprocessing P, the ONN
 * itself (an MLP whose linear layers are MZI meshes and whose nonlinearity is
 * an electro-optic ReLU), its hardware-aware trainer, its export to a spec,
 * the exhaustive verifier of the compiled circuit, the two-level cascade, and
 * the lookup table the data-parallel trainer uses.  optinc-onn(7) explains
 * every design choice; optinc-onn(1) is the command.
 *
 * The arithmetic an OptINC unit performs is a *task*: N values v_i, each
 * in_digits PAM4 digits (v_i <= in_max), are reduced by P to a short vector p
 * (digit-position sums, or one weighted sum), and the ONN must output the
 * out_digits PAM4 digits of  round(sum_i v_i / divisor)  with a documented
 * rounding rule.  One unit for N servers of b bits is (N, b/2, 2^b-1, N, b/2);
 * the cascade's first level keeps the quotient's fraction as one extra digit
 * (divisor 1, b/2+1 digits) and its second level divides by N^2.
 */
#ifndef OPTINC_ONN_H
#define OPTINC_ONN_H

#include <stddef.h>
#include <stdint.h>
#include "optinc/calibration.h"
#include "optinc/circuit.h"
#include "optinc/error.h"
#include "optinc/fileio.h"
#include "optinc/rng.h"
#include "optinc/spec.h"

#define OPTINC_ONN_MAX_DIGITS 16      /* b <= 32 */
#define OPTINC_ONN_MAX_OUTPUTS (2 * OPTINC_ONN_MAX_DIGITS)
#define OPTINC_ONN_MAX_LAYERS (OPTINC_MAX_HIDDEN + 1)

/* PAM4: a code of `digits` base-4 digits, least significant first. */
void optinc_pam4_encode(uint32_t code, int digits, uint8_t *d);
uint32_t optinc_pam4_decode(const uint8_t *d, int digits);

/* The code of a zero gradient in b-bit codes (b even): PAM4 digits 1, 2, 2,
 * ..., 2 from the top (106 for b = 8), or 2 when there is one digit.  Codes
 * are u = q + zero for signed values q in -t..t, t = zero (t = 1 for one
 * digit; allreduce.h).  Why not 2^(b-1): a
 * gradient is mostly small, so with zero at 2^(b-1) = (2, 0, ..., 0) the
 * servers' codes straddle the carry into the top digit (127 = (1, 3, ..., 3),
 * 128 = (2, 0, ..., 0)) and most aggregated elements land on corners of the
 * digit sums' box, which few raw inputs reach and a chip fits worst.  Mid
 * digits keep small values away from every carry but the lowest, so they
 * land near the box's centre.  The price is range: 2 zero + 1 codes of 2^b,
 * 0.26 bits at b = 8.  zero is even, so rounding an average half to even
 * gives the same code whether it is done on the codes or on the q. */
uint32_t optinc_code_zero(int bits);

/* ---- the task: what one unit computes ---------------------------------- */

typedef enum optinc_preproc {
    OPTINC_P_DIGIT_SUMS = 0,   /* p_k = sum_i d_{i,k}: in_digits outputs in 0..3N */
    OPTINC_P_WEIGHTED_SUM      /* p_0 = sum_i v_i: one output in 0..N*in_max     */
} optinc_preproc;

typedef enum optinc_rounding {
    OPTINC_ROUND_HALF_EVEN = 0,  /* unbiased (default) */
    OPTINC_ROUND_HALF_UP         /* floor(x + 1/2): biased by +1/(2*divisor) LSB */
} optinc_rounding;

/* How the result's digits are carried by the ONN's outputs.  Binary: output
 * j is digit j, a sawtooth of the result that falls from 3 to 0 at every
 * carry.  Gray (reflected base-4 Gray code): output j is digit j, or 3 minus
 * it when digit j+1 is odd, a triangle wave of the result, so that
 * neighbouring results differ in one output by one level and a network that
 * is off by a little at a carry is off by 1 LSB instead of 4^j.  Offset:
 * the binary outputs, then for each digit j >= 1 a second output, digit j
 * of v + 4^j/2, whose carries fall half a period of digit j away from its
 * own.  The receiver reads digit j from the output whose carry is farther
 * from v, as the lower digits already read place it (the binary output
 * when v mod 4^j is in [4^j/4, 3*4^j/4)), so no digit is read at its step,
 * where a chip's small errors move a carry; each output is trained only
 * where it is read and a margin beyond (optinc_onn_levels). */
typedef enum optinc_onn_code {
    OPTINC_CODE_BINARY = 0,      /* the default */
    OPTINC_CODE_GRAY,
    OPTINC_CODE_OFFSET
} optinc_onn_code;

typedef struct optinc_onn_task {
    int servers;               /* N values summed */
    int in_digits;             /* PAM4 digits per value */
    uint32_t in_max;           /* largest value a server can send */
    int divisor;               /* result = round(sum / divisor) */
    int out_digits;            /* PAM4 digits of the result */
    optinc_preproc pre;
    optinc_rounding rounding;
    optinc_onn_code code;      /* of the outputs; the constructors set binary */
} optinc_onn_task;

/* One OptINC unit: N servers, b-bit codes (b even, 2..32), result = their
 * rounded average in b bits. */
optinc_status optinc_onn_task_unit(optinc_onn_task *t, int servers, int bits,
                                   optinc_preproc pre, optinc_rounding rounding,
                                   optinc_error *err);
/* The cascade of `fan_in`-server units over two levels (fan_in^2 servers):
 * level 1 outputs the exact group sum (the average with its fraction kept as
 * one extra digit), level 2 rounds sum/fan_in^2 into b bits. */
optinc_status optinc_onn_task_cascade(optinc_onn_task *t, int level, int fan_in, int bits,
                                      optinc_preproc pre, optinc_rounding rounding,
                                      optinc_error *err);
/* Number of P outputs (the ONN's data inputs): in_digits or 1. */
int optinc_onn_task_inputs(const optinc_onn_task *t);
/* Number of the ONN's outputs: out_digits, or 2 out_digits - 1 (offset). */
int optinc_onn_task_outputs(const optinc_onn_task *t);
/* The weight of P output k in the sum: 4^k (digit sums) or 1. */
uint64_t optinc_onn_task_weight(const optinc_onn_task *t, int k);
/* The target: round(sum / divisor) for a P output vector p (0 <= result <
 * 4^out_digits for every reachable p). */
uint64_t optinc_onn_target(const optinc_onn_task *t, const int *p);
/* P itself on raw server values v[0..N-1]: writes p. */
void optinc_onn_preprocess(const optinc_onn_task *t, const uint32_t *v, int *p);
/* The combiner matrix of P (optinc_onn_task_inputs rows, N*in_digits
 * columns; column i*in_digits + k is digit k of server i), row-major doubles. */
void optinc_onn_preprocess_matrix(const optinc_onn_task *t, double *m);

/* ---- the input domain: every distinct P output, exactly ------------------- */

/* The box of P outputs (mixed radix, p_0 fastest) with, for each point, the
 * number of raw server inputs (v_1..v_N) that P maps onto it; 0 marks a point
 * no input reaches.  Counts are kept in a table only when in_max restricts
 * the values (cascade level 2); otherwise they factor per digit and are
 * computed on the fly, so a 16-bit box (13^8 points) costs no memory. */
/* The most points a table of the box (counts) or the trainer's data set
 * holds: 2^26, 67M points, 6.4 GB of training data for the 16-bit unit's
 * 8 inputs and 15 outputs.  Larger boxes are sampled. */
#define OPTINC_ONN_MAX_POINTS (1ull << 26)

typedef struct optinc_onn_domain {
    optinc_onn_task task;
    int dims;
    int radix[OPTINC_ONN_MAX_DIGITS];
    uint64_t size;             /* product of the radices */
    uint64_t reachable;        /* points with count > 0 */
    double raw_total;          /* (in_max + 1)^N */
    double *count;             /* size entries, or NULL (factored) */
    double *digit_count;       /* factored form: count of one digit sum, radix[0] entries */
} optinc_onn_domain;

optinc_status optinc_onn_domain_init(optinc_onn_domain *d, const optinc_onn_task *t,
                                     optinc_error *err);
void optinc_onn_domain_free(optinc_onn_domain *d);
/* The P output vector of box index i. */
void optinc_onn_domain_point(const optinc_onn_domain *d, uint64_t i, int *p);
/* The box index of P output vector p (each p[k] in 0..radix[k]-1). */
uint64_t optinc_onn_domain_index(const optinc_onn_domain *d, const int *p);
/* Raw inputs mapped onto box index i (as a double: (2^32)^N overflows). */
double optinc_onn_domain_count(const optinc_onn_domain *d, uint64_t i);
/* A walk over the reachable points of a domain: all of them in index order,
 * or (sample > 0 and fewer than the reachable points) `sample` points drawn
 * uniformly from the box with replacement, unreachable draws redrawn. */
typedef struct optinc_onn_walk {
    const optinc_onn_domain *d;
    uint64_t next, left;
    int sampled;
    optinc_rng rng;
} optinc_onn_walk;

void optinc_onn_walk_init(optinc_onn_walk *w, const optinc_onn_domain *d, uint64_t sample,
                          uint64_t seed);
/* The next point: box index, P output p and its raw-input count; 0 at the end. */
int optinc_onn_walk_next(optinc_onn_walk *w, uint64_t *index, int *p, double *count);

/* The formula for the number of distinct P outputs of an unrestricted task:
 * (3N+1)^D for digit sums, N*(4^D - 1) + 1 for a weighted sum. */
double optinc_onn_domain_formula(const optinc_onn_task *t);

/* ---- the network ---------------------------------------------------------- */

/* Layer l maps cols inputs to rows outputs: y = act(W x).  Every layer's
 * last input is its carrier (the bias light, a constant amplitude split from
 * the unit's laser), so cols = (P outputs or the previous layer's rows) + 1;
 * the other inputs are the P outputs or the previous layer's outputs.  A
 * layer with segments
 * (seg_rows x seg_cols > 0) is cut into blocks of that size, each exactly
 * diag(s) . Q with Q's rows orthonormal (the unitary-diagonal form, one mesh
 * of seg_cols modes and seg_rows attenuators per segment). */
typedef struct optinc_onn_layer {
    int rows, cols;
    int seg_rows, seg_cols;    /* 0, 0: a dense layer, realized by SVD */
    optinc_activation activation;
    double *w;                 /* rows x cols, row-major */
} optinc_onn_layer;

/* The amplitudes at the ONN's boundary: circuit input k (k < inputs) carries
 * in_scale * p_k, the carrier input carries `carrier`, and output digit j is
 * decoded from the detected amplitude |y_j| / out_scale, rounded and
 * clamped to 0..3. */
typedef struct optinc_onn {
    optinc_onn_task task;
    double in_scale, carrier, out_scale;
    int n_layers;
    optinc_onn_layer layers[OPTINC_ONN_MAX_LAYERS];
} optinc_onn;

/* Allocates the layers of a network with the given hidden widths.  seg[l]
 * gives layer l's segment shape (seg[2l], seg[2l+1]); NULL = all dense. */
optinc_status optinc_onn_alloc(optinc_onn *net, const optinc_onn_task *t, const int *hidden,
                               int n_hidden, const int *seg, optinc_error *err);
void optinc_onn_free(optinc_onn *net);

/* ---- hardware cost ------------------------------------------------------ */

/* MZI-equivalents of one layer under the counting model of optinc-onn(7):
 * an n-mode mesh n(n-1)/2, an attenuator 1, a fixed 2x2 splitter or combiner
 * 1.  `svd`: U.Sigma.V^H realization (rows(rows-1)/2 + cols(cols-1)/2 +
 * min); otherwise the layer's own form (segments or SVD when dense). */
typedef struct optinc_onn_cost {
    double meshes;            /* MZIs in meshes */
    double attenuators;
    double splitters;         /* fan-out of inputs to segments */
    double combiners;         /* sums of segment outputs */
    double total;
} optinc_onn_cost;

void optinc_onn_layer_cost(const optinc_onn_layer *L, int svd, optinc_onn_cost *c);
/* Whole network; returns total / total of the SVD realization. */
double optinc_onn_area_ratio(const optinc_onn *net, optinc_onn_cost *approx,
                             optinc_onn_cost *svd);

/* ---- training ----------------------------------------------------------- */

typedef struct optinc_onn_train_opts {
    uint64_t seed;
    int max_epochs;           /* cosine schedule length */
    int batch;
    double lr;
    double margin;            /* stop when every output is within 0.5 - margin of its digit */
    int boost;                /* most visits per epoch of a point that keeps missing the margin */
    double noise;             /* relative weight noise injected per step (noise-aware); 0 = off */
    int eval_every;           /* epochs between exhaustive checks */
    uint64_t sample;          /* train on this many sampled points when the box is larger (0 = all) */
    int restarts;             /* fresh starts after a plateau (not when resumed or noise-aware) */
    /* Focus points (may be NULL): n_focus P outputs (task inputs each, in a
     * row) trained on focus_repeat times every epoch besides the sample and
     * checked with it, e.g. the points a verifier found wrong or near a
     * threshold (`onn verify --misses`). */
    const int *focus;
    size_t n_focus;
    int focus_repeat;
    /* Called after every check (may be NULL): epoch, loss, accuracy. Return
     * nonzero to stop. */
    int (*progress)(void *ctx, int epoch, double loss, double accuracy);
    void *ctx;
} optinc_onn_train_opts;

void optinc_onn_train_defaults(optinc_onn_train_opts *o);

typedef struct optinc_onn_train_result {
    int epochs;                /* over every start */
    int starts;                /* 1 + the restarts taken */
    int converged;             /* every output met the margin (never set noise-aware) */
    double accuracy;           /* exhaustive exact match of the trained model (double) */
    double max_error;          /* max |y - digit| over the training set */
    double seconds;            /* CPU seconds */
} optinc_onn_train_result;

/* Trains net (initialized here from opts->seed, or continued when `resume`)
 * on the exhaustive set of P outputs of its task.  Segmented layers are
 * trained directly in their (s, Q) parameterization (Q = rows of U0 . Cayley(A),
 * A skew), so the result is exactly of the hardware's form.  A start that
 * stalls (no gain in accuracy or largest error for a quarter of its
 * schedule), or whose schedule runs out short of the margin, is replaced by
 * a fresh one from another seed, up to opts->restarts times.  The same
 * options give bit-identical weights on one machine when BLAS runs on one
 * thread (optinc_linalg_deterministic(), which the optinc program calls);
 * another BLAS kernel gives another network, trained to the same margin. */
optinc_status optinc_onn_train(optinc_onn *net, const optinc_onn_train_opts *opts, int resume,
                               optinc_onn_train_result *res, optinc_error *err);

/* ---- evaluation --------------------------------------------------------- */

/* Circuit input amplitudes for P output p: x[0..inputs-1] and the carrier. */
void optinc_onn_input(const optinc_onn *net, const int *p, double *x);
/* The PAM4 levels the task's outputs (optinc_onn_task_outputs) carry for
 * result v, least significant first, in the task's code; -1 where the
 * output is not read for v and need not be any level (offset). */
void optinc_onn_levels(const optinc_onn_task *t, uint64_t v, int *level);
/* The result value decoded from the detected output amplitudes |y_j| of the
 * task's outputs, whose PAM4 level is out_scale: the inverse of
 * optinc_onn_levels on the rounded, clamped levels. */
uint64_t optinc_onn_decode(const optinc_onn_task *t, double out_scale, const double *amplitude);
/* optinc_onn_decode, and in *margin the smallest distance (in levels) of an
 * amplitude it read from the threshold that would have changed its level
 * (0.5, 1.5 or 2.5): amplitudes each closer than that to these decode
 * to the same value.  NaN when an amplitude read is NaN. */
uint64_t optinc_onn_decode_margin(const optinc_onn_task *t, double out_scale,
                                  const double *amplitude, double *margin);
/* Decoded result value of the model for P output vector p (double forward). */
uint64_t optinc_onn_eval(const optinc_onn *net, const int *p);

/* Histogram of errors (decoded - target) in LSBs: bins -OPTINC_ONN_HIST..+HIST;
 * the two end bins collect everything beyond. */
#define OPTINC_ONN_HIST 8
typedef struct optinc_onn_report {
    uint64_t checked;          /* P outputs evaluated */
    uint64_t correct;
    double accuracy;           /* correct / checked */
    double weighted_accuracy;  /* over raw server inputs (uniform codes); estimated from the
                                  counts of the points drawn when sampled */
    uint64_t hist[2 * OPTINC_ONN_HIST + 1];   /* over P outputs */
    double whist[2 * OPTINC_ONN_HIST + 1];    /* over raw server inputs */
    int sampled;               /* 1 when a random sample of the box was checked */
    /* Over raw server inputs (each P output weighted by its multiplicity): */
    double raw_inputs;         /* the weight of the points checked */
    double abs_error_sum;      /* sum of weight . |decoded - target| (LSBs, not clipped) */
    double ge2_weight;         /* weight of the points whose |error| >= 2 LSB */
    double mean_abs_error_lsb; /* abs_error_sum / raw_inputs */
    double p_error_ge2;        /* ge2_weight / raw_inputs */
    uint64_t screened;         /* points the verifier's screen decided alone (the others
                                  were evaluated the full way) */
} optinc_onn_report;

/* Adds one result to a report (weight: the raw inputs behind the point). */
void optinc_onn_report_add(optinc_onn_report *r, uint64_t got, uint64_t want, double weight,
                           double *weighted_ok);
void optinc_onn_report_finish(optinc_onn_report *r, double weighted_ok, double weight_total);

/* Check of the model itself (no circuit) on every reachable P output, or on
 * `sample` random ones when there are more (0: always exhaustive). */
optinc_status optinc_onn_check(const optinc_onn *net, uint64_t sample, optinc_onn_report *r,
                               optinc_error *err);

/* ---- the ONN as a circuit ---------------------------------------------------
 *
 * Conventions of an exported ONN circuit (optinc-onn(7)): its inputs are the
 * P outputs p_k as field amplitudes in units of one PAM4 level, followed by
 * n_layers carrier modes of amplitude 1; layer l uses the first carrier it
 * receives as its bias and passes the others through unchanged, so every
 * layer is one matrix and the layers chain.  Its outputs are the result's
 * PAM4 digits as fields in level units, decoded from |y| (intensity
 * detection).  What the circuit alone cannot say (the task, the segmentation
 * used for the area model) is the meta record, kept in the spec's allreduce:
 * section and its info: keys onn_rounding, onn_level, onn_segments, and in
 * the compiled netlist's `*! onn` header line (the circuit's onn record). */
typedef struct optinc_onn_meta {
    optinc_onn_task task;
    int level;                 /* 0: one unit; 1, 2: level of a two-level cascade */
    int fan_in;                /* servers per unit */
    int bits;                  /* b of the servers' codes */
    int n_layers;
    int seg[2 * OPTINC_ONN_MAX_LAYERS];  /* model segment shapes; 0 = dense */
    char spec_path[1024];      /* the spec or netlist the meta came from ("" = defaults) */
} optinc_onn_meta;

typedef struct optinc_onn_export_opts {
    const char *name;          /* spec name (an identifier) */
    int phase_bits;            /* phase drivers of the compiled meshes (0 = continuous) */
    uint64_t seed;             /* settings.seed */
    int level, fan_in, bits;   /* see optinc_onn_meta */
    const char *provenance;    /* info: onn_trained (may be NULL) */
} optinc_onn_export_opts;

/* Writes net as a spec at spec_path (atomically), its layer matrices as
 * .npy files in the directory named like the spec without ".yaml", and
 * nothing else, all flushed before the first replaces its old version (the
 * spec last), so a failed export leaves the previous ONN; `optinc compile`
 * turns the spec into the ONN's netlist. */
optinc_status optinc_onn_export(const optinc_onn *net, const char *spec_path,
                                const optinc_onn_export_opts *o, optinc_error *err);
/* The same, the spec, its matrices and their folder staged in the caller's
 * set of outputs (fileio.h): in place when the caller ends the set. */
optinc_status optinc_onn_export_add(optinc_outs *set, const optinc_onn *net,
                                    const char *spec_path, const optinc_onn_export_opts *o,
                                    optinc_error *err);
/* What optinc_onn_export() would refuse, found before any work: a name that
 * is not an identifier, an output spec or matrix that cannot be written
 * (a folder, a missing folder) or would be written in place (a FIFO, a
 * device), a spec whose file name leaves the matrices no folder of their
 * own ("", "." or ".." without the extension) or is not UTF-8, a matrices
 * folder that is a file.  A command that trains first checks this. */
optinc_status optinc_onn_export_check(const optinc_onn *net, const char *spec_path,
                                      const optinc_onn_export_opts *o, optinc_error *err);
/* The .npy file export writes layer (0-based) of the spec at spec_path to. */
void optinc_onn_export_matrix_path(const char *spec_path, int layer, char *path, size_t size);

/* The model back from a loaded ONN spec (inverse of export); fills meta. */
optinc_status optinc_onn_from_spec(const optinc_spec *spec, optinc_onn *net,
                                   optinc_onn_meta *meta, optinc_error *err);
/* The meta of a loaded ONN spec (allreduce: and info:). */
optinc_status optinc_onn_meta_from_spec(const optinc_spec *spec, optinc_onn_meta *meta,
                                        optinc_error *err);

/* Loads an ONN circuit: a spec (compiled here) or a netlist.  A netlist's
 * meta comes from its `*! onn` header line (meta->spec_path is then the
 * netlist's path); without one, from the spec its header names when that
 * file still has the recorded sha256; otherwise meta->spec_path is "" and
 * meta holds the defaults for the circuit's shape (4 servers, digit sums,
 * half to even, one unit), which the caller may override. */
optinc_status optinc_onn_load(const char *path, const optinc_read_opts *opts, optinc_circuit **c,
                              optinc_onn_meta *meta, optinc_error *err);
/* Checks that circuit c has the shape meta describes. */
optinc_status optinc_onn_meta_check(const optinc_circuit *c, const optinc_onn_meta *meta,
                                    optinc_error *err);

/* ---- verification of the compiled circuit --------------------------------- */

/* The devices a circuit is evaluated on: the first three fields alone, or
 * with `chip` a whole components table (a chip file, spec.h), which replaces
 * every layer's own table.  On such a chip every device model of the
 * simulator is in force (sim.h: MZI and attenuator insertion loss, static
 * phase error, coupler splitting error, thermal crosstalk, phase noise, the
 * attenuators' floor), the drivers program the decomposition's targets
 * rounded to the chip's own codes (phase_shifter bits and range, attenuator
 * bits and max_attenuation_dB; OPTINC_DRIVE_REQUANTIZE), the meshes are
 * balanced (every idle slot carries one MZI's loss, balance_loss) and each
 * layer's electronic gain is trimmed by the known loss of its paths
 * (optinc_chip_layer_path_amplitude), so a uniform loss leaves the function
 * unchanged; ideal and phase_sigma_rad are then not used. */
typedef struct optinc_onn_devices {
    int ideal;                 /* 1: continuous phases (the decomposition targets), no errors;
                                  0: the drivers' codes with the phase error below;
                                  OPTINC_ONN_CONTINUOUS: the targets with the phase error */
    double phase_sigma_rad;    /* static phase error of every phase shifter (chip draw) */
    uint64_t chip_seed;
    const optinc_components *chip;   /* NULL: the fields above describe the chip */
    /* With chip: 1 recompiles the drivers of every chip drawn from what a lab
     * measures on it (optinc_calibration_measure with the two errors below,
     * seeded by chip_seed; then optinc_chip_recompile against the P outputs,
     * weighted by multiplicity), evaluated on the true chip. */
    int calibrate;
    double measure_phase_sigma_rad, measure_splitter_sigma;
    /* With calibrate: when not NULL, the measurement every chip is
     * recompiled from (a lab's file, optinc-calibration(5)) instead of one
     * drawn with the two errors above. */
    const optinc_calibration *measured;
    /* With chip and not calibrate: when not NULL, sets the drivers of every
     * chip drawn before it is evaluated (e.g. to the DAC codes of a drive
     * file, optinc-drive(5), read back); ctx is program_ctx. */
    optinc_status (*program)(void *ctx, optinc_chip *chip, optinc_error *err);
    void *program_ctx;
} optinc_onn_devices;

#define OPTINC_ONN_CONTINUOUS 2

/* dev evaluates the chip of a chip file: its components (chip is borrowed,
 * so it must outlive dev's use) and, when calibrate is 1, the recompilation
 * from a measurement with the errors of its calibration: table (0 when the
 * file has none: a perfect measurement). */
void optinc_onn_devices_use_chip(optinc_onn_devices *dev, const optinc_chip_spec *chip,
                                 int calibrate);

/* What optinc_onn_verify() does to a chip with calibrate: its drivers
 * (drawn from circuit c) recompiled from measurement meas against the P
 * outputs it will compute
 * (optinc_chip_recompile with their data: a sample of P outputs drawn with
 * seed, weighted by multiplicity, rescored in passes).  It reads the chip's
 * circuit, its components and meas, never the chip's own errors, so a lab's
 * copy of the chip (its circuit with the measured couplers) gets the codes
 * the true chip gets: the codes `optinc export --format drive` writes. */
optinc_status optinc_onn_recompile(optinc_chip *chip, const optinc_circuit *c,
                                   const optinc_onn_meta *m, const optinc_calibration *meas,
                                   uint64_t seed, optinc_error *err);

/* Evaluates circuit c (with meta m) on every reachable P output, or on
 * `sample` random ones when the box is bigger (0: always exhaustive), on the
 * chip dev describes.  codes (may be NULL) receives the decoded result of
 * every box index (domain size entries; unreachable points get 0). */
optinc_status optinc_onn_verify(const optinc_circuit *c, const optinc_onn_meta *m,
                                const optinc_onn_devices *dev, uint64_t sample,
                                optinc_onn_report *r, uint32_t *codes, optinc_error *err);

/* How optinc_onn_verify_with runs, and what it reports besides the counts.
 * The verifier evaluates the circuit the full way (complex fields through
 * each layer's transfer matrix) only for the points its screen cannot
 * decide: a real-arithmetic pass with a bound on its difference from the
 * full evaluation, which decodes every point the full way would decode
 * alike and is used where that bound is small (a chip without errors;
 * runtime/onn/onn_screen.c has the bound).  The results are the same with
 * and without it, and for any thread count. */
typedef struct optinc_onn_verify_opts {
    int threads;               /* the screen's threads, the caller's included */
    int full;                  /* 1: no screen, every point the full way */
    /* point (may be NULL) is called, in the walk's order, with every point
     * decoded wrong and every point whose margin (optinc_onn_decode_margin)
     * is at most near: its P output p, the decoded and the true value, and
     * the margin (the full evaluation's; a point the screen decided, its). */
    double near;
    void (*point)(void *ctx, const int *p, uint64_t got, uint64_t want, double margin);
    void *ctx;
    /* When not NULL: check these n_points P outputs (task inputs each, in a
     * row, reachable) in their order instead of the box; sample is unused. */
    const int *points;
    size_t n_points;
} optinc_onn_verify_opts;

void optinc_onn_verify_opts_default(optinc_onn_verify_opts *o);
optinc_status optinc_onn_verify_with(const optinc_circuit *c, const optinc_onn_meta *m,
                                     const optinc_onn_devices *dev, uint64_t sample,
                                     const optinc_onn_verify_opts *o, optinc_onn_report *r,
                                     uint32_t *codes, optinc_error *err);

/* optinc_onn_verify on `chips` chips of dev: chip k drawn (and, with
 * calibrate, measured and recompiled) from seed optinc_chip_seed(dev->chip_seed, k),
 * its report into r[k].  The chips are independent, so they are spread over
 * `threads` threads (the caller's included; 0 or 1: the caller's alone):
 * each chip is verified by the same code whichever thread takes it, so r is
 * the same bits for any count.  On failure the error of the lowest chip k
 * that failed. */
optinc_status optinc_onn_verify_chips(const optinc_circuit *c, const optinc_onn_meta *m,
                                      const optinc_onn_devices *dev, uint64_t sample,
                                      long chips, int threads, optinc_onn_report *r,
                                      optinc_error *err);

/* Hardware of the compiled circuit and the counting model of its meta. */
typedef struct optinc_onn_area {
    long netlist_mzis;         /* MZIs of the compiled circuit */
    long netlist_attenuators;
    long netlist_padding;      /* idle mesh slots a balanced chip pads with one MZI's loss
                                  (columns x modes - 2 MZIs, summed over the meshes) */
    optinc_onn_cost model;     /* the segmented design (counting model) */
    optinc_onn_cost svd;       /* the same network realized by SVD */
    double ratio;              /* model.total / svd.total */
    int depth_mzis;            /* MZIs (attenuators included) on the longest path from an
                                  input to an output; 0 when out of memory */
    int depth_couplers;        /* fixed splitters and combiners on that path */
    int layer_depth_mzis;      /* MZIs on the longest path through one layer: the light
                                  is detected and re-emitted at every layer's activation,
                                  so this is the loss a detector sees */
} optinc_onn_area;

void optinc_onn_area_of(const optinc_circuit *c, const optinc_onn_meta *m, optinc_onn_area *a);

/* ---- the aggregation table for the data-parallel trainer ------------------- */

/* The decoded output code of a compiled ONN, on one chip, for every point of
 * its P box: index = sum_k p_k (3N+1)^k for digit sums, which is the index of
 * optinc_agg_lut (allreduce.h). */
typedef struct optinc_onn_lut {
    optinc_onn_meta meta;
    uint64_t size;
    uint32_t *code;
    optinc_onn_report report;  /* accuracy of this chip */
} optinc_onn_lut;

optinc_status optinc_onn_lut_build(const optinc_circuit *c, const optinc_onn_meta *m,
                                   const optinc_onn_devices *dev, optinc_onn_lut **out,
                                   optinc_error *err);
/* The result for P output p (digit sums). */
uint32_t optinc_onn_lut_lookup(const optinc_onn_lut *lut, const int *p);
void optinc_onn_lut_free(optinc_onn_lut *lut);

/* ---- cascades of any depth ------------------------------------------------
 *
 * L levels of one F-server unit serve up to F^L servers (optinc-onn(7),
 * "Cascades of any depth"): level 1 averages groups of F servers' codes,
 * level l + 1 groups of F of level l's output codes, which are codes of the
 * servers' width and offset, so every level is the same unit and P forms
 * its digit sums as at level 1.  Rounding enters once per level: exact
 * units compute the hierarchical average, within L/2 LSB of the flat
 * average, so within (L + 1)/2 of that average rounded once.  When N is not a power of F, the
 * servers fill the first N of the F^L slots and the idle inputs carry the
 * code of zero (optinc_code_zero); a unit whose inputs are all idle is left
 * out, and the result is the sum over F^L slots, which the receivers scale
 * by F^L / N. */
#define OPTINC_ONN_MAX_LEVELS 8
#define OPTINC_ONN_CASCADE_MAX_SERVERS 256
#define OPTINC_ONN_CASCADE_MAX_FAN_IN 64

typedef struct optinc_onn_cascade {
    int fan_in;                /* F, servers per unit */
    int levels;                /* L */
    int servers;               /* N live servers, F^(L-1) < N <= F^L */
    int slots;                 /* F^L */
    int bits;                  /* b of every code */
    const optinc_onn_lut *lut[OPTINC_ONN_MAX_LEVELS];  /* the table of level l's units, one
                                                          chip each (borrowed) */
} optinc_onn_cascade;

/* The shape for `servers` servers of fan_in-server units: levels 0 picks
 * the fewest levels whose slots hold them, otherwise that many (which must
 * be the fewest).  The caller sets lut[]. */
optinc_status optinc_onn_cascade_shape(optinc_onn_cascade *c, int servers, int fan_in,
                                       int levels, int bits, optinc_error *err);
/* L when fan_in^L = servers (2 <= servers <= 256), else -1. */
int optinc_onn_cascade_depth(int fan_in, int servers);
/* Units of level `level` (0-based) that carry at least one live input. */
long optinc_onn_cascade_units(const optinc_onn_cascade *c, int level);

/* The end-to-end check on random server codes.  Per level: the units'
 * outputs, those differing from an exact unit on the same inputs (wrong:
 * the chip's own errors), and those differing from the exact cascade's
 * output of that level on the same server codes (deviating: the errors of
 * every level below, compounded), with the histogram of that deviation. */
typedef struct optinc_onn_cascade_level {
    uint64_t outputs, wrong, deviating;
    uint64_t hist[2 * OPTINC_ONN_HIST + 1];
} optinc_onn_cascade_level;

typedef struct optinc_onn_cascade_report {
    uint64_t samples;
    uint64_t exact_hierarchical;   /* result = the exact units' cascade */
    uint64_t exact_flat;           /* result = the flat average of the slots rounded once */
    uint64_t ideal_exact_flat;     /* the same for the exact units' cascade */
    uint64_t hist_flat[2 * OPTINC_ONN_HIST + 1];        /* result - flat, in LSBs */
    uint64_t ideal_hist_flat[2 * OPTINC_ONN_HIST + 1];  /* exact units' result - flat */
    optinc_onn_cascade_level level[OPTINC_ONN_MAX_LEVELS];
} optinc_onn_cascade_report;

/* Draws `samples` sets of N b-bit codes from seed, uniform (spread 0) or
 * gradient-like (the code of zero plus a normal value of standard deviation
 * spread LSBs, rounded and clamped), and runs them through c's tables and
 * through exact units.  Every lut[l] must be one unit of c's fan_in and
 * bits. */
optinc_status optinc_onn_cascade_check(const optinc_onn_cascade *c, uint64_t samples,
                                       uint64_t seed, double spread,
                                       optinc_onn_cascade_report *r, optinc_error *err);

#endif
