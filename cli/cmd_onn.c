/*
 * cmd_onn.c - `optinc onn train|verify|export|cascade`: the OptINC optical
 * neural network from the command line.  A thin layer over onn.h: train
 * writes a spec (atomically), verify runs the compiled circuit exhaustively,
 * export writes what the data-parallel trainer consumes (error histogram,
 * aggregation table), cascade checks a two-level cascade.  See optinc-onn(1)
 * and, for the design, optinc-onn(7).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "optinc/fileio.h"
#include "optinc/netlist.h"
#include "optinc/onn.h"
#include "optinc/sim.h"
#include "optinc/spec.h"

static const char usage_text[] =
    "usage: optinc onn train -o SPEC.yaml [options]   train an ONN, write its spec\n"
    "       optinc onn verify SPEC|NET [options]      check the compiled ONN exhaustively\n"
    "       optinc onn export SPEC|NET [options]      error histogram / aggregation table\n"
    "       optinc onn cascade LEVEL1 LEVEL2 [options] check a two-level cascade\n"
    "'optinc onn COMMAND --help' lists a command's options.  See optinc-onn(1), optinc-onn(7).\n";

static const char train_usage[] =
    "usage: optinc onn train -o SPEC.yaml [--servers N] [--bits B] [--level L]\n"
    "         [--preprocessing digit_sums|weighted_sum] [--rounding half_even|half_up]\n"
    "         [--hidden W,W,...] [--segments auto|none|RxC,...] [--resume SPEC]\n"
    "         [--epochs E] [--lr X] [--batch B] [--seed S] [--margin M] [--boost K]\n"
    "         [--noise X] [--sample N] [--phase-bits B] [--name NAME] [--quiet]\n"
    "Trains the ONN of one OptINC unit (or cascade level L) on every P output and\n"
    "writes it as a spec that 'optinc compile' turns into a netlist.\n"
    "  -o, --output SPEC   the spec to write (matrices go to SPEC without .yaml/)\n"
    "  --servers N         servers per unit (4)          --bits B   code bits (8)\n"
    "  --level L           0 one unit, 1 or 2 a level of a two-level cascade (0)\n"
    "  --hidden LIST       hidden widths (125,126,127)\n"
    "  --segments S        unitary-diagonal segments per layer: auto (default), none,\n"
    "                      or RxC per layer (0x0 = dense)\n"
    "  --resume SPEC       start from a trained ONN (two-stage or noise-aware tuning)\n"
    "  --epochs E (600)  --lr X (3e-3)  --batch B (512)  --seed S (1)\n"
    "  --margin M          stop when every output is within 0.5-M of its level (0.1)\n"
    "  --boost K           oversample points missing the margin up to K times (32)\n"
    "  --noise X           noise-aware: relative weight noise per step (0)\n"
    "  --sample N          train on N random points when the P box is larger (0: all)\n"
    "  --phase-bits B      phase drivers of the compiled meshes (8)\n";

static const char verify_usage[] =
    "usage: optinc onn verify SPEC|NET [--json] [--programmed] [--sigma RAD] [--continuous]\n"
    "         [--chips K] [--chip-seed S] [--sample N] [--servers N] [--bits B] [--level L]\n"
    "         [--rounding R] [--preprocessing P]\n"
    "Evaluates the compiled ONN on every P output and compares each decoded result\n"
    "with the rounded average.  Ideal devices unless --programmed or --sigma.\n"
    "  --json           print {accuracy, inputs_checked, mzis, area_ratio, histogram ...}\n"
    "  --programmed     use the programmed phase-driver codes (quantized phases)\n"
    "  --sigma RAD      static phase error of every phase shifter (implies --programmed)\n"
    "  --continuous     with --sigma: drivers realize the unquantized targets\n"
    "  --chips K        Monte-Carlo over K chips (1)  --chip-seed S   first chip (1)\n"
    "  --sample N       check N random points when the P box is larger (1000000)\n"
    "  --servers, --bits, --level, --rounding  the task of a netlist whose spec is gone\n";

static const char export_usage[] =
    "usage: optinc onn export SPEC|NET [--hist FILE] [--lut FILE] [--programmed]\n"
    "         [--sigma RAD] [--continuous] [--chip-seed S]\n"
    "Writes what 'optinc train' needs from a compiled ONN on one chip.\n"
    "  --hist FILE   error histogram (DELTA COUNT lines, counts over raw server inputs)\n"
    "  --lut FILE    aggregation table (INDEX CODE lines, index = sum_k p_k (3N+1)^k)\n";

static const char cascade_usage[] =
    "usage: optinc onn cascade LEVEL1 LEVEL2 [--json] [--sample N] [--seed S]\n"
    "         [--programmed] [--sigma RAD] [--continuous] [--chip-seed S]\n"
    "Checks a two-level cascade: each level exhaustively, then N random end-to-end\n"
    "inputs of fan_in^2 servers (100000), and reports the hardware overhead.\n";

/* ---- shared options -------------------------------------------------------- */

