/*
 * cmd_train.c - `optinc train [SPEC]`: data-parallel training of an MLP on
 * Fashion-MNIST with ring or OptINC all-reduce, in process or on MPI; and
 * `optinc train --cost-model`, the communication-cost tables.
 *
 * Settings come from the command line, then the spec's train: (and
 * allreduce:) section, then the defaults of optinc_train_defaults().  Under
 * MPI every rank runs this same code; only rank 0 prints, except when a rank
 * dies or hangs: then each rank whose watchdog fires (comm.h) prints why and
 * ends the job with MPI_Abort, and rank 0, when mpirun stops it with
 * SIGTERM, says where the last checkpoint is.  SIGINT or SIGTERM (in
 * process, or from mpirun) ends a healthy run after the step under way with
 * a last checkpoint, as the comment above on_stop() tells.
 *
 * OPTINC_TEST_FAULT=kill:RANK:STEP or hang:RANK:STEP makes rank RANK raise
 * SIGKILL, or stop forever, after step STEP; pause:RANK:STEP makes it wait
 * there for a signal: the fault tests' way to break a run, or to stop it,
 * at a known point (tests/test_mpi_fault.c).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/options.h"
#include "optinc/allreduce.h"
#include "optinc/comm.h"
#include "optinc/fileio.h"
#include "optinc/costmodel.h"
#include "optinc/onn.h"
#include "optinc/spec.h"
#include "optinc/dataset.h"
#include "optinc/train.h"

/* What --help says besides the options. */
static const cli_cmd train_cmd = {"train", "[SPEC]",
    "--cost-model [--bits B] [cost-model options]",
    "Trains a 784-256-128-10 MLP on Fashion-MNIST over N emulated servers "
    "whose gradients\nare averaged by ring all-reduce or by the OptINC "
    "optical unit; under MPI run it as\n'mpirun -np N optinc train ... "
    "--backend mpi'."};

#define DEFAULT_ONN "netlists/onn4x8.pnl.sp"

typedef struct opts {
    optinc_train_config cfg;
    int mpi, json, quiet, cost_model;
    int set_servers, set_epochs, set_batch, set_lr, set_schedule, set_momentum, set_hidden,
        set_allreduce, set_ckpt, set_bits, set_block, set_chip_seed, set_onn, set_phase_sigma,
        programmed, set_chip, calibrate, set_feedback, set_stochastic;
    const char *chip_path;         /* --chip: a chip file (the whole device model) */
    optinc_chip_spec chip;
    const char *backend, *spec, *onn, *inject;
    const optinc_spec *onn_spec;   /* the spec that named the ONN (train.onn), or NULL */
    double phase_sigma, step_timeout_s;
    uint64_t chip_seed;
} opts;

/* --allreduce and --backend name entries of the library's tables. */
static int parse_allreduce(const char *arg, void *dst)
{
    const optinc_ar_algorithm *a = optinc_ar_find(arg);
    if (a)
        *(const optinc_ar_algorithm **)dst = a;
    return a ? 0 : -1;
}

static int parse_backend(const char *arg, void *dst)
{
    if (!optinc_comm_backend_known(arg))
        return -1;
    *(const char **)dst = arg;
    return 0;
}

