/*
 * test_mpi_agree.c - ranks agree or stop (issue 39): two MPI ranks started
 * with one option that differs, through an MPI app context (`mpirun -np 1
 * optinc ... : -np 1 optinc ...`, which gives each rank its own command
 * line), both exit with status 2 within 5 s, and rank 0 says which option
 * differs and both values; for each class of option (model, data,
 * all-reduce, quantization, optimizer, schedule, checkpoints, seed) and for
 * what --resume read.  Before the check, --hidden 8 against 16 corrupted
 * the heap (glibc's "free(): invalid next size", SIGABRT), --seed or --lr
 * trained the replicas apart without a word, and --batch or --allreduce
 * ran into the watchdog.  Ranks with the same options in two app contexts
 * still train.
 *
 * Each rank runs under a shell that prints "rank R exit S" when it ends, and
 * mpirun is told not to end the job when a rank exits nonzero
 * (orte_abort_on_non_zero_status 0), so each rank's own status is seen, not
 * a signal from mpirun.  Skipped when the build has no MPI or mpirun is
 * missing.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "trainutil.h"

/* What mpirun starts for each rank: the command, then its status. */
#define REPORT_EXIT "\"$0\" \"$@\"; s=$?; echo \"rank $OMPI_COMM_WORLD_RANK exit $s\" >&2; exit $s"
/* The check ends a run in 0.4 to 0.6 s here (2 ranks, tiny data).  The
 * deadline only catches a hang, with room for a loaded machine and the
 * sanitizers (two runs went past 5 s under SAN at a load of 10); a run that
 * reached the watchdog instead fails on its message. */
#define DEADLINE_S 30

/* The data set and the output folder of each test. */
static char *dir, *out;

static void setup(void)
{
    tr_scratch_open(&dir, &out);
}

static void teardown(void)
{
    tr_scratch_close(dir, out);
}

/* Appends one app context to argv at *n: a rank of optinc train with the
 * small common options, then opts (NULL-terminated). */
static void context(const char **argv, int *n, const char *const *opts)
{
    const char *common[] = {"/bin/sh", "-c", REPORT_EXIT, tu_optinc_path(), "train",
                            "--backend", "mpi", "--data", dir, "--epochs", "1",
                            "--limit-test", "32", "--json", "--quiet"};
    argv[(*n)++] = "-np";
    argv[(*n)++] = "1";
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
        argv[(*n)++] = common[i];
    for (int i = 0; opts[i]; i++)
        argv[(*n)++] = opts[i];
}

/* Rank 0 with opts0 and rank 1 with opts1, waited for (at most DEADLINE_S
 * seconds, else the test fails). */
static tu_run two_ranks(const char *const *opts0, const char *const *opts1)
{
    const char *argv[80];
    int n = 0;
    argv[n++] = tr_mpirun();
    argv[n++] = "--mca";
    argv[n++] = "orte_abort_on_non_zero_status";
    argv[n++] = "0";
    context(argv, &n, opts0);
    argv[n++] = ":";
    context(argv, &n, opts1);
    argv[n] = NULL;
    tu_run r = tr_start_mpi(argv);
    cr_assert(tr_wait_within(&r, DEADLINE_S), "the ranks did not end within %d s:\n%s",
              DEADLINE_S, r.err);
    return r;
}

/* Both ranks of r ended with `status`. */
static void both_exit(const tu_run *r, int status)
{
    char want[2][32];
    for (int q = 0; q < 2; q++) {
        snprintf(want[q], sizeof want[q], "rank %d exit %d\n", q, status);
        cr_assert(strstr(r->err, want[q]), "rank %d must exit %d:\n%s", q, status, r->err);
    }
}

/* The line of text that starts with head, each "sha256 " in it followed
 * by "*" instead of the 16 hex digits of a content's hash (which the tests
 * do not predict); into buf, "" when there is none. */
static void line_of(const char *text, const char *head, char *buf, size_t size)
{
    const char *p = strstr(text, head);
    size_t k = 0;
    while (p && *p && *p != '\n' && k + 1 < size) {
        buf[k++] = *p;
        if (k >= 7 && !strncmp(buf + k - 7, "sha256 ", 7) &&
            strspn(p + 1, "0123456789abcdef") >= 16) {
            buf[k++] = '*';
            p += 16;
        }
        p++;
    }
    buf[k] = '\0';
}

