/*
 * spec.h - the YAML topology spec (optinc-spec(5)) as a C data model.
 *
 * optinc_spec_parse() reads a spec held in memory, optinc_spec_load() one in
 * a file, with libyaml's document API.  Both validate every key against the
 * schema (unknown keys are errors unless they start with "x-"; duplicate
 * keys, wrong types, NaN/Inf, out-of-range values, bad names and dangling
 * references are reported with the line and column of the offending node),
 * load or generate every matrix, and merge the global `components` table
 * into each layer, so a layer carries the complete set of device parameters
 * in force for it.  The spec owns everything it points to.
 */
#ifndef OPTINC_SPEC_H
#define OPTINC_SPEC_H

#include <complex.h>
#include <stdint.h>
#include "optinc/error.h"
#include "optinc/text.h"

#define OPTINC_NAME_MAX 64        /* identifiers: [A-Za-z_][A-Za-z0-9_]*, < 64 chars */
#define OPTINC_MAX_HIDDEN 16
#define OPTINC_SPEC_FILE_MAX (64L << 20)  /* spec files above 64 MiB are refused */
#define OPTINC_SPEC_DEPTH_MAX 64          /* deeper YAML nesting is refused */

typedef enum optinc_mesh_kind { OPTINC_MESH_CLEMENTS = 0, OPTINC_MESH_RECK = 1 } optinc_mesh_kind;

/* Where the attenuator (Sigma) column of a layer sits, which also fixes the
 * decomposition: middle = SVD U.Sigma.V^H (two meshes); output = Sigma.U and
 * input = U.Sigma (the OptINC unitary-diagonal form, one mesh); none = W/s must
 * itself be unitary (one mesh, no attenuators). */
typedef enum optinc_att_position {
    OPTINC_ATT_MIDDLE = 0, OPTINC_ATT_NONE, OPTINC_ATT_INPUT, OPTINC_ATT_OUTPUT
} optinc_att_position;

typedef enum optinc_activation {
    OPTINC_ACT_NONE = 0, OPTINC_ACT_RELU_EO, OPTINC_ACT_ABS2
} optinc_activation;

/* The trainer's learning rate over the T steps of a run: the same at every
 * step, or decayed from lr at step 0 along half a cosine,
 * lr (1 + cos(pi t / T)) / 2 at step t (train.h). */
typedef enum optinc_lr_schedule { OPTINC_LR_CONSTANT = 0, OPTINC_LR_COSINE } optinc_lr_schedule;

/* The words a spec and a netlist spell these values with, indexed by the
 * enum and NULL-terminated (so a reader can list them in its message): one
 * vocabulary for the spec loader, the netlist's writer and reader and the
 * drawings (compiler/spec/vocab.c).  allreduce.preprocessing has no enum;
 * its words are listed here for the same readers, then those an ONN
 * computes (no `none`; in the order of optinc_preproc, onn.h), and those of
 * the ONN's info keys onn_rounding and onn_code. */
extern const char *const optinc_mesh_kind_names[];      /* clements reck */
extern const char *const optinc_att_position_names[];   /* middle none input output */
extern const char *const optinc_activation_names[];     /* none relu_eo abs2 */
extern const char *const optinc_preprocessing_names[];  /* digit_sums weighted_sum none */
extern const char *const optinc_onn_preprocessing_names[];  /* digit_sums weighted_sum */
extern const char *const optinc_onn_rounding_names[];   /* half_even half_up */
extern const char *const optinc_onn_code_names[];       /* binary gray offset */
extern const char *const optinc_lr_schedule_names[];    /* constant cosine */

/* The index of word in a NULL-terminated list of these, -1 when absent. */
int optinc_word_index(const char *const *names, const char *word);

/* Device parameters (components: section).  Zero means ideal / not set. */
typedef struct optinc_components {
    struct {
        double insertion_loss_dB;        /* per MZI */
        double phase_error_sigma_rad;    /* static Gaussian error per phase shifter */
        double splitter_error_sigma;     /* Gaussian deviation of each coupler from 0.5 */
    } mzi;
    struct {
        int bits;                        /* 0 = not quantized; 1..16 */
        double range_rad[2];             /* [lo, hi], hi - lo >= 2 pi; default [0, 2 pi] */
        double noise_sigma_rad;          /* dynamic phase noise per evaluation */
        double thermal_crosstalk;        /* fraction of a heater's phase leaking to each neighbour */
    } phase_shifter;
    struct {
        double insertion_loss_dB;
        double max_attenuation_dB;       /* default 60 */
        int bits;                        /* 0 = continuous; codes over [0, max_attenuation_dB] */
    } attenuator;
    struct { double loss_dB_cm; } waveguide;
    struct { double insertion_loss_dB; double crosstalk_dB; } crossing;
    struct { double responsivity_A_W; } detector;   /* default 1 */
} optinc_components;

