/*
 * spec_train.c - the train: section of a spec (optinc-spec(5)): the
 * data-parallel training of an MLP, and the defaults a spec without it, or
 * a field it leaves out, trains with.
 *
 * The compiler does not depend on the trainer, so the defaults and the
 * words live here (spec.h); the trainer reads a spec's train: section as
 * this file leaves it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "optinc/fileio.h"
#include "compiler/spec/spec_internal.h"

/* train.allreduce names one of the runtime's all-reduce algorithms.  The
 * spec is read below the runtime, so it keeps the name and its position, and
 * the trainer looks the name up in its algorithm table
 * (optinc_train_apply_spec) and refuses an unknown one at that position: a
 * new algorithm is then known to specs without a word list here. */
#define DEFAULT_ALLREDUCE "ring"
/* The words of train.dataset; the first is the default. */
static const char *const dataset_names[] = {"fashion_mnist", NULL};

void optinc_spec_train_defaults(optinc_spec_train *t)
{
    static const int hidden[] = OPTINC_SPEC_TRAIN_DEFAULT_HIDDEN;
    memset(t, 0, sizeof *t);
    snprintf(t->dataset, sizeof t->dataset, "%s", dataset_names[0]);
    t->servers = OPTINC_SPEC_TRAIN_DEFAULT_SERVERS;
    t->epochs = OPTINC_SPEC_TRAIN_DEFAULT_EPOCHS;
    t->batch = OPTINC_SPEC_TRAIN_DEFAULT_BATCH;
    t->checkpoint_every = 0;
    memcpy(t->hidden, hidden, sizeof hidden);
    t->n_hidden = COUNT_OF(hidden);
    t->lr = OPTINC_SPEC_TRAIN_DEFAULT_LR;
    t->momentum = OPTINC_SPEC_TRAIN_DEFAULT_MOMENTUM;
    snprintf(t->allreduce, sizeof t->allreduce, "%s", DEFAULT_ALLREDUCE);
}

/* Where the value of key is in n (0, 0 when n has none): what the trainer
 * checks against its table and its backend is reported there. */
static void position_of(ctx *c, yaml_node_t *n, const char *key, int *line, int *column)
{
    yaml_node_t *v = optinc_spec_get(c, n, key);
    *line = v ? (int)v->start_mark.line + 1 : 0;
    *column = v ? (int)v->start_mark.column + 1 : 0;
}

optinc_status optinc_spec_parse_train(ctx *c, yaml_node_t *n)
{
    static const char *const keys[] = {"dataset", "servers", "epochs", "batch", "lr",
                                       "momentum", "hidden", "allreduce", "checkpoint_every",
                                       "onn", "error_feedback", "stochastic_rounding",
                                       "lr_schedule", NULL};
#define TF(f) offsetof(optinc_spec_train, f)
    static const field fields[] = {
        {"servers", 'i', TF(servers), 1, 65536, 0, 0, NULL},
        {"epochs", 'i', TF(epochs), 1, 1000000, 0, 0, NULL},
        {"batch", 'i', TF(batch), 1, 1 << 20, 0, 0, "(examples per server and step)"},
        {"lr", 'd', TF(lr), 0, INFINITY, 1, 0, "(the learning rate)"},
        {"momentum", 'd', TF(momentum), 0, 1, 0, 1, NULL},
        {"checkpoint_every", 'i', TF(checkpoint_every), 0, 1000000, 0, 0, "(0 = never)"},
        FIELDS_END};
#undef TF
    const char *what = "train";
    optinc_spec_train *t = &c->spec->train;
    int dataset = 0;
    char onn[1024] = "";
    optinc_status st;
    yaml_node_t *v;
    t->present = 1;
    if ((st = optinc_spec_check_map(c, n, what, keys)) ||
        (st = optinc_spec_read_fields(c, n, what, fields, t)) ||
        (st = optinc_spec_read_enum(c, n, "dataset", what, dataset_names, &dataset)) ||
        (st = optinc_spec_read_enum(c, n, "lr_schedule", what, optinc_lr_schedule_names,
                                    &t->lr_schedule)) ||
        ((v = optinc_spec_get(c, n, "allreduce")) &&
         (st = optinc_spec_ident(c, v, "allreduce", what, t->allreduce))) ||
        ((v = optinc_spec_get(c, n, "hidden")) &&
         (st = optinc_spec_read_int_list(c, v, "hidden", what, 1, OPTINC_MATRIX_DIM_MAX,
                                         t->hidden, OPTINC_MAX_HIDDEN, &t->n_hidden))) ||
        (st = optinc_spec_read_string(c, n, "onn", what, onn, sizeof onn)) ||
        (st = optinc_spec_read_bool(c, n, "error_feedback", what, &t->error_feedback)) ||
        (st = optinc_spec_read_bool(c, n, "stochastic_rounding", what, &t->stochastic_rounding)))
        return st;
    snprintf(t->dataset, sizeof t->dataset, "%s", dataset_names[dataset]);
    position_of(c, n, "allreduce", &t->allreduce_line, &t->allreduce_column);
    position_of(c, n, "servers", &t->servers_line, &t->servers_column);
    position_of(c, n, "onn", &t->onn_line, &t->onn_column);
    if (onn[0])
        optinc_path_join(c->spec->dir, onn, t->onn, sizeof t->onn);
    return OPTINC_OK;
}
