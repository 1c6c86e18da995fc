/*
 * test_mpi_fault.c - faults in distributed runs: a rank that dies or hangs
 * under `mpirun -np 4 optinc train --backend mpi` ends the whole job with a
 * message within 30 seconds (never a hang), the checkpoints written before
 * survive, and --resume from them ends with the weights of an uninterrupted
 * run.
 *
 * The faults are injected with the test-only OPTINC_TEST_FAULT=ACTION:RANK:STEP
 * (cli/cmd_train.c): rank 2 raises SIGKILL, or stops forever, after step 23 of
 * 48, with a checkpoint every 5 steps, so the last checkpoint is at step 20.
 * A killed rank is noticed by mpirun itself, which stops the others (rank 0
 * then says where the checkpoint is); a hung one by the watchdog of the
 * survivors (--step-timeout, backend_mpi.c), and so is a killed one when the
 * launcher keeps the job going (mpirun --enable-recovery).  Skipped when the
 * build has no MPI or mpirun is missing.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "trainutil.h"

#define DEADLINE_S 30

/* The data set and the output folder of each test. */
static char *dir, *out;

/* Starts the small training of the other trainer tests on dir, with
 * checkpoints in ckpt (NULL: none), in process (mpi_opts NULL) or on 4 ranks
 * under mpirun with mpi_opts (NULL-terminated, may be empty) and the fault
 * given; extra options for optinc after the common ones. */