/* Parses the command line into o; returns -1 to go on, else an exit code. */
static int parse(int argc, char **argv, opts *o)
{
    optinc_train_config *c = &o->cfg;
    char backends[64], algorithms[128];
    optinc_comm_backend_names("|", "|", backends, sizeof backends);
    optinc_ar_names("|", "|", algorithms, sizeof algorithms);
    double link_gbps = c->cost.link_bps / 1e9, latency_us = c->cost.latency_s / 1e-6,
           tflops = c->cost.peak_flops / 1e12;
    int set_gbps = 0, set_latency = 0, set_tflops = 0;
    const char *operand[CLI_MAX_OPERANDS];
    const cli_opt table[] = {
        {"backend", 0, CLI_CALLBACK, &o->backend, backends, "where the servers run",
         .parse = parse_backend, .dflt = "inproc"},
        {"allreduce", 0, CLI_CALLBACK, &c->allreduce, algorithms, "the aggregation",
         .parse = parse_allreduce, .given = &o->set_allreduce, .dflt = "ring"},
        /* OPTINC_AR_MAX_SERVERS, wider than one ONN unit takes (optinc onn) */
        {"servers", 0, CLI_INT, CLI_DST(int, &c->servers), "N",
         "emulated servers; under MPI, the ranks", .min = 1, .max = OPTINC_AR_MAX_SERVERS,
         .given = &o->set_servers},
        CLI_OPT_EPOCHS(&c->epochs, &o->set_epochs, "epochs"),
        CLI_OPT_SEED(&c->seed, NULL, NULL,
                     "seed of the initialization, the epochs' orders and the injected errors"),
        CLI_OPT_BATCH(&c->batch, &o->set_batch, "examples per server and step"),
        CLI_OPT_LR(&c->lr, &o->set_lr, "learning rate"),
        {"lr-schedule", 0, CLI_ENUM, CLI_DST(int, &c->lr_schedule), NULL,
         "the learning rate over the run", .words = optinc_lr_schedule_names,
         .given = &o->set_schedule},
        {"momentum", 0, CLI_DOUBLE, CLI_DST(double, &c->momentum), "X", "momentum", .lo = 0,
         .hi = 1, .flags = CLI_BELOW, .given = &o->set_momentum},
        {"hidden", 0, CLI_INTS, CLI_DST(int, c->hidden), "W1,W2,...", "hidden layer widths",
         .min = 1, .max = 65536, .size = OPTINC_MAX_HIDDEN, .count = &c->n_hidden,
         .given = &o->set_hidden},
        /* the all-reduce's codes and tables are 16 bits wide (uint16_t) */
        {"bits", 0, CLI_INT, CLI_DST(int, &c->bits), "B", "code width of the quantized all-reduce",
         .min = 2, .max = 16, .flags = CLI_EVEN, .given = &o->set_bits},
        {"block-size", 0, CLI_INT, CLI_DST(int, &c->block_size), "K", "elements per scale block",
         .min = 1, .max = 1 << 30, .given = &o->set_block},
        {"onn", 0, CLI_STRING, CLI_DST(const char *, &o->onn), "NET.sp|exact",
         "the compiled ONN of optinc", .dflt = DEFAULT_ONN, .given = &o->set_onn},
        CLI_OPT_FLAG("programmed", &o->programmed,
                     "evaluate the ONN at its programmed phase-driver codes"),
        CLI_OPT_PHASE_SIGMA("phase-sigma", &o->phase_sigma, &o->set_phase_sigma,
                            "static phase error of the ONN chip; implies --programmed"),
        CLI_OPT_CHIP(&o->chip_path, &o->set_chip,
                     "a chip file: every device error of the ONN chip (optinc-onn(1))"),
        CLI_OPT_CHIP_SEED(&o->chip_seed, &o->set_chip_seed, "the run's seed",
                          "seed of the ONN chip's errors"),
        CLI_OPT_FLAG("calibrate", &o->calibrate,
                     "with --chip: recompile the ONN chip's drivers from its measurement"),
        CLI_OPT_STRING("inject-errors", 0, &o->inject, "HIST|onn",
                       "inject ONN output errors drawn from a histogram"),
        CLI_OPT_FLAG("error-feedback", &o->set_feedback,
                     "servers add their last quantization residual to their gradient"),
        CLI_OPT_FLAG("stochastic-rounding", &o->set_stochastic,
                     "servers round their codes up with probability the fraction"),
        {"checkpoint-every", 0, CLI_LONG, CLI_DST(long, &c->checkpoint_every), "K",
         "write DIR/checkpoint.bin every K steps, 0 never", .min = 0, .max = 0x7fffffff,
         .given = &o->set_ckpt},
        CLI_OPT_FLAG("resume", &c->resume, "continue from DIR/checkpoint.bin"),
        {"stop-after", 0, CLI_LONG, CLI_DST(long, &c->stop_after), "STEPS",
         "stop after STEPS steps, as if killed", .min = 1, .max = 0x7fffffff, .dflt = "never"},
        {"out", 0, CLI_PATH, CLI_DST(char, c->out_dir), "DIR",
         "write metrics, weights and plots into DIR", .size = sizeof c->out_dir},
        {"data", 0, CLI_PATH, CLI_DST(char, c->data_dir), "DIR",
         "folder of the Fashion-MNIST IDX files", .size = sizeof c->data_dir},
        {"limit-train", 0, CLI_INT, CLI_DST(int, &c->limit_train), "N",
         "use the first N training samples", .min = 1, .max = 0x7fffffff, .dflt = "all"},
        {"limit-test", 0, CLI_INT, CLI_DST(int, &c->limit_test), "N",
         "use the first N test samples", .min = 1, .max = 0x7fffffff, .dflt = "all"},
        {"threads", 0, CLI_INT, CLI_DST(int, &c->threads), "T",
         "threads of the in-process all-reduce, the same results for any",
         .min = 1, .max = OPTINC_AR_MAX_THREADS, .dflt = "$OPTINC_THREADS or 1"},
        {"step-timeout", 0, CLI_DOUBLE, CLI_DST(double, &o->step_timeout_s), "SECONDS",
         "under MPI, the longest wait for the other ranks, 0 forever", .lo = 0, .hi = 1e6,
         .what = "seconds"},
        CLI_OPT_JSON(&o->json, "print one JSON object instead of the table"),
        CLI_OPT_QUIET(&o->quiet, "no progress bar and no notes"),
        CLI_OPT_GROUP("The communication-cost tables:"),
        CLI_OPT_FLAG("cost-model", &o->cost_model, "print the cost-model tables and exit"),
        {"link-gbps", 0, CLI_DOUBLE, CLI_DST(double, &link_gbps), "X",
         "per-server link bandwidth in Gb/s", .lo = 0, .hi = INFINITY, .flags = CLI_ABOVE,
         .given = &set_gbps},
        {"latency-us", 0, CLI_DOUBLE, CLI_DST(double, &latency_us), "X",
         "per-message latency in us", .lo = 0, .hi = INFINITY, .flags = CLI_ABOVE,
         .given = &set_latency},
        {"tflops", 0, CLI_DOUBLE, CLI_DST(double, &tflops), "X", "peak compute in TFLOP/s", .lo = 0,
         .hi = INFINITY, .flags = CLI_ABOVE, .given = &set_tflops},
        {"efficiency", 0, CLI_DOUBLE, CLI_DST(double, &c->cost.efficiency), "X",
         "utilization of the peak", .lo = 0, .hi = 1, .flags = CLI_ABOVE},
        CLI_OPT_END};
    int rc = cli_parse(&train_cmd, table, argc, argv, operand);
    if (rc >= 0)
        return rc;
    o->spec = operand[0];
    o->mpi = !strcmp(o->backend, "mpi");
    if (set_gbps)
        c->cost.link_bps = link_gbps * 1e9;
    if (set_latency)
        c->cost.latency_s = latency_us * 1e-6;
    if (set_tflops)
        c->cost.peak_flops = tflops * 1e12;
    if ((c->resume || c->checkpoint_every) && !c->out_dir[0])
        return cli_usage_error("train", "--resume and --checkpoint-every need --out DIR");
    return -1;
}

