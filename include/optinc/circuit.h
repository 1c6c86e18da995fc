/*
 * circuit.h - the compiled circuit: the program the runtime executes.
 *
 * optinc_compile() plans once (FFTW's habit): it takes a spec, decomposes each
 * layer's weight matrix and returns an immutable circuit.  A layer realizes
 *
 *     W  ~=  gain . T,     T = stage[n_stages-1] ... stage[1] . stage[0]
 *
 * where each stage is an MZI mesh or an attenuator column.  Passive optics
 * cannot amplify, so every |t_k| <= 1 and the electronic gain s >= sigma_max is
 * part of the circuit.  For a layer with the attenuators in the middle
 * (W = U.Sigma.V^H): stage 0 is the V^H mesh on `cols` modes, stage 1 the
 * column of min(rows, cols) attenuators (extra inputs terminated, extra
 * outputs unlit), stage 2 the U mesh on `rows` modes.
 *
 * A segmented layer (`segments: [R, G]` in the spec) cuts W into an R x G
 * grid of blocks of br = rows/R by bc = cols/G (br <= bc), block b = i*G + j
 * being W_ij ~= (gain/sqrt(R.G)) . diag(t_ij) . Q_ij, Q_ij the first br rows
 * of a bc x bc unitary.  Its four stages work on an expanded mode space
 * where the block's modes are consecutive:
 *   P  split:   cols -> R.cols; input x (block column j = x/bc, a = x%bc)
 *               reaches mode (i*G + j)*bc + a of every block row i with
 *               amplitude 1/sqrt(R) (a chain of R-1 fixed splitters);
 *   Q  mesh:    block-diagonal on R.cols modes, one bc-mode mesh per block;
 *   S  att:     per block, channel k joins mode b*bc + k to b*br + k
 *               (block_in = bc, block_out = br; the other inputs end in terms);
 *   C  combine: R.G.br -> rows; output y (i = y/br, k = y%br) is the sum of
 *               modes (i*G + j)*br + k over j, divided by sqrt(G) (a chain of
 *               G-1 fixed combiners).
 * So out = gain . T . in = W . in for the ideal circuit: the 1/sqrt(R.G) of
 * the fixed optics is absorbed by the gain.
 *
 * A segmented layer may also pass its last K = pass_through modes straight
 * through (`pass_through: K`): W = [W' 0; 0 I_K], the stages realize W' on
 * the first rows-K outputs and cols-K inputs, and input cols-K+k is a
 * waveguide to output rows-K+k (no element, no electronic gain: light that
 * is not detected, as an ONN's carriers are).  Its inputs may also carry an
 * input scale d (`input_scale`, one per input of the grid): the amplitude
 * the modulators that put them on light give each, electronic like the gain,
 * so W' = W''.diag(d) with the grid on W''; T includes diag(d).
 */
#ifndef OPTINC_CIRCUIT_H
#define OPTINC_CIRCUIT_H

#include "optinc/mesh.h"
#include "optinc/spec.h"

typedef struct optinc_att {
    double t;             /* programmed amplitude transmission, 10^(-att_dB/20) */
    double t_target;      /* sigma_k / gain as decomposed */
    double att_dB;        /* programmed attenuation, >= 0 */
    int code;             /* -1 when the attenuator is continuous */
} optinc_att;

typedef enum optinc_stage_kind {
    OPTINC_STAGE_MESH, OPTINC_STAGE_ATT,
    OPTINC_STAGE_SPLIT,   /* fan each input to `fan` block rows (segmented layers) */
    OPTINC_STAGE_COMBINE  /* sum `fan` block columns into each output */
} optinc_stage_kind;

#define OPTINC_STAGES_MAX 4   /* V S U, or the segmented P Q S C */

