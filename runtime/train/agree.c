/*
 * agree.c - the ranks of a run under MPI agree on what they train, or stop.
 *
 * Every rank parses its own command line (an MPI app context, `mpirun -np 1
 * optinc ... : -np 1 optinc ...`, gives each rank its own options), reads
 * its own spec and its own copy of the data.  Ranks that differ do not just
 * train apart: the exchanges size their buffers from the local settings, so
 * a rank with another --hidden receives more floats than its buffer holds
 * and corrupts its heap; another --batch or --epochs sends the ranks into
 * different exchanges until the watchdog gives up; another --seed or --lr
 * trains the replicas apart without a word.  So before anything sized from
 * the model exists, every rank shows every other what must agree, and on a
 * difference all stop with one message that names the option.
 *
 * What is compared is the table below, one row per setting or input: its
 * name as the user spells the option, and how to print its value.  A new
 * field of optinc_train_config is one row here, or one line in the list of
 * the fields left out, saying why it may differ.  Values print exactly
 * (doubles in the shortest form that reads back, contents as SHA-256), so
 * values that differ print differently.  The rows run from the settings a
 * user gives to what is derived from them (the data read after the limits,
 * the ONN's table after the seed and bits), so the first row that differs
 * names the cause.
 *
 * The record.  Each rank prints its rows into a record of a fixed size: a
 * format mark, SHA-256 of the rows, and a slot of SLOT bytes per row (a
 * longer value keeps its start and a hash of the whole).  The ranks
 * all-gather it (optinc_comm_allgather_bytes), so nothing is sized from
 * what another rank sends, and what it sends is read only within its slots;
 * ranks of different builds, whose tables differ, still exchange records of
 * this size and are told so (the first row is the program and its table).  Every rank then compares the same records in the
 * same order, so all reach the same verdict and message without another
 * exchange.  The records live on the stack (at most OPTINC_AR_MAX_SERVERS),
 * so the check cannot fail for memory on one rank and leave the others
 * waiting.
 *
 * Left out, since they may differ between ranks:
 *   servers       every rank refuses a count other than the ranks' (trainer.c)
 *   threads       under MPI a rank runs its one server on one thread, and in
 *                 process the weights are the same for any count
 *   out_dir       only rank 0 writes: whether there is one is compared (it
 *                 decides which exchanges run), not where; what --resume
 *                 read from it is compared on its own (train_agree_resume)
 *   data_dir      a folder per machine: what was read from it is compared
 *   cost          the modelled times, which only rank 0 reports; no weight
 *                 depends on them
 *   progress      the caller's callback; a stop asked on any rank stops every
 *                 rank after the same step (optinc_train)
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "optinc/fileio.h"
#include "optinc/onn_aggregate.h"
#include "runtime/train/agree.h"

/* The record's size is part of the protocol between builds: ranks of two
 * builds exchange records only if it is the same, so a new row takes a free
 * slot, and a change of SLOT or SLOTS comes with a new MARK. */
#define SLOT 112                 /* bytes of a row's value, with its NUL */
#define SLOTS 32                 /* rows a record holds */
#define MARK "agree1"            /* the record's format */

/* What the rows print from. */
typedef struct agree_in {
    const optinc_train_config *cfg;
    const optinc_comm *comm;
    const optinc_dataset *train, *test;
    const train_state *s;        /* resume: the state read, when found */
    int found;
    size_t params;
} agree_in;

/* A row: the setting's name, how to print it (from cfg at `at` for the
 * plain ones) and, when not the usual one, how to make the ranks agree. */
typedef struct agree_field {
    const char *name;
    void (*put)(const agree_in *in, size_t at, char *buf, size_t size);
    size_t at;
    const char *fix;             /* NULL: start every rank with the same options */
} agree_field;

/* The record of one rank (all chars: no padding to differ). */
typedef struct record {
    char mark[8];
    unsigned char digest[32];
    char slot[SLOTS][SLOT];
} record;

/* ---- printing the rows --------------------------------------------------- */

#define CFG_AT(in, at, type) (*(const type *)((const char *)(in)->cfg + (at)))

