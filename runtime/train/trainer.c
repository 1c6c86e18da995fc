/*
 * trainer.c - data-parallel MLP training over an emulated all-reduce (see
 * train.h for the algorithm and the files it writes).
 *
 * Layout.  The parameters are one flat float vector, layer by layer W (out x
 * in, row-major) then b, and each server's gradient has the same layout, so
 * the all-reduce sees one vector of P floats (235,146 for 784-256-128-10).
 * The hot loops are float: activations
 * are rows of a batch and every product is one cblas_sgemm.
 *
 * Determinism.  A server's gradient depends only on the parameters and its
 * batch; the all-reduce gives every server the same bytes; per-server metrics
 * are gathered and added in server order by every process; the test set is
 * evaluated in fixed batches of EVAL_BATCH rows, batch j by server j mod N,
 * and only integer counts are summed across processes.  So the in-process
 * and the MPI backends, and a resumed run, produce the same bits.  (BLAS
 * must itself be deterministic: one OpenBLAS thread, which the Makefile and
 * the tests set with OPENBLAS_NUM_THREADS=1.)
 */
#include <cblas.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "compiler/core/freeall.h"
#include "optinc/dataset.h"
#include "optinc/fileio.h"
#include "optinc/rng.h"
#include "optinc/train.h"
#include "runtime/train/agree.h"
#include "runtime/train/checkpoint.h"

#define EVAL_BATCH 1000
#define MAX_LAYERS (OPTINC_MAX_HIDDEN + 1)
#define STREAM_INIT 0x1000u
#define STREAM_ORDER 0x100000000ULL

typedef struct mlp {
    int layers;                        /* L weight layers */
    int dims[MAX_LAYERS + 1];          /* dims[0] inputs ... dims[L] classes */
    size_t woff[MAX_LAYERS], boff[MAX_LAYERS];
    size_t params;
} mlp;

typedef struct work {
    int rows;                          /* capacity in batch rows */
    float *act[MAX_LAYERS + 1];        /* act[0] input, act[l] output of layer l */
    float *dz, *da;                    /* rows x widest layer */
} work;

/* The fields of a spec's train: section, with its algorithm found. */
static void take_train(optinc_train_config *cfg, const optinc_spec_train *t,
                       const optinc_ar_algorithm *a)
{
    cfg->allreduce = a;
    cfg->servers = t->servers;
    cfg->epochs = t->epochs;
    cfg->batch = t->batch;
    cfg->checkpoint_every = t->checkpoint_every;
    memcpy(cfg->hidden, t->hidden, sizeof cfg->hidden);
    cfg->n_hidden = t->n_hidden;
    cfg->lr = t->lr;
    cfg->momentum = t->momentum;
    cfg->lr_schedule = t->lr_schedule;
    cfg->error_feedback = t->error_feedback;
    cfg->stochastic_rounding = t->stochastic_rounding;
}

/* The defaults of a spec's train: section applied to an empty configuration,
 * so that a spec that leaves a field out trains as if there were no spec. */
void optinc_train_defaults(optinc_train_config *cfg)
{
    optinc_spec_train t;
    memset(cfg, 0, sizeof *cfg);
    memset(&t, 0, sizeof t);
    optinc_spec_train_defaults(&t);
    take_train(cfg, &t, optinc_ar_find(t.allreduce));
    cfg->seed = OPTINC_TRAIN_DEFAULT_SEED;
    cfg->bits = OPTINC_AR_DEFAULT_BITS;
    cfg->block_size = OPTINC_AR_DEFAULT_BLOCK;
    optinc_costmodel_defaults(&cfg->cost);
}

optinc_status optinc_train_apply_spec(optinc_train_config *cfg, const optinc_spec *spec,
                                      optinc_error *err)
{
    const optinc_spec_train *t = &spec->train;
    if (!t->present)
        return OPTINC_OK;
    const optinc_ar_algorithm *a = optinc_ar_find(t->allreduce);
    if (!a) {
        char names[256];
        optinc_ar_names(" | ", " | ", names, sizeof names);
        return optinc_fail(err, OPTINC_EINPUT, spec->path, t->allreduce_line,
                           t->allreduce_column, "'allreduce' in train is '%.60s', which is not "
                           "known; use one of: %s", t->allreduce, names);
    }
    if (t->servers > OPTINC_AR_MAX_SERVERS)
        return optinc_fail(err, OPTINC_EINPUT, spec->path, t->servers_line, t->servers_column,
                           "'servers' in train is %d, more than the %d servers the all-reduce "
                           "takes; use at most %d", t->servers, OPTINC_AR_MAX_SERVERS,
                           OPTINC_AR_MAX_SERVERS);
    take_train(cfg, t, a);
    return OPTINC_OK;
}