typedef struct optinc_stage {
    optinc_stage_kind kind;
    char tag;             /* 'V', 'S' (attenuator column) or 'U': used in names */
    int modes_in, modes_out;
    optinc_mesh *mesh;    /* MESH: modes_in == modes_out == mesh->modes */
    optinc_att *att;      /* ATT: n_att channels in blocks of block_in inputs and */
    int n_att;            /*      block_out outputs (one block: the whole column);  */
    int block_in, block_out; /*   see optinc_att_channel.  SPLIT of fan > 1: the trim
                             attenuators, one per output mode (optinc_split_trims) */
    int fan;              /* SPLIT, COMBINE: the fan of every splitter/combiner chain */
    int block;            /* SPLIT, COMBINE: modes of a block on the side that is cut */
} optinc_stage;

/* Input and output mode of channel k of an attenuator column: in block
 * b = k / min(block_in, block_out), channel k joins mode b*block_in + k' to
 * mode b*block_out + k' (k' = k mod that minimum). */
void optinc_att_channel(const optinc_stage *s, int k, int *in, int *out);
/* Ideal power tap of link k (0-based) of the fan-g chains of a SPLIT or
 * COMBINE stage: the splitter that sends 1/(g-k) of what reaches it to its
 * tap, the combiner that adds 1/(k+2) of its new input; with these every
 * branch carries 1/sqrt(g). */
double optinc_chain_tap(const optinc_stage *s, int k);
/* The four stages of a rows x cols layer cut into an R x G grid (kind, tag,
 * modes, fan, block, channels filled; mesh and att NULL).  Returns 4. */
int optinc_segment_plan(int rows, int cols, int R, int G, optinc_stage plan[OPTINC_STAGES_MAX]);
/* Mode of the expanded space that input x of a SPLIT stage reaches in
 * block row i (cols = modes_in), and input j of output y of a COMBINE stage. */
int optinc_split_target(const optinc_stage *s, int x, int i);
/* The trim attenuators of a SPLIT stage of fan > 1 as the attenuator column
 * they are, tagged 'T': one channel per output mode, in a single block,
 * after the chains (a chip re-trims them for its splitters' errors; the
 * design sets them to 0 dB).  n_att is 0 for a stage without trims. */
optinc_stage optinc_split_trims(const optinc_stage *s);
int optinc_combine_source(const optinc_stage *s, int y, int j);

typedef struct optinc_layer {
    char name[OPTINC_NAME_MAX];
    int rows, cols;                 /* W is rows x cols: out (rows) = W . in (cols) */
    optinc_mesh_kind mesh_kind;
    optinc_att_position attenuators;
    optinc_activation activation;
    double gain;                    /* s */
    int seg_rows, seg_cols;         /* the R x G grid of blocks; 0 0 for a dense layer */
    int pass_through;               /* K: last K inputs -> last K outputs, waveguides */
    double *input_scale;            /* cols-K input amplitudes d, or NULL (all 1) */
    int n_stages;
    optinc_stage stage[OPTINC_STAGES_MAX];
    optinc_components components;   /* device parameters in force */
    optinc_cmat *target;            /* W as specified; NULL when rebuilt from a netlist */
    double approximation_error;     /* max|W - best form| / s before phases (0 for exact forms) */
    double reconstruction_error;    /* max|W - s.T| / s from programmed phases (-1 if no target) */
    int n_warnings_capped;          /* attenuators capped at max_attenuation_dB */
    int line, column;               /* where the input defines the layer (the spec's layer
                                     * entry, the netlist's *! layer line); 0 0 unknown */
} optinc_layer;

/* What a circuit that is an OptINC optical neural network needs beside its
 * matrices to be used as one: the spec's allreduce: section (servers,
 * gradient_bits, preprocessing, cascade) and its info: keys onn_rounding,
 * onn_level, onn_code and onn_segments (optinc-spec(5)).  The netlist carries it in
 * its `*! onn` header line (optinc-netlist(5)), so a netlist alone describes
 * its ONN; the runtime turns it into the ONN's task (onn.h). */