enum {
    OPT_SERVERS = 256, OPT_BITS, OPT_LEVEL, OPT_PRE, OPT_ROUND, OPT_HIDDEN, OPT_SEGMENTS,
    OPT_RESUME, OPT_EPOCHS, OPT_LR, OPT_BATCH, OPT_SEED, OPT_MARGIN, OPT_BOOST, OPT_NOISE,
    OPT_SAMPLE, OPT_PHASE_BITS, OPT_NAME, OPT_QUIET, OPT_JSON, OPT_PROGRAMMED, OPT_SIGMA,
    OPT_CHIPS, OPT_CHIP_SEED, OPT_HIST, OPT_LUT, OPT_CONTINUOUS
};

typedef struct task_opts {
    long servers, bits, level;       /* -1: not given */
    int pre, rounding;               /* -1: not given */
} task_opts;

static int parse_list(const char *s, int *out, int max, int *n)
{
    char buf[512], *save;
    snprintf(buf, sizeof buf, "%s", s);
    *n = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long v;
        if (*n >= max || cli_parse_long(t, 1, 4096, &v))
            return -1;
        out[(*n)++] = (int)v;
    }
    return *n ? 0 : -1;
}

static int parse_task_opt(const char *cmd, int ch, task_opts *t)
{
    switch (ch) {
    case OPT_SERVERS:
        if (cli_parse_long(optarg, 2, 64, &t->servers))
            return cli_usage_error(cmd, "--servers takes 2..64, got '%s'", optarg);
        return 0;
    case OPT_BITS:
        if (cli_parse_long(optarg, 2, 30, &t->bits) || t->bits % 2)
            return cli_usage_error(cmd, "--bits takes an even number 2..30, got '%s'", optarg);
        return 0;
    case OPT_LEVEL:
        if (cli_parse_long(optarg, 0, 2, &t->level))
            return cli_usage_error(cmd, "--level takes 0, 1 or 2, got '%s'", optarg);
        return 0;
    case OPT_PRE:
        if (!strcmp(optarg, "digit_sums") || !strcmp(optarg, "weighted_sum")) {
            t->pre = optarg[0] == 'd' ? OPTINC_P_DIGIT_SUMS : OPTINC_P_WEIGHTED_SUM;
            return 0;
        }
        return cli_usage_error(cmd, "--preprocessing takes digit_sums or weighted_sum");
    case OPT_ROUND:
        if (!strcmp(optarg, "half_even") || !strcmp(optarg, "half_up")) {
            t->rounding = !strcmp(optarg, "half_up") ? OPTINC_ROUND_HALF_UP
                                                      : OPTINC_ROUND_HALF_EVEN;
            return 0;
        }
        return cli_usage_error(cmd, "--rounding takes half_even or half_up");
    }
    return -1;
}

/* Applies the given task options over meta (defaults where neither says). */
static optinc_status task_apply(const task_opts *t, optinc_onn_meta *m, optinc_error *err)
{
    if (t->servers > 0)
        m->fan_in = (int)t->servers;
    if (t->bits > 0)
        m->bits = (int)t->bits;
    if (t->level >= 0)
        m->level = (int)t->level;
    optinc_preproc pre = t->pre >= 0 ? (optinc_preproc)t->pre : m->task.pre;
    optinc_rounding r = t->rounding >= 0 ? (optinc_rounding)t->rounding : m->task.rounding;
    if (!m->fan_in)
        m->fan_in = 4;
    if (!m->bits)
        m->bits = 8;
    return m->level ? optinc_onn_task_cascade(&m->task, m->level, m->fan_in, m->bits, pre, r, err)
                    : optinc_onn_task_unit(&m->task, m->fan_in, m->bits, pre, r, err);
}

/* The device options verify, export and cascade share (parse_devices). */
#define DEVICE_OPTIONS                                                                    \
    {"programmed", no_argument, NULL, OPT_PROGRAMMED},                                   \
        {"continuous", no_argument, NULL, OPT_CONTINUOUS},                               \
        {"sigma", required_argument, NULL, OPT_SIGMA},                                   \
        {"chip-seed", required_argument, NULL, OPT_CHIP_SEED}

static int parse_devices(const char *cmd, int ch, optinc_onn_devices *d)
{
    long v;
    switch (ch) {
    case OPT_PROGRAMMED: d->ideal = 0; return 0;
    case OPT_CONTINUOUS: d->ideal = OPTINC_ONN_CONTINUOUS; return 0;
    case OPT_SIGMA:
        if (cli_parse_double(optarg, &d->phase_sigma_rad) || d->phase_sigma_rad < 0)
            return cli_usage_error(cmd, "--sigma takes a phase error >= 0 in rad");
        if (d->ideal == 1)
            d->ideal = 0;
        return 0;
    case OPT_CHIP_SEED:
        if (cli_parse_long(optarg, 0, 0x7fffffffL, &v))
            return cli_usage_error(cmd, "--chip-seed takes an integer >= 0");
        d->chip_seed = (uint64_t)v;
        return 0;
    }
    return -1;
}