static tu_run start(const char *ckpt, const char *const *mpi_opts, const char *fault,
                    const char *const *extra)
{
    const char *common[] = {"train", "--data", dir, "--hidden", "16", "--batch", "8",
                            "--epochs", "3", "--seed", "3", "--json", "--quiet"};
    const char *argv[48];
    int n = 0;
    if (mpi_opts) {
        argv[n++] = tr_mpirun();
        argv[n++] = "-np";
        argv[n++] = "4";
        for (int i = 0; mpi_opts[i]; i++)
            argv[n++] = mpi_opts[i];
    }
    argv[n++] = tu_optinc_path();
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
        argv[n++] = common[i];
    if (ckpt) {
        argv[n++] = "--out";
        argv[n++] = ckpt;
        argv[n++] = "--checkpoint-every";
        argv[n++] = "5";
    }
    if (mpi_opts) {
        argv[n++] = "--backend";
        argv[n++] = "mpi";
    }
    for (int i = 0; extra && extra[i]; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    if (fault)
        setenv("OPTINC_TEST_FAULT", fault, 1);
    tu_run r = mpi_opts ? tr_start_mpi(argv) : tu_start((char *const *)argv);
    unsetenv("OPTINC_TEST_FAULT");
    return r;
}

/* start(), waited for: fails the test unless the run ends within
 * DEADLINE_S seconds. */
static tu_run train(const char *ckpt, const char *const *mpi_opts, const char *fault,
                    const char *const *extra)
{
    tu_run r = start(ckpt, mpi_opts, fault, extra);
    int in_time = tr_wait_within(&r, DEADLINE_S);
    cr_assert(in_time, "the run did not end within %d s:\n%s", DEADLINE_S, r.err);
    return r;
}

static void setup(void)
{
    tr_scratch_open(&dir, &out);
}

static void teardown(void)
{
    tr_scratch_close(dir, out);
}

/* A run on 4 ranks (mpirun options mpi_opts) broken by fault at step 23:
 * it must end without a result and leave the checkpoint of step 20 (and no
 * final weights).  Returns its exit status; *err its standard error (free). */
static int broken_run(const char *const *mpi_opts, const char *fault, char **err)
{
    tu_run r = train(out, mpi_opts, fault, (const char *[]){"--step-timeout", "5", NULL});
    cr_assert_str_eq(r.out, "", "a result from a broken run");
    char path[4200];
    snprintf(path, sizeof path, "%s/checkpoint.bin", out);
    cr_assert_eq(access(path, R_OK), 0, "the checkpoint is lost");
    snprintf(path, sizeof path, "%s/weights.f32", out);
    cr_assert_neq(access(path, R_OK), 0, "a broken run wrote final weights");
    *err = r.err;
    r.err = NULL;
    tu_run_free(&r);
    return r.status;
}

/* --resume in out, on MPI with mpi_opts or in process (NULL), goes on from
 * step `from` to the weights of an uninterrupted run: the same bits (their
 * sha256), one build on one machine doing the same operations in order. */
static void resume_from(const char *const *mpi_opts, const char *from)
{
    tu_run a = train(NULL, NULL, NULL, NULL);
    tu_run r = train(out, mpi_opts, NULL, (const char *[]){"--resume", NULL});
    cr_assert_eq(a.status + r.status, 0, "%s%s", a.err, r.err);
    cr_assert_str_eq(tr_json(r.out, "resumed_from"), from);
    char *sha = strdup(tr_json(a.out, "weights_sha256"));
    cr_assert_str_eq(tr_json(r.out, "weights_sha256"), sha);
    free(sha);
    tu_run_free(&a);
    tu_run_free(&r);
}

static void resume_matches(const char *const *mpi_opts)
{
    resume_from(mpi_opts, "20");
}

/* The watchdog's message on the ranks that waited for rank 2: who, where
 * each side is (rank 2 stopped in its progress callback, after the
 * all-gather of step 23 and before the sum that follows), and how to go on. */
#define NO_PROGRESS ": no progress from rank 2 for 5 s: this rank waits in the sum over ranks " \
                    "in step 23; rank 2 is still in the all-gather of per-server values in " \
                    "step 23; aborting (checkpoint at step 20: rerun with --resume)"

Test(mpi_fault, killed_rank_ends_the_job_and_resume_continues, .init = setup,
     .fini = teardown)
{
    tr_need_mpi();
    char *err;
    /* mpirun stops the survivors with SIGTERM one second after it notices the
     * death, and with SIGKILL one more second later (OpenMPI's
     * odls_base_sigkill_timeout); on a loaded 2-core machine rank 0 does not
     * always get to run its SIGTERM handler in that second, and its note is
     * lost.  Three seconds leave it room and stay below the 5 s watchdog. */
    const char *no_opts[] = {"--mca", "odls_base_sigkill_timeout", "3", NULL};
    int status = broken_run(no_opts, "kill:2:23", &err);
    cr_assert_neq(status, 0, "%s", err);
    cr_assert(strstr(err, "optinc train: rank 0: stopped by mpirun") &&
              strstr(err, "checkpoint at step 20: rerun with --resume"), "%s", err);
    free(err);
    resume_matches(no_opts);
}

Test(mpi_fault, hung_rank_times_out_and_resume_continues, .init = setup, .fini = teardown)
{
    tr_need_mpi();
    char *err;
    int status = broken_run((const char *[]){NULL}, "hang:2:23", &err);
    cr_assert_neq(status, 0, "%s", err);
    cr_assert(strstr(err, NO_PROGRESS), "%s", err);
    free(err);
    resume_matches(NULL);    /* a checkpoint does not depend on the backend */
}

/* With recovery enabled mpirun lets the job go on when a rank dies; the
 * survivors' watchdog still ends it and names the dead rank.  (OpenMPI 4.1's
 * mpirun then exits 0 after MPI_Abort, so only the message is checked.) */
Test(mpi_fault, watchdog_catches_a_dead_rank_the_launcher_ignores, .init = setup,
     .fini = teardown)
{
    tr_need_mpi();
    char *err;
    broken_run((const char *[]){"--enable-recovery", NULL}, "kill:2:23", &err);
    cr_assert(strstr(err, NO_PROGRESS), "%s", err);
    free(err);
}

/* Ctrl-C on mpirun: it sends every rank SIGTERM a second later, the ranks
 * agree to stop after the step under way, rank 0 writes a last checkpoint
 * and says where it is, every rank exits 143, and --resume goes on from
 * that step to the weights of an uninterrupted run.  Rank 0 waits for the
 * signal after step 23 (pause:0:23), so the step is known; mpirun is given
 * 6 s before its SIGKILL, so rank 0's grace (half of that) leaves a loaded
 * machine room. */
Test(mpi_fault, sigint_to_mpirun_writes_a_last_checkpoint, .init = setup, .fini = teardown)
{
    tr_need_mpi();
    const char *opts[] = {"--mca", "odls_base_sigkill_timeout", "6", NULL};
    tu_run r = start(out, opts, "pause:0:23", (const char *[]){"--step-timeout", "20", NULL});
    char path[4200];
    snprintf(path, sizeof path, "%s/checkpoint.bin", out);
    struct timespec tick = {0, 100000000};
    for (int i = 0; i < 10 * DEADLINE_S && access(path, R_OK); i++)
        nanosleep(&tick, NULL);
    cr_assert_eq(access(path, R_OK), 0, "no checkpoint of step 20");
    sleep(1);   /* steps 21 to 23 */
    kill(r.pid_, SIGINT);
    cr_assert(tr_wait_within(&r, DEADLINE_S), "the run did not stop:\n%s", r.err);
    cr_assert_neq(r.status, 0, "%s", r.err);
    cr_assert_str_eq(r.out, "", "a result from a stopped run");
    char said[4400];
    snprintf(said, sizeof said, "optinc train: stopped by SIGTERM after step 23; the "
             "checkpoint of step 23 is %s: rerun with --resume", path);
    cr_assert(strstr(r.err, said), "%s", r.err);
    tu_run_free(&r);
    snprintf(path, sizeof path, "%s/weights.f32", out);
    cr_assert_neq(access(path, R_OK), 0, "a stopped run wrote final weights");
    resume_from(NULL, "23");
}