typedef struct optinc_spec_matrix {
    char name[OPTINC_NAME_MAX];
    int rows, cols;
    int is_complex;                      /* dtype: complex */
    double complex *data;                /* rows*cols, row-major */
    int line, column;                    /* where the matrix is defined */
} optinc_spec_matrix;

typedef struct optinc_spec_layer {
    char name[OPTINC_NAME_MAX];
    int matrix;                          /* index into spec->matrices */
    optinc_mesh_kind mesh;
    optinc_att_position attenuators;
    double gain;                         /* 0 = sigma_max; else the electronic gain s >= sigma_max */
    optinc_activation activation;
    optinc_components components;        /* global table merged with the layer's overrides */
    int segments[2];                     /* segments: [R, G] grid of blocks; 0 0 = dense */
    int pass_through;                    /* pass_through: K, last K inputs to last K outputs */
    double *input_scale;                 /* input_scale: one per segmented input; NULL = 1s,
                                            each in OPTINC_INPUT_SCALE_MIN.._MAX */
    int line, column;
} optinc_spec_layer;

typedef struct optinc_spec_info {
    char *key, *value;
    int line, column;                    /* of the value, for messages about it */
} optinc_spec_info;

/* The defaults of the allreduce: section: gradient codes of b = 8 bits, in
 * blocks of 1024 values that share one float32 scale (4 bytes per 1024
 * values: 0.39 % more traffic).  The runtime's all-reduce has the same. */
#define OPTINC_SPEC_AR_DEFAULT_BITS 8
#define OPTINC_SPEC_AR_DEFAULT_BLOCK 1024

/* allreduce: section (OptINC ONN), see optinc-spec(5). */
typedef struct optinc_spec_allreduce {
    int present;
    int servers;                         /* N >= 2 */
    int gradient_bits;                   /* b, even for pam4 */
    int block_size;
    char preprocessing[16];              /* digit_sums | weighted_sum | none */
    int preprocessing_line, preprocessing_column;   /* where it is given; 0 0 when defaulted */
    int hidden[OPTINC_MAX_HIDDEN];
    int n_hidden;
    optinc_activation activation;
    int approximate;                     /* unitary_diagonal approximation on */
    int cascade_fan_in, cascade_levels;
    int enabled;                         /* enabled: (default true) */
    int approximate_layers[OPTINC_MAX_HIDDEN + 1];  /* 1-based ONN layer numbers */
    int n_approximate_layers;            /* 0 = all layers (approximate_layers: all) */
} optinc_spec_allreduce;

/* The defaults of the train: section, which are the trainer's: 4 servers,
 * 10 epochs, batches of 64 examples per server, a 784-256-128-10 MLP,
 * learning rate 0.05, momentum 0.9, no checkpoints, dataset fashion_mnist
 * and the ring all-reduce. */
#define OPTINC_SPEC_TRAIN_DEFAULT_SERVERS 4
#define OPTINC_SPEC_TRAIN_DEFAULT_EPOCHS 10
#define OPTINC_SPEC_TRAIN_DEFAULT_BATCH 64
#define OPTINC_SPEC_TRAIN_DEFAULT_HIDDEN {256, 128}
#define OPTINC_SPEC_TRAIN_DEFAULT_LR 0.05
#define OPTINC_SPEC_TRAIN_DEFAULT_MOMENTUM 0.9

/* train: section (data-parallel trainer), see optinc-spec(5). */
typedef struct optinc_spec_train {
    int present;
    char dataset[32];                    /* fashion_mnist */
    int servers, epochs, batch, checkpoint_every;
    int hidden[OPTINC_MAX_HIDDEN];
    int n_hidden;
    double lr, momentum;
    int lr_schedule;                     /* optinc_lr_schedule (default constant) */
    int error_feedback;                  /* servers keep their quantization residuals */
    int stochastic_rounding;             /* servers round their codes stochastically */
    char allreduce[OPTINC_NAME_MAX];     /* an all-reduce algorithm's name (default ring);
                                          * the trainer checks it against its table */
    int allreduce_line, allreduce_column; /* where the spec names it (0: not given) */
    int servers_line, servers_column;    /* where the spec gives servers (0: not given), for
                                          * the trainer's checks against its backend */
    char onn[1024];                      /* path of the compiled ONN netlist or spec (resolved) */
    int onn_line, onn_column;            /* where the spec names it (0: not given) */
} optinc_spec_train;

