/*
 * chip.h - private: the layout of a simulated chip, shared by devices.c
 * (drawing and realizing it), sim.c (running it), calibrate.c
 * (re-programming its drivers) and calibration_file.c (taking its couplers
 * as a measurement).  Not installed; the public view is sim.h, and
 * calibration.h for a chip with measured couplers (devices.c) and the
 * Monte-Carlo's calibrated chips (sim.c).
 *
 * A chip mirrors its circuit stage by stage.  For every MZI it keeps what the
 * drivers are set to, the chip's static errors, the resulting effective
 * phases, and the program propagation runs (chip_prog, below) twice: double
 * complex for the exact path and as floats for the single-precision batch
 * path, so propagation never evaluates a sine or a cosine.
 */
#ifndef OPTINC_RUNTIME_CHIP_H
#define OPTINC_RUNTIME_CHIP_H

#include "optinc/calibration.h"
#include "optinc/sim.h"

typedef struct chip_mzi {
    int mode, column;
    double theta_drive, phi_drive;   /* driver settings */
    double dtheta, dphi;             /* static phase errors */
    double kappa[2];                 /* input, output coupler */
    double theta, phi;               /* effective, without dynamic noise */
} chip_mzi;

/* What propagation runs for one mesh stage (devices.c builds it, sim.c runs
 * it).  The chunk holds v with the true field a_m = p_m v_m, where the
 * pending factor p_m of mode m is one complex number for the whole batch,
 * known when the program is built; p starts at 1.  Each MZI's matrix E, with
 * every device error folded in, becomes F = E diag(p_m, p_m+1) and one step:
 *   CHIP_STEP_DIAG (|f00 f11| >= |f01 f10|): (x, y) := (x + a y, b x + y),
 *                  a = f01/f00, b = f10/f11, new p = (f00, f11);
 *   CHIP_STEP_ANTI otherwise:               (x, y) := (a x + y, x + b y),
 *                  a = f00/f01, b = f11/f10, new p = (f01, f10);
 *   CHIP_STEP_FULL when a pivot is (nearly) zero or the element nearly
 *                  black: (x, y) := F (x, y), new p = (1, 1).
 * The first two are two complex multiply-adds per vector, half a general
 * 2x2.  p only shrinks through passive elements, so v grows: when |p_m|
 * leaves [2^-24, 2^24] the step also rescales row m by a power of two
 * (CHIP_STEP_SCALE_X, _Y for rows mode, mode+1), exact in floating point.
 * The output screen is e^{i psi_m} p_m, so the stage ends on the field. */
enum {
    CHIP_STEP_DIAG = 0, CHIP_STEP_ANTI = 1, CHIP_STEP_FULL = 2, CHIP_STEP_FORM = 3,
    CHIP_STEP_SCALE_X = 4, CHIP_STEP_SCALE_Y = 8
};

typedef struct chip_prog {       /* per-MZI entries in chip_stage.sweep order */
    unsigned char *step;             /* per MZI: CHIP_STEP_* */
    double complex *m;               /* 4 per MZI: a, b, the scales of rows x, y (DIAG,
                                        ANTI) or F row-major (FULL) */
    float *mf;                       /* the same as 8 floats (re, im) per MZI */
    double complex *screen;          /* e^{i screen phase} p, per mode */
    float *screenf;                  /* 2 per mode */
} chip_prog;