#define OPTINC_ONN_SEGMENTS_MAX (OPTINC_MAX_HIDDEN + 1)   /* one per ONN layer */
#define OPTINC_ONN_WORD_MAX 16                            /* the words' buffers */
typedef struct optinc_circuit_onn {
    int present;                  /* 0: not an ONN (no allreduce: section) */
    int servers;                  /* 2..65536 */
    int gradient_bits;            /* even, 2..16 */
    char preprocessing[OPTINC_ONN_WORD_MAX];  /* a word of optinc_preprocessing_names */
    int cascade_fan_in;           /* servers of one unit: fan_in^levels = servers */
    int cascade_levels;           /* 1..8 */
    char rounding[OPTINC_ONN_WORD_MAX];       /* a word of optinc_onn_rounding_names */
    int level;                    /* 0: one unit; 1, 2: the level of a two-level cascade */
    char code[OPTINC_ONN_WORD_MAX];           /* a word of optinc_onn_code_names */
    int n_segments;               /* 0 (dense layers) or one shape per layer */
    int segments[2 * OPTINC_ONN_SEGMENTS_MAX];  /* rows, cols of each layer's segments */
} optinc_circuit_onn;

/* The words of info: onn_rounding, in the order of optinc_rounding (onn.h). */

typedef struct optinc_circuit {
    char name[OPTINC_NAME_MAX];
    char spec_path[1024];         /* the spec compiled ("" when unknown) */
    uint8_t spec_sha256[32];      /* of its bytes */
    uint64_t seed;
    double wavelength_um;
    optinc_circuit_onn onn;
    int n_layers;
    optinc_layer *layers;
    char **warnings; int n_warnings;  /* messages for the command line to print */
} optinc_circuit;

optinc_status optinc_compile(const optinc_spec *spec, optinc_circuit **out, optinc_error *err);
void optinc_circuit_free(optinc_circuit *c);

/* The ONN record of spec (o->present = 1), or OPTINC_EINPUT naming the spec
 * when it has no allreduce: section or a malformed onn_ info key.  The
 * compiler keeps it in the circuit when this succeeds. */
optinc_status optinc_circuit_onn_from_spec(const optinc_spec *spec, optinc_circuit_onn *o,
                                           optinc_error *err);

/* Helpers for building circuits (used by the compiler and the netlist reader). */
optinc_circuit *optinc_circuit_new(const char *name, int n_layers);
void optinc_circuit_warn(optinc_circuit *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void optinc_att_program(optinc_att *a, double t_target, const optinc_components *c, int *capped);

/* Counts over a layer (MZIs of all meshes, attenuators, fixed splitters and
 * combiners, physical columns). */
int optinc_layer_mzis(const optinc_layer *L);
int optinc_layer_attenuators(const optinc_layer *L);
int optinc_layer_splitters(const optinc_layer *L);
int optinc_layer_combiners(const optinc_layer *L);
int optinc_layer_columns(const optinc_layer *L);

/* T of a layer (rows x cols) rebuilt from the programmed physical elements
 * only (its pass-through modes an identity block); W ~= gain . T with the
 * gain on the rows the stages give (optinc_layer_apply_gain).  NULL when out
 * of memory. */
optinc_cmat *optinc_layer_transfer(const optinc_layer *L);
/* y (rows x B, a layer's output) times gain, but for the pass-through rows,
 * which are waveguides outside the electronic gain. */
void optinc_layer_apply_gain(const optinc_layer *L, double gain, optinc_cmat *y);
/* max|target - gain.T| / gain of the programmed layer (its
 * reconstruction_error; L->target must be set); NAN when out of memory. */
double optinc_layer_reconstruction(const optinc_layer *L);
/* Applies one stage to a batch: out (modes_out x B) = stage . in (modes_in x B).
 * OPTINC_ERUN when out of memory. */
optinc_status optinc_stage_apply(const optinc_stage *s, const optinc_cmat *in, optinc_cmat *out);

#endif
