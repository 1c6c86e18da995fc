/*
 * test_train.c - the data-parallel trainer and `optinc train` on a small
 * synthetic data set: learning, determinism, bytes per epoch against the
 * formulas, --resume after an interruption giving the identical result,
 * files, plots, and bad input.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "optinc/dataset.h"
#include "optinc/fileio.h"
#include "optinc/train.h"
#include "trainutil.h"

/* "$OPTINC train --data DIR <small model> extra..." */
static tu_run train(const char *dir, const char *const *extra)
{
    const char *args[64] = {"train", "--data", dir, "--hidden", "16", "--batch", "8",
                            "--epochs", "3", "--json", "--quiet"};
    int n = 11;
    for (int i = 0; extra && extra[i] && n < 63; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    return tu_optinc(args);
}

static char *sha_of(const char *json)
{
    const char *v = tr_json(json, "weights_sha256");
    return v ? strdup(v) : NULL;
}

Test(train, learns_and_reports_json)
{
    char *dir = tr_dataset();
    cr_assert(dir);
    const char *kinds[] = {"ring", "optinc", "exact", "quantized"};
    for (int k = 0; k < 4; k++) {
        /* --onn is refused where no ONN aggregates: the list ends before it */
        const char *onn = strcmp(kinds[k], "optinc") ? NULL : "--onn";
        tu_run r = train(dir, (const char *[]){"--allreduce", kinds[k], onn, "exact", NULL});
        cr_assert_eq(r.status, 0, "%s: %s", kinds[k], r.err);
        double acc = atof(tr_json(r.out, "test_accuracy"));
        cr_assert_gt(acc, 0.9, "%s: test accuracy %g", kinds[k], acc);
        cr_assert(tr_json(r.out, "train_loss"));
        cr_assert_eq(strlen(tr_json(r.out, "weights_sha256")), 66);   /* with quotes */
        /* 784 -> here 64 inputs, 16 hidden, 4 classes: P = 64*16+16 + 16*4+4 = 1108;
         * 16 steps per epoch, 48 steps */
        cr_assert_str_eq(tr_json(r.out, "params"), "1108");
        cr_assert_str_eq(tr_json(r.out, "steps"), "48");
        unsigned long long bytes = strtoull(tr_json(r.out, "bytes_sent_per_server"), NULL, 10);
        unsigned long long want[4] = {48ull * 2 * 3 * 277 * 4, 48ull * (1108 + 2 * 4),
                                      48ull * 1108 * 4, 48ull * (1108 + 2 * 4)};
        cr_assert_eq(bytes, want[k], "%s: %llu bytes", kinds[k], bytes);
        tu_run_free(&r);
    }
    tu_rmtree(dir);
    free(dir);
}

/* sha256 of the weights: exact, the same seed twice on one build and
 * machine (BLAS on one thread) gives the same bits. */
Test(train, same_seed_same_bits)
{
    char *dir = tr_dataset();
    char onn[4200];
    cr_assert_eq(tr_tiny_onn(dir, onn, sizeof onn), 0);
    const char *o[] = {"--allreduce", "optinc", "--onn", onn, "--bits", "4", "--seed", "5", NULL};
    tu_run a = train(dir, o), b = train(dir, o);
    o[7] = "6";
    tu_run c = train(dir, o);
    cr_assert_eq(a.status + b.status + c.status, 0, "%s", c.err);
    char *sa = sha_of(a.out), *sb = sha_of(b.out), *sc = sha_of(c.out);
    cr_assert_str_eq(sa, sb);
    cr_assert_str_neq(sa, sc);
    free(sa);
    free(sb);
    free(sc);
    tu_run_free(&a);
    tu_run_free(&b);
    tu_run_free(&c);
    tu_rmtree(dir);
    free(dir);
}

/* An interrupted run resumed from its last checkpoint ends with the same
 * weights and the same metrics file as an uninterrupted one: the same bits,
 * as the checkpoint holds the state's bits and the steps run alike. */
Test(train, resume_gives_identical_result)
{
    char *dir = tr_dataset(), *full = tu_tempdir(), *cut = tu_tempdir();
    const char *kinds[] = {"ring", "optinc"};
    for (int k = 0; k < 2; k++) {
        const char *onn = k ? "--onn" : NULL;   /* the ring takes no ONN */
        tu_run a = train(dir, (const char *[]){"--allreduce", kinds[k], "--out", full,
                                               "--checkpoint-every", "5", onn, "exact", NULL});
        tu_run b = train(dir, (const char *[]){"--allreduce", kinds[k], "--out", cut,
                                               "--checkpoint-every", "5", "--stop-after", "23",
                                               onn, "exact", NULL});
        cr_assert_eq(a.status + b.status, 0, "%s%s", a.err, b.err);
        cr_assert_str_eq(tr_json(b.out, "stopped"), "true");
        tu_run c = train(dir, (const char *[]){"--allreduce", kinds[k], "--out", cut,
                                               "--checkpoint-every", "5", "--resume", onn,
                                               "exact", NULL});
        cr_assert_eq(c.status, 0, "%s", c.err);
        cr_assert_str_eq(tr_json(c.out, "resumed_from"), "20");
        char *sa = sha_of(a.out), *sc = sha_of(c.out);
        cr_assert_str_eq(sa, sc, "%s", kinds[k]);
        char pa[4200], pc[4200];
        snprintf(pa, sizeof pa, "%s/metrics.csv", full);
        snprintf(pc, sizeof pc, "%s/metrics.csv", cut);
        char *ma = tu_read_file(pa, NULL), *mc = tu_read_file(pc, NULL);
        cr_assert(ma && mc);
        cr_assert_str_eq(ma, mc);
        /* weights.f32 hashes to weights_sha256 */
        size_t len;
        snprintf(pa, sizeof pa, "%s/weights.f32", full);
        char *w = tu_read_file(pa, &len);
        cr_assert_eq(len, 1108 * 4);
        unsigned char h[32];
        char hex[70] = "\"";
        optinc_sha256(w, len, h);
        for (int i = 0; i < 32; i++)
            snprintf(hex + 1 + 2 * i, 3, "%02x", h[i]);
        strcat(hex, "\"");
        cr_assert_str_eq(hex, sa);
        free(w);
        free(ma);
        free(mc);
        free(sa);
        free(sc);
        tu_run_free(&a);
        tu_run_free(&b);
        tu_run_free(&c);
    }
    /* a checkpoint of other settings is refused */
    tu_run d = train(dir, (const char *[]){"--allreduce", "optinc", "--onn", "exact", "--lr",
                                           "0.01", "--out", cut, "--resume", NULL});
    cr_assert_eq(d.status, 2);
    cr_assert(strstr(d.err, "other settings"), "%s", d.err);
    tu_run_free(&d);
    tu_rmtree(dir);
    tu_rmtree(full);
    tu_rmtree(cut);
    free(dir);
    free(full);
    free(cut);
}

/* A checkpoint that is not exactly what a run wrote is refused, with its
 * name, exit 2: cut short, grown, a byte flipped first, in the middle (the
 * weights, which nothing else would notice) or last, empty, a checkpoint of
 * the format without a checksum, a FIFO (without waiting for a writer).
 * The intact one still resumes. */
Test(train, damaged_checkpoints_are_refused, .timeout = 120)
{
    char *dir = tr_dataset(), *out = tu_tempdir(), path[4200];
    const char *const run[] = {"--allreduce", "ring", "--out", out, "--checkpoint-every", "5",
                               "--stop-after", "23", NULL};
    const char *const resume[] = {"--allreduce", "ring", "--out", out, "--checkpoint-every",
                                  "5", "--resume", NULL};
    tu_run a = train(dir, run);
    cr_assert_eq(a.status, 0, "%s", a.err);
    tu_run_free(&a);
    snprintf(path, sizeof path, "%s/checkpoint.bin", out);
    size_t len = 0;
    char *good = tu_read_file(path, &len), *bad = malloc(len + 1);
    cr_assert(good && bad && len > 8000, "%zu bytes", len);
    cr_assert(!memcmp(good, "OPTINCK2", 8));
    struct {
        const char *what;
        size_t at, len;         /* the byte flipped (len: none), the length written */
        const char *message;
    } cases[] = {
        {"cut by one byte", len, len - 1, "a damaged checkpoint: its checksum does not match"},
        {"cut in half", len, len / 2, "a checkpoint cut short"},
        {"grown by one byte", len, len + 1, "a damaged checkpoint"},
        {"first byte flipped", 0, len, "not an optinc checkpoint"},
        {"middle byte flipped", len / 2, len, "a damaged checkpoint"},
        {"last byte flipped", len - 1, len, "a damaged checkpoint"},
        {"empty", len, 0, "not an optinc checkpoint"},
        {"format 1", 7, len, "a checkpoint of an older optinc (format 1, without a checksum)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(bad, good, len);
        bad[len] = 'x';
        if (cases[i].at < len)
            bad[cases[i].at] = i == 7 ? '1' : (char)(bad[cases[i].at] ^ 0x20);
        cr_assert_eq(tu_write_bytes(path, bad, cases[i].len), 0);
        tu_run r = train(dir, resume);
        char want[4600];
        snprintf(want, sizeof want, "%s: error: %s", path, cases[i].message);
        cr_expect_eq(r.status, 2, "%s: exit %d: %s", cases[i].what, r.status, r.err);
        cr_expect(strstr(r.err, want), "%s: %s", cases[i].what, r.err);
        tu_run_free(&r);
    }
    unlink(path);
    cr_assert_eq(mkfifo(path, 0600), 0);
    tu_run r = train(dir, resume);
    cr_expect_eq(r.status, 2, "FIFO: exit %d: %s", r.status, r.err);
    cr_expect(strstr(r.err, "is not a regular file"), "FIFO: %s", r.err);
    tu_run_free(&r);
    unlink(path);
    cr_assert_eq(tu_write_bytes(path, good, len), 0);
    r = train(dir, resume);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(tr_json(r.out, "resumed_from"), "20");
    tu_run_free(&r);
    free(good);
    free(bad);
    tu_rmtree(dir);
    tu_rmtree(out);
    free(dir);
    free(out);
}

/* SIGINT or SIGTERM during an in-process run ends it after the step under
 * way with a checkpoint of that step, says where it is, and exits 130 or
 * 143; resuming goes on from that very step. */
Test(train, signals_stop_with_a_checkpoint, .timeout = 240)
{
    char *dir = tr_dataset(), *out = tu_tempdir(), path[4200];
    snprintf(path, sizeof path, "%s/checkpoint.bin", out);
    const int sigs[] = {SIGINT, SIGTERM};
    for (int k = 0; k < 2; k++) {
        unlink(path);
        const char *args[] = {"train", "--data", dir, "--hidden", "16", "--batch", "8",
                              "--epochs", "100000", "--quiet", "--allreduce", "ring", "--out",
                              out, "--checkpoint-every", "7", NULL};
        tu_run r = tu_optinc_start(args);
        for (int t = 0; t < 60000 && access(path, R_OK); t++)
            usleep(1000);
        cr_assert_eq(access(path, R_OK), 0, "no checkpoint within 60 s");
        usleep(20000);
        kill(r.pid_, sigs[k]);
        tu_wait(&r);
        cr_expect_eq(r.status, 128 + sigs[k], "exit %d: %s", r.status, r.err);
        long step = 0;
        char want[4400];
        const char *at = strstr(r.err, "optinc train: stopped by ");
        const char *after = at ? strstr(at, "after step ") : NULL;
        cr_assert(after && sscanf(after, "after step %ld", &step) == 1 && step >= 7, "%s",
                  r.err);
        snprintf(want, sizeof want, "optinc train: stopped by %s after step %ld; the "
                 "checkpoint of step %ld is %s: rerun with --resume to go on\n",
                 k ? "SIGTERM" : "SIGINT", step, step, path);
        cr_expect_str_eq(r.err, want);
        tu_run_free(&r);
        char stop[32];
        snprintf(stop, sizeof stop, "%ld", step + 1);
        tu_run c = train(dir, (const char *[]){"--allreduce", "ring", "--out", out,
                                               "--checkpoint-every", "7", "--epochs", "100000",
                                               "--resume", "--stop-after", stop, NULL});
        cr_expect_eq(c.status, 0, "%s", c.err);
        char from[32];
        snprintf(from, sizeof from, "%ld", step);
        cr_expect_str_eq(tr_json(c.out, "resumed_from"), from);
        tu_run_free(&c);
    }
    tu_rmtree(dir);
    tu_rmtree(out);
    free(dir);
    free(out);
}

Test(train, metrics_csv_and_plots)
{
    char *dir = tr_dataset(), *out = tu_tempdir();
    tu_run r = train(dir, (const char *[]){"--allreduce", "ring", "--out", out, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    char path[4200];
    snprintf(path, sizeof path, "%s/metrics.csv", out);
    char *csv = tu_read_file(path, NULL);
    cr_assert(csv);
    cr_assert(!strncmp(csv, "epoch,step,train_loss,train_accuracy,test_accuracy,"
                            "bytes_sent_per_server,comm_time_s,injected_errors\n", 98));
    int rows = 0;
    for (char *p = csv; (p = strchr(p, '\n')); p++)
        rows++;
    cr_assert_eq(rows, 4);
    /* epoch 2: 16 steps of ring traffic, 2 (N-1) chunks of 277 floats */
    cr_assert(strstr(csv, "\n2,32,"));
    cr_assert(strstr(csv, ",106368,"), "%s", csv);
    free(csv);
    if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
        const char *files[] = {"curves.gp", "curves.svg", "curves.png"};
        for (int i = 0; i < 3; i++) {
            size_t len = 0;
            snprintf(path, sizeof path, "%s/%s", out, files[i]);
            char *f = tu_read_file(path, &len);
            cr_assert(f && len > 100, "%s", files[i]);
            free(f);
        }
    }
    tu_run_free(&r);
    tu_rmtree(dir);
    tu_rmtree(out);
    free(dir);
    free(out);
}

/* The script and the two pictures land together: a gnuplot that fails on
 * the PNG leaves none of the three, and the old SVG as it was. */
Test(train, plots_land_as_a_set)
{
    char *dir = tr_dataset(), *out = tu_tempdir(), *bin = tu_tempdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/gnuplot", bin);
    cr_assert_eq(tu_write_file(path, "#!/bin/sh\ncase \"$2\" in *png*) exit 1;; esac\n"
                                     "printf '%0300d' 0\n"), 0);
    cr_assert_eq(chmod(path, 0755), 0);
    char env[8192];
    snprintf(env, sizeof env, "%s:%s", bin, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", env, 1);
    snprintf(path, sizeof path, "%s/curves.svg", out);
    cr_assert_eq(tu_write_file(path, "old"), 0);
    tu_run r = train(dir, (const char *[]){"--allreduce", "ring", "--out", out, NULL});
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "no plot was written"), "%s", r.err);
    char *svg = tu_read_file(path, NULL);
    cr_expect(svg && !strcmp(svg, "old"));
    free(svg);
    const char *gone[] = {"curves.gp", "curves.png"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", out, gone[i]);
        cr_expect_neq(access(path, F_OK), 0, "%s was written", gone[i]);
    }
    DIR *d = opendir(out);
    cr_assert(d);
    for (struct dirent *e; (e = readdir(d));)
        cr_expect(e->d_name[0] != '.' || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."),
                  "temporary %s left", e->d_name);
    closedir(d);
    tu_run_free(&r);
    tu_rmtree(dir);
    tu_rmtree(out);
    tu_rmtree(bin);
    free(dir);
    free(out);
    free(bin);
}

Test(train, command_line)
{
    tu_run r = tu_optinc((const char *[]){"train", "--help", NULL});
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "usage: optinc train"));
    tu_run_free(&r);
    const char *bad[][4] = {{"--allreduce", "tree", NULL}, {"--servers", "0", NULL},
                            {"--bits", "7", NULL},          {"--resume", NULL},
                            {"--backend", "tcp", NULL},     {"--frobnicate", NULL},
                            {"--lr", "-1", NULL},           {"a.yaml", "b.yaml", NULL},
                            {"--step-timeout", "-1", NULL}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args[6] = {"train"};
        for (int k = 0; bad[i][k]; k++)
            args[k + 1] = bad[i][k];
        r = tu_optinc(args);
        cr_assert_eq(r.status, 2, "case %zu", i);
        cr_assert(strstr(r.err, "optinc train: error:"), "%s", r.err);
        tu_run_free(&r);
    }
    /* a model too big to hold is refused before anything is allocated */
    r = tu_optinc((const char *[]){"train", "--hidden", "65536,65536", "--epochs", "1", NULL});
    cr_assert_eq(r.status, 2, "%s", r.err);
    cr_assert(strstr(r.err, "optinc train: error: the model has 4347133962 parameters, more "
                            "than the 268435456 training takes"), "%s", r.err);
    tu_run_free(&r);
    /* a malformed test fault is refused, not ignored */
    setenv("OPTINC_TEST_FAULT", "kill:2", 1);
    r = tu_optinc((const char *[]){"train", NULL});
    unsetenv("OPTINC_TEST_FAULT");
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "OPTINC_TEST_FAULT is kill:RANK:STEP"), "%s", r.err);
    tu_run_free(&r);
    /* --backend mpi outside mpirun says how to start it; a build without MPI
     * says how to get it */
    r = tu_optinc((const char *[]){"train", "--backend", "mpi", NULL});
    cr_assert_eq(r.status, 2);