/* ---- the model ----------------------------------------------------------- */

static void mlp_layout(mlp *m, int inputs, const int *hidden, int n_hidden, int classes)
{
    m->layers = n_hidden + 1;
    m->dims[0] = inputs;
    for (int l = 0; l < n_hidden; l++)
        m->dims[l + 1] = hidden[l];
    m->dims[m->layers] = classes;
    size_t p = 0;
    for (int l = 0; l < m->layers; l++) {
        m->woff[l] = p;
        p += (size_t)m->dims[l + 1] * (size_t)m->dims[l];
        m->boff[l] = p;
        p += (size_t)m->dims[l + 1];
    }
    m->params = p;
}

/* PyTorch's default for nn.Linear: W and b uniform in +-1/sqrt(fan_in). */
static void mlp_init(const mlp *m, uint64_t seed, float *w)
{
    for (int l = 0; l < m->layers; l++) {
        optinc_rng rng;
        optinc_rng_stream(&rng, seed, STREAM_INIT + (uint64_t)l);
        double bound = 1.0 / sqrt((double)m->dims[l]);
        size_t end = m->boff[l] + (size_t)m->dims[l + 1];
        for (size_t j = m->woff[l]; j < end; j++)
            w[j] = (float)((2.0 * optinc_rng_uniform(&rng) - 1.0) * bound);
    }
}

static void work_free(work *wk)
{
    for (int l = 0; l <= MAX_LAYERS; l++)
        free(wk->act[l]);
    free(wk->dz);
    free(wk->da);
}

static int work_alloc(work *wk, const mlp *m, int rows)
{
    memset(wk, 0, sizeof *wk);
    wk->rows = rows;
    int widest = 0;
    for (int l = 0; l <= m->layers; l++) {
        wk->act[l] = malloc((size_t)rows * (size_t)m->dims[l] * sizeof(float));
        if (!wk->act[l])
            return -1;
        widest = m->dims[l] > widest ? m->dims[l] : widest;
    }
    wk->dz = malloc((size_t)rows * (size_t)widest * sizeof(float));
    wk->da = malloc((size_t)rows * (size_t)widest * sizeof(float));
    return wk->dz && wk->da ? 0 : -1;
}

/* Input rows: pixels / 255 of the samples idx[0..rows). */
static void load_rows(const optinc_dataset *ds, const int *idx, int rows, float *x)
{
    size_t f = (size_t)ds->features;
    for (int r = 0; r < rows; r++) {
        const uint8_t *p = ds->images + (size_t)idx[r] * f;
        for (size_t j = 0; j < f; j++)
            x[(size_t)r * f + j] = (float)p[j] / 255.0f;
    }
}

/* act[l] = relu(act[l-1] W^T + b) for hidden layers, logits for the last. */
static void forward(const mlp *m, const float *w, work *wk, int rows)
{
    for (int l = 0; l < m->layers; l++) {
        int in = m->dims[l], out = m->dims[l + 1];
        float *z = wk->act[l + 1];
        for (int r = 0; r < rows; r++)
            memcpy(z + (size_t)r * (size_t)out, w + m->boff[l], (size_t)out * sizeof(float));
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, out, in, 1.0f, wk->act[l], in,
                    w + m->woff[l], in, 1.0f, z, out);
        if (l < m->layers - 1)
            for (size_t j = 0; j < (size_t)rows * (size_t)out; j++)
                z[j] = z[j] > 0.0f ? z[j] : 0.0f;
    }
}

/* Index of the largest logit (the first on ties). */
static int argmax(const float *z, int n)
{
    int best = 0;
    for (int j = 1; j < n; j++)
        if (z[j] > z[best])
            best = j;
    return best;
}

/* Mean cross-entropy gradient of a batch into g; returns the loss sum and
 * adds the number of right answers to *correct. */
