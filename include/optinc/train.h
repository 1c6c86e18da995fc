/*
 * train.h - data-parallel training of an MLP on Fashion-MNIST with an
 * emulated all-reduce (allreduce.h) on either backend (comm.h).
 *
 * N servers each hold one replica of the model and a shard of every epoch's
 * shuffled training order (server i takes positions i, i+N, i+2N, ...).  A
 * step: every server computes the gradient of its batch (mean cross-entropy
 * of a ReLU MLP, float, cblas_sgemm), the all-reduce averages the N
 * gradients, and every server applies the same update, SGD with momentum
 * v = m v + g, w = w - lr_t v, where lr_t is lr at every step or, with the
 * cosine schedule, lr (1 + cos(pi t / T)) / 2 at step t of the run's
 * T = epochs x steps per epoch (optinc_train_lr).  Since all servers
 * receive the same averaged bytes, the replicas stay bit-identical; in
 * process one copy stands for all.
 *
 * Everything random is a stream of the seed (initialization, the order of
 * each epoch, injected errors per step), and the state after step t is the
 * parameters, the velocities, the metric sums and (with error feedback) the
 * servers' residuals, so a checkpoint written
 * after any step and resumed gives the same bits as an uninterrupted run.
 *
 * Files under out_dir (all written atomically, by rank 0 under MPI):
 *   metrics.csv     one row per epoch (see optinc-train(1))
 *   weights.f32     final parameters, raw float32, layer by layer W then b
 *                   (W row-major out x in); weights_sha256 is over these bytes
 *   checkpoint.bin  every checkpoint_every steps and at the end, with a
 *                   format version and a checksum of its whole content
 *                   (runtime/train/checkpoint.c), so a resume refuses any
 *                   damage
 * (the command line draws metrics.csv into curves.svg and curves.png).
 */
#ifndef OPTINC_TRAIN_H
#define OPTINC_TRAIN_H

#include <stddef.h>
#include <stdint.h>
#include "optinc/allreduce.h"
#include "optinc/comm.h"
#include "optinc/costmodel.h"
#include "optinc/error.h"
#include "optinc/spec.h"

typedef struct optinc_train_progress {
    int epoch, epochs;             /* 1-based epoch in progress */
    long step, steps;              /* global steps done, and in all */
    double loss;                   /* mean training loss of the epoch so far */
    long checkpoint_step;          /* of the last checkpoint written or resumed; -1: none */
} optinc_train_progress;

typedef struct optinc_train_config {
    int servers;                   /* N */
    int epochs;
    int batch;                     /* per server and step */
    int hidden[OPTINC_MAX_HIDDEN]; /* hidden widths, default 256, 128 */
    int n_hidden;
    double lr, momentum;           /* default 0.05, 0.9 */
    int lr_schedule;               /* optinc_lr_schedule (spec.h); default constant */
    uint64_t seed;
    const optinc_ar_algorithm *allreduce;   /* an entry of optinc_ar_algorithms[] */
    int bits, block_size;          /* quantized all-reduce: b and scale block */
    int error_feedback;            /* quantized all-reduce: servers keep their residuals
                                      (optinc_ar_config; checkpointed with the run) */
    int stochastic_rounding;       /* quantized all-reduce: servers round stochastically */
    const optinc_agg_lut *lut;     /* optinc: the ONN's table (borrowed), NULL: exact */
    const optinc_err_hist *inject; /* injected ONN output errors (borrowed), NULL: none */
    int limit_train, limit_test;   /* use the first samples only; 0: all */
    int threads;                   /* threads of the in-process all-reduce (optinc_ar_config);
                                      0 or 1: the calling thread; the same weights for any */
    long checkpoint_every;         /* steps; 0: no checkpoints */
    int resume;                    /* continue from out_dir/checkpoint.bin when present */
    long stop_after;               /* stop after this many steps, as if killed; 0: never */
    char out_dir[1024];            /* "" writes nothing */
    char data_dir[1024];           /* the data set's folder; "" for OPTINC_FASHION_MNIST_DIR */
    optinc_costmodel cost;
    /* Called after every step (NULL: none).  A nonzero return stops the run
     * there, as an interruption: a checkpoint of that step is written first
     * when checkpointing, and nothing else.  Under MPI the ranks agree after
     * every step (one small sum): a stop asked on any rank (a signal that
     * reached only some of them) stops every rank after that same step. */
    int (*progress)(void *ctx, const optinc_train_progress *p);
    void *progress_ctx;
} optinc_train_config;

