/*
 * trainutil.h - a small synthetic IDX data set for the trainer tests, so
 * they run in seconds and without the Fashion-MNIST package.
 *
 * Four classes of 8x8 images: class k lights quadrant k (pixels 160..255)
 * over noise (0..95), drawn from a fixed generator.  The files are written
 * uncompressed under the Fashion-MNIST names (gzread reads plain files).
 * And a small compiled ONN to aggregate with, how to start mpirun, and when
 * the MPI tests cannot run.
 */
#ifndef OPTINC_TRAINUTIL_H
#define OPTINC_TRAINUTIL_H

#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "optinc/onn.h"
#include "testutil.h"

static inline void tr_u32(FILE *f, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 8), (unsigned char)v};
    fwrite(b, 1, 4, f);
}

/* Writes split ("train" or "t10k") of n samples into dir; 0 on success. */
static inline int tr_write_split(const char *dir, const char *split, int n, uint32_t seed)
{
    char path[4200];
    uint32_t x = seed * 2654435761u + 1;
    snprintf(path, sizeof path, "%s/%s-images-idx3-ubyte.gz", dir, split);
    FILE *fi = fopen(path, "wb");
    snprintf(path, sizeof path, "%s/%s-labels-idx1-ubyte.gz", dir, split);
    FILE *fl = fopen(path, "wb");
    if (!fi || !fl)
        return -1;
    tr_u32(fi, 0x803);
    tr_u32(fi, (uint32_t)n);
    tr_u32(fi, 8);
    tr_u32(fi, 8);
    tr_u32(fl, 0x801);
    tr_u32(fl, (uint32_t)n);
    for (int i = 0; i < n; i++) {
        int k = i % 4;
        unsigned char px[64];
        for (int r = 0; r < 8; r++)
            for (int c = 0; c < 8; c++) {
                x = x * 1664525u + 1013904223u;
                int lit = (r / 4) * 2 + c / 4 == k;
                px[r * 8 + c] = (unsigned char)((lit ? 160 : 0) + (x >> 24) % 96);
            }
        fwrite(px, 1, 64, fi);
        fputc(k, fl);
    }
    return (fclose(fi) | fclose(fl)) ? -1 : 0;
}

/* A temporary folder with 512 training and 128 test samples; free() it. */
static inline char *tr_dataset(void)
{
    char *dir = tu_tempdir();
    if (dir && (tr_write_split(dir, "train", 512, 1) || tr_write_split(dir, "t10k", 128, 2))) {
        tu_rmtree(dir);
        free(dir);
        return NULL;
    }
    return dir;
}

/* A test's data set (tr_dataset) in *dir and an empty folder for its
 * outputs in *out: the .init of the trainer's tests; fails the test when
 * they cannot be made. */
static inline void tr_scratch_open(char **dir, char **out)
{
    *dir = tr_dataset();
    *out = tu_tempdir();
    if (!*dir || !*out)
        cr_assert_fail("no scratch data");
}

/* Removes and frees what tr_scratch_open() made: the tests' .fini. */
static inline void tr_scratch_close(char *dir, char *out)
{
    tu_rmtree(dir);
    tu_rmtree(out);
    free(dir);
    free(out);
}

/* Trains a small ONN for 4 servers of 4-bit codes (169 P outputs; 12-12
 * hidden, 300 epochs: imperfect on purpose, so that its errors show) and
 * exports it as the spec dir/onn44.yaml (compiled when loaded), whose path
 * goes to path; 0 on success. */
static inline int tr_tiny_onn(const char *dir, char *path, size_t size)
{
    optinc_error err;
    optinc_onn_task t;
    optinc_onn net;
    optinc_onn_train_opts o;
    optinc_onn_train_result r;
    int hidden[2] = {12, 12};
    optinc_onn_export_opts eo = {"onn44", 0, 1, 0, 4, 4, NULL};
    snprintf(path, size, "%s/onn44.yaml", dir);
    if (optinc_onn_task_unit(&t, 4, 4, OPTINC_P_DIGIT_SUMS, OPTINC_ROUND_HALF_EVEN, &err) ||
        optinc_onn_alloc(&net, &t, hidden, 2, NULL, &err))
        return -1;
    optinc_onn_train_defaults(&o);
    o.max_epochs = 300;
    int bad = optinc_onn_train(&net, &o, 0, &r, &err) || optinc_onn_export(&net, path, &eo, &err);
    optinc_onn_free(&net);
    return bad ? -1 : 0;
}