#ifdef OPTINC_HAVE_MPI
    cr_assert(strstr(r.err, "mpirun -np"), "%s", r.err);
#else
    cr_assert(strstr(r.err, "this optinc was built without MPI; install libopenmpi-dev and "
                            "rebuild"), "%s", r.err);
#endif
    tu_run_free(&r);
}

Test(train, cost_model_tables)
{
    tu_run r = tu_optinc((const char *[]){"train", "--cost-model", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    /* N = 4: ring 2*3/4 of 720720 floats; ratio 1.5; N = 16: 1.875 */
    cr_assert(strstr(r.out, "  4        4324320        2882880  1.500000   1.500000"), "%s",
              r.out);
    cr_assert(strstr(r.out, " 16        5405400        2882880  1.875000   1.875000"));
    cr_assert(strstr(r.out, "ResNet50"));
    cr_assert(strstr(r.out, "LLaMA"));
    /* the saving by N reaches 256 servers */
    cr_assert(strstr(r.out, "N = 256"), "%s", r.out);
    tu_run_free(&r);
}

Test(train, missing_and_bad_data)
{
    tu_run r = train("/nonexistent/fmnist", NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "dataset-fashion-mnist"), "%s", r.err);
    cr_assert(strstr(r.err, "/nonexistent/fmnist/train-images-idx3-ubyte.gz:"), "%s", r.err);
    tu_run_free(&r);
    char *dir = tr_dataset(), path[4200];
    /* too few samples for one step */
    r = train(dir, (const char *[]){"--limit-train", "20", NULL});
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "fewer than one step"), "%s", r.err);
    tu_run_free(&r);
    /* truncated images */
    snprintf(path, sizeof path, "%s/t10k-images-idx3-ubyte.gz", dir);
    FILE *f = fopen(path, "r+b");
    cr_assert(f);
    cr_assert_eq(ftruncate(fileno(f), 16 + 64 * 10), 0);
    fclose(f);
    r = train(dir, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "truncated IDX file"), "%s", r.err);
    tu_run_free(&r);
    /* a FIFO is refused, not waited on */
    unlink(path);
    cr_assert_eq(mkfifo(path, 0600), 0);
    r = train(dir, NULL);
    cr_assert_eq(r.status, 2);
    cr_assert(strstr(r.err, "t10k-images-idx3-ubyte.gz: error: not a regular file"), "%s",
              r.err);
    tu_run_free(&r);
    /* images and labels swapped: wrong magic */
    optinc_dataset *ds;
    optinc_error err;
    char lab[4200];
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte.gz", dir);
    snprintf(lab, sizeof lab, "%s/train-labels-idx1-ubyte.gz", dir);
    cr_assert_eq(optinc_dataset_load_idx(lab, path, 0, &ds, &err), OPTINC_EINPUT);
    cr_assert(strstr(err.message, "IDX magic 0x00000801, expected 0x00000803"), "%s",
              err.message);
    cr_assert_eq(optinc_dataset_load_idx(path, lab, 100, &ds, &err), OPTINC_OK);
    cr_assert_eq(ds->n, 100);
    cr_assert_eq(ds->features, 64);
    cr_assert_eq(ds->classes, 4);
    cr_assert_eq(ds->labels[6], 2);
    optinc_dataset_free(ds);
    tu_rmtree(dir);
    free(dir);
}