static double backward(const mlp *m, const float *w, work *wk, int rows, const uint8_t *y,
                       float *g, double *correct)
{
    int L = m->layers, C = m->dims[L];
    double loss = 0.0;
    float inv_rows = 1.0f / (float)rows;
    for (int r = 0; r < rows; r++) {
        const float *z = wk->act[L] + (size_t)r * (size_t)C;
        float *dz = wk->dz + (size_t)r * (size_t)C;
        int best = argmax(z, C);
        float mx = z[best], s = 0.0f;
        for (int j = 0; j < C; j++)
            s += expf(z[j] - mx);
        loss += (double)(logf(s) + mx - z[y[r]]);
        *correct += best == y[r];
        for (int j = 0; j < C; j++)
            dz[j] = (expf(z[j] - mx) / s - (j == y[r] ? 1.0f : 0.0f)) * inv_rows;
    }
    for (int l = L - 1; l >= 0; l--) {
        int in = m->dims[l], out = m->dims[l + 1];
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, out, in, rows, 1.0f, wk->dz, out,
                    wk->act[l], in, 0.0f, g + m->woff[l], in);
        float *gb = g + m->boff[l];
        memcpy(gb, wk->dz, (size_t)out * sizeof(float));
        for (int r = 1; r < rows; r++)
            optinc_ar_add(gb, wk->dz + (size_t)r * (size_t)out, (size_t)out);
        if (l == 0)
            break;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, in, out, 1.0f, wk->dz, out,
                    w + m->woff[l], in, 0.0f, wk->da, in);
        const float *a = wk->act[l];
        for (size_t j = 0; j < (size_t)rows * (size_t)in; j++)
            wk->dz[j] = a[j] > 0.0f ? wk->da[j] : 0.0f;
    }
    return loss;
}

/* *acc = the fraction of the test set classified right, in fixed batches
 * spread over the servers; integer counts are summed over the processes. */
static optinc_status evaluate(const mlp *m, const float *w, work *wk, const optinc_dataset *test,
                              optinc_comm *comm, int *idx, double *acc, optinc_error *err)
{
    int64_t right = 0, total;
    for (int b = 0, lo = 0; lo < test->n; b++, lo += EVAL_BATCH) {
        int owner = b % comm->servers;
        if (owner < comm->first || owner >= comm->first + comm->count)
            continue;
        int rows = test->n - lo < EVAL_BATCH ? test->n - lo : EVAL_BATCH;
        for (int r = 0; r < rows; r++)
            idx[r] = lo + r;
        load_rows(test, idx, rows, wk->act[0]);
        forward(m, w, wk, rows);
        int C = m->dims[m->layers];
        for (int r = 0; r < rows; r++)
            right += argmax(wk->act[m->layers] + (size_t)r * (size_t)C, C) == test->labels[lo + r];
    }
    optinc_status st = optinc_comm_sum(comm, right, &total, err);
    *acc = (double)total / (double)test->n;
    return st;
}