/* Spec settings for what the command line left unset. */
static optinc_status apply_spec(opts *o, const optinc_spec *spec, optinc_error *err)
{
    optinc_train_config saved = o->cfg;
    optinc_status st = optinc_train_apply_spec(&o->cfg, spec, err);
    if (st)
        return st;
    optinc_train_config *c = &o->cfg;
    if (spec->allreduce.present) {
        if (!o->set_bits && spec->allreduce.gradient_bits)
            c->bits = spec->allreduce.gradient_bits;
        if (!o->set_block && spec->allreduce.block_size)
            c->block_size = spec->allreduce.block_size;
    }
#define KEEP(flag, field) if (o->flag) c->field = saved.field
    KEEP(set_servers, servers);
    KEEP(set_epochs, epochs);
    KEEP(set_batch, batch);
    KEEP(set_lr, lr);
    KEEP(set_schedule, lr_schedule);
    KEEP(set_momentum, momentum);
    KEEP(set_allreduce, allreduce);
    KEEP(set_ckpt, checkpoint_every);
#undef KEEP
    if (o->set_hidden) {
        memcpy(c->hidden, saved.hidden, sizeof c->hidden);
        c->n_hidden = saved.n_hidden;
    }
    if (!o->onn && spec->train.onn[0]) {
        o->onn = spec->train.onn;
        o->onn_spec = spec;
    }
    return OPTINC_OK;
}

/* Refuses the command-line options the run would ignore, since a user who
 * gives one expects it to act: the options of quantizing all-reduces with
 * ring or exact, an ONN where none aggregates or is measured, a chip where
 * no compiled ONN is evaluated.  (A spec's settings are not refused: a spec
 * may serve several runs.)  Returns -1 to go on, else the exit code. */
static int refuse_ignored(const opts *o)
{
    const optinc_ar_algorithm *a = o->cfg.allreduce;
    int quantizes = a->flags & OPTINC_AR_QUANTIZES;
    int measured = o->inject && !strcmp(o->inject, "onn");
    int onn = (a->flags & OPTINC_AR_ONN) || measured;
    int exact = o->onn && !strcmp(o->onn, "exact");
    const char *quantizing = "a quantizing all-reduce (quantized, optinc)";
    const char *chip = "a compiled ONN (--onn NET.sp with --allreduce optinc or "
                       "--inject-errors onn)";
    const struct {
        int given, used;
        const char *option, *what, *of;
    } rules[] = {
        {o->inject != NULL, quantizes, "--inject-errors", "injects errors into the codes of",
         quantizing},
        {o->set_bits, quantizes, "--bits", "sets the code width of", quantizing},
        {o->set_feedback, quantizes, "--error-feedback", "feeds back the residuals of",
         quantizing},
        {o->set_stochastic, quantizes, "--stochastic-rounding", "rounds the codes of",
         quantizing},
        {o->set_block, quantizes, "--block-size", "sets the scale blocks of", quantizing},
        {o->set_onn, onn, "--onn", "names the ONN of",
         "the optinc all-reduce or of --inject-errors onn"},
        {o->programmed, onn && !exact, "--programmed", "sets the chip of", chip},
        {o->set_phase_sigma, onn && !exact, "--phase-sigma", "sets the chip of", chip},
        {o->set_chip_seed, onn && !exact, "--chip-seed", "sets the chip of", chip},
        {o->set_chip, onn && !exact, "--chip", "sets the chip of", chip},
        {o->calibrate, onn && !exact, "--calibrate", "recompiles the chip of", chip},
    };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].given && !rules[i].used)
            return cli_usage_error("train", "%s %s %s, which this run (--allreduce %s%s) does "
                                   "not have; leave it out", rules[i].option, rules[i].what,
                                   rules[i].of, a->name, exact ? " --onn exact" : "");
    if (o->set_chip && (o->programmed || o->set_phase_sigma))
        return cli_usage_error("train", "--chip gives the whole device model of the ONN chip; "
                               "leave out --programmed and --phase-sigma (put "
                               "phase_error_sigma_rad in the chip file)");
    if (o->calibrate && !o->set_chip)
        return cli_usage_error("train", "--calibrate recompiles a chip from its measurement; "
                               "give the chip with --chip CHIP.yaml");
    if (measured && exact)
        return cli_usage_error("train", "--inject-errors onn measures a compiled ONN: give "
                               "--onn NET.sp");
    return -1;
}

/* The files the run writes into --out, checked before training: each must
 * be writable where it is, none may be an input of the run (the spec, the
 * ONN, the histogram of --inject-errors, the data set's files) and no two
 * may be one file.  A missing folder is made by the trainer. */
static optinc_status check_outputs(const opts *o, optinc_error *err)
{
    const char *dir = o->cfg.out_dir;
    const char *data = o->cfg.data_dir[0] ? o->cfg.data_dir : OPTINC_FASHION_MNIST_DIR;
    for (const char *const *name = optinc_fashion_mnist_files; *name; name++)
        for (int gz = 0; gz < 2; gz++) {
            char path[1200];
            snprintf(path, sizeof path, "%s/%s%s", data, *name, gz ? ".gz" : "");
            cli_input(path, "data file");
        }
    const char *const *lists[2] = {optinc_train_files, cli_plot_files};
    char path[8][1100];
    const char *outputs[8];
    int n = 0;
    struct stat sb;
    if (!dir[0] || stat(dir, &sb) != 0)
        return OPTINC_OK;
    if (!S_ISDIR(sb.st_mode))
        return optinc_fail(err, OPTINC_EINPUT, dir, 0, 0, "--out '%s' is not a folder; give "
                           "the folder to write the run's files into", dir);
    for (int l = 0; l < 2; l++)
        for (const char *const *name = lists[l]; *name && n < 8; name++, n++) {
            snprintf(path[n], sizeof path[n], "%s/%s", dir, *name);
            outputs[n] = path[n];
        }
    return cli_check_outputs(outputs, n, err);
}

/* ---- the cost-model tables ------------------------------------------------ */