Test(train, injected_errors_change_the_run)
{
    char *dir = tr_dataset(), path[4200];
    snprintf(path, sizeof path, "%s/errors.hist", dir);
    cr_assert_eq(tu_write_file(path, "# test\np_error 0.01\n1 1\n-1 1\n"), 0);
    tu_run a = train(dir, (const char *[]){"--allreduce", "optinc", "--onn", "exact", NULL});
    tu_run b = train(dir, (const char *[]){"--allreduce", "optinc", "--onn", "exact",
                                           "--inject-errors", path, NULL});
    cr_assert_eq(a.status + b.status, 0, "%s", b.err);
    cr_assert_str_eq(tr_json(a.out, "injected_errors"), "0");
    long errors = atol(tr_json(b.out, "injected_errors"));
    /* 48 steps x 1108 outputs x 1 % = 532 expected */
    cr_assert(errors > 400 && errors < 670, "%ld", errors);
    char *sa = sha_of(a.out), *sb = sha_of(b.out);
    cr_assert_str_neq(sa, sb);
    free(sa);
    free(sb);
    tu_run_free(&a);
    tu_run_free(&b);
    snprintf(path, sizeof path, "%s/bad.hist", dir);
    cr_assert_eq(tu_write_file(path, "0 5\n1 two\n"), 0);
    tu_run c = train(dir, (const char *[]){"--allreduce", "quantized", "--inject-errors", path,
                                           NULL});
    cr_assert_eq(c.status, 2);
    cr_assert(strstr(c.err, "bad.hist:2:3: error:"), "%s", c.err);   /* at "two" */
    tu_run_free(&c);
    tu_rmtree(dir);
    free(dir);
}