/* The order of epoch e: a Fisher-Yates shuffle from the epoch's stream. */
static void epoch_order(uint64_t seed, long e, int n, int *order)
{
    optinc_rng rng;
    optinc_rng_stream(&rng, seed, STREAM_ORDER + (uint64_t)e);
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)optinc_rng_below(&rng, (uint64_t)i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* ---- files --------------------------------------------------------------- */

/* The files of out_dir (train.h). */
const char *const optinc_train_files[] = {"metrics.csv", "weights.f32", "checkpoint.bin", NULL};
#define METRICS_FILE optinc_train_files[OPTINC_TRAIN_METRICS]
#define WEIGHTS_FILE optinc_train_files[OPTINC_TRAIN_WEIGHTS]
#define CHECKPOINT_FILE optinc_train_files[OPTINC_TRAIN_CHECKPOINT]

static void out_path(const char *dir, const char *name, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", dir, name);
}

/* The settings a checkpoint must match (not the epoch count, the output
 * folder, the backend or the checkpoint interval). */
static void config_hash(const optinc_train_config *cfg, const mlp *m, int ntrain, int ntest,
                        uint8_t hash[32])
{
    char text[4096];
    int k = snprintf(text, sizeof text,
                     "servers=%d batch=%d lr=%.17g momentum=%.17g seed=%llu allreduce=%s "
                     "bits=%d block=%d train=%d test=%d ef=%d sr=%d dims=",
                     cfg->servers, cfg->batch, cfg->lr, cfg->momentum,
                     (unsigned long long)cfg->seed, cfg->allreduce->name,
                     cfg->bits, cfg->block_size, ntrain, ntest, cfg->error_feedback != 0,
                     cfg->stochastic_rounding != 0);
    for (int l = 0; l <= m->layers && k < (int)sizeof text - 16; l++)
        k += snprintf(text + k, sizeof text - (size_t)k, "%d,", m->dims[l]);
    /* A decaying rate is a function of the run's length, so its checkpoint
     * fits only that many epochs; the constant rate adds nothing, which keeps
     * the checkpoints written before schedules existed. */
    if (cfg->lr_schedule != OPTINC_LR_CONSTANT)
        k += snprintf(text + k, sizeof text - (size_t)k, " schedule=%s epochs=%d",
                      optinc_lr_schedule_names[cfg->lr_schedule], cfg->epochs);
    uint8_t sub[32];
    if ((cfg->allreduce->flags & OPTINC_AR_ONN) && cfg->lut) {
        optinc_sha256(cfg->lut->code, cfg->lut->size * sizeof *cfg->lut->code, sub);
        for (int i = 0; i < 32 && k < (int)sizeof text - 3; i++)
            k += snprintf(text + k, sizeof text - (size_t)k, "%02x", sub[i]);
    }
    const optinc_err_hist *h = cfg->inject;
    if (h && (cfg->allreduce->flags & OPTINC_AR_QUANTIZES)) {
        k += snprintf(text + k, sizeof text - (size_t)k, " p=%.17g", h->p_error);
        for (int i = 0; i < h->n && k < (int)sizeof text - 48; i++)
            k += snprintf(text + k, sizeof text - (size_t)k, " %d:%.17g", h->delta[i],
                          h->cdf[i]);
    }
    optinc_sha256(text, strlen(text), hash);
}

/* Writes dir/name atomically with put(f, ctx). */
static optinc_status write_file(const char *dir, const char *name,
                                void (*put)(FILE *f, const void *ctx), const void *ctx,
                                optinc_error *err)
{
    char path[1100];
    optinc_out o;
    out_path(dir, name, path, sizeof path);
    optinc_status st = optinc_out_open(&o, path, err);
    if (st)
        return st;
    put(o.f, ctx);
    return optinc_out_commit(&o, err);
}

static void put_csv(FILE *f, const void *ctx)
{
    const train_state *s = ctx;
    fprintf(f, "epoch,step,train_loss,train_accuracy,test_accuracy,bytes_sent_per_server,"
               "comm_time_s,injected_errors\n");
    for (int i = 0; i < s->n_hist; i++) {
        const optinc_train_epoch *e = &s->hist[i];
        fprintf(f, "%d,%ld,%.9g,%.9g,%.9g,%llu,%.9g,%llu\n", e->epoch, e->step, e->train_loss,
                e->train_accuracy, e->test_accuracy,
                (unsigned long long)e->bytes_sent_per_server, e->comm_time_s,
                (unsigned long long)e->injected_errors);
    }
}

/* What put_weights writes. */
typedef struct snapshot {
    const train_state *s;
    size_t params;
} snapshot;

static void put_weights(FILE *f, const void *ctx)
{
    const snapshot *k = ctx;
    fwrite(k->s->w, sizeof(float), k->params, f);
}

/* ---- the training loop --------------------------------------------------- */

static optinc_status check_config(const optinc_train_config *cfg, const optinc_comm *comm,
                                  optinc_error *err)
{
    if (comm->servers != cfg->servers)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "%d servers requested but the backend runs %d: with MPI start "
                           "mpirun -np %d", cfg->servers, comm->servers, cfg->servers);
    if (cfg->epochs < 1 || cfg->batch < 1 || !(cfg->lr > 0.0) || cfg->momentum < 0.0 ||
        cfg->momentum >= 1.0 || cfg->lr_schedule < OPTINC_LR_CONSTANT ||
        cfg->lr_schedule > OPTINC_LR_COSINE || cfg->n_hidden < 0 || cfg->n_hidden > OPTINC_MAX_HIDDEN)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "training needs epochs >= 1, batch >= 1, lr > 0, 0 <= momentum < 1, "
                           "a known lr schedule and at most %d hidden layers",
                           OPTINC_MAX_HIDDEN);
    for (int l = 0; l < cfg->n_hidden; l++)
        if (cfg->hidden[l] < 1 || cfg->hidden[l] > 65536)
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "hidden width %d: use 1..65536", cfg->hidden[l]);
    if ((cfg->checkpoint_every || cfg->resume) && !cfg->out_dir[0])
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "checkpoints need an output folder: give --out DIR");
    return OPTINC_OK;
}

/* Everything one run allocates. */
typedef struct run {
    optinc_dataset *train, *test;
    optinc_allreduce *ar;
    work wk;
    float **grads;
    int *order, *idx;
    uint8_t *labels;
    train_state s;
} run;

