/*
 * checkpoint.c - checkpoint.bin, the state of a training run after a step,
 * from which `optinc train --resume` goes on with the same bits as an
 * uninterrupted run.
 *
 * The file, in the byte order of the machine that wrote it (a checkpoint
 * resumes where it was written):
 *
 *   "OPTINCK2"        8 bytes: the magic, whose last character is the
 *                     format version (2; "OPTINCK1" files had no checksum)
 *   settings         32 bytes: SHA-256 of the settings it must resume with
 *   step, P          uint64 each: steps done, parameters
 *   w, v             P float32 each: the weights and the velocities
 *   residuals        N x P float32, server by server: the error feedback
 *                    residuals, only in a run with error feedback (whose
 *                    settings say so, so the settings fix the layout)
 *   sums             3 doubles: the epoch's loss, correct and samples so far
 *   stats            optinc_ar_stats twice: whole run, and at the epoch's start
 *   n                int32: finished epochs, then their n metrics rows
 *   checksum         32 bytes: SHA-256 of every byte before it
 *
 * Why a checksum of the whole file.  Every field but the weights is checked
 * for sense, and the weights cannot be: a byte flipped in the middle of w
 * would resume from other weights and train on without a word.  The
 * checksum catches any change (a byte flipped anywhere, a file cut short or
 * grown), and is checked before any field is believed.  A format-1 file is
 * refused: without a checksum it cannot be trusted, and the run restarts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "optinc/fileio.h"
#include "optinc/text.h"
#include "runtime/train/checkpoint.h"

#define MAGIC "OPTINCK"        /* then the version character */
#define VERSION '2'
#define HIST_MAX (1 << 20)     /* finished epochs: more than the trainer's 10^6 epochs */

int train_state_reserve(train_state *s, int n)
{
    if (n <= s->cap_hist)
        return 0;
    optinc_train_epoch *h = realloc(s->hist, (size_t)n * sizeof *h);
    if (!h)
        return -1;
    /* Zeroed, padding included: whole entries go into checkpoint.bin, and
     * uninitialised padding would make checkpoints differ byte for byte. */
    memset(h + s->cap_hist, 0, (size_t)(n - s->cap_hist) * sizeof *h);
    s->hist = h;
    s->cap_hist = n;
    return 0;
}

/* Bytes of a checkpoint of params weights, `resid` residuals and n
 * finished epochs. */
static size_t file_size(size_t params, size_t resid, size_t n)
{
    return 8 + 32 + 2 * sizeof(uint64_t) + (2 * params + resid) * sizeof(float) +
           3 * sizeof(double) +
           2 * sizeof(optinc_ar_stats) + sizeof(int32_t) + n * sizeof(optinc_train_epoch) + 32;
}

/* src may be NULL when n is 0 (a run without residuals), which memcpy
 * does not allow. */
static unsigned char *put(unsigned char *p, const void *src, size_t n)
{
    if (n)
        memcpy(p, src, n);
    return p + n;
}

optinc_status train_checkpoint_write(const char *path, const train_state *s, size_t params,
                                     const uint8_t settings[32], optinc_error *err)
{
    size_t len = file_size(params, s->n_resid, (size_t)s->n_hist);
    unsigned char *bytes = malloc(len), *p = bytes;
    if (!bytes)
        return optinc_fail(err, OPTINC_ERUN, path, 0, 0, "out of memory for the checkpoint");
    uint64_t step = (uint64_t)s->step, P = params;
    int32_t n = s->n_hist;
    double sums[3] = {s->loss_sum, s->correct, s->samples};
    const char magic[8] = {MAGIC[0], MAGIC[1], MAGIC[2], MAGIC[3], MAGIC[4], MAGIC[5], MAGIC[6],
                           VERSION};
    p = put(p, magic, 8);
    p = put(p, settings, 32);
    p = put(p, &step, sizeof step);
    p = put(p, &P, sizeof P);
    p = put(p, s->w, params * sizeof(float));
    p = put(p, s->v, params * sizeof(float));
    p = put(p, s->resid, s->n_resid * sizeof(float));
    p = put(p, sums, sizeof sums);
    p = put(p, &s->stats, sizeof s->stats);
    p = put(p, &s->epoch_start, sizeof s->epoch_start);
    p = put(p, &n, sizeof n);
    p = put(p, s->hist, (size_t)n * sizeof *s->hist);
    optinc_sha256(bytes, (size_t)(p - bytes), p);
    optinc_out o;
    optinc_status st = optinc_out_open(&o, path, err);
    if (!st) {
        fwrite(bytes, 1, len, o.f);
        st = optinc_out_commit(&o, err);
    }
    free(bytes);
    return st;
}