static int cost_model(const opts *o)
{
    const optinc_costmodel *cm = &o->cfg.cost;
    const size_t n = 720720;      /* divisible by every N in 2..16: chunks are exact */
    optinc_error err;
    optinc_error_clear(&err);
    printf("Counted traffic per server, one all-reduce of %zu float gradients "
           "(in-process emulation):\n", n);
    printf("%3s %14s %14s %9s %10s %14s %9s\n", "N", "ring bytes", "minimum bytes",
           "ratio", "2(N-1)/N", "optinc bytes", "ring msgs");
    float *buf = malloc(16 * n * sizeof *buf);
    float *g[16];
    if (!buf)
        return cli_report(&train_cmd, &err, optinc_fail(&err, OPTINC_ERUN, NULL, 0, 0, "out of memory"));
    for (size_t j = 0; j < 16 * n; j++)
        buf[j] = (float)((j * 2654435761u) % 2001) / 1000.0f - 1.0f;
    for (int N = 2; N <= 16; N++) {
        optinc_ar_stats st[3];
        const char *kinds[3] = {"ring", "exact", "optinc"};
        for (int i = 0; i < N; i++)
            g[i] = buf + (size_t)i * n;
        for (int k = 0; k < 3; k++) {
            optinc_ar_config ac = {optinc_ar_find(kinds[k]), N, o->cfg.bits,
                                   OPTINC_AR_DEFAULT_BLOCK, NULL, NULL, 1, o->cfg.threads, 0, 0};
            optinc_allreduce *ar;
            memset(&st[k], 0, sizeof st[k]);
            optinc_status s = optinc_allreduce_new(&ac, &ar, &err);
            if (!s)
                s = optinc_allreduce_inproc(ar, 0, g, n, &st[k], &err);
            optinc_allreduce_free(ar);
            if (s) {
                free(buf);
                return cli_report(&train_cmd, &err, s);
            }
        }
        printf("%3d %14llu %14llu %9.6f %10.6f %14llu %9llu\n", N,
               (unsigned long long)st[0].bytes_sent[0], (unsigned long long)st[1].bytes_sent[0],
               (double)st[0].bytes_sent[0] / (double)st[1].bytes_sent[0],
               2.0 * (N - 1) / N, (unsigned long long)st[2].bytes_sent[0],
               (unsigned long long)st[0].messages[0]);
    }
    free(buf);
    printf("(minimum = each server sends its float32 gradient once; optinc = %d-bit codes "
           "plus one float32 scale per %d elements)\n\n", o->cfg.bits, OPTINC_AR_DEFAULT_BLOCK);
    printf("Modelled iteration time, N = 4, %d-bit words for both, link %.0f Gb/s, "
           "alpha %.3g us, %.0f TFLOP/s x %.2f:\n", o->cfg.bits, cm->link_bps / 1e9,
           cm->latency_s * 1e6, cm->peak_flops / 1e12, cm->efficiency);
    printf("%-22s %10s %12s %12s %12s %10s %9s\n", "workload", "batch/srv", "compute ms",
           "ring ms", "optinc ms", "comm share", "saving");
    const optinc_workload *wl[2] = {&optinc_workload_resnet50, &optinc_workload_llama};
    const double batches[2][5] = {{1, 4, 16, 64, 256}, {512, 2048, 8192, 32768, 131072}};
    for (int w = 0; w < 2; w++)
        for (int b = 0; b < 5; b++) {
            optinc_iteration it;
            optinc_cost_iteration(cm, wl[w], batches[w][b], 4, o->cfg.bits, &it);
            printf("%-22s %10.0f %12.4f %12.4f %12.4f %9.1f%% %8.1f%%\n", wl[w]->name,
                   batches[w][b], it.compute_s * 1e3, it.ring_s * 1e3, it.optinc_s * 1e3,
                   100.0 * it.ring_s / (it.compute_s + it.ring_s), 100.0 * it.saving);
        }
    printf("(batch in %ss per server; LLaMA rows in tokens.  Paper: ResNet50 > 25%%, "
           "LLaMA ~17%%, which this model reaches only when communication is 75%% / 51%% "
           "of the ring iteration: saving = share x (N-2)/(2(N-1)).)\n\n",
           optinc_workload_resnet50.sample);
    /* the same model past one unit: optinc's bytes stay one word per element
     * (a cascade of units, optinc-onn(7)), ring's approach 2 */
    const int sizes[4] = {4, 16, 64, 256};
    printf("Modelled saving by servers N (the same settings):\n%-22s %10s", "workload",
           "batch/srv");
    for (int k = 0; k < 4; k++)
        printf("   N = %-4d", sizes[k]);
    printf("\n");
    for (int w = 0; w < 2; w++)
        for (int b = 0; b < 5; b++) {
            printf("%-22s %10.0f", wl[w]->name, batches[w][b]);
            for (int k = 0; k < 4; k++) {
                optinc_iteration it;
                optinc_cost_iteration(cm, wl[w], batches[w][b], sizes[k], o->cfg.bits, &it);
                printf(" %9.1f%%", 100.0 * it.saving);
            }
            printf("\n");
        }
    return 0;
}

/* ---- training ------------------------------------------------------------- */

static void progress_bar(const optinc_train_progress *p)
{
    int width = 30, filled = (int)(width * p->step / (p->steps ? p->steps : 1));
    fprintf(stderr, "\r[%.*s%*s] epoch %d/%d step %ld/%ld loss %.4f", filled,
            "##############################", width - filled, "", p->epoch, p->epochs, p->step,
            p->steps, p->loss);
    if (p->step == p->steps)
        fputc('\n', stderr);
    fflush(stderr);
}

/* ---- watching a run: the bar, rank 0's note, injected faults ------------- */