typedef struct chip_stage {
    optinc_stage_kind kind;
    int modes_in, modes_out;
    /* mesh */
    int n_mzi;
    chip_mzi *mzi;
    int *sweep;                      /* the MZIs in the order propagation runs them
                                        (devices.c), which the program follows */
    int *sweep_mode;                 /* ... and their modes, in that order (in sweep's
                                        allocation): the kernel reads them in sequence */
    double *screen_drive, *screen_err, *screen_eff;   /* per mode */
    double amplitude;                /* per-MZI insertion loss, as amplitude (chains:
                                        what one fixed card keeps) */
    int depth;                       /* columns of the mesh */
    double *pad_in;                  /* balance_loss: loss of the idle slots before each
                                        MZI input (2 per MZI), as amplitude; NULL: none */
    double *pad_out;                 /* ... and after each mode's last MZI (per mode) */
    double crosstalk;                /* heater leak fraction in force */
    double noise_sigma;              /* dynamic phase noise in force (0: none) */
    double drive_lo;                 /* low end of the driver range (heater off) */
    chip_prog prog;
    double *work;                    /* scratch: 2 per MZI + 1 per mode */
    /* attenuator column */
    int n_att;
    double *att;                     /* realized amplitude per channel (a split stage:
                                        of its trims, folded into branch) */
    double trim;                     /* what a recompilation's trims scaled the stage's
                                        attenuators by to fit them (1: untrimmed) */
    int block_in, block_out;         /* its blocks (optinc_att_channel) */
    /* fixed split / comb chains of a segmented layer */
    int fan, block, n_chains;
    double *tap;                     /* per chain fan-1 power taps, link by link */
    double *branch;                  /* per chain (input or output) fan amplitudes: what
                                        branch j of chain x carries, loss and error included */
} chip_stage;

typedef struct chip_layer {
    int n_stages;
    chip_stage stage[OPTINC_STAGES_MAX];
    int pass_through;                /* K waveguides: input cols-K+k -> output rows-K+k */
    int cols, rows;                  /* the layer's own modes (beside the stages') */
    const double *input_scale;       /* the circuit layer's (NULL: none) */
    double gain;                     /* electronic gain: the circuit layer's, or as a
                                        recompilation re-trimmed it (chip_recompile.c) */
    int park;                        /* first plane row above every stage's modes, where
                                        the waveguides' light waits while they run */
} chip_layer;

struct optinc_chip {
    const optinc_circuit *circuit;
    optinc_chip_options opt;
    uint64_t seed;
    optinc_rng noise;                /* dynamic phase noise, advanced per evaluation */
    int n_layers;
    chip_layer *layer;
};

/* devices.c: optinc_mzi_device_matrix in two steps, for a caller that
 * evaluates one MZI many times: cs = sqrt(1 - kappa_in), sqrt(kappa_in),
 * sqrt(1 - kappa_out), sqrt(kappa_out), once; then the matrix from
 * et = e^{i theta}, ep = e^{i phi} and cs, the same bits. */
void optinc_coupler_amplitudes(double kappa_in, double kappa_out, double cs[4]);
void optinc_mzi_element(double complex et, double complex ep, const double cs[4],
                        double amplitude, double complex m[4]);
/* devices.c: recomputes a mesh stage's effective phases and its static
 * program from the driver settings and the static errors. */
void optinc_chip_stage_realize(chip_stage *s);
/* devices.c: sets every channel k of the attenuators of stage s of layer l
 * (a column, or a split stage's trims) to amplitude target[k] as the chip's
 * drivers hold it (its code, unless the chip runs the targets), with the
 * extinction floor and the loss of the chip's models. */
void optinc_chip_set_atts(optinc_chip *chip, int l, int s, const double *target);
/* devices.c: the fan amplitudes of n chains of fan g (kind SPLIT or
 * COMBINE) from their power taps (g-1 per chain) and the amplitude a card
 * keeps (loss); balance pads the short branches (devices.c). */
void optinc_chain_branches(optinc_stage_kind kind, int g, int n, const double *tap,
                           double loss, int balance, double *branch);
/* devices.c: the phase the crosstalk of its neighbours' heaters adds to MZI
 * i's theta and phi heaters (the chip model's neighbours: the MZIs of the
 * same column two modes away), and to mode m's heater of the output screen
 * (the adjacent modes), at the drives the chip holds. */