/* The value of "key": in a JSON line, as text up to the next , or } (NULL
 * when absent); static buffer. */
static inline const char *tr_json(const char *json, const char *key)
{
    static char buf[256];
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = json ? strstr(json, pat) : NULL;
    if (!p)
        return NULL;
    p += strlen(pat);
    size_t n = strcspn(p, ",}");
    snprintf(buf, sizeof buf, "%.*s", (int)n, p);
    return buf;
}

/* mpirun on PATH, as an absolute path (posix_spawn does not search); NULL
 * when there is none. */
static inline const char *tr_mpirun(void)
{
    static char found[4200];
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t len = strcspn(path, ":");
        snprintf(found, sizeof found, "%.*s/mpirun", (int)len, path);
        if (len && access(found, X_OK) == 0)
            return found;
        path += len + (path[len] == ':');
    }
    return NULL;
}

/* Skips the calling test, saying why, when this build has no MPI backend or
 * mpirun is not on PATH. */
static inline void tr_need_mpi(void)
{
#ifndef OPTINC_HAVE_MPI
    cr_skip_test("this optinc was built without MPI (install libopenmpi-dev and rebuild)");
#endif
    if (!tr_mpirun())
        cr_skip_test("mpirun not found: install openmpi-bin");
}

/* The session folder of the running mpirun (one at a time per process). */
static inline char **tr_mpi_session(void)
{
    static char *dir;
    return &dir;
}

/* tu_start() for an mpirun command line; finish it with tr_wait_within().
 * OpenMPI's own allocations outlive MPI_Finalize, so under the sanitizer
 * build leak checking is off for it.  Each mpirun gets its own session folder
 * (orte_tmpdir_base): mpiruns started at the same moment, by parallel tests
 * or other users, otherwise race to create and remove /tmp/ompi.HOST.UID and
 * one fails with "mkdir ... File exists". */
static inline tu_run tr_start_mpi(const char *const *argv)
{
    const char *lsan = getenv("LSAN_OPTIONS");
    char *saved = lsan ? strdup(lsan) : NULL;
    char **session = tr_mpi_session();
    *session = tu_tempdir();
    setenv("LSAN_OPTIONS", "detect_leaks=0", 1);
    if (*session)
        setenv("OMPI_MCA_orte_tmpdir_base", *session, 1);
    tu_run r = tu_start((char *const *)argv);
    unsetenv("OMPI_MCA_orte_tmpdir_base");
    if (saved)
        setenv("LSAN_OPTIONS", saved, 1);
    else
        unsetenv("LSAN_OPTIONS");
    free(saved);
    return r;
}

/* tu_wait() that gives up after `seconds`: the program is then terminated
 * (SIGTERM, which mpirun passes on to its ranks, then SIGKILL) and 0 is
 * returned; 1 when it ended by itself in time.  A guard against hangs, not a
 * measurement.  Removes the session folder of tr_start_mpi(). */
static inline int tr_wait_within(tu_run *r, int seconds)
{
    int ws, in_time = 1;
    struct timespec tick = {0, 50000000};
    for (long waited = 0; r->pid_ > 0; waited += 50) {
        pid_t got = waitpid(r->pid_, &ws, WNOHANG);
        if (got == r->pid_) {
            r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
            r->pid_ = -1;
        } else if (got < 0) {
            r->pid_ = -1;
        } else if (waited == 1000L * seconds) {
            in_time = 0;
            kill(r->pid_, SIGTERM);
        } else if (waited == 1000L * seconds + 5000) {
            kill(r->pid_, SIGKILL);
        } else {
            nanosleep(&tick, NULL);
        }
    }
    tu_wait(r);
    char **session = tr_mpi_session();
    if (*session) {
        tu_rmtree(*session);
        free(*session);
        *session = NULL;
    }
    return in_time;
}

#endif