static void run_free(run *r)
{
    optinc_dataset_free(r->train);
    optinc_dataset_free(r->test);
    optinc_allreduce_free(r->ar);
    work_free(&r->wk);
    if (r->grads)
        for (int k = 0; r->grads[k]; k++)
            free(r->grads[k]);
    OPTINC_FREE_ALL(r->grads, r->order, r->idx, r->labels, r->s.w, r->s.v, r->s.resid, r->s.hist);
}

/* The classes of the data: the largest label of either split, plus 1. */
static int classes_of(const run *r)
{
    return r->train->classes > r->test->classes ? r->train->classes : r->test->classes;
}

/* The settings checked and the data read: what the ranks compare (agree.h)
 * before anything is sized from the model. */
static optinc_status load(const optinc_train_config *cfg, const optinc_comm *comm, run *r,
                          optinc_error *err)
{
    optinc_status st = check_config(cfg, comm, err);
    const char *dir = cfg->data_dir[0] ? cfg->data_dir : NULL;
    if (!st)
        st = optinc_dataset_fashion_mnist(dir, 0, cfg->limit_train, &r->train, err);
    if (!st)
        st = optinc_dataset_fashion_mnist(dir, 1, cfg->limit_test, &r->test, err);
    if (st)
        return st;
    if (r->train->features != r->test->features)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "training images have %d pixels, test images %d: use one data set",
                           r->train->features, r->test->features);
    if (classes_of(r) < 2)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "the labels hold one class: classification needs at least 2");
    if ((long)r->train->n < (long)cfg->servers * cfg->batch)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "%d training samples are fewer than one step of %d servers x batch "
                           "%d: use a smaller batch or more samples",
                           r->train->n, cfg->servers, cfg->batch);
    return OPTINC_OK;
}

/* The model, the all-reduce plan and every buffer of the run, on settings
 * the ranks agree on. */
static optinc_status setup(const optinc_train_config *cfg, const optinc_comm *comm, run *r,
                           mlp *m, optinc_error *err)
{
    optinc_status st;
    mlp_layout(m, r->train->features, cfg->hidden, cfg->n_hidden, classes_of(r));
    if (m->params > (size_t)OPTINC_TRAIN_PARAMS_MAX)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "the model has %zu parameters, more than the %ld training takes; "
                           "give narrower or fewer hidden layers", m->params,
                           OPTINC_TRAIN_PARAMS_MAX);
    /* threads serve the servers of this process: none to share under MPI */
    /* a spec's error feedback and stochastic rounding serve the quantizing
     * algorithms only, like its bits: a ring run of the same spec ignores them */
    int quantizes = (cfg->allreduce->flags & OPTINC_AR_QUANTIZES) != 0;
    optinc_ar_config ac = {cfg->allreduce,
                           cfg->servers,
                           cfg->bits,
                           cfg->block_size,
                           cfg->lut,
                           cfg->inject,
                           cfg->seed,
                           comm->count > 1 ? cfg->threads : 1,
                           quantizes && cfg->error_feedback,
                           quantizes && cfg->stochastic_rounding};
    if ((st = optinc_allreduce_new(&ac, &r->ar, err)))
        return st;
    size_t P = m->params;
    int rows = cfg->batch > EVAL_BATCH ? cfg->batch : EVAL_BATCH;
    r->grads = calloc((size_t)comm->count + 1, sizeof *r->grads);
    r->order = malloc((size_t)r->train->n * sizeof *r->order);
    r->idx = malloc((size_t)rows * sizeof *r->idx);
    r->labels = malloc((size_t)rows);
    r->s.w = malloc(P * sizeof(float));
    r->s.v = calloc(P, sizeof(float));
    int bad = !r->grads || !r->order || !r->idx || !r->labels || !r->s.w || !r->s.v ||
              work_alloc(&r->wk, m, rows) || train_state_reserve(&r->s, cfg->epochs);
    for (int k = 0; !bad && k < comm->count; k++)
        bad = !(r->grads[k] = malloc(P * sizeof(float)));
    /* every server's residual, so that a checkpoint holds them all; this
     * process's servers feed back through theirs */
    if (!bad && ac.error_feedback) {
        r->s.n_resid = (size_t)cfg->servers * P;
        bad = !(r->s.resid = calloc(r->s.n_resid, sizeof(float)));
    }
    if (bad)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for the model");
    if (ac.error_feedback) {
        float *own[OPTINC_AR_MAX_SERVERS];
        for (int q = 0; q < comm->count; q++)
            own[q] = r->s.resid + (size_t)(comm->first + q) * P;
        optinc_allreduce_set_residuals(r->ar, own, comm->count);
    }
    /* last, so that a run refused for its data or its model leaves no folder */
    if (cfg->out_dir[0] && mkdir(cfg->out_dir, 0777) && errno != EEXIST)
        return optinc_fail(err, OPTINC_ERUN, cfg->out_dir, 0, 0,
                           "cannot create the output folder: %s; give --out a writable path",
                           strerror(errno));
    mlp_init(m, cfg->seed, r->s.w);
    return OPTINC_OK;
}

