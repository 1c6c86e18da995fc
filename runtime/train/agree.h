/*
 * agree.h - the ranks of a run under MPI agree on its settings and inputs,
 * or stop together (agree.c); private to runtime/train/.
 */
#ifndef OPTINC_TRAIN_AGREE_H
#define OPTINC_TRAIN_AGREE_H

#include <stddef.h>
#include "optinc/comm.h"
#include "optinc/dataset.h"
#include "optinc/error.h"
#include "optinc/train.h"
#include "runtime/train/checkpoint.h"

/* Collective: every rank shows the others every setting and input of cfg
 * that must be the same on all of them (the table of agree.c), the data
 * sets it loaded (train, test) and the watchdog's timeout, before anything
 * sized from the model exists.  OPTINC_OK when all agree; else
 * OPTINC_EINPUT on every rank with the same message, "ranks disagree on
 * --hidden: rank 0 has 8, rank 1 has 16; start every rank with the same
 * options".  In process (one process, nobody to disagree with) OPTINC_OK
 * at once. */
optinc_status train_agree_settings(const optinc_train_config *cfg, optinc_comm *comm,
                                   const optinc_dataset *train, const optinc_dataset *test,
                                   optinc_error *err);
/* The same for what --resume read (each rank reads its own --out): the
 * checkpoint's step and weights when `found`, else none. */
optinc_status train_agree_resume(const optinc_train_config *cfg, optinc_comm *comm,
                                 const train_state *s, int found, size_t params,
                                 optinc_error *err);

#endif