/* The compiled ONN aggregates: its table's accuracy is reported, it is
 * refused for another task, and its verified errors can be injected. */
Test(train, compiled_onn)
{
    char *dir = tr_dataset(), onn[4200];
    cr_assert_eq(tr_tiny_onn(dir, onn, sizeof onn), 0);
    tu_run a = train(dir, (const char *[]){"--allreduce", "optinc", "--onn", onn, "--bits", "4",
                                           NULL});
    cr_assert_eq(a.status, 0, "%s", a.err);
    double acc = atof(tr_json(a.out, "onn_accuracy"));
    cr_assert(acc > 0.3 && acc < 1.0, "the tiny ONN is imperfect: %g", acc);
    cr_assert(strstr(a.out, "\"onn_error_histogram\": {"));
    tu_run b = train(dir, (const char *[]){"--allreduce", "optinc", "--onn", onn, NULL});
    cr_assert_eq(b.status, 2);
    cr_assert(strstr(b.err, "4 servers' 4-bit codes") && strstr(b.err, "8 bits"), "%s", b.err);
    tu_run c = train(dir, (const char *[]){"--allreduce", "quantized", "--onn", onn, "--bits",
                                           "4", "--inject-errors", "onn", NULL});
    cr_assert_eq(c.status, 0, "%s", c.err);
    /* 48 steps x 1108 outputs x the table's error rate */
    double want = 48 * 1108 * (1.0 - acc), got = atof(tr_json(c.out, "injected_errors"));
    cr_assert(fabs(got - want) < 6 * sqrt(want), "%g injected, %g expected", got, want);
    tu_run d = train(dir, (const char *[]){"--allreduce", "optinc", "--onn", "exact",
                                           "--inject-errors", "onn", NULL});
    cr_assert_eq(d.status, 2);
    tu_run_free(&a);
    tu_run_free(&b);
    tu_run_free(&c);
    tu_run_free(&d);
    tu_rmtree(dir);
    free(dir);
}