/* The first 8 bytes of a SHA-256 in hex: enough to tell contents apart. */
static void hex16(const unsigned char d[32], char out[17])
{
    for (int i = 0; i < 8; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* SHA-256 of n <= 4 byte ranges (the SHA-256 of their SHA-256s), as hex16. */
static void digest_of(const void *const *part, const size_t *len, int n, char out[17])
{
    unsigned char d[4][32], all[32];
    for (int i = 0; i < n; i++)
        optinc_sha256(part[i], len[i], d[i]);
    optinc_sha256(d, (size_t)n * sizeof d[0], all);
    hex16(all, out);
}

static void put_int(const agree_in *in, size_t at, char *buf, size_t size)
{
    snprintf(buf, size, "%d", CFG_AT(in, at, int));
}

static void put_long(const agree_in *in, size_t at, char *buf, size_t size)
{
    snprintf(buf, size, "%ld", CFG_AT(in, at, long));
}

static void put_u64(const agree_in *in, size_t at, char *buf, size_t size)
{
    snprintf(buf, size, "%llu", (unsigned long long)CFG_AT(in, at, uint64_t));
}

static void put_double(const agree_in *in, size_t at, char *buf, size_t size)
{
    char s[OPTINC_SHORTEST_MAX];
    snprintf(buf, size, "%s", optinc_shortest(s, CFG_AT(in, at, double)));
}

static void put_flag(const agree_in *in, size_t at, char *buf, size_t size)
{
    snprintf(buf, size, "%s", CFG_AT(in, at, int) ? "on" : "off");
}

/* A count where 0 means "all" (the limits) or "never" (--stop-after). */
static void put_limit(const agree_in *in, size_t at, char *buf, size_t size)
{
    int v = CFG_AT(in, at, int);
    snprintf(buf, size, v ? "%d" : "all", v);
}

static void put_never(const agree_in *in, size_t at, char *buf, size_t size)
{
    long v = CFG_AT(in, at, long);
    snprintf(buf, size, v ? "%ld" : "never", v);
}

static void put_schedule(const agree_in *in, size_t at, char *buf, size_t size)
{
    int v = in->cfg->lr_schedule;
    snprintf(buf, size, "%s", v >= OPTINC_LR_CONSTANT && v <= OPTINC_LR_COSINE
                                  ? optinc_lr_schedule_names[v] : "?");
}

static void put_hidden(const agree_in *in, size_t at, char *buf, size_t size)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int l = 0; l < in->cfg->n_hidden && k < size; l++)
        k += (size_t)snprintf(buf + k, size - k, "%s%d", l ? "," : "", in->cfg->hidden[l]);
    if (!in->cfg->n_hidden)
        snprintf(buf, size, "none");
}

static void put_algorithm(const agree_in *in, size_t at, char *buf, size_t size)
{
    snprintf(buf, size, "%s", in->cfg->allreduce->name);
}

static void put_out(const agree_in *in, size_t at, char *buf, size_t size)
{
    snprintf(buf, size, "%s", in->cfg->out_dir[0] ? "a folder" : "none");
}

static void put_timeout(const agree_in *in, size_t at, char *buf, size_t size)
{
    char s[OPTINC_SHORTEST_MAX];
    snprintf(buf, size, "%s s", optinc_shortest(s, in->comm->timeout_s));
}

/* What the trainer reads of the data: the samples after the limits, every
 * pixel and label. */
static void put_data(const agree_in *in, size_t at, char *buf, size_t size)
{
    const optinc_dataset *tr = in->train, *te = in->test;
    const void *part[4] = {tr->images, tr->labels, te->images, te->labels};
    size_t len[4] = {(size_t)tr->n * (size_t)tr->features, (size_t)tr->n,
                     (size_t)te->n * (size_t)te->features, (size_t)te->n};
    char hex[17];
    digest_of(part, len, 4, hex);
    snprintf(buf, size, "%d training and %d test images of %dx%d, sha256 %s", tr->n, te->n,
             tr->rows, tr->cols, hex);
}