static const char *devices_text(const optinc_onn_devices *d, char *buf, size_t n)
{
    if (d->ideal == 1)
        snprintf(buf, n, "ideal (continuous phases, no errors)");
    else
        snprintf(buf, n, "%s, phase error sigma %g rad, chip seed %llu",
                 d->ideal ? "continuous phases" : "programmed phase-driver codes",
                 d->phase_sigma_rad, (unsigned long long)d->chip_seed);
    return buf;
}

/* ---- train ----------------------------------------------------------------- */

typedef struct progress {
    int on, epochs;
} progress;

static int show_progress(void *ctx, int epoch, double loss, double acc)
{
    const progress *p = ctx;
    if (p->on)
        fprintf(stderr, "\repoch %d/%d  loss %.3e  accuracy %.5f%%   ", epoch, p->epochs, loss,
                100 * acc);
    return 0;
}

/* Segment shapes: auto gives every layer that is square one segment, and a
 * tall (wide) layer whose rows (columns) are a multiple of the other side
 * square segments of that side; other layers stay dense. */
static int parse_segments(const char *s, const optinc_onn *net, int *seg)
{
    memset(seg, 0, sizeof *seg * 2 * OPTINC_ONN_MAX_LAYERS);
    if (!strcmp(s, "none"))
        return 0;
    if (!strcmp(s, "auto")) {
        for (int l = 0; l < net->n_layers; l++) {
            int R = net->layers[l].rows, C = net->layers[l].cols;
            int k = R == C ? R : R > C && R % C == 0 ? C : R < C && C % R == 0 ? R : 0;
            seg[2 * l] = R == C ? R : k;
            seg[2 * l + 1] = R == C ? C : k;
        }
        return 0;
    }
    char buf[512], *save;
    snprintf(buf, sizeof buf, "%s", s);
    int l = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), l++) {
        if (l >= net->n_layers || sscanf(t, "%dx%d", &seg[2 * l], &seg[2 * l + 1]) != 2)
            return -1;
    }
    return l == net->n_layers ? 0 : -1;
}