/* A spec whose train: (and allreduce:) sections leave keys out trains with
 * exactly the settings, and so the weights, of no spec at all: the loader's
 * defaults are the trainer's.  Keys it gives win, 0 included. */
Test(train, spec_defaults_are_the_trainers)
{
    char *dir = tr_dataset(), spec[4200], zero[4200];
    cr_assert(dir);
    snprintf(spec, sizeof spec, "%s/omits.yaml", dir);
    snprintf(zero, sizeof zero, "%s/zero.yaml", dir);
    cr_assert_eq(tu_write_file(spec, "schema_version: 1\nname: omits\n"
                                     "allreduce: {servers: 4}\ntrain: {dataset: fashion_mnist}\n"),
                 0);
    cr_assert_eq(tu_write_file(zero, "schema_version: 1\nname: zero\n"
                                     "train: {momentum: 0, hidden: [32]}\n"), 0);
    tu_run a = tu_optinc_start((const char *[]){"train", "--data", dir, "--json", "--quiet",
                                                NULL});
    tu_run b = tu_optinc_start((const char *[]){"train", spec, "--data", dir, "--json",
                                                "--quiet", NULL});
    tu_run c = tu_optinc_start((const char *[]){"train", zero, "--data", dir, "--json",
                                                "--quiet", "--epochs", "1", NULL});
    tu_wait(&a);
    tu_wait(&b);
    tu_wait(&c);
    cr_assert_eq(a.status + b.status + c.status, 0, "%s%s%s", a.err, b.err, c.err);
    cr_assert_str_eq(a.out, b.out);
    /* the defaults of train.h and optinc-train(1) */
    cr_assert_str_eq(tr_json(a.out, "epochs"), "10");
    cr_assert_str_eq(tr_json(a.out, "batch"), "64");
    cr_assert(strstr(a.out, "\"hidden\": [256, 128]"), "%s", a.out);
    /* printed in shortest round-trip text: read back exactly (measured 0) */
    cr_assert_float_eq(atof(tr_json(a.out, "lr")), 0.05, 1e-15);
    cr_assert_float_eq(atof(tr_json(a.out, "momentum")), 0.9, 1e-15);
    cr_assert_str_eq(tr_json(a.out, "bits"), "8");
    cr_assert_str_eq(tr_json(a.out, "block_size"), "1024");
    cr_assert_str_eq(tr_json(a.out, "allreduce"), "\"ring\"");
    cr_assert_str_eq(tr_json(c.out, "momentum"), "0");
    cr_assert(strstr(c.out, "\"hidden\": [32]"), "%s", c.out);
    cr_assert_str_eq(tr_json(c.out, "epochs"), "1");
    tu_run_free(&a);
    tu_run_free(&b);
    tu_run_free(&c);
    tu_rmtree(dir);
    free(dir);
}