/* The ranks of opts0 and opts1 both exit 2 and rank 0 alone prints "optinc
 * train: error: ranks disagree on WHAT; FIX" (fix NULL: start every rank
 * with the same options; hashes in WHAT as "sha256 *"). */
static void disagree(const char *const *opts0, const char *const *opts1, const char *what,
                     const char *fix)
{
    tu_run r = two_ranks(opts0, opts1);
    const char *head = "optinc train: error: ranks disagree on ";
    char want[1024], got[1024];
    snprintf(want, sizeof want, "%s%s; %s", head, what,
             fix ? fix : "start every rank with the same options");
    both_exit(&r, 2);
    line_of(r.err, head, got, sizeof got);
    cr_assert_str_eq(got, want, "stderr:\n%s", r.err);
    cr_assert(!strstr(strstr(r.err, head) + 1, head), "only rank 0 says it:\n%s", r.err);
    cr_assert_str_eq(r.out, "", "a result from ranks that disagree");
    tu_run_free(&r);
}

#define OPTS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* The model: the shapes of the reports, where the gradients' sizes differ. */
Test(mpi_agree, model, .init = setup, .fini = teardown)
{
    tr_need_mpi();
    disagree(OPTS("--hidden", "8"), OPTS("--hidden", "16"),
             "--hidden: rank 0 has 8, rank 1 has 16", NULL);
    disagree(OPTS("--hidden", "16"), OPTS("--hidden", "8"),
             "--hidden: rank 0 has 16, rank 1 has 8", NULL);
    disagree(OPTS("--hidden", "8"), OPTS("--hidden", "9"),
             "--hidden: rank 0 has 8, rank 1 has 9", NULL);
    disagree(OPTS("--hidden", "8,8"), OPTS("--hidden", "8"),
             "--hidden: rank 0 has 8,8, rank 1 has 8", NULL);
}

/* The data: a limit, and the same limit on other files (one pixel changed
 * in rank 1's copy), which only the data's hash tells apart. */
Test(mpi_agree, data, .init = setup, .fini = teardown)
{
    tr_need_mpi();
    disagree(OPTS("--limit-train", "64", "--batch", "8", "--hidden", "8"),
             OPTS("--limit-train", "128", "--batch", "8", "--hidden", "8"),
             "--limit-train: rank 0 has 64, rank 1 has 128", NULL);
    char *other = tr_dataset(), images[4200];
    cr_assert(other);
    snprintf(images, sizeof images, "%s/train-images-idx3-ubyte.gz", other);
    FILE *f = fopen(images, "r+b");
    cr_assert(f && fseek(f, 16 + 5, SEEK_SET) == 0 && fputc(7, f) == 7 && fclose(f) == 0);
    disagree(OPTS("--hidden", "8"), OPTS("--hidden", "8", "--data", other),
             "the data (--data): rank 0 has 512 training and 32 test images of 8x8, sha256 *, "
             "rank 1 has 512 training and 32 test images of 8x8, sha256 *",
             "give every rank the same Fashion-MNIST files");
    tu_rmtree(other);
    free(other);
}

/* The all-reduce: the algorithm and its parameters. */
Test(mpi_agree, allreduce, .init = setup, .fini = teardown)
{
    tr_need_mpi();
    disagree(OPTS("--hidden", "8", "--allreduce", "ring"),
             OPTS("--hidden", "8", "--allreduce", "exact"),
             "--allreduce: rank 0 has ring, rank 1 has exact", NULL);
    disagree(OPTS("--hidden", "8", "--allreduce", "quantized", "--block-size", "64"),
             OPTS("--hidden", "8", "--allreduce", "quantized", "--block-size", "128"),
             "--block-size: rank 0 has 64, rank 1 has 128", NULL);
    disagree(OPTS("--hidden", "8", "--allreduce", "quantized", "--error-feedback"),
             OPTS("--hidden", "8", "--allreduce", "quantized"),
             "--error-feedback: rank 0 has on, rank 1 has off", NULL);
}

