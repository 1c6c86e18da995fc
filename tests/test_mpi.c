/*
 * test_mpi.c - the MPI backend against the in-process one: `mpirun -np 4
 * optinc train --backend mpi` and the in-process run on the same seed end
 * with bit-identical weights and the same counted traffic, for every
 * all-reduce (ring; optinc through a compiled ONN, on ideal devices and on a
 * chip with phase errors, and on 16 ranks through a cascade of it; exact;
 * quantized, its codes in bytes and in 16-bit units) and with injected
 * errors, the in-process run also on several threads, and a run whose
 * gradients overflow into inf and NaN.
 * Skipped when the build has no MPI or mpirun is missing.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "trainutil.h"

/* The command lines of one training in process (args, *n words) and on
 * `ranks` MPI ranks (margs, *m words, up to "--backend mpi"): the words of
 * `common`, then the extra options (NULL-terminated; NULL: none). */
static void command_lines(const char *const *common, size_t k, const char *const *extra,
                          const char *ranks, const char **args, int *n, const char **margs,
                          int *m)
{
    *n = *m = 0;
    margs[(*m)++] = tr_mpirun();
    margs[(*m)++] = "-np";
    margs[(*m)++] = ranks;
    margs[(*m)++] = tu_optinc_path();
    for (size_t i = 0; i < k; i++)
        args[(*n)++] = margs[(*m)++] = common[i];
    for (int i = 0; extra && extra[i]; i++)
        args[(*n)++] = margs[(*m)++] = extra[i];
    margs[(*m)++] = "--backend";
    margs[(*m)++] = "mpi";
}

/* Runs the small training in process (on `threads` threads, NULL: the
 * default) and on `ranks` MPI ranks with the extra options (NULL-terminated;
 * --servers among them when ranks is not 4); compares.  Exact: one build on one machine, each server's BLAS on one
 * thread, and the backends sum in one defined order, so the weights (their
 * sha256) and the printed figures are the same bits. */
static void compare(const char *dir, const char *kind, const char *const *extra,
                    const char *threads, const char *ranks)
{
    const char *common[] = {"train", "--data", dir, "--hidden", "16", "--batch", "8",
                            "--epochs", "2", "--seed", "3", "--json", "--quiet",
                            "--allreduce", kind};
    const char *args[32], *margs[40];
    int n, m;
    command_lines(common, sizeof common / sizeof common[0], extra, ranks, args, &n, margs, &m);
    if (threads) {
        args[n++] = "--threads";
        args[n++] = threads;
    }
    args[n] = margs[m] = NULL;
    tu_run a = tu_optinc_start(args);
    tu_run b = tr_start_mpi(margs);
    tu_wait(&a);
    cr_assert(tr_wait_within(&b, 300), "%s: mpirun did not end within 300 s", kind);
    cr_assert_eq(a.status, 0, "%s", a.err);
    cr_assert_eq(b.status, 0, "%s: %s", kind, b.err);
    /* rank 0 alone prints one JSON line */
    cr_assert_eq(strchr(b.out, '\n'), b.out + strlen(b.out) - 1, "%s", b.out);
    cr_assert_str_eq(tr_json(b.out, "backend"), "\"mpi\"");
    const char *keys[] = {"weights_sha256", "test_accuracy", "train_loss",
                          "bytes_sent_per_server", "injected_errors", "steps"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        char *va = strdup(tr_json(a.out, keys[k]));
        cr_assert_str_eq(va, tr_json(b.out, keys[k]),
                         "%s %s\nin process (threads %s): %s\nMPI: %s", kind, keys[k],
                         threads ? threads : "1", a.out, b.out);
        free(va);
    }
    tu_run_free(&a);
    tu_run_free(&b);
}

Test(mpi, bit_identical_to_inproc)
{
    tr_need_mpi();
    char *dir = tr_dataset(), hist[4200];
    cr_assert(dir);
    snprintf(hist, sizeof hist, "%s/errors.hist", dir);
    cr_assert_eq(tu_write_file(hist, "p_error 0.01\n1 3\n-1 1\n2 1\n"), 0);
    char onn[4200];
    cr_assert_eq(tr_tiny_onn(dir, onn, sizeof onn), 0);
    compare(dir, "ring", NULL, NULL, "4");
    compare(dir, "optinc", (const char *[]){"--onn", onn, "--bits", "4", NULL}, NULL, "4");
    compare(dir, "optinc", (const char *[]){"--onn", onn, "--bits", "4", "--phase-sigma",
                                            "0.05", "--inject-errors", hist, NULL}, NULL, "4");
    compare(dir, "exact", NULL, NULL, "4");
    compare(dir, "quantized", (const char *[]){"--inject-errors", hist, NULL}, NULL, "4");
    /* 16 servers through a cascade of the 4-server unit, on 16 ranks */
    compare(dir, "optinc", (const char *[]){"--onn", onn, "--bits", "4", "--servers", "16",
                                            NULL}, NULL, "16");
    /* 12-bit codes travel in 16-bit units (those of 8 bits or fewer as
     * bytes): the same bits either way */
    compare(dir, "quantized", (const char *[]){"--bits", "12", "--inject-errors", hist,
                                               "--stochastic-rounding", NULL}, NULL, "4");
    /* the in-process run on threads: still the MPI run's bits */
    compare(dir, "quantized", (const char *[]){"--inject-errors", hist, NULL}, "3", "4");
    /* a learning rate that overflows the gradients into inf and NaN: the
     * MPI run's non-finite values (their kinds reduced apart) are the
     * in-process run's, NaN loss and weights alike */
    compare(dir, "optinc", (const char *[]){"--onn", onn, "--bits", "4", "--lr", "1e30",
                                            NULL}, "2", "4");
    tu_rmtree(dir);
    free(dir);
}