/* train.allreduce names an algorithm of the trainer's table: a name the
 * table does not know is refused at its position in the spec, with the
 * table's names; a known one is taken. */
Test(train, spec_names_an_algorithm_of_the_table)
{
    char *dir = tr_dataset(), bad[4200], good[4200];
    cr_assert(dir);
    snprintf(bad, sizeof bad, "%s/bad.yaml", dir);
    snprintf(good, sizeof good, "%s/good.yaml", dir);
    cr_assert_eq(tu_write_file(bad, "schema_version: 1\nname: bad\ntrain:\n  allreduce: tree\n"),
                 0);
    cr_assert_eq(tu_write_file(good, "schema_version: 1\nname: good\n"
                                     "train: {allreduce: exact, epochs: 1}\n"), 0);
    tu_run a = tu_optinc_start((const char *[]){"train", bad, "--data", dir, NULL});
    tu_run b = tu_optinc_start((const char *[]){"train", good, "--data", dir, "--json",
                                                "--quiet", NULL});
    tu_wait(&a);
    tu_wait(&b);
    cr_assert_eq(a.status, 2, "%s", a.err);
    char want[4400];
    snprintf(want, sizeof want, "%s:4:14: error: 'allreduce' in train is 'tree', which is not "
             "known; use one of: ring | optinc | exact | quantized\n", bad);
    cr_assert_str_eq(a.err, want);
    cr_assert_str_eq(a.out, "");
    cr_assert_eq(b.status, 0, "%s", b.err);
    cr_assert_str_eq(tr_json(b.out, "allreduce"), "\"exact\"");
    tu_run_free(&a);
    tu_run_free(&b);
    tu_rmtree(dir);
    free(dir);
}