typedef struct watch {
    const optinc_train_config *cfg;
    int rank;
    int bar;                  /* draw the progress bar (rank 0 on a terminal) */
    int note;                 /* keep the SIGTERM note current (rank 0 under MPI) */
    long noted;               /* the checkpoint step the note speaks of */
    char fault;               /* OPTINC_TEST_FAULT: 'k'ill, 'h'ang or 'p'ause; 0: none */
    int fault_rank;
    long fault_step;
} watch;

/* What rank 0 prints when mpirun stops it with SIGTERM (it does so when
 * another rank dies or aborts, or when the user interrupts mpirun).  The
 * handler may only write(), so the text is made beforehand, into the buffer
 * the handler is not reading, which then becomes the current one. */
static char note_text[2][1024];
static volatile sig_atomic_t note_now, note_off;

/* Writes the current note (from a handler: write() only). */
static void write_note(void)
{
    const char *m = note_text[note_now];
    size_t n = 0;
    while (m[n] && !note_off)
        n++;
    ssize_t ignored = write(STDERR_FILENO, m, n);
    (void)ignored;
}

static void on_sigterm(int sig)
{
    write_note();
    optinc_out_end_by(sig);
}

static void note_checkpoint(watch *w, long saved)
{
    char advice[700];
    int next = !note_now;
    optinc_train_resume_advice(w->cfg, saved, advice, sizeof advice);
    snprintf(note_text[next], sizeof note_text[next], "optinc train: rank 0: stopped by mpirun "
             "(a rank failed, or the job was cancelled); %s\n", advice);
    note_now = next;
    w->noted = saved;
}

/* SIGINT or SIGTERM ends the run after the step under way, with a last
 * checkpoint when checkpointing, and the command says where it is and exits
 * 128 + the signal's number, as the signal would have.  A handler may not do
 * that work, so it only notes the signal, and the progress callback hands
 * it to the trainer (under MPI the ranks agree on it after every step, so
 * all stop after the same one); a second signal of the same kind ends the
 * program at once, as it would have without a handler, once the temporary
 * files (a checkpoint being written) are removed.
 *
 * Under MPI the signal is mpirun's: on Ctrl-C, or when a rank dies, it sends
 * SIGCONT and, a second later, SIGTERM to every rank, and SIGKILL when they
 * are still there odls_base_sigkill_timeout seconds (1 unless set) after
 * that.  A healthy run stops in that time; one whose peer died cannot (its
 * ranks wait for the dead one).  So rank 0 gives the orderly stop half that
 * time (the grace timer); when the timer fires first, it prints the note of
 * on_sigterm() and dies of the signal, as it would have without a handler,
 * removing a checkpoint it was writing. */
static volatile sig_atomic_t stop_signal;
static timer_t grace_timer;
static struct itimerspec grace;             /* set before the handlers */
static volatile sig_atomic_t grace_armed;   /* rank 0 under MPI: start it on a signal */

static volatile sig_atomic_t stopped_by[2];    /* SIGINT, SIGTERM seen */

static void on_stop(int sig)
{
    if (stopped_by[sig == SIGTERM]) {
        optinc_out_end_by(sig);
        return;
    }
    stopped_by[sig == SIGTERM] = 1;
    stop_signal = sig;
    if (grace_armed)
        timer_settime(grace_timer, 0, &grace, NULL);   /* async-signal-safe */
}

/* The grace ran out: the orderly stop is stuck (a dead peer), so rank 0
 * says where the last checkpoint is and dies of the stop signal. */
static void on_grace_over(int unused)
{
    write_note();
    optinc_out_end_by(stop_signal);
}

/* Half the seconds mpirun leaves between SIGTERM and SIGKILL (mpirun passes
 * --mca odls_base_sigkill_timeout S on to the ranks in their environment). */
static struct itimerspec grace_of_mpirun(void)
{
    const char *s = getenv("OMPI_MCA_odls_base_sigkill_timeout");
    char *end;
    long sec = s ? strtol(s, &end, 10) : 1;
    if (!s || *end || sec < 1 || sec > 3600)
        sec = 1;
    return (struct itimerspec){{0, 0}, {sec / 2, sec % 2 * 500000000L}};
}

static void catch_stop_signals(int with_grace)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    if (with_grace) {
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_SIGNAL;
        ev.sigev_signo = SIGALRM;
        sa.sa_handler = on_grace_over;
        sigaction(SIGALRM, &sa, NULL);
        grace = grace_of_mpirun();
        grace_armed = !timer_create(CLOCK_MONOTONIC, &ev, &grace_timer);
    }
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* After the run: the orderly stop is done, the grace timer must not fire. */
static void grace_cancel(void)
{
    if (grace_armed) {
        grace_armed = 0;
        timer_delete(grace_timer);
    }
}

/* What the run says when a signal stopped it. */
static void say_stopped(const opts *o, const optinc_train_result *r, int sig)
{
    char advice[1400];
    if (r->checkpoint_step > 0)
        snprintf(advice, sizeof advice, "the checkpoint of step %ld is %s/%s: rerun with "
                 "--resume to go on", r->checkpoint_step, o->cfg.out_dir,
                 optinc_train_files[OPTINC_TRAIN_CHECKPOINT]);
    else
        optinc_train_resume_advice(&o->cfg, r->checkpoint_step, advice, sizeof advice);
    fprintf(stderr, "optinc train: stopped by %s after step %ld; %s\n",
            sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal to another rank",
            r->steps, advice);
}

/* OPTINC_TEST_FAULT=kill|hang|pause:RANK:STEP (tests only); -1 if malformed. */
static int test_fault(watch *w)
{
    const char *s = getenv("OPTINC_TEST_FAULT");
    char act[8];
    int end = 0;
    if (!s || !*s)
        return 0;
    if (sscanf(s, "%7[a-z]:%d:%ld%n", act, &w->fault_rank, &w->fault_step, &end) != 3 ||
        s[end] || (strcmp(act, "kill") && strcmp(act, "hang") && strcmp(act, "pause")))
        return -1;
    w->fault = act[0];
    return 0;
}