/* Closes epoch `e` (0-based): test accuracy and the metrics row. */
static optinc_status close_epoch(const optinc_train_config *cfg, optinc_comm *comm, run *r,
                                 const mlp *m, long e, optinc_error *err)
{
    train_state *s = &r->s;
    optinc_train_epoch *row = &s->hist[s->n_hist++];
    int worst = 0;
    for (int i = 1; i < cfg->servers; i++)
        if (s->stats.bytes_sent[i] - s->epoch_start.bytes_sent[i] >
            s->stats.bytes_sent[worst] - s->epoch_start.bytes_sent[worst])
            worst = i;
    optinc_ar_stats d = s->stats;
    d.bytes_sent[worst] -= s->epoch_start.bytes_sent[worst];
    d.messages[worst] -= s->epoch_start.messages[worst];
    row->epoch = (int)e + 1;
    row->step = s->step;
    row->train_loss = s->loss_sum / s->samples;
    row->train_accuracy = s->correct / s->samples;
    optinc_status st = evaluate(m, s->w, &r->wk, r->test, comm, r->idx, &row->test_accuracy,
                                err);
    row->bytes_sent_per_server = d.bytes_sent[worst];
    row->comm_time_s = optinc_cost_comm_time(&cfg->cost, &d, worst);
    row->injected_errors = s->stats.injected_errors - s->epoch_start.injected_errors;
    s->loss_sum = s->correct = s->samples = 0.0;
    s->epoch_start = s->stats;
    return st;
}

double optinc_train_lr(const optinc_train_config *cfg, long t, long T)
{
    if (cfg->lr_schedule == OPTINC_LR_COSINE && T > 0)
        return cfg->lr * 0.5 * (1.0 + cos(M_PI * (double)t / (double)T));
    return cfg->lr;
}

/* One step: local gradients, all-reduce, metrics, update. */
static optinc_status step(const optinc_train_config *cfg, optinc_comm *comm, run *r,
                          const mlp *m, long spe, optinc_error *err)
{
    train_state *s = &r->s;
    long k = s->step % spe;
    int N = cfg->servers, B = cfg->batch;
    double local[2 * OPTINC_AR_MAX_SERVERS], all[2 * OPTINC_AR_MAX_SERVERS];
    for (int q = 0; q < comm->count; q++) {
        int i = comm->first + q;
        for (int b = 0; b < B; b++) {
            r->idx[b] = r->order[((size_t)k * (size_t)B + (size_t)b) * (size_t)N + (size_t)i];
            r->labels[b] = r->train->labels[r->idx[b]];
        }
        load_rows(r->train, r->idx, B, r->wk.act[0]);
        forward(m, s->w, &r->wk, B);
        double correct = 0.0;
        local[2 * q] = backward(m, s->w, &r->wk, B, r->labels, r->grads[q], &correct);
        local[2 * q + 1] = correct;
    }
    optinc_status st = optinc_comm_allreduce(comm, r->ar, (uint64_t)s->step, r->grads, m->params,
                                             &s->stats, err);
    if (!st)
        st = optinc_comm_allgather(comm, local, all, 2, err);
    if (st)
        return st;
    for (int i = 0; i < N; i++) {
        s->loss_sum += all[2 * i];
        s->correct += all[2 * i + 1];
    }
    s->samples += (double)N * B;
    float lr = (float)optinc_train_lr(cfg, s->step, (long)cfg->epochs * spe),
          mom = (float)cfg->momentum;
    const float *g = r->grads[0];
    for (size_t j = 0; j < m->params; j++) {
        s->v[j] = mom * s->v[j] + g[j];
        s->w[j] = s->w[j] - lr * s->v[j];
    }
    s->step++;
    return OPTINC_OK;
}