/* Error feedback and stochastic rounding: the MPI run's bits in process,
 * on one thread and on several; and a checkpoint written under MPI (which
 * gathers every rank's residual) resumes in process to the bits of the
 * uninterrupted run. */
Test(mpi, feedback_and_rounding_bit_identical_to_inproc)
{
    tr_need_mpi();
    char *dir = tr_dataset(), *cut = tu_tempdir(), hist[4200], onn[4200];
    cr_assert(dir && cut);
    snprintf(hist, sizeof hist, "%s/errors.hist", dir);
    cr_assert_eq(tu_write_file(hist, "p_error 0.01\n1 3\n-1 1\n2 1\n"), 0);
    cr_assert_eq(tr_tiny_onn(dir, onn, sizeof onn), 0);
    const char *both[] = {"--onn", onn, "--bits", "4", "--error-feedback",
                          "--stochastic-rounding", "--inject-errors", hist, NULL};
    compare(dir, "optinc", both, NULL, "4");
    compare(dir, "quantized", (const char *[]){"--error-feedback", NULL}, "3", "4");
    compare(dir, "quantized", (const char *[]){"--stochastic-rounding", NULL}, NULL, "4");
    const char *common[] = {"train", "--data", dir, "--hidden", "16", "--batch", "8",
                            "--epochs", "2", "--seed", "3", "--json", "--quiet",
                            "--allreduce", "quantized", "--error-feedback",
                            "--stochastic-rounding", "--out", cut, "--checkpoint-every", "5"};
    const char *margs[40], *args[40];
    int m, n;
    command_lines(common, sizeof common / sizeof common[0], NULL, "4", args, &n, margs, &m);
    margs[m++] = "--stop-after";
    margs[m++] = "23";
    margs[m] = NULL;
    tu_run b = tr_start_mpi(margs);
    cr_assert(tr_wait_within(&b, 300), "mpirun did not end within 300 s");
    cr_assert_eq(b.status, 0, "%s", b.err);
    args[n++] = "--resume";
    args[n] = NULL;
    tu_run c = tu_optinc(args);
    cr_assert_eq(c.status, 0, "%s", c.err);
    cr_assert_str_eq(tr_json(c.out, "resumed_from"), "20");
    args[n - 5] = NULL;                          /* uninterrupted, in process, no files */
    tu_run a = tu_optinc(args);
    cr_assert_eq(a.status, 0, "%s", a.err);
    char *sa = strdup(tr_json(a.out, "weights_sha256"));
    cr_assert_str_eq(sa, tr_json(c.out, "weights_sha256"));
    free(sa);
    tu_run_free(&a);
    tu_run_free(&b);
    tu_run_free(&c);
    tu_rmtree(cut);
    tu_rmtree(dir);
    free(cut);
    free(dir);
}

Test(mpi, servers_must_match_ranks)
{
    tr_need_mpi();
    const char *args[] = {tr_mpirun(), "-np", "2", tu_optinc_path(), "train", "--backend", "mpi",
                          "--servers", "4", "--data", "/nonexistent", NULL};
    tu_run r = tr_start_mpi(args);
    cr_assert(tr_wait_within(&r, 300), "mpirun did not end within 300 s");
    cr_assert_neq(r.status, 0);
    cr_assert(strstr(r.err, "--servers 4 but mpirun started 2 ranks"), "%s", r.err);
    tu_run_free(&r);
}

/* The spec's train.servers must match the ranks too (reported where the
 * spec gives it), unless --servers overrides it; and copies that mpirun
 * starts without --backend mpi refuse to train each alone. */
Test(mpi, spec_servers_and_backend_must_match_mpirun)
{
    tr_need_mpi();
    char *dir = tu_tempdir(), spec[4200], want[4400];
    snprintf(spec, sizeof spec, "%s/four.yaml", dir);
    cr_assert_eq(tu_write_file(spec, "schema_version: 1\nname: four\ntrain:\n  servers: 4\n"), 0);
    const char *mismatch[] = {tr_mpirun(), "-np", "2", tu_optinc_path(), "train", spec,
                              "--backend", "mpi", "--data", "/nonexistent", NULL};
    tu_run r = tr_start_mpi(mismatch);
    cr_assert(tr_wait_within(&r, 300), "mpirun did not end within 300 s");
    cr_assert_neq(r.status, 0);
    snprintf(want, sizeof want, "%s:4:12: error: 'servers' in train is 4, but mpirun started 2 "
             "ranks: use mpirun -np 4, or give --servers 2", spec);
    cr_assert(strstr(r.err, want), "%s", r.err);
    tu_run_free(&r);
    const char *copies[] = {tr_mpirun(), "-np", "2", tu_optinc_path(), "train", "--data",
                            "/nonexistent", NULL};
    r = tr_start_mpi(copies);
    cr_assert(tr_wait_within(&r, 300), "mpirun did not end within 300 s");
    cr_assert_neq(r.status, 0);
    cr_assert(strstr(r.err, "mpirun started 2 copies of this program, which would each train "
                            "alone: add --backend mpi"), "%s", r.err);
    tu_run_free(&r);
    tu_rmtree(dir);
    free(dir);
}