/* The trainer's progress callback; nonzero stops the run. */
static int on_step(void *ctx, const optinc_train_progress *p)
{
    watch *w = ctx;
    if (w->bar)
        progress_bar(p);
    if (w->note && p->checkpoint_step != w->noted)
        note_checkpoint(w, p->checkpoint_step);
    if (w->fault && w->rank == w->fault_rank && p->step == w->fault_step) {
        if (w->fault == 'k')
            raise(SIGKILL);
        while (w->fault == 'h' || !stop_signal)
            pause();
    }
    return stop_signal != 0;
}

static void print_sha(FILE *f, const uint8_t *h)
{
    for (int i = 0; i < 32; i++)
        fprintf(f, "%02x", h[i]);
}

/* The cascade the optinc all-reduce runs through, from a plan of the run's
 * configuration: its levels (0: one table, or another algorithm) and the
 * bytes each level's units receive per step of params elements. */
static int cascade_bytes(const opts *o, size_t params, uint64_t *bytes)
{
    const optinc_train_config *c = &o->cfg;
    optinc_ar_config cfg = {.algorithm = c->allreduce, .servers = c->servers, .bits = c->bits,
                            .block_size = c->block_size, .lut = c->lut};
    optinc_allreduce *ar;
    optinc_error err;
    if (!(c->allreduce->flags & OPTINC_AR_ONN) || optinc_allreduce_new(&cfg, &ar, &err))
        return 0;
    int levels = optinc_allreduce_levels(ar);
    for (int l = 0; l < levels; l++)
        bytes[l] = optinc_allreduce_level_bytes(ar, params, l);
    optinc_allreduce_free(ar);
    return levels;
}

static void print_json(const opts *o, const optinc_train_result *r, const char *aggregator,
                       const optinc_onn_report *rep)
{
    const optinc_train_config *c = &o->cfg;
    printf("{\"backend\": \"%s\", \"allreduce\": \"%s\", \"servers\": %d, \"epochs\": %d, "
           "\"steps\": %ld, \"params\": %zu, \"aggregator\": ", o->backend,
           c->allreduce->name, c->servers, r->n_epochs, r->steps, r->params);
    cli_json_string(stdout, aggregator);
    printf(", \"batch\": %d, \"hidden\": [", c->batch);
    for (int l = 0; l < c->n_hidden; l++)
        printf("%s%d", l ? ", " : "", c->hidden[l]);
    printf("], \"lr\": ");
    cli_json_number(stdout, c->lr);
    printf(", \"lr_schedule\": \"%s\"", optinc_lr_schedule_names[c->lr_schedule]);
    cli_json_field(stdout, "momentum", c->momentum);
    printf(", \"seed\": %llu, \"bits\": %d, \"block_size\": %d, \"checkpoint_every\": %ld",
           (unsigned long long)c->seed, c->bits, c->block_size, c->checkpoint_every);
    printf(", \"error_feedback\": %s, \"stochastic_rounding\": %s",
           c->error_feedback ? "true" : "false", c->stochastic_rounding ? "true" : "false");
    if (rep) {
        cli_json_field(stdout, "onn_accuracy", rep->accuracy);
        cli_json_field(stdout, "onn_weighted_accuracy", rep->weighted_accuracy);
        printf(", \"onn_error_histogram\": {");
        for (int k = 0, first = 1; k < 2 * OPTINC_ONN_HIST + 1; k++)
            if (rep->hist[k]) {
                printf("%s\"%d\": %llu", first ? "" : ", ", k - OPTINC_ONN_HIST,
                       (unsigned long long)rep->hist[k]);
                first = 0;
            }
        printf("}");
    }
    uint64_t level[OPTINC_ONN_MAX_LEVELS];
    int levels = cascade_bytes(o, r->params, level);
    printf(", \"cascade_levels\": %d, \"level_bytes_per_step\": [", levels);
    for (int l = 0; l < levels; l++)
        printf("%s%llu", l ? ", " : "", (unsigned long long)level[l]);
    printf("]");
    cli_json_field(stdout, "test_accuracy", r->test_accuracy);
    cli_json_field(stdout, "train_accuracy", r->train_accuracy);
    cli_json_field(stdout, "train_loss", r->train_loss);
    printf(", \"bytes_sent_per_server\": %llu", (unsigned long long)r->bytes_sent_per_server);
    cli_json_field(stdout, "comm_time_s", r->comm_time_s);
    printf(", \"injected_errors\": %llu, \"resumed_from\": %ld, \"stopped\": %s, "
           "\"weights_sha256\": \"", (unsigned long long)r->injected_errors, r->resumed_from,
           r->stopped ? "true" : "false");
    print_sha(stdout, r->weights_sha256);
    printf("\"}\n");
}