/* Trains the options opts (NULL-ended) with a checkpoint every 5 steps,
 * whole, and stopped after step 23 then resumed from step 20: the two end
 * with the same bits, the spec whose train: section is train_map trains
 * them too, and the options plain (NULL-ended; NULL: none) other bits.
 * Returns the whole run's folder, with the checkpoint of its last step
 * (tu_rmtree and free it), for the caller's refusals; its JSON goes to json
 * (free it). */
static char *expect_resume_and_spec(const char *dir, const char *const *opts,
                                    const char *const *plain, const char *train_map,
                                    char **json)
{
    char *full = tu_tempdir(), *cut = tu_tempdir(), spec[4200], text[512];
    cr_assert(full && cut);
    snprintf(spec, sizeof spec, "%s/train_map.yaml", dir);
    snprintf(text, sizeof text, "schema_version: 1\nname: train_map\ntrain: %s\n", train_map);
    cr_assert_eq(tu_write_file(spec, text), 0);
    const char *args[16];
    const char *tail[3][5] = {{"--out", full}, {"--out", cut, "--stop-after", "23"},
                              {"--out", cut, "--resume"}};
    tu_run r[5];
    for (int k = 0; k < 3; k++) {
        int n = 0;
        for (int i = 0; opts[i] && n < 9; i++)
            args[n++] = opts[i];
        args[n++] = "--checkpoint-every";
        args[n++] = "5";
        for (int i = 0; tail[k][i]; i++)
            args[n++] = tail[k][i];
        args[n] = NULL;
        r[k] = train(dir, args);
    }
    r[3] = train(dir, plain);
    r[4] = train(dir, (const char *[]){spec, NULL});
    for (int k = 0; k < 5; k++)
        cr_assert_eq(r[k].status, 0, "run %d: %s", k, r[k].err);
    cr_assert_str_eq(tr_json(r[1].out, "stopped"), "true");
    cr_assert_str_eq(tr_json(r[2].out, "resumed_from"), "20");
    char *sha[5];
    for (int k = 0; k < 5; k++)
        sha[k] = sha_of(r[k].out);
    cr_assert_str_eq(sha[2], sha[0], "resumed");
    cr_assert_str_neq(sha[3], sha[0], "without the options");
    cr_assert_str_eq(sha[4], sha[0], "the spec's keys");
    *json = strdup(r[0].out);
    for (int k = 0; k < 5; k++) {
        free(sha[k]);
        tu_run_free(&r[k]);
    }
    tu_rmtree(cut);
    free(cut);
    return full;
}