static int onn_train(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"servers", required_argument, NULL, OPT_SERVERS},
        {"bits", required_argument, NULL, OPT_BITS}, {"level", required_argument, NULL, OPT_LEVEL},
        {"preprocessing", required_argument, NULL, OPT_PRE},
        {"rounding", required_argument, NULL, OPT_ROUND},
        {"hidden", required_argument, NULL, OPT_HIDDEN},
        {"segments", required_argument, NULL, OPT_SEGMENTS},
        {"resume", required_argument, NULL, OPT_RESUME},
        {"epochs", required_argument, NULL, OPT_EPOCHS}, {"lr", required_argument, NULL, OPT_LR},
        {"batch", required_argument, NULL, OPT_BATCH}, {"seed", required_argument, NULL, OPT_SEED},
        {"margin", required_argument, NULL, OPT_MARGIN},
        {"boost", required_argument, NULL, OPT_BOOST},
        {"noise", required_argument, NULL, OPT_NOISE},
        {"sample", required_argument, NULL, OPT_SAMPLE},
        {"phase-bits", required_argument, NULL, OPT_PHASE_BITS},
        {"name", required_argument, NULL, OPT_NAME}, {"quiet", no_argument, NULL, OPT_QUIET},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    task_opts t = {-1, -1, -1, -1, -1};
    optinc_onn_train_opts o;
    optinc_onn_train_defaults(&o);
    int hidden[OPTINC_MAX_HIDDEN] = {125, 126, 127}, n_hidden = 3, quiet = 0, ch;
    long v, phase_bits = 8;
    const char *output = NULL, *segments = NULL, *resume = NULL, *name = NULL;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        int rc = parse_task_opt("onn train", ch, &t);
        if (rc >= 0) {
            if (rc)
                return rc;
            continue;
        }
        switch (ch) {
        case 'o': output = optarg; break;
        case OPT_HIDDEN:
            if (parse_list(optarg, hidden, OPTINC_MAX_HIDDEN, &n_hidden))
                return cli_usage_error("onn train", "--hidden takes widths 1..4096 separated "
                                       "by commas, got '%s'", optarg);
            break;
        case OPT_SEGMENTS: segments = optarg; break;
        case OPT_RESUME: resume = optarg; break;
        case OPT_EPOCHS:
            if (cli_parse_long(optarg, 1, 1000000, &v))
                return cli_usage_error("onn train", "--epochs takes 1..1000000");
            o.max_epochs = (int)v;
            break;
        case OPT_BATCH:
            if (cli_parse_long(optarg, 1, 1 << 20, &v))
                return cli_usage_error("onn train", "--batch takes 1..1048576");
            o.batch = (int)v;
            break;
        case OPT_SEED:
            if (cli_parse_long(optarg, 0, 0x7fffffffL, &v))
                return cli_usage_error("onn train", "--seed takes an integer >= 0");
            o.seed = (uint64_t)v;
            break;
        case OPT_BOOST:
            if (cli_parse_long(optarg, 1, 128, &v))
                return cli_usage_error("onn train", "--boost takes 1..128");
            o.boost = (int)v;
            break;
        case OPT_SAMPLE:
            if (cli_parse_long(optarg, 0, 1L << 30, &v))
                return cli_usage_error("onn train", "--sample takes 0..2^30");
            o.sample = (uint64_t)v;
            break;
        case OPT_PHASE_BITS:
            if (cli_parse_long(optarg, 0, 16, &phase_bits))
                return cli_usage_error("onn train", "--phase-bits takes 0..16");
            break;
        case OPT_LR:
            if (cli_parse_double(optarg, &o.lr) || !(o.lr > 0))
                return cli_usage_error("onn train", "--lr takes a number > 0");
            break;
        case OPT_MARGIN:
            if (cli_parse_double(optarg, &o.margin) || o.margin < 0 || o.margin >= 0.5)
                return cli_usage_error("onn train", "--margin takes a number in [0, 0.5)");
            break;
        case OPT_NOISE:
            if (cli_parse_double(optarg, &o.noise) || o.noise < 0 || o.noise > 1)
                return cli_usage_error("onn train", "--noise takes a number in [0, 1]");
            break;
        case OPT_NAME: name = optarg; break;
        case OPT_QUIET: quiet = 1; break;
        case 'h': fputs(train_usage, stdout); return 0;
        default:
            return cli_usage_error("onn train", "unknown or incomplete option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind != argc)
        return cli_usage_error("onn train", "unexpected argument '%s'", argv[optind]);
    if (!output)
        return cli_usage_error("onn train", "missing -o SPEC.yaml");

    optinc_error err = {0};
    optinc_onn_meta meta = {0};
    optinc_onn net;
    optinc_status st;
    int seg[2 * OPTINC_ONN_MAX_LAYERS];
    if (resume) {
        optinc_spec *spec;
        if ((st = optinc_spec_load(resume, cli_read_opts(), &spec, &err)))
            return cli_report(&err, st);
        st = optinc_onn_from_spec(spec, &net, &meta, &err);
        optinc_spec_free(spec);
        if (st)
            return cli_report(&err, st);
        if (segments) {
            if (parse_segments(segments, &net, seg))
                return optinc_onn_free(&net),
                       cli_usage_error("onn train", "--segments takes auto, none or one RxC "
                                       "per layer");
            for (int l = 0; l < net.n_layers; l++) {
                net.layers[l].seg_rows = seg[2 * l];
                net.layers[l].seg_cols = seg[2 * l + 1];
            }
        }
    } else {
        if ((st = task_apply(&t, &meta, &err)))
            return cli_report(&err, st);
        if ((st = optinc_onn_alloc(&net, &meta.task, hidden, n_hidden, NULL, &err)))
            return cli_report(&err, st);
        if (parse_segments(segments ? segments : "auto", &net, seg)) {
            optinc_onn_free(&net);
            return cli_usage_error("onn train", "--segments takes auto, none or one RxC per "
                                   "layer (%d layers)", n_hidden + 1);
        }
        optinc_onn_free(&net);
        if ((st = optinc_onn_alloc(&net, &meta.task, hidden, n_hidden, seg, &err)))
            return cli_report(&err, st);
    }
    progress pr = {!quiet && isatty(2), o.max_epochs};
    o.progress = show_progress;
    o.ctx = &pr;
    optinc_onn_train_result res;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = optinc_onn_train(&net, &o, resume != NULL, &res, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (pr.on)
        fputc('\n', stderr);
    optinc_onn_report rep;
    if (!st)
        st = optinc_onn_check(&net, 1000000, &rep, &err);
    if (st) {
        optinc_onn_free(&net);
        return cli_report(&err, st);
    }
    char dflt[OPTINC_NAME_MAX], prov[512];
    if (!name) {
        if (meta.level)
            snprintf(dflt, sizeof dflt, "onn%dx%d_level%d", meta.fan_in * meta.fan_in, meta.bits,
                     meta.level);
        else
            snprintf(dflt, sizeof dflt, "onn%dx%d", meta.fan_in, meta.bits);
        name = dflt;
    }
    snprintf(prov, sizeof prov, "optinc %s onn train: seed %llu, %d epochs, lr %g, batch %d, "
             "margin %g, boost %d, noise %g%s%s; model accuracy %.6f (%llu/%llu P outputs)",
             OPTINC_VERSION, (unsigned long long)o.seed, res.epochs, o.lr, o.batch, o.margin,
             o.boost, o.noise, resume ? ", resumed from " : "", resume ? resume : "",
             rep.accuracy, (unsigned long long)rep.correct, (unsigned long long)rep.checked);
    optinc_onn_export_opts eo = {name, (int)phase_bits, o.seed, meta.level, meta.fan_in,
                                 meta.bits, prov};
    st = optinc_onn_export(&net, output, &eo, &err);
    optinc_onn_cost model, svd;
    double ratio = optinc_onn_area_ratio(&net, &model, &svd);
    optinc_onn_free(&net);
    if (st)
        return cli_report(&err, st);
    if (!quiet) {
        printf("%s: %d epochs, %.1f min wall, %.1f min CPU\n", output, res.epochs,
               ((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec)) / 60,
               res.seconds / 60);
        printf("model accuracy %.6f (%llu/%llu %sP outputs), over raw inputs %.6f, largest "
               "output error %.3f levels\n", rep.accuracy, (unsigned long long)rep.correct,
               (unsigned long long)rep.checked, rep.sampled ? "random " : "",
               rep.weighted_accuracy, res.max_error);
        printf("area: %.0f MZI-equivalents = %.1f%% of the SVD realization (%.0f)\n",
               model.total, 100 * ratio, svd.total);
    }
    if (rep.accuracy < 1)
        cli_warn("the trained ONN is not exact on every P output; train longer (--epochs), "
                 "wider (--hidden) or with another --seed");
    return 0;
}

/* ---- verify ---------------------------------------------------------------- */

static void hist_json(const char *key, const uint64_t *h, const double *w)
{
    printf(", \"%s\": {", key);
    for (int b = 0, first = 1; b < 2 * OPTINC_ONN_HIST + 1; b++) {
        if (h ? !h[b] : !(w[b] > 0))
            continue;
        printf("%s\"%d\": ", first ? "" : ", ", b - OPTINC_ONN_HIST);
        if (h)
            printf("%llu", (unsigned long long)h[b]);
        else
            cli_json_number(stdout, w[b]);
        first = 0;
    }
    printf("}");
}

static void cost_json(const char *key, const optinc_onn_cost *c)
{
    printf("\"%s\": {\"meshes\": %.0f, \"attenuators\": %.0f, \"splitters\": %.0f, "
           "\"combiners\": %.0f, \"total\": %.0f}", key, c->meshes, c->attenuators,
           c->splitters, c->combiners, c->total);
}

typedef struct verify_cli {
    optinc_onn_devices dev;
    task_opts t;
    long chips, sample;
    int json, have_task;
} verify_cli;

/* Loads path and applies explicit task options. */
static optinc_status load_onn(const char *path, const task_opts *t, optinc_circuit **c,
                              optinc_onn_meta *m, optinc_error *err)
{
    optinc_status st = optinc_onn_load(path, cli_read_opts(), c, m, err);
    if (st == OPTINC_EINPUT && !*c && (t->servers > 0 || t->bits > 0 || t->level >= 0)) {
        /* the defaults did not fit this circuit: retry with the options */
        optinc_circuit *raw;
        if ((st = optinc_circuit_load(path, cli_read_opts(), &raw, err)))
            return st;
        memset(m, 0, sizeof *m);
        m->n_layers = raw->n_layers;
        if (!(st = task_apply(t, m, err)))
            st = optinc_onn_meta_check(raw, m, err);
        if (st)
            optinc_circuit_free(raw);
        else
            *c = raw;
        return st;
    }
    if (!st && (t->servers > 0 || t->bits > 0 || t->level >= 0 || t->pre >= 0 ||
                t->rounding >= 0)) {
        if (!(st = task_apply(t, m, err)))
            st = optinc_onn_meta_check(*c, m, err);
        if (st) {
            optinc_circuit_free(*c);
            *c = NULL;
        }
    }
    return st;
}

static int onn_verify(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, OPT_JSON}, {"chips", required_argument, NULL, OPT_CHIPS},
        DEVICE_OPTIONS,
        {"sample", required_argument, NULL, OPT_SAMPLE},
        {"servers", required_argument, NULL, OPT_SERVERS}, {"bits", required_argument, NULL, OPT_BITS},
        {"level", required_argument, NULL, OPT_LEVEL}, {"rounding", required_argument, NULL, OPT_ROUND},
        {"preprocessing", required_argument, NULL, OPT_PRE},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    verify_cli v = {{1, 0, 1}, {-1, -1, -1, -1, -1}, 1, 1000000, 0, 0};
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int rc = parse_task_opt("onn verify", ch, &v.t);
        if (rc < 0)
            rc = parse_devices("onn verify", ch, &v.dev);
        if (rc > 0)
            return rc;
        if (!rc)
            continue;
        switch (ch) {
        case OPT_JSON: v.json = 1; break;
        case OPT_CHIPS:
            if (cli_parse_long(optarg, 1, 100000, &v.chips))
                return cli_usage_error("onn verify", "--chips takes 1..100000");
            break;
        case OPT_SAMPLE:
            if (cli_parse_long(optarg, 1, 1L << 34, &v.sample))
                return cli_usage_error("onn verify", "--sample takes a count >= 1");
            break;
        case 'h': fputs(verify_usage, stdout); return 0;
        default:
            return cli_usage_error("onn verify", "unknown or incomplete option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("onn verify", optind >= argc ? "missing SPEC or NET"
                                                            : "more than one SPEC or NET");
    const char *path = argv[optind];
    optinc_error err = {0};
    optinc_circuit *c = NULL;
    optinc_onn_meta m;
    optinc_status st = load_onn(path, &v.t, &c, &m, &err);
    if (st)
        return cli_report(&err, st);
    optinc_onn_report total;
    memset(&total, 0, sizeof total);
    double acc_min = 1, acc_max = 0, acc_sum = 0, wacc_sum = 0;
    for (long k = 0; k < v.chips && !st; k++) {
        optinc_onn_devices d = v.dev;
        d.chip_seed = optinc_chip_seed(v.dev.chip_seed, (int)k);
        optinc_onn_report r;
        if ((st = optinc_onn_verify(c, &m, &d, (uint64_t)v.sample, &r, NULL, &err)))
            break;
        acc_min = r.accuracy < acc_min ? r.accuracy : acc_min;
        acc_max = r.accuracy > acc_max ? r.accuracy : acc_max;
        acc_sum += r.accuracy;
        wacc_sum += r.weighted_accuracy;
        total.checked += r.checked;
        total.correct += r.correct;
        total.sampled = r.sampled;
        for (int b = 0; b < 2 * OPTINC_ONN_HIST + 1; b++) {
            total.hist[b] += r.hist[b];
            total.whist[b] += r.whist[b];
        }
    }
    if (st) {
        optinc_circuit_free(c);
        return cli_report(&err, st);
    }
    optinc_onn_area a;
    optinc_onn_area_of(c, &m, &a);
    double acc = acc_sum / (double)v.chips, wacc = wacc_sum / (double)v.chips;
    uint64_t per_chip = total.checked / (uint64_t)v.chips;
    char dt[256];
    if (v.json) {
        printf("{\"circuit\": ");
        cli_json_string(stdout, c->name);
        printf(", \"accuracy\": ");
        cli_json_number(stdout, acc);
        printf(", \"weighted_accuracy\": ");
        cli_json_number(stdout, wacc);
        printf(", \"inputs_checked\": %llu, \"correct\": %llu, \"exhaustive\": %s",
               (unsigned long long)per_chip, (unsigned long long)(total.correct / (uint64_t)v.chips),
               total.sampled ? "false" : "true");
        printf(", \"chips\": %ld, \"accuracy_min\": ", v.chips);
        cli_json_number(stdout, acc_min);
        printf(", \"accuracy_max\": ");
        cli_json_number(stdout, acc_max);
        printf(", \"devices\": {\"ideal\": %s, \"drivers\": \"%s\", \"phase_sigma_rad\": ",
               v.dev.ideal == 1 ? "true" : "false", v.dev.ideal ? "continuous" : "programmed");
        cli_json_number(stdout, v.dev.ideal == 1 ? 0 : v.dev.phase_sigma_rad);
        printf(", \"chip_seed\": %llu}", (unsigned long long)v.dev.chip_seed);
        printf(", \"task\": {\"servers\": %d, \"bits\": %d, \"level\": %d, \"rounding\": \"%s\", "
               "\"p_outputs\": %d}", m.fan_in, m.bits, m.level,
               m.task.rounding == OPTINC_ROUND_HALF_UP ? "half_up" : "half_even",
               optinc_onn_task_inputs(&m.task));
        printf(", \"mzis\": %ld, \"attenuators\": %ld, \"area_ratio\": ", a.netlist_mzis,
               a.netlist_attenuators);
        cli_json_number(stdout, a.ratio);
        printf(", \"area\": {");
        cost_json("segmented", &a.model);
        printf(", ");
        cost_json("svd", &a.svd);
        printf("}");
        hist_json("histogram", total.hist, NULL);
        hist_json("histogram_raw_inputs", NULL, total.whist);
        printf("}\n");
    } else {
        printf("%s: %s, %llu P outputs %s%s\n", path, devices_text(&v.dev, dt, sizeof dt),
               (unsigned long long)per_chip, total.sampled ? "sampled" : "(exhaustive)",
               v.chips > 1 ? "" : "");
        if (v.chips > 1)
            printf("chips %ld: accuracy mean %.6f, min %.6f, max %.6f\n", v.chips, acc, acc_min,
                   acc_max);
        else
            printf("accuracy %.6f (%llu/%llu), over raw server inputs %.6f\n", acc,
                   (unsigned long long)total.correct, (unsigned long long)total.checked, wacc);
        printf("errors in LSBs (P outputs):");
        for (int b = 0; b < 2 * OPTINC_ONN_HIST + 1; b++)
            if (total.hist[b])
                printf("  %s%d: %llu", b == 0 ? "<=" : b == 2 * OPTINC_ONN_HIST ? ">=" : "",
                       b - OPTINC_ONN_HIST, (unsigned long long)total.hist[b]);
        printf("\nhardware: netlist %ld MZIs + %ld attenuators; segmented design %.0f "
               "MZI-equivalents = %.1f%% of its SVD realization (%.0f)\n", a.netlist_mzis,
               a.netlist_attenuators, a.model.total, 100 * a.ratio, a.svd.total);
    }
    optinc_circuit_free(c);
    return 0;
}

/* ---- export ---------------------------------------------------------------- */

/* The exact error histogram of a table: every error value (not the
 * verifier's +-OPTINC_ONN_HIST bins), counted over raw server inputs. */
static optinc_status write_hist(const char *path, const char *src, const char *devices,
                                const optinc_onn_lut *lut, optinc_error *err)
{
    optinc_onn_domain d;
    optinc_status st = optinc_onn_domain_init(&d, &lut->meta.task, err);
    if (st)
        return st;
    long top = (1L << (2 * lut->meta.task.out_digits)) - 1;
    double *bin = calloc((size_t)(2 * top + 1), sizeof *bin);
    if (!bin) {
        optinc_onn_domain_free(&d);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    }
    optinc_onn_walk w;
    optinc_onn_walk_init(&w, &d, 0, 0);
    uint64_t i;
    int p[OPTINC_ONN_MAX_DIGITS];
    double c;
    while (optinc_onn_walk_next(&w, &i, p, &c))
        bin[(long)lut->code[i] - (long)optinc_onn_target(&lut->meta.task, p) + top] += c;
    optinc_onn_domain_free(&d);
    optinc_out out;
    if (!(st = optinc_out_open(&out, path, err))) {
        fprintf(out.f, "# optinc onn export: output errors of %s in LSBs\n# devices: %s\n"
                       "# DELTA COUNT, counts over uniformly distributed raw server codes\n",
                src, devices);
        for (long b = 0; b <= 2 * top; b++)
            if (bin[b] > 0)
                fprintf(out.f, "%ld %.17g\n", b - top, bin[b]);
        st = optinc_out_commit(&out, err);
    }
    free(bin);
    return st;
}

static int onn_export(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"hist", required_argument, NULL, OPT_HIST}, {"lut", required_argument, NULL, OPT_LUT},
        DEVICE_OPTIONS,
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    optinc_onn_devices dev = {1, 0, 1};
    const char *hist = NULL, *lutp = NULL;
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int rc = parse_devices("onn export", ch, &dev);
        if (rc > 0)
            return rc;
        if (!rc)
            continue;
        switch (ch) {
        case OPT_HIST: hist = optarg; break;
        case OPT_LUT: lutp = optarg; break;
        case 'h': fputs(export_usage, stdout); return 0;
        default:
            return cli_usage_error("onn export", "unknown or incomplete option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("onn export", optind >= argc ? "missing SPEC or NET"
                                                            : "more than one SPEC or NET");
    if (!hist && !lutp)
        return cli_usage_error("onn export", "nothing to write: give --hist FILE or --lut FILE");
    optinc_error err = {0};
    optinc_circuit *c = NULL;
    optinc_onn_meta m;
    task_opts none = {-1, -1, -1, -1, -1};
    optinc_status st = load_onn(argv[optind], &none, &c, &m, &err);
    optinc_onn_lut *lut = NULL;
    if (!st)
        st = optinc_onn_lut_build(c, &m, &dev, &lut, &err);
    char dt[256];
    devices_text(&dev, dt, sizeof dt);
    optinc_out out;
    if (!st && hist)
        st = write_hist(hist, argv[optind], dt, lut, &err);
    if (!st && lutp && !(st = optinc_out_open(&out, lutp, &err))) {
        fprintf(out.f, "# optinc onn export: aggregation table of %s\n# devices: %s\n"
                       "# INDEX CODE, index = sum_k p_k (3N+1)^k, N = %d, %d digits\n",
                argv[optind], dt, m.task.servers, optinc_onn_task_inputs(&m.task));
        for (uint64_t i = 0; i < lut->size; i++)
            fprintf(out.f, "%llu %u\n", (unsigned long long)i, lut->code[i]);
        st = optinc_out_commit(&out, &err);
    }
    optinc_onn_lut_free(lut);
    optinc_circuit_free(c);
    return st ? cli_report(&err, st) : 0;
}

/* ---- cascade --------------------------------------------------------------- */

static int onn_cascade(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, OPT_JSON}, {"sample", required_argument, NULL, OPT_SAMPLE},
        {"seed", required_argument, NULL, OPT_SEED},
        DEVICE_OPTIONS,
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    optinc_onn_devices dev = {1, 0, 1};
    long sample = 100000, seed = 1;
    int json = 0, ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int rc = parse_devices("onn cascade", ch, &dev);
        if (rc > 0)
            return rc;
        if (!rc)
            continue;
        switch (ch) {
        case OPT_JSON: json = 1; break;
        case OPT_SAMPLE:
            if (cli_parse_long(optarg, 1, 1L << 34, &sample))
                return cli_usage_error("onn cascade", "--sample takes a count >= 1");
            break;
        case OPT_SEED:
            if (cli_parse_long(optarg, 0, 0x7fffffffL, &seed))
                return cli_usage_error("onn cascade", "--seed takes an integer >= 0");
            break;
        case 'h': fputs(cascade_usage, stdout); return 0;
        default:
            return cli_usage_error("onn cascade", "unknown or incomplete option '%s'",
                                   argv[optind - 1]);
        }
    }
    if (optind != argc - 2)
        return cli_usage_error("onn cascade", "give the LEVEL1 and LEVEL2 ONNs");
    optinc_error err = {0};
    optinc_circuit *c[2] = {NULL, NULL};
    optinc_onn_meta m[2];
    optinc_onn_lut *lut[2] = {NULL, NULL};
    task_opts none = {-1, -1, -1, -1, -1};
    optinc_status st = OPTINC_OK;
    for (int i = 0; i < 2 && !st; i++) {
        if (!(st = load_onn(argv[optind + i], &none, &c[i], &m[i], &err)) && m[i].level != i + 1)
            st = optinc_fail(&err, OPTINC_EINPUT, argv[optind + i], 0, 0,
                             "this ONN is %s, not level %d of a cascade (info: onn_level)",
                             m[i].level ? "another level" : "a single unit", i + 1);
        if (!st)
            st = optinc_onn_lut_build(c[i], &m[i], &dev, &lut[i], &err);
    }
    if (!st && (m[0].fan_in != m[1].fan_in || m[0].bits != m[1].bits))
        st = optinc_fail(&err, OPTINC_EINPUT, argv[optind + 1], 0, 0,
                         "the two levels disagree on fan_in or gradient bits");
    if (st) {
        for (int i = 0; i < 2; i++) {
            optinc_onn_lut_free(lut[i]);
            optinc_circuit_free(c[i]);
        }
        return cli_report(&err, st);
    }
    /* End to end: fan_in groups of fan_in random codes. */
    int F = m[0].fan_in, bits = m[0].bits, D = bits / 2;
    optinc_rng rng;
    optinc_rng_stream(&rng, (uint64_t)seed, 0);
    long ok = 0;
    for (long s = 0; s < sample; s++) {
        uint32_t group[64], codes[64];
        uint64_t sum = 0;
        for (int g = 0; g < F; g++) {
            for (int i = 0; i < F; i++) {
                codes[i] = (uint32_t)optinc_rng_below(&rng, 1ull << bits);
                sum += codes[i];
            }
            int p[OPTINC_ONN_MAX_DIGITS];
            optinc_onn_preprocess(&m[0].task, codes, p);
            group[g] = optinc_onn_lut_lookup(lut[0], p);
        }
        int p[OPTINC_ONN_MAX_DIGITS];
        optinc_onn_preprocess(&m[1].task, group, p);
        uint32_t got = optinc_onn_lut_lookup(lut[1], p);
        /* the global target: round(sum / F^2) with level 2's rounding */
        int q[OPTINC_ONN_MAX_DIGITS] = {0};
        q[0] = (int)sum;
        optinc_onn_task whole = m[1].task;
        whole.pre = OPTINC_P_WEIGHTED_SUM;
        ok += got == optinc_onn_target(&whole, q);
    }
    optinc_onn_area a[2];
    for (int i = 0; i < 2; i++)
        optinc_onn_area_of(c[i], &m[i], &a[i]);
    double units = F + 1.0, cost = F * a[0].model.total + a[1].model.total;
    if (json) {
        printf("{\"servers\": %d, \"bits\": %d, \"level1_accuracy\": ", F * F, bits);
        cli_json_number(stdout, lut[0]->report.accuracy);
        printf(", \"level1_inputs\": %llu, \"level2_accuracy\": ",
               (unsigned long long)lut[0]->report.checked);
        cli_json_number(stdout, lut[1]->report.accuracy);
        printf(", \"level2_inputs\": %llu, \"end_to_end_accuracy\": ",
               (unsigned long long)lut[1]->report.checked);
        cli_json_number(stdout, (double)ok / (double)sample);
        printf(", \"end_to_end_samples\": %ld, \"units\": %.0f, \"level1_area\": %.0f, "
               "\"level2_area\": %.0f, \"level1_mzis\": %ld, \"level2_mzis\": %ld}\n", sample,
               units, a[0].model.total, a[1].model.total, a[0].netlist_mzis, a[1].netlist_mzis);
    } else {
        printf("cascade of %d units for %d servers, %d-bit codes (D = %d digits)\n", (int)units,
               F * F, bits, D);
        printf("level 1: accuracy %.6f over %llu P outputs (exhaustive), %.0f MZI-equivalents "
               "(netlist %ld MZIs)\n", lut[0]->report.accuracy,
               (unsigned long long)lut[0]->report.checked, a[0].model.total, a[0].netlist_mzis);
        printf("level 2: accuracy %.6f over %llu reachable P outputs (exhaustive), %.0f "
               "MZI-equivalents (netlist %ld MZIs)\n", lut[1]->report.accuracy,
               (unsigned long long)lut[1]->report.checked, a[1].model.total, a[1].netlist_mzis);
        printf("end to end: %ld of %ld random %d-server inputs exact (%.6f)\n", ok, sample,
               F * F, (double)ok / (double)sample);
        printf("hardware: %.0f MZI-equivalents in %d units\n", cost, (int)units);
    }
    for (int i = 0; i < 2; i++) {
        optinc_onn_lut_free(lut[i]);
        optinc_circuit_free(c[i]);
    }
    return 0;
}

int cmd_onn(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return 2;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(sub, "train"))
        return onn_train(argc - 1, argv + 1);
    if (!strcmp(sub, "verify"))
        return onn_verify(argc - 1, argv + 1);
    if (!strcmp(sub, "export"))
        return onn_export(argc - 1, argv + 1);
    if (!strcmp(sub, "cascade"))
        return onn_cascade(argc - 1, argv + 1);
    return cli_usage_error("onn", "unknown command '%s' (train, verify, export or cascade)", sub);
}