static void put_lut(const agree_in *in, size_t at, char *buf, size_t size)
{
    const optinc_agg_lut *t = in->cfg->lut;
    char hex[17];
    if (!t) {
        snprintf(buf, size, "none");
        return;
    }
    digest_of((const void *[]){t->code}, (size_t[]){t->size * sizeof *t->code}, 1, hex);
    snprintf(buf, size, "%zu entries, sha256 %s", t->size, hex);
}

static void put_hist(const agree_in *in, size_t at, char *buf, size_t size)
{
    const optinc_err_hist *h = in->cfg->inject;
    char hex[17];
    if (!h) {
        snprintf(buf, size, "none");
        return;
    }
    digest_of((const void *[]){&h->p_error, h->delta, h->cdf},
              (size_t[]){sizeof h->p_error, (size_t)h->n * sizeof *h->delta,
                         (size_t)h->n * sizeof *h->cdf}, 3, hex);
    snprintf(buf, size, "%d error bins, sha256 %s", h->n, hex);
}

static void put_checkpoint(const agree_in *in, size_t at, char *buf, size_t size)
{
    char hex[17];
    if (!in->found) {
        snprintf(buf, size, "none (no checkpoint.bin in its --out)");
        return;
    }
    digest_of((const void *[]){in->s->w}, (size_t[]){in->params * sizeof *in->s->w}, 1, hex);
    snprintf(buf, size, "the checkpoint of step %ld (weights sha256 %s)", in->s->step, hex);
}

static void put_program(const agree_in *in, size_t at, char *buf, size_t size);

/* ---- the tables ---------------------------------------------------------- */

#define CFG(f) offsetof(optinc_train_config, f)

static const agree_field settings[] = {
    {"optinc", put_program, 0, "run the same optinc on every rank"},
    {"--hidden", put_hidden, 0, NULL},
    {"--limit-train", put_limit, CFG(limit_train), NULL},
    {"--limit-test", put_limit, CFG(limit_test), NULL},
    {"the data (--data)", put_data, 0, "give every rank the same Fashion-MNIST files"},
    {"--allreduce", put_algorithm, 0, NULL},
    {"--bits", put_int, CFG(bits), NULL},
    {"--block-size", put_int, CFG(block_size), NULL},
    {"--error-feedback", put_flag, CFG(error_feedback), NULL},
    {"--stochastic-rounding", put_flag, CFG(stochastic_rounding), NULL},
    {"--lr", put_double, CFG(lr), NULL},
    {"--lr-schedule", put_schedule, 0, NULL},
    {"--momentum", put_double, CFG(momentum), NULL},
    {"--epochs", put_int, CFG(epochs), NULL},
    {"--batch", put_int, CFG(batch), NULL},
    {"--seed", put_u64, CFG(seed), NULL},
    {"--checkpoint-every", put_long, CFG(checkpoint_every), NULL},
    {"--resume", put_flag, CFG(resume), NULL},
    {"--stop-after", put_never, CFG(stop_after), NULL},
    {"--out", put_out, 0, NULL},
    {"--step-timeout", put_timeout, 0, NULL},
    /* derived from the rows above (the chip's seed is the run's unless given) */
    {"the ONN's table (--onn, --chip, --phase-sigma, --programmed, --chip-seed, --calibrate)",
     put_lut, 0, "give every rank the same ONN and chip options"},
    {"--inject-errors", put_hist, 0, "give every rank the same histogram"},
};

static const agree_field resumed[] = {
    {"--resume", put_checkpoint, 0,
     "give every rank's --out the same checkpoint.bin, or leave out --resume"},
};

#define N_ROWS(t) ((int)(sizeof t / sizeof t[0]))
_Static_assert(N_ROWS(settings) <= SLOTS && N_ROWS(resumed) <= SLOTS, "a record's slots");