static void print_text(const opts *o, const optinc_train_result *r, const char *aggregator,
                       const optinc_onn_report *rep)
{
    const optinc_train_config *c = &o->cfg;
    int quantizes = (c->allreduce->flags & OPTINC_AR_QUANTIZES) != 0;
    printf("optinc train: %s all-reduce (%s%s%s), %d servers, %s backend\n",
           c->allreduce->name, aggregator,
           quantizes && c->error_feedback ? "; error feedback" : "",
           quantizes && c->stochastic_rounding ? "; stochastic rounding" : "", c->servers,
           o->backend);
    if (rep) {
        printf("ONN table: %llu of %llu P outputs exact (%.4f%%; %.4f%% of server inputs); "
               "errors (LSB: count):", (unsigned long long)rep->correct,
               (unsigned long long)rep->checked, 100.0 * rep->accuracy,
               100.0 * rep->weighted_accuracy);
        for (int k = 0; k < 2 * OPTINC_ONN_HIST + 1; k++)
            if (rep->hist[k] && k != OPTINC_ONN_HIST)
                printf(" %+d: %llu", k - OPTINC_ONN_HIST, (unsigned long long)rep->hist[k]);
        printf("\n");
    }
    uint64_t level[OPTINC_ONN_MAX_LEVELS];
    int levels = cascade_bytes(o, r->params, level);
    if (levels) {
        printf("cascade: %d levels of %d-server units; bytes into each level per step:", levels,
               c->lut ? c->lut->servers : 4);
        for (int l = 0; l < levels; l++)
            printf(" %llu", (unsigned long long)level[l]);
        printf("\n");
    }
    printf("%5s %8s %10s %9s %9s %14s %12s\n", "epoch", "step", "loss", "train", "test",
           "bytes/server", "comm ms");
    for (int i = 0; i < r->n_epochs; i++) {
        const optinc_train_epoch *e = &r->epochs[i];
        printf("%5d %8ld %10.5f %8.2f%% %8.2f%% %14llu %12.4f\n", e->epoch, e->step,
               e->train_loss, 100.0 * e->train_accuracy, 100.0 * e->test_accuracy,
               (unsigned long long)e->bytes_sent_per_server, e->comm_time_s * 1e3);
    }
    if (r->stopped)
        printf("stopped after step %ld (--stop-after)\n", r->steps);
    if (r->injected_errors)
        printf("injected ONN output errors: %llu\n", (unsigned long long)r->injected_errors);
    printf("weights sha256 ");
    print_sha(stdout, r->weights_sha256);
    printf("\n");
}

/* The compiled ONN simulated on every point of P's output space, on the
 * chip of --chip or --phase-sigma, and --chip-seed, as the trainer's
 * aggregation table. */
static optinc_status onn_table(opts *o, optinc_agg_lut **lut, optinc_onn_report *rep,
                               optinc_error *err)
{
    const char *path = o->onn ? o->onn : DEFAULT_ONN;
    optinc_onn_devices dev = {.ideal = !(o->programmed || o->phase_sigma > 0.0),
                              .phase_sigma_rad = o->phase_sigma,
                              .chip_seed = o->set_chip_seed ? o->chip_seed : o->cfg.seed};
    optinc_status st = OPTINC_OK;
    if (o->set_chip) {
        cli_input(o->chip_path, "chip file");
        if ((st = optinc_chip_spec_load(o->chip_path, cli_read_opts(), &o->chip, err)))
            return st;
        optinc_onn_devices_use_chip(&dev, &o->chip, o->calibrate);
    }
    cli_input(path, "ONN");
    st = optinc_agg_lut_onn(path, cli_read_opts(), o->cfg.servers, o->cfg.bits, &dev, lut, rep,
                            err);
    const optinc_spec *spec = o->onn_spec;
    if (st && !o->onn && access(path, R_OK)) {
        optinc_fail(err, OPTINC_EINPUT, path, 0, 0,
                    "no ONN netlist here: give --onn NET.sp (optinc onn train and "
                    "optinc compile make one), or use --allreduce quantized for the "
                    "exact aggregation");
    } else if (st && spec && !err->line && !strcmp(err->file, path)) {
        /* the file the spec names cannot be read: say where the spec names it */
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err->message);
        optinc_fail(err, st, spec->path, spec->train.onn_line, spec->train.onn_column,
                    "'onn' in train: %s", why);
    }
    return st;
}

/* Loads what the aggregation needs: the ONN's table for optinc (or to
 * measure its errors for --inject-errors onn) and the injected-error
 * histogram. */
static optinc_status load_aggregator(opts *o, optinc_err_hist **hist, optinc_agg_lut **lut,
                                     const char **name, optinc_onn_report *rep, int *have_rep,
                                     optinc_error *err)
{
    optinc_status st = OPTINC_OK;
    int from_onn = o->inject && !strcmp(o->inject, "onn");
    int onn = o->cfg.allreduce->flags & OPTINC_AR_ONN;
    *name = o->cfg.allreduce->summary;
    *have_rep = 0;
    int exact = o->onn && !strcmp(o->onn, "exact");
    if (onn || from_onn) {
        /* exact: N's table, or a 4-server unit's for a cascade when N's is too large */
        int unit = optinc_agg_lut_fits(o->cfg.servers, o->cfg.bits) ? o->cfg.servers : 4;
        st = exact ? optinc_agg_lut_exact(unit, o->cfg.bits, lut, err)
                   : onn_table(o, lut, rep, err);
        if (st)
            return st;
        *have_rep = !exact;
        if (onn) {
            o->cfg.lut = *lut;
            *name = (*lut)->source;
        }
    }
    if (from_onn)
        st = optinc_err_hist_from_counts(rep->hist, 2 * OPTINC_ONN_HIST + 1, OPTINC_ONN_HIST,
                                         hist, err);
    else if (o->inject) {
        cli_input(o->inject, "error histogram");
        st = optinc_err_hist_load(o->inject, cli_read_opts(), hist, err);
    }
    if (!st && *hist)
        o->cfg.inject = *hist;
    return st;
}