/* One row of metrics.csv. */
typedef struct optinc_train_epoch {
    int epoch;                     /* 1-based */
    long step;                     /* global steps done at its end */
    double train_loss;             /* mean cross-entropy over the epoch's batches */
    double train_accuracy;         /* fraction right over the epoch's batches, before each update */
    double test_accuracy;          /* after the epoch */
    uint64_t bytes_sent_per_server;/* in this epoch; the largest over servers */
    double comm_time_s;            /* modelled (costmodel.h), this epoch, same server */
    uint64_t injected_errors;      /* in this epoch */
} optinc_train_epoch;

typedef struct optinc_train_result {
    optinc_train_epoch *epochs;    /* n_epochs rows (including ones before a resume) */
    int n_epochs;
    long steps;                    /* global steps done */
    long resumed_from;             /* step the run resumed from; 0 when it started fresh */
    int stopped;                   /* stop_after ended the run */
    int interrupted;               /* the progress callback ended the run */
    long checkpoint_step;          /* of the last checkpoint written or resumed; -1: none */
    size_t params;
    uint8_t weights_sha256[32];
    double train_loss, train_accuracy, test_accuracy;   /* of the last epoch */
    uint64_t bytes_sent_per_server;/* whole run, largest over servers */
    double comm_time_s;            /* whole run, modelled */
    uint64_t injected_errors;
} optinc_train_result;

/* Those file names, NULL-terminated, in the order of the enum. */
extern const char *const optinc_train_files[];
enum { OPTINC_TRAIN_METRICS, OPTINC_TRAIN_WEIGHTS, OPTINC_TRAIN_CHECKPOINT };

/* The seed of a run that names none; every other default is the spec's
 * (optinc_spec_train_defaults(), spec.h), so that a field a spec leaves out
 * trains as if there were no spec. */
#define OPTINC_TRAIN_DEFAULT_SEED 1
/* The most parameters (weights and biases) a model may have: the run holds
 * about 3 + S float copies of them (weights, momentum, a gradient per server
 * of the process, error-feedback residuals), 1 GiB each at this size, and a
 * wider model is refused before anything is allocated rather than left to
 * the system's out-of-memory killer. */
#define OPTINC_TRAIN_PARAMS_MAX (1L << 28)

/* The learning rate of step t (0-based) of a run of T steps. */
double optinc_train_lr(const optinc_train_config *cfg, long t, long T);

/* The spec's train: defaults with OPTINC_TRAIN_DEFAULT_SEED,
 * OPTINC_AR_DEFAULT_BITS-bit codes in blocks of OPTINC_AR_DEFAULT_BLOCK and
 * the cost model's defaults. */
void optinc_train_defaults(optinc_train_config *cfg);
/* Overrides cfg with every field of the spec's train: section, when the
 * spec has one (fields it leaves out hold the defaults).  An algorithm name
 * the table does not know, and more servers than OPTINC_AR_MAX_SERVERS, are
 * bad input at their position in the spec. */
optinc_status optinc_train_apply_spec(optinc_train_config *cfg, const optinc_spec *spec,
                                      optinc_error *err);

/* Trains on comm (whose server count must equal cfg->servers).  Collective
 * under MPI: every rank calls it, and first, before anything is sized from
 * the model, the ranks check that they agree on every setting of cfg and
 * input that must be the same on all of them (the model, the data read,
 * the all-reduce and its table, the optimizer, the schedule, checkpoints,
 * the seed, the timeout; runtime/train/agree.c), and on what --resume read:
 * a difference is OPTINC_EINPUT on every rank, "ranks disagree on --hidden:
 * rank 0 has 8, rank 1 has 16; ...".  Every rank gets the same result and
 * the same status, except after a fault of the communicator (a rank died or
 * hangs: optinc_comm_failed), where each rank that noticed returns OPTINC_ERUN
 * with a message that names the missing ranks and the step of the last
 * checkpoint, and the caller must end the job (optinc_comm_abort). */
optinc_status optinc_train(const optinc_train_config *cfg, optinc_comm *comm,
                           optinc_train_result *res, optinc_error *err);
void optinc_train_result_free(optinc_train_result *res);
/* How to go on with a run that stopped when its last checkpoint was at step
 * `saved` (optinc_train_progress.checkpoint_step; -1 for none), e.g.
 * "checkpoint at step 20: rerun with --resume". */
void optinc_train_resume_advice(const optinc_train_config *cfg, long saved, char *buf,
                                size_t size);

#endif