void optinc_chip_mzi_leak(const chip_stage *s, int i, double *dth, double *dph);
double optinc_chip_screen_leak(const chip_stage *s, int m);
/* devices.c: a program with fresh dynamic noise drawn from rng into p
 * (allocated with optinc_chip_prog_alloc). */
void optinc_chip_stage_noisy(chip_stage *s, optinc_rng *rng, chip_prog *p);
int optinc_chip_prog_alloc(chip_prog *p, int n_mzi, int modes);
void optinc_chip_prog_free(chip_prog *p);

/* calibrate.c: the corrected driver settings for mesh `mesh` built with
 * couplers kappa (2 per MZI); quantized with q (NULL: continuous).  th, ph
 * have n_mzi entries, screen modes entries.  Returns the number of MZIs whose
 * target split is out of reach, or -1 when out of memory. */
int optinc_mesh_correct(const optinc_mesh *mesh, const double *kappa, const optinc_quantizer *q,
                        int refit_iters, optinc_phase *th, optinc_phase *ph, optinc_phase *screen);
/* calibrate.c: the same when only the mesh's first `rows` outputs on its
 * first `cols` inputs matter (the global re-fit matches that block alone). */
int optinc_mesh_correct_block(const optinc_mesh *mesh, const double *kappa,
                              const optinc_quantizer *q, int refit_iters, int rows, int cols,
                              optinc_phase *th, optinc_phase *ph, optinc_phase *screen);

/* mesh_fit.c: fits every phase of mesh (couplers kappa) from th/ph's
 * continuous phases (target_rad) so that D.M'.A matches T on the first nr
 * output rows, row r weighted by w[r] (w NULL: 1), over the best output
 * screen D: A and T are n x nc (n the mesh's modes; A NULL: the first nc
 * unit vectors, i.e. the mesh's used block).  The result, quantized with q,
 * replaces th, ph and the first nr screen phases only when it beats the
 * start quantized.  frozen (2 per MZI, theta then phi; NULL: none) marks
 * phases the fit keeps as they start.  Returns -1 when out of memory, else
 * 0. */
int optinc_mesh_fit(const optinc_mesh *mesh, const double *kappa, const optinc_quantizer *q,
                    int iters, int nr, int nc, const double complex *A,
                    const double complex *T, const double *w, const unsigned char *frozen,
                    optinc_phase *th, optinc_phase *ph, optinc_phase *screen);

/* What a data-aware recompilation fits one mesh stage to
 * (recompile_data.c): the stage's inputs compressed to A and its ideal
 * outputs T', both modes x k, the output rows weighted by w (NULL: alike),
 * and the rounds its codes are chosen in (optinc_recompile_data). */
typedef struct chip_stage_data {
    double complex *A, *T;
    const double *w;
    int k;
    int rounds;
} chip_stage_data;

/* chip_recompile.c: recompiles mesh stage s of layer l of chip from the
 * measurement: phases for the measured couplers (against the ideal mesh,
 * or against the stage's data when sd is not NULL), then drives for the
 * measured offsets and the crosstalk, rounded to the chip's codes. */
optinc_status optinc_chip_program_mesh(optinc_chip *chip, int l, int s,
                                       const optinc_calibration *meas,
                                       const chip_stage_data *sd, optinc_error *err);
/* chip_recompile.c: re-trims every split stage's trims and the attenuator
 * column before every comb stage for their chains' measured taps (meas),
 * and each layer's gain for what they give up. */
void optinc_chip_trim_chains(optinc_chip *chip, const optinc_calibration *meas);
/* recompile_data.c: optinc_chip_recompile with data (meas checked). */
optinc_status optinc_chip_recompile_data(optinc_chip *chip, const optinc_calibration *meas,
                                         const optinc_recompile_data *data,
                                         optinc_error *err);

/* calibration_file.c: OPTINC_EINPUT unless cal has the shape of circuit c. */
optinc_status optinc_calibration_check(const optinc_calibration *cal, const optinc_circuit *c,
                                       optinc_error *err);

#endif