int cmd_train(int argc, char **argv)
{
    opts o;
    memset(&o, 0, sizeof o);
    optinc_train_defaults(&o.cfg);
    o.backend = "inproc";
    o.step_timeout_s = OPTINC_COMM_DEFAULT_TIMEOUT_S;
    int rc = cli_threads_default("train", &o.cfg.threads);
    if (rc >= 0)
        return rc;
    rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (o.cost_model)
        return cost_model(&o);
    watch w = {.cfg = &o.cfg, .noted = -2};
    if (test_fault(&w))
        return cli_usage_error("train", "OPTINC_TEST_FAULT is kill:RANK:STEP, hang:RANK:STEP "
                               "or pause:RANK:STEP");
    optinc_error err;
    optinc_error_clear(&err);
    optinc_spec *spec = NULL;
    optinc_status st = OPTINC_OK;
    cli_input(o.spec, "spec");
    if (o.spec && (st = optinc_spec_load(o.spec, cli_read_opts(), &spec, &err)))
        return cli_report(&train_cmd, &err, st);
    if (spec && (st = apply_spec(&o, spec, &err))) {
        optinc_spec_free(spec);
        return cli_report(&train_cmd, &err, st);
    }
    if ((rc = refuse_ignored(&o)) >= 0) {
        optinc_spec_free(spec);
        return rc;
    }
    o.cfg.error_feedback |= o.set_feedback;         /* a flag turns on what a spec leaves off */
    o.cfg.stochastic_rounding |= o.set_stochastic;
    if (!o.cfg.data_dir[0])
        cli_data_dir(o.cfg.data_dir, sizeof o.cfg.data_dir);
    optinc_comm comm;
    if ((st = optinc_comm_backend_check(o.backend, &err))) {
        optinc_spec_free(spec);
        return cli_report(&train_cmd, &err, st);
    }
    int mpirun_rank, ranks = cli_mpirun_ranks(&mpirun_rank);
    if (ranks > 1 && !o.mpi) {   /* each copy would train alone */
        optinc_spec_free(spec);
        return mpirun_rank ? 2 : cli_usage_error("train", "mpirun started %d copies of this "
                                                 "program, which would each train alone: "
                                                 "add --backend mpi", ranks);
    }
    if (o.mpi && !ranks) {
        optinc_spec_free(spec);
        return cli_usage_error("train", "--backend mpi runs under mpirun: "
                               "mpirun -np %d optinc train ... --backend mpi", o.cfg.servers);
    }
    st = optinc_comm_open(&comm, o.backend, o.cfg.servers, &argc, &argv, &err);
    if (o.mpi) {
        const optinc_spec_train *t = spec ? &spec->train : NULL;
        if (!st && o.set_servers && o.cfg.servers != comm.servers)
            st = optinc_fail(&err, OPTINC_EINPUT, NULL, 0, 0,
                             "--servers %d but mpirun started %d ranks: use mpirun -np %d",
                             o.cfg.servers, comm.servers, o.cfg.servers);
        else if (!st && !o.set_servers && t && t->servers_line && t->servers != comm.servers)
            st = optinc_fail(&err, OPTINC_EINPUT, spec->path, t->servers_line,
                             t->servers_column, "'servers' in train is %d, but mpirun started "
                             "%d ranks: use mpirun -np %d, or give --servers %d",
                             t->servers, comm.servers, t->servers, comm.servers);
        o.cfg.servers = comm.servers;
        comm.timeout_s = o.step_timeout_s;
    }
    int root = comm.rank == 0;
    w.rank = comm.rank;
    w.bar = root && !o.quiet && isatty(STDERR_FILENO);
    w.note = root && o.mpi;
    if (w.note) {
        note_checkpoint(&w, -1);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigterm;
        sigaction(SIGTERM, &sa, NULL);
    }
    optinc_err_hist *hist = NULL;
    optinc_agg_lut *lut = NULL;
    const char *aggregator = "";
    optinc_onn_report rep;
    int have_rep = 0;
    if (!st)
        st = load_aggregator(&o, &hist, &lut, &aggregator, &rep, &have_rep, &err);
    if (!st)
        st = check_outputs(&o, &err);
    st = optinc_comm_agree(&comm, st, &err);
    optinc_train_result res;
    memset(&res, 0, sizeof res);
    if (!st) {
        o.cfg.progress = on_step;
        o.cfg.progress_ctx = &w;
        catch_stop_signals(w.note);
        st = optinc_train(&o.cfg, &comm, &res, &err);
        grace_cancel();
    }
    int failed = optinc_comm_failed(&comm);
    if (failed) {   /* each rank that noticed; optinc_comm_close() ends the job */
        note_off = 1;
        fprintf(stderr, "optinc train: %s\n", err.message);
    }
    /* a rank the signal did not reach stops as its peers did */
    int sig = !st && res.interrupted ? (stop_signal ? (int)stop_signal : -1) : 0;
    if (!st && root && o.cfg.resume && !res.resumed_from && !o.quiet)
        cli_warn("no checkpoint in %s: started from step 0", o.cfg.out_dir);
    if (!st && root && o.cfg.out_dir[0] && !res.stopped && !sig) {
        char title[256];
        int have;
        snprintf(title, sizeof title, "%s all-reduce, %d servers, seed %llu",
                 o.cfg.allreduce->name, o.cfg.servers,
                 (unsigned long long)o.cfg.seed);
        st = cli_plot_curves(o.cfg.out_dir, title, &have, &err);
        if (!st && !have && !o.quiet)
            cli_warn("gnuplot is not installed: no plots (install gnuplot-nox; the curves are "
                     "in %s/metrics.csv)", o.cfg.out_dir);
    }
    if (!st && root && !sig)
        (o.json ? print_json : print_text)(&o, &res, aggregator, have_rep ? &rep : NULL);
    if (sig) {
        if (w.bar)
            fputc('\n', stderr);
        if (root)
            say_stopped(&o, &res, sig);
        rc = 128 + (sig > 0 ? sig : SIGTERM);
    } else if (st && root && !failed) {
        rc = cli_report(&train_cmd, &err, st);
    } else {
        rc = (int)st;
    }
    optinc_train_result_free(&res);
    optinc_agg_lut_free(lut);
    optinc_err_hist_free(hist);
    optinc_spec_free(spec);
    optinc_comm_close(&comm);
    return rc;
}