/* Error feedback and stochastic rounding: the spec's keys train as the
 * options do; a run stopped and resumed from its checkpoint (which holds the
 * servers' residuals) ends with the bits of the uninterrupted run; both are
 * refused with the ring, whose floats they do not round. */
Test(train, feedback_and_rounding_resume_and_spec_keys)
{
    char *dir = tr_dataset(), *json;
    cr_assert(dir);
    char *full = expect_resume_and_spec(
        dir, (const char *[]){"--allreduce", "quantized", "--error-feedback",
                              "--stochastic-rounding", NULL},
        (const char *[]){"--allreduce", "quantized", NULL},
        "{allreduce: quantized, error_feedback: true, stochastic_rounding: true}", &json);
    cr_assert_str_eq(tr_json(json, "error_feedback"), "true");
    cr_assert_str_eq(tr_json(json, "stochastic_rounding"), "true");
    /* a checkpoint with the residuals is one of other settings without them */
    tu_run d = train(dir, (const char *[]){"--allreduce", "quantized", "--checkpoint-every",
                                           "5", "--out", full, "--resume", NULL});
    cr_assert_eq(d.status, 2);
    cr_assert(strstr(d.err, "other settings"), "%s", d.err);
    tu_run e = train(dir, (const char *[]){"--allreduce", "ring", "--error-feedback", NULL});
    cr_assert_eq(e.status, 2);
    cr_assert(strstr(e.err, "--error-feedback"), "%s", e.err);
    tu_run_free(&d);
    tu_run_free(&e);
    free(json);
    tu_rmtree(dir);
    tu_rmtree(full);
    free(dir);
    free(full);
}

/* The cosine schedule: the rate of the first step, half of it halfway, near
 * zero at the last step, falling all the way; the spec's key trains as the
 * option does; a run stopped and resumed ends with the bits of the
 * uninterrupted run (the rate follows the run's step, not the process's);
 * and its checkpoint is refused for another number of epochs, whose rates
 * differ. */
Test(train, cosine_schedule_resumes_and_fixes_the_epochs)
{
    optinc_train_config cfg;
    optinc_train_defaults(&cfg);
    cr_assert_eq(optinc_train_lr(&cfg, 47, 48), cfg.lr);
    cfg.lr_schedule = OPTINC_LR_COSINE;
    cr_assert_eq(optinc_train_lr(&cfg, 0, 48), cfg.lr);
    /* one cos and a few products of 0.05: measured 0 and 7e-19, 1e-15 is
     * 140 ulps of 0.05 */
    cr_assert_float_eq(optinc_train_lr(&cfg, 24, 48), cfg.lr / 2, 1e-15);
    /* (1 + cos(47 pi / 48)) / 2 = sin^2(pi / 96) */
    cr_assert_float_eq(optinc_train_lr(&cfg, 47, 48), cfg.lr * pow(sin(M_PI / 96), 2), 1e-15);
    for (long t = 1; t < 48; t++)
        cr_assert_lt(optinc_train_lr(&cfg, t, 48), optinc_train_lr(&cfg, t - 1, 48), "step %ld", t);

    char *dir = tr_dataset(), *json;
    cr_assert(dir);
    char *full = expect_resume_and_spec(dir, (const char *[]){"--lr-schedule", "cosine", NULL},
                                        NULL, "{lr_schedule: cosine}", &json);
    cr_assert_str_eq(tr_json(json, "lr_schedule"), "\"cosine\"");
    cr_assert_gt(atof(tr_json(json, "test_accuracy")), 0.9);
    /* one more epoch would change every rate of the run: the checkpoint at
     * its end is refused (a constant rate's may grow, resume_gives_...) */
    tu_run d = train(dir, (const char *[]){"--lr-schedule", "cosine", "--checkpoint-every", "5",
                                           "--out", full, "--resume", "--epochs", "4", NULL});
    cr_assert_eq(d.status, 2, "%s", d.out);
    cr_assert(strstr(d.err, "other settings"), "%s", d.err);
    tu_run e = train(dir, (const char *[]){"--lr-schedule", "linear", NULL});
    cr_assert_eq(e.status, 2);
    cr_assert(strstr(e.err, "--lr-schedule"), "%s", e.err);
    tu_run_free(&d);
    tu_run_free(&e);
    free(json);
    tu_rmtree(dir);
    tu_rmtree(full);
    free(dir);
    free(full);
}