/* The layout: table: the placement grid of the exports that place elements
 * (gdsfactory, INTERCONNECT, GDSII; optinc-export(1)).  An element of
 * physical column k acting on mode m sits at (k * column_pitch_um,
 * m * mode_pitch_um); an MZI is mzi_length_um long. */
typedef struct optinc_layout {
    double column_pitch_um;              /* default OPTINC_LAYOUT_COLUMN_PITCH_UM */
    double mode_pitch_um;                /* default OPTINC_LAYOUT_MODE_PITCH_UM */
    double mzi_length_um;                /* default OPTINC_LAYOUT_MZI_LENGTH_UM, <= column pitch */
} optinc_layout;
#define OPTINC_LAYOUT_COLUMN_PITCH_UM 250.0
#define OPTINC_LAYOUT_MODE_PITCH_UM 127.0
#define OPTINC_LAYOUT_MZI_LENGTH_UM 200.0
#define OPTINC_LAYOUT_DEFAULT \
    {OPTINC_LAYOUT_COLUMN_PITCH_UM, OPTINC_LAYOUT_MODE_PITCH_UM, OPTINC_LAYOUT_MZI_LENGTH_UM}

typedef struct optinc_spec {
    char path[1024];                     /* the display name, as given */
    char dir[1024];                      /* directory relative paths resolve against */
    uint8_t sha256[32];                  /* of the spec's bytes */
    int schema_version;
    char name[OPTINC_NAME_MAX];
    optinc_spec_info *info; int n_info;
    struct {
        double wavelength_um;            /* default 1.55 */
        optinc_mesh_kind mesh;           /* default clements */
        optinc_att_position attenuators; /* default middle */
        char mzi_convention[32];         /* clements2016 */
        uint64_t seed;                   /* default 1 */
    } settings;
    optinc_components components;        /* global table (after defaults) */
    optinc_spec_matrix *matrices; int n_matrices;
    optinc_spec_layer *layers; int n_layers;
    optinc_spec_allreduce allreduce;
    optinc_spec_train train;
    optinc_layout layout;                /* the layout: table (after defaults) */
} optinc_spec;

/* Parses and validates the spec text in->data[0 .. in->len).  in->name is
 * what the messages print and becomes spec->path; the ONN the spec names is
 * relative to its folder (spec->dir), and its `file:` matrices come from the
 * resolver of opts (by default from that folder too).  spec->sha256
 * is that of the text.  On failure returns OPTINC_EINPUT (or OPTINC_ERUN for
 * I/O trouble) with err pointing at the offending node, and *out = NULL. */
optinc_status optinc_spec_parse(const optinc_input *in, const optinc_read_opts *opts,
                                optinc_spec **out, optinc_error *err);
/* optinc_spec_parse() on the file at path (its display name), which must be
 * a regular file of at most OPTINC_SPEC_FILE_MAX bytes; a FIFO or a device is
 * refused without reading it. */
optinc_status optinc_spec_load(const char *path, const optinc_read_opts *opts, optinc_spec **out,
                               optinc_error *err);
void optinc_spec_free(optinc_spec *spec);

/* A chip file (optinc-onn(1), CHIP FILES): one chip's hardware apart from
 * any circuit, for the runtime's simulated chips (`--chip CHIP.yaml`):
 *
 *   components:  {mzi: {...}, phase_shifter: {...}, attenuator: {...}, ...}
 *   calibration: {phase_sigma_rad: 0.001, splitter_sigma: 0.001}   (optional)
 *
 * The components table is the spec's, read by the same code from the same
 * defaults; calibration says how accurately a lab measures each chip's
 * static phase offsets and coupler splittings (standard deviations of the
 * measurement error, >= 0).  Both keys are checked with FILE:LINE:COL. */
typedef struct optinc_chip_spec {
    char path[1024];                     /* the display name it was read from */
    optinc_components components;
    struct {
        int given;                       /* 1 when the file has a calibration: table */
        double phase_sigma_rad;          /* measurement error of a static phase offset */
        double splitter_sigma;           /* measurement error of a coupler's splitting */
        int line, column;                /* of the calibration: table */
    } calibration;
} optinc_chip_spec;

/* A chip file held in memory (in->name is its display name). */
optinc_status optinc_chip_spec_parse(const optinc_input *in, const optinc_read_opts *opts,
                                     optinc_chip_spec *out, optinc_error *err);
/* optinc_chip_spec_parse() on the regular file at path. */
optinc_status optinc_chip_spec_load(const char *path, const optinc_read_opts *opts,
                                    optinc_chip_spec *out, optinc_error *err);
/* optinc_chip_spec_load() into a chip of its own, for callers that cannot
 * size the struct (the Python package); *out is NULL on failure.  Free it
 * with optinc_chip_spec_free(). */