void optinc_train_resume_advice(const optinc_train_config *cfg, long saved, char *buf,
                                size_t size)
{
    if (saved > 0)
        snprintf(buf, size, "checkpoint at step %ld: rerun with --resume", saved);
    else if (cfg->resume || cfg->checkpoint_every)
        snprintf(buf, size, "no checkpoint of this run yet: rerun with --resume, which starts "
                 "from %s/checkpoint.bin if there is one", cfg->out_dir);
    else
        snprintf(buf, size, "no checkpoints: give --checkpoint-every K to be able to resume");
}

/* Completes the message of a failed exchange (a rank died or hangs, see
 * comm.h) with what the caller does and how to go on from there. */
static void fault_advice(const optinc_train_config *cfg, long saved, optinc_error *err)
{
    char advice[700];
    size_t k = strlen(err->message);
    optinc_train_resume_advice(cfg, saved, advice, sizeof advice);
    snprintf(err->message + k, sizeof err->message - k, "; aborting (%s)", advice);
}

/* Writes a file on rank 0 and makes every rank agree on the outcome. */
static optinc_status rank0_write(optinc_comm *comm, optinc_status st, optinc_error *err)
{
    return optinc_comm_agree(comm, comm->rank == 0 ? st : OPTINC_OK, err);
}

/* Under MPI each rank updates only its own server's residual: before a
 * checkpoint, every rank gets all of them (exactly: floats through doubles). */
static optinc_status share_residuals(optinc_comm *comm, train_state *s, size_t params,
                                     optinc_error *err)
{
    if (!s->n_resid || comm->count == comm->servers)
        return OPTINC_OK;
    if (params > INT_MAX / 2)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "too many parameters to exchange");
    double *local = malloc(params * sizeof *local);
    double *all = malloc(s->n_resid * sizeof *all);
    optinc_status st = OPTINC_OK;
    if (!local || !all)
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for the residuals");
    for (size_t j = 0; !st && j < params; j++)
        local[j] = s->resid[(size_t)comm->first * params + j];
    if (!st)
        st = optinc_comm_allgather(comm, local, all, (int)params, err);
    for (size_t j = 0; !st && j < s->n_resid; j++)
        s->resid[j] = (float)all[j];
    free(local);
    free(all);
    return st;
}

/* checkpoint.bin of the state s, written by rank 0 (every rank agrees on
 * the outcome); *saved becomes its step. */
static optinc_status save_checkpoint(const optinc_train_config *cfg, optinc_comm *comm,
                                     train_state *s, size_t params,
                                     const uint8_t hash[32], long *saved, optinc_error *err)
{
    optinc_status shared = optinc_comm_agree(comm, share_residuals(comm, s, params, err), err);
    if (shared)
        return shared;
    char path[1100];
    out_path(cfg->out_dir, CHECKPOINT_FILE, path, sizeof path);
    optinc_status st = rank0_write(comm, comm->rank ? OPTINC_OK
                                                    : train_checkpoint_write(path, s, params,
                                                                             hash, err), err);
    if (!st)
        *saved = s->step;
    return st;
}