/* The fields after the checksum has vouched for them. */
typedef struct cursor {
    const unsigned char *p;
    size_t left;
} cursor;

static int take(cursor *c, void *dst, size_t n)
{
    if (c->left < n)
        return -1;
    if (n)
        memcpy(dst, c->p, n);
    c->p += n;
    c->left -= n;
    return 0;
}

static optinc_status refuse(const char *path, const char *why, optinc_error *err)
{
    return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "%s", why);
}

static optinc_status decode(const optinc_blob *b, size_t params, const uint8_t settings[32],
                            train_state *s, optinc_error *err)
{
    const unsigned char *d = (const unsigned char *)b->data;
    unsigned char sum[32];
    if (b->len < 8 || memcmp(d, MAGIC, 7))
        return refuse(b->name, "not an optinc checkpoint (it does not start with \"" MAGIC
                      "\"): remove it to start afresh", err);
    if (d[7] == '1')
        return refuse(b->name, "a checkpoint of an older optinc (format 1, without a "
                      "checksum), which cannot be trusted: remove it and rerun without "
                      "--resume, which starts from step 0", err);
    if (d[7] != VERSION)
        return optinc_fail(err, OPTINC_EINPUT, b->name, 0, 0, "a checkpoint of format '%c', "
                           "which this optinc does not read: resume with the optinc that "
                           "wrote it, or remove it to start afresh", d[7]);
    if (b->len < file_size(0, 0, 0))
        return refuse(b->name, "a checkpoint cut short: remove it to start afresh", err);
    optinc_sha256(d, b->len - 32, sum);
    if (memcmp(sum, d + b->len - 32, 32))
        return refuse(b->name, "a damaged checkpoint: its checksum does not match its bytes "
                      "(cut short, grown or altered): remove it to start afresh", err);
    cursor c = {d + 8, b->len - 8 - 32};
    uint8_t h[32];
    uint64_t step = 0, P = 0;   /* the length check above makes the first takes succeed */
    int32_t n = 0;
    double sums[3];
    take(&c, h, 32);
    take(&c, &step, sizeof step);
    take(&c, &P, sizeof P);
    if (memcmp(h, settings, 32) || P != params)
        return refuse(b->name, "this checkpoint was written by a run with other settings "
                      "(servers, batch, model, learning rate or its schedule, seed, all-reduce, "
                      "ONN or data; a cosine schedule also fixes the epochs): "
                      "rerun with the same options, or remove it to start afresh", err);
    int ok = !take(&c, s->w, params * sizeof(float)) && !take(&c, s->v, params * sizeof(float)) &&
             !take(&c, s->resid, s->n_resid * sizeof(float)) && !take(&c, sums, sizeof sums) && !take(&c, &s->stats, sizeof s->stats) &&
             !take(&c, &s->epoch_start, sizeof s->epoch_start) && !take(&c, &n, sizeof n) &&
             n >= 0 && n < HIST_MAX && c.left == (size_t)n * sizeof *s->hist;
    if (ok && train_state_reserve(s, n))
        return optinc_fail(err, OPTINC_ERUN, b->name, 0, 0, "out of memory for the checkpoint");
    if (!ok || take(&c, s->hist, (size_t)n * sizeof *s->hist))
        return refuse(b->name, "not a complete optinc checkpoint: remove it to start afresh",
                      err);
    s->step = (long)step;
    s->loss_sum = sums[0];
    s->correct = sums[1];
    s->samples = sums[2];
    s->n_hist = n;
    return OPTINC_OK;
}

optinc_status train_checkpoint_read(const char *path, size_t params, const uint8_t settings[32],
                                    train_state *s, int *found, optinc_error *err)
{
    struct stat sb;
    *found = 0;
    if (lstat(path, &sb) != 0 && errno == ENOENT)
        return OPTINC_OK;
    /* Read whole and without blocking: a FIFO or a device is refused. */
    optinc_blob b;
    optinc_status st = optinc_blob_read(path, file_size(params, s->n_resid, HIST_MAX), "checkpoint", &b,
                                        err);
    if (st)
        return st;
    st = decode(&b, params, settings, s, err);
    optinc_blob_free(&b);
    *found = !st;
    return st;
}