optinc_status optinc_chip_spec_open(const char *path, const optinc_read_opts *opts,
                                    optinc_chip_spec **out, optinc_error *err);
void optinc_chip_spec_free(optinc_chip_spec *chip);

/* The defaults every components table starts from. */
void optinc_components_defaults(optinc_components *c);

/* One device parameter of the components table, the one table the spec
 * loader (components:, optinc-spec(5)) and the netlist's
 * `*! layer.NAME.SECTION = key=value ...` header lines (optinc-netlist(5))
 * both read and write, so that neither takes a device the other refuses:
 * where it lives in optinc_components, its type ('d' double, 'i' int) and
 * its allowed range, a bound excluded where the open flag says so.  A pair
 * the spec gives as one [lo, hi] list is two rows of the netlist, each with
 * its own key; the spec reads both under spec_key at the first one's offset. */
typedef struct optinc_component_field {
    const char *section, *key;    /* the key as the netlist writes it */
    size_t offset;
    char type;
    double min, max;
    char min_open, max_open;      /* 1 when the bound itself is excluded */
    const char *spec_key;         /* the spec's key, when it is not key */
    int pair;                     /* -1; or 0, 1: the part of spec_key's [lo, hi] */
    const char *hint;             /* what the spec says after a range error */
} optinc_component_field;

extern const optinc_component_field optinc_component_fields[];
extern const int optinc_component_n_fields;
/* The ends of a phase shifter's range_rad lie within +-OPTINC_PHASE_RANGE_MAX
 * rad (2^20 turns), where a double still resolves a phase to a nanoradian. */
#define OPTINC_PHASE_RANGE_MAX (2097152 * 3.14159265358979323846)
/* The upper bounds of the device tables (optinc-spec(5), components), which
 * the spec loader, a chip file's calibration: table and the netlist reader
 * all hold:
 *   OPTINC_LOSS_DB_MAX  a device's loss (and per cm of waveguide): 100 dB
 *       leaves 1e-10 of the power, past any chip that works.
 *   OPTINC_SIGMA_RAD_MAX  a phase's standard deviation: at 2 pi the phase
 *       wrapped to a turn is uniform within 3e-9 (exp(-sigma^2 / 2)), and
 *       more only costs precision (1e308 rad gave NaN).
 *   OPTINC_SPLITTER_SIGMA_MAX  a coupler's splitting, 0.5 + sigma N, lies in
 *       [0, 1] (the simulator clamps it there): beyond that half-width more
 *       than a third of the couplers sit at full bar or cross, no longer the
 *       Gaussian spread the model means.
 *   OPTINC_EXTINCTION_DB_MAX  an attenuator's largest attenuation: past
 *       about 320 dB (2^-53 in amplitude) the light it leaks is below the
 *       rounding of a double next to a lit channel; 400 dB (1e-20) is full
 *       extinction. */
#define OPTINC_LOSS_DB_MAX 100.0
#define OPTINC_SIGMA_RAD_MAX 6.283185307179586   /* 2 pi */
#define OPTINC_SPLITTER_SIGMA_MAX 0.5
#define OPTINC_EXTINCTION_DB_MAX 400.0
/* An input_scale entry lies in [OPTINC_INPUT_SCALE_MIN, _MAX], a
 * modulator's whole range and more: the layer's matrix is divided by it,
 * and 1e-308 or 1e308 took the decomposition to overflow and NaN. */
#define OPTINC_INPUT_SCALE_MIN 1e-6
#define OPTINC_INPUT_SCALE_MAX 1e6

/* NULL when the phase shifters of c can be programmed: range_rad spans at
 * least 2 pi, its ends lie within +-OPTINC_PHASE_RANGE_MAX, and when they
 * are quantized a DAC step (span / 2^bits) is at most pi.  Otherwise what is
 * wrong and how to fix it, in buf, as words that follow the name of the
 * range ("spans 3.14 rad, less than 2*pi: ..."); the spec loader and the
 * netlist reader refuse the same ranges with it. */
const char *optinc_phase_range_problem(const optinc_components *c, char *buf, size_t size);
/* The same for the attenuators of c: NULL when they are unquantized or
 * their DAC step, max_attenuation_dB / (2^bits - 1) (optinc_att_program),
 * is at most 100 dB; otherwise what is wrong and how to fix it, as words
 * that follow the name max_attenuation_dB. */
const char *optinc_att_range_problem(const optinc_components *c, char *buf, size_t size);
/* A train: section holding the defaults above (present = 0, no onn); every
 * spec starts from it, so a field a spec leaves out trains as if there were
 * no spec. */
void optinc_spec_train_defaults(optinc_spec_train *t);

#endif