optinc_status optinc_train(const optinc_train_config *cfg, optinc_comm *comm,
                           optinc_train_result *res, optinc_error *err)
{
    memset(res, 0, sizeof *res);
    run r;
    mlp m;
    memset(&r, 0, sizeof r);
    memset(&m, 0, sizeof m);
    /* Every rank learns whether any failed to load, then whether all loaded
     * and want the same, before any allocates from the model: a rank that
     * differed would send gradients of another size into its peers. */
    optinc_status st = optinc_comm_agree(comm, load(cfg, comm, &r, err), err);
    if (!st)
        st = train_agree_settings(cfg, comm, r.train, r.test, err);
    if (!st)
        st = optinc_comm_agree(comm, setup(cfg, comm, &r, &m, err), err);
    long spe = st ? 1 : r.train->n / ((long)cfg->servers * cfg->batch);
    long total = (long)cfg->epochs * spe;
    uint8_t hash[32];
    if (!st) {
        config_hash(cfg, &m, r.train->n, r.test->n, hash);
        int found = 0;
        if (cfg->resume) {
            char path[1100];
            out_path(cfg->out_dir, CHECKPOINT_FILE, path, sizeof path);
            st = train_checkpoint_read(path, m.params, hash, &r.s, &found, err);
            if (!st && found && r.s.step > total)
                st = optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                                 "the checkpoint is at step %ld, past the %ld steps of %d "
                                 "epochs: give more --epochs", r.s.step, total, cfg->epochs);
            if (!st && found)
                res->resumed_from = r.s.step;
            if (!st && train_state_reserve(&r.s, cfg->epochs))
                st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
        }
        st = optinc_comm_agree(comm, st, err);
        if (!st && cfg->resume)      /* each rank read its own --out */
            st = train_agree_resume(cfg, comm, &r.s, found, m.params, err);
    }
    snapshot snap = {&r.s, m.params};
    long ordered = -1, saved = res->resumed_from ? res->resumed_from : -1;
    while (!st && r.s.step < total) {
        long e = r.s.step / spe;
        if (e != ordered) {
            epoch_order(cfg->seed, e, r.train->n, r.order);
            ordered = e;
        }
        if ((st = step(cfg, comm, &r, &m, spe, err)))
            break;
        if (r.s.step % spe == 0) {
            st = close_epoch(cfg, comm, &r, &m, e, err);
            if (!st && cfg->out_dir[0])
                st = rank0_write(comm, comm->rank ? OPTINC_OK
                                                  : write_file(cfg->out_dir, METRICS_FILE,
                                                               put_csv, &r.s, err), err);
        }
        if (!st && cfg->checkpoint_every && r.s.step % cfg->checkpoint_every == 0)
            st = save_checkpoint(cfg, comm, &r.s, m.params, hash, &saved, err);
        int stop = 0;
        if (cfg->progress && !st) {
            optinc_train_progress p = {(int)((r.s.step - 1) / spe) + 1, cfg->epochs, r.s.step,
                                       total, 0.0, saved};
            if (r.s.samples > 0)
                p.loss = r.s.loss_sum / r.s.samples;
            else if (r.s.n_hist)
                p.loss = r.s.hist[r.s.n_hist - 1].train_loss;
            stop = cfg->progress(cfg->progress_ctx, &p);
        }
        if (!st && comm->count < comm->servers) {   /* all ranks stop, or none */
            int64_t asked;
            st = optinc_comm_sum(comm, stop != 0, &asked, err);
            stop = !st && asked > 0;
        }
        if (stop && r.s.step < total) {
            if (cfg->checkpoint_every && saved != r.s.step)
                st = save_checkpoint(cfg, comm, &r.s, m.params, hash, &saved, err);
            res->interrupted = 1;
            break;
        }
        if (cfg->stop_after && r.s.step >= cfg->stop_after && r.s.step < total) {
            res->stopped = 1;
            break;
        }
    }
    if (!st && !res->stopped && !res->interrupted && cfg->out_dir[0]) {
        optinc_status w = OPTINC_OK;
        if (comm->rank == 0) {
            w = write_file(cfg->out_dir, METRICS_FILE, put_csv, &r.s, err);
            if (!w)
                w = write_file(cfg->out_dir, WEIGHTS_FILE, put_weights, &snap, err);
        }
        st = rank0_write(comm, w, err);
        if (!st && cfg->checkpoint_every)
            st = save_checkpoint(cfg, comm, &r.s, m.params, hash, &saved, err);
    }
    res->checkpoint_step = saved;
    if (st && optinc_comm_failed(comm))
        fault_advice(cfg, saved, err);
    if (!st) {
        res->steps = r.s.step;
        res->params = m.params;
        optinc_sha256(r.s.w, m.params * sizeof(float), res->weights_sha256);
        int worst = 0;
        for (int i = 1; i < cfg->servers; i++)
            if (r.s.stats.bytes_sent[i] > r.s.stats.bytes_sent[worst])
                worst = i;
        res->bytes_sent_per_server = r.s.stats.bytes_sent[worst];
        res->comm_time_s = optinc_cost_comm_time(&cfg->cost, &r.s.stats, worst);
        res->injected_errors = r.s.stats.injected_errors;
        if (r.s.n_hist) {
            const optinc_train_epoch *last = &r.s.hist[r.s.n_hist - 1];
            res->train_loss = last->train_loss;
            res->train_accuracy = last->train_accuracy;
            res->test_accuracy = last->test_accuracy;
        }
        res->epochs = r.s.hist;
        res->n_epochs = r.s.n_hist;
        r.s.hist = NULL;
    }
    run_free(&r);
    return st;
}

void optinc_train_result_free(optinc_train_result *res)
{
    free(res->epochs);
    res->epochs = NULL;
    res->n_epochs = 0;
}