/* Quantization: the code width. */
Test(mpi_agree, quantization, .init = setup, .fini = teardown)
{
    tr_need_mpi();
    disagree(OPTS("--hidden", "8", "--allreduce", "quantized", "--bits", "4"),
             OPTS("--hidden", "8", "--allreduce", "quantized", "--bits", "6"),
             "--bits: rank 0 has 4, rank 1 has 6", NULL);
}

/* The optimizer: values that would have trained the replicas apart. */
Test(mpi_agree, optimizer, .init = setup, .fini = teardown)
{
    tr_need_mpi();
    disagree(OPTS("--hidden", "8", "--lr", "0.05"), OPTS("--hidden", "8", "--lr", "0.1"),
             "--lr: rank 0 has 0.05, rank 1 has 0.1", NULL);
    disagree(OPTS("--hidden", "8", "--momentum", "0.5"), OPTS("--hidden", "8"),
             "--momentum: rank 0 has 0.5, rank 1 has 0.9", NULL);
}

/* The schedule: another batch is another number of steps. */
Test(mpi_agree, schedule, .init = setup, .fini = teardown)
{
    tr_need_mpi();
    disagree(OPTS("--hidden", "8", "--batch", "8"), OPTS("--hidden", "8", "--batch", "16"),
             "--batch: rank 0 has 8, rank 1 has 16", NULL);
}

/* Checkpoints: the interval, and what --resume found in each rank's --out
 * (rank 0's holds the checkpoint of step 10 of an in-process run, rank 1's
 * none). */
Test(mpi_agree, checkpoints, .init = setup, .fini = teardown)
{
    tr_need_mpi();
    disagree(OPTS("--hidden", "8", "--out", out, "--checkpoint-every", "5"),
             OPTS("--hidden", "8", "--out", out, "--checkpoint-every", "10"),
             "--checkpoint-every: rank 0 has 5, rank 1 has 10", NULL);
    const char *first[] = {"train", "--data", dir, "--epochs", "1", "--limit-test", "32",
                           "--hidden", "8", "--batch", "8", "--servers", "2", "--out", out,
                           "--checkpoint-every", "5", "--stop-after", "10", "--quiet", NULL};
    tu_run a = tu_optinc(first);
    cr_assert_eq(a.status, 0, "%s", a.err);
    tu_run_free(&a);
    char *empty = tu_tempdir();
    cr_assert(empty);
    disagree(OPTS("--hidden", "8", "--batch", "8", "--out", out, "--checkpoint-every", "5",
                  "--resume"),
             OPTS("--hidden", "8", "--batch", "8", "--out", empty, "--checkpoint-every", "5",
                  "--resume"),
             "--resume: rank 0 has the checkpoint of step 10 (weights sha256 *), rank 1 has "
             "none (no checkpoint.bin in its --out)",
             "give every rank's --out the same checkpoint.bin, or leave out --resume");
    tu_rmtree(empty);
    free(empty);
}

/* The seed: another initialization and order. */
Test(mpi_agree, seed, .init = setup, .fini = teardown)
{
    tr_need_mpi();
    disagree(OPTS("--hidden", "8", "--seed", "1"), OPTS("--hidden", "8", "--seed", "2"),
             "--seed: rank 0 has 1, rank 1 has 2", NULL);
}

/* The same options in two app contexts: the check passes and the ranks
 * train, rank 0 printing the one result. */
Test(mpi_agree, same_options_train, .init = setup, .fini = teardown)
{
    tr_need_mpi();
    tu_run r = two_ranks(OPTS("--hidden", "8", "--limit-train", "64", "--batch", "8"),
                         OPTS("--hidden", "8", "--limit-train", "64", "--batch", "8"));
    both_exit(&r, 0);
    cr_assert_str_eq(tr_json(r.out, "backend"), "\"mpi\"", "%s", r.out);
    cr_assert_str_eq(tr_json(r.out, "steps"), "4", "%s", r.out);
    cr_assert_eq(strchr(r.out, '\n'), r.out + strlen(r.out) - 1, "one result: %s", r.out);
    tu_run_free(&r);
}