/* The program and its table: ranks of other builds compare other rows. */
static void put_program(const agree_in *in, size_t at, char *buf, size_t size)
{
    char names[4096], hex[17];
    size_t k = 0;
    for (int i = 0; i < N_ROWS(settings) && k < sizeof names; i++)
        k += (size_t)snprintf(names + k, sizeof names - k, "%s;", settings[i].name);
    digest_of((const void *[]){names}, (size_t[]){strlen(names)}, 1, hex);
    snprintf(buf, size, "%s (settings table %s)", OPTINC_VERSION, hex);
}

/* ---- the check ----------------------------------------------------------- */

/* This rank's record of the n rows of f. */
static void fill(record *r, const agree_field *f, int n, const agree_in *in)
{
    memset(r, 0, sizeof *r);
    memcpy(r->mark, MARK, sizeof MARK);
    for (int i = 0; i < n; i++) {
        char text[1024], hex[17];
        f[i].put(in, f[i].at, text, sizeof text);
        if (strlen(text) < SLOT) {
            memcpy(r->slot[i], text, strlen(text));
            continue;
        }
        digest_of((const void *[]){text}, (size_t[]){strlen(text)}, 1, hex);
        snprintf(r->slot[i], SLOT, "%.*s... (sha256 %s)", SLOT - 32, text, hex);
    }
    optinc_sha256(r->slot, sizeof r->slot, r->digest);
}

/* The verdict on the gathered records of N ranks, the same on every rank:
 * the first row (then the first rank) that differs from rank 0's. */
static optinc_status compare(record *all, int N, const agree_field *f, int n,
                             optinc_error *err)
{
    const char *same = "start every rank with the same options";
    int differ = 0;
    for (int q = 0; q < N; q++)          /* another rank's text ends in its slot */
        for (int i = 0; i < SLOTS; i++)
            all[q].slot[i][SLOT - 1] = '\0';
    for (int q = 1; q < N; q++) {
        if (memcmp(all[q].mark, all[0].mark, sizeof all[0].mark))
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "rank %d checks its settings "
                               "in another format than rank 0: run the same optinc on every "
                               "rank", q);
        differ |= memcmp(all[q].digest, all[0].digest, sizeof all[0].digest) != 0;
    }
    for (int i = 0; differ && i < n; i++)
        for (int q = 1; q < N; q++)
            if (strcmp(all[q].slot[i], all[0].slot[i]))
                return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "ranks disagree on %s: "
                                   "rank 0 has %s, rank %d has %s; %s", f[i].name,
                                   all[0].slot[i], q, all[q].slot[i],
                                   f[i].fix ? f[i].fix : same);
    if (differ)                          /* equal rows, another digest: another build */
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "ranks disagree on their settings, "
                           "though every value reads the same: run the same optinc on every "
                           "rank");
    return OPTINC_OK;
}

/* Collective: the ranks all-gather their records of the rows of f and
 * compare them; `what` names the exchange for the watchdog. */
static optinc_status agree_on(optinc_comm *comm, const agree_field *f, int n,
                              const agree_in *in, const char *what, optinc_error *err)
{
    if (comm->count == comm->servers || comm->servers > OPTINC_AR_MAX_SERVERS)
        return OPTINC_OK;        /* one process; the backend refuses more ranks */
    record mine, all[OPTINC_AR_MAX_SERVERS];
    fill(&mine, f, n, in);
    optinc_status st = optinc_comm_allgather_bytes(comm, &mine, all, sizeof mine, what, err);
    return st ? st : compare(all, comm->servers, f, n, err);
}

optinc_status train_agree_settings(const optinc_train_config *cfg, optinc_comm *comm,
                                   const optinc_dataset *train, const optinc_dataset *test,
                                   optinc_error *err)
{
    agree_in in = {cfg, comm, train, test, NULL, 0, 0};
    return agree_on(comm, settings, N_ROWS(settings), &in, "check that the ranks' settings "
                    "agree", err);
}

optinc_status train_agree_resume(const optinc_train_config *cfg, optinc_comm *comm,
                                 const train_state *s, int found, size_t params,
                                 optinc_error *err)
{
    agree_in in = {cfg, comm, NULL, NULL, s, found, params};
    return agree_on(comm, resumed, N_ROWS(resumed), &in, "check that the ranks resumed alike",
                    err);
}
