/*
 * checkpoint.h - the trainer's state after a step, and checkpoint.bin, the
 * file that holds it (checkpoint.c), private to runtime/train/.
 */
#ifndef OPTINC_TRAIN_CHECKPOINT_H
#define OPTINC_TRAIN_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>
#include "optinc/allreduce.h"
#include "optinc/error.h"
#include "optinc/train.h"

/* The state after a step: what a checkpoint holds. */
typedef struct train_state {
    long step;
    float *w, *v;                       /* params each: the weights and the velocities */
    float *resid;                       /* error feedback: N x params, server by server */
    size_t n_resid;                     /* N x params with error feedback, else 0 */
    double loss_sum, correct, samples;  /* this epoch so far */
    optinc_ar_stats stats, epoch_start;
    optinc_train_epoch *hist;           /* the rows of the finished epochs */
    int n_hist, cap_hist;
} train_state;

/* Room for n rows in s->hist, zeroed; -1 when out of memory. */
int train_state_reserve(train_state *s, int n);

/* Writes s (with params weights) to path atomically; settings is the hash
 * of the settings it must be resumed with. */
optinc_status train_checkpoint_write(const char *path, const train_state *s, size_t params,
                                     const uint8_t settings[32], optinc_error *err);
/* Loads path into s when it exists (*found = 0, and OPTINC_OK, when it does
 * not); anything but an intact checkpoint of these settings and params is
 * bad input naming the file. */
optinc_status train_checkpoint_read(const char *path, size_t params, const uint8_t settings[32],
                                    train_state *s, int *found, optinc_error *err);

#endif
