/*
 * cmd_onn.c - `optinc onn train|verify|export|cascade|cost`: the OptINC
 * optical neural network from the command line.  A thin layer over onn.h:
 * train writes a spec (atomically), verify runs the compiled circuit
 * exhaustively, export writes what the data-parallel trainer consumes (error
 * histogram, aggregation table); cascade and cost (onn_cascade.c) check
 * cascades and tabulate what they cost.  Each subcommand has its own option
 * table (options.h); the task and device options some of them share are
 * defined once (onn_cli.h, here).  See optinc-onn(1) and, for the design,
 * optinc-onn(7).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/onn_cli.h"
#include "cli/options.h"
#include "optinc/allreduce.h"
#include "optinc/fileio.h"
#include "optinc/netlist.h"
#include "optinc/onn.h"
#include "optinc/sim.h"
#include "optinc/spec.h"

static const char usage_text[] =
    "usage: optinc onn train -o SPEC.yaml [options]   train an ONN, write its spec\n"
    "       optinc onn verify SPEC|NET [options]      check the compiled ONN exhaustively\n"
    "       optinc onn export SPEC|NET [options]      error histogram / aggregation table\n"
    "       optinc onn cascade UNIT|LEVEL1 [LEVEL2] [options]  check a cascade\n"
    "       optinc onn cost UNIT [UNIT] [options]     what its cascades cost\n"
    "'optinc onn COMMAND --help' lists a command's options.  See optinc-onn(1), optinc-onn(7).\n";

/* ---- shared options -------------------------------------------------------- */

#define TASK_OPTIONS(t, d)                                                                   \
    {"servers", 0, CLI_INT, CLI_DST(int, &(t)->servers), "N", "servers per unit", .min = 2,  \
     .max = 64, .given = &(t)->servers_given, .dflt = d},                                    \
    {"bits", 0, CLI_INT, CLI_DST(int, &(t)->bits), "B", "code bits", .min = 2, .max = 30,    \
     .flags = CLI_EVEN, .given = &(t)->bits_given, .dflt = d},                               \
    {"level", 0, CLI_INT, CLI_DST(int, &(t)->level), "L",                                    \
     "0 one unit, 1 or 2 a level of a two-level cascade", .min = 0, .max = 2,                \
     .given = &(t)->level_given, .dflt = d},                                                 \
    {"preprocessing", 0, CLI_ENUM, CLI_DST(int, &(t)->pre), NULL, "the linear combiner P",   \
     .words = optinc_onn_preprocessing_names, .given = &(t)->pre_given, .dflt = d},          \
    {"rounding", 0, CLI_ENUM, CLI_DST(int, &(t)->rounding), NULL,                            \
     "how the average is rounded", .words = optinc_onn_rounding_names,                      \
     .given = &(t)->rounding_given, .dflt = d},                                              \
    {"output-code", 0, CLI_ENUM, CLI_DST(int, &(t)->code), NULL,                             \
     "how the outputs carry the result's digits", .words = optinc_onn_code_names,           \
     .given = &(t)->code_given, .dflt = d}

static void task_defaults(task_opts *t)
{
    memset(t, 0, sizeof *t);
    t->servers = 4;
    t->bits = 8;
    t->pre = OPTINC_P_DIGIT_SUMS;
    t->rounding = OPTINC_ROUND_HALF_EVEN;
}

static int task_given(const task_opts *t)
{
    return t->servers_given || t->bits_given || t->level_given || t->pre_given
           || t->rounding_given || t->code_given;
}

/* Applies the given task options over meta (defaults where neither says). */
static optinc_status task_apply(const task_opts *t, optinc_onn_meta *m, optinc_error *err)
{
    if (t->servers_given)
        m->fan_in = t->servers;
    if (t->bits_given)
        m->bits = t->bits;
    if (t->level_given)
        m->level = t->level;
    optinc_preproc pre = t->pre_given ? (optinc_preproc)t->pre : m->task.pre;
    optinc_rounding r = t->rounding_given ? (optinc_rounding)t->rounding : m->task.rounding;
    optinc_onn_code code = t->code_given ? (optinc_onn_code)t->code : m->task.code;
    if (!m->fan_in)
        m->fan_in = 4;
    if (!m->bits)
        m->bits = 8;
    optinc_status st = m->level ? optinc_onn_task_cascade(&m->task, m->level, m->fan_in, m->bits,
                                                          pre, r, err)
                                : optinc_onn_task_unit(&m->task, m->fan_in, m->bits, pre, r, err);
    m->task.code = code;
    return st;
}

void device_defaults(device_opts *d)
{
    memset(d, 0, sizeof *d);
    d->dev = (optinc_onn_devices){.ideal = 1, .chip_seed = 1};
}

int parse_devices(const cli_cmd *cmd, const cli_opt *opts, int argc, char **argv,
                  const char **operand, const device_opts *d)
{
    int rc = cli_parse(cmd, opts, argc, argv, operand);
    if (rc >= 0)
        return rc;
    if (d->chip_given && (d->sigma_given || d->dev.ideal != 1))
        return cli_usage_error(cmd->name, "--chip gives the whole device model; leave out "
                               "--programmed, --continuous and --sigma (put "
                               "phase_error_sigma_rad in the chip file)");
    if (!d->chip_given && d->dev.calibrate)
        return cli_usage_error(cmd->name, "--calibrate recompiles a chip from its "
                               "measurement; give the chip with --chip CHIP.yaml");
    return -1;
}

optinc_status device_finish(device_opts *d, optinc_onn_devices *out, optinc_error *err)
{
    if (d->chip_given) {
        cli_input(d->chip_path, "chip file");
        optinc_status st = optinc_chip_spec_load(d->chip_path, cli_read_opts(), &d->chip, err);
        if (st)
            return st;
        optinc_onn_devices_use_chip(&d->dev, &d->chip, d->dev.calibrate);
    }
    if (d->sigma_given && d->dev.ideal == 1)
        d->dev.ideal = 0;
    *out = d->dev;
    return OPTINC_OK;
}

const char *devices_text(const device_opts *o, const optinc_onn_devices *d, char *buf,
                         size_t n)
{
    if (d->chip) {
        const optinc_components *k = d->chip;
        snprintf(buf, n, "chip file %s (MZI loss %g dB, phase error sigma %g rad, splitter error "
                 "sigma %g, %d-bit phase drivers, crosstalk %g, attenuator loss %g dB), "
                 "%s, chip seed %llu", o->chip.path, k->mzi.insertion_loss_dB,
                 k->mzi.phase_error_sigma_rad, k->mzi.splitter_error_sigma,
                 k->phase_shifter.bits, k->phase_shifter.thermal_crosstalk,
                 k->attenuator.insertion_loss_dB,
                 d->calibrate ? "calibrated and recompiled" : "uncalibrated",
                 (unsigned long long)d->chip_seed);
    } else if (d->ideal == 1)
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

/* Segment shapes: auto gives every layer that is square one segment, a
 * tall (wide) layer whose rows (columns) are a multiple of the other side
 * square segments of that side, and any other wide layer segments of all
 * its rows by the fewest columns that divide its columns, when that makes
 * more than one (the offset code's 7 x 128 output layer: 7 x 8); other
 * layers stay dense. */
static int parse_segments(const char *s, const optinc_onn *net, int *seg)
{
    memset(seg, 0, sizeof *seg * 2 * OPTINC_ONN_MAX_LAYERS);
    if (!strcmp(s, "none"))
        return 0;
    if (!strcmp(s, "auto")) {
        for (int l = 0; l < net->n_layers; l++) {
            int R = net->layers[l].rows, C = net->layers[l].cols, r = R, c = R;
            if (R > C) {
                r = c = R % C ? 0 : C;
            } else {
                while (C % c)
                    c++;
                if (R < C && c == C)
                    r = c = 0;      /* one segment would only bind its rows */
            }
            seg[2 * l] = r;
            seg[2 * l + 1] = c;
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

/* What the export at the end of training would refuse (optinc_onn_export_check:
 * a spec name that leaves the matrices no folder of their own, an output that
 * is a folder, a FIFO or a device, two outputs that are one file), or would
 * write over an input (the spec of --resume, its matrices): found before
 * training.  The matrices are compared with the inputs when their folder
 * exists; a new folder holds no input. */
static optinc_status check_train_outputs(const optinc_onn *net, const char *spec_path,
                                         const optinc_onn_export_opts *eo, optinc_error *err)
{
    char matrix[OPTINC_ONN_MAX_LAYERS][1600], dir[1600];
    const char *outputs[OPTINC_ONN_MAX_LAYERS + 1] = {spec_path};
    struct stat sb;
    optinc_onn_export_matrix_path(spec_path, 0, dir, sizeof dir);
    optinc_path_dir(dir, dir, sizeof dir);
    int n = 1, folder = stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode);
    for (int l = 0; folder && l < net->n_layers; l++) {
        optinc_onn_export_matrix_path(spec_path, l, matrix[l], sizeof matrix[l]);
        outputs[n++] = matrix[l];
    }
    optinc_status st = optinc_onn_export_check(net, spec_path, eo, err);
    return st ? st : cli_check_outputs(outputs, n, err);
}

/* Where field `field` (0-based) of data row `row` (1-based) of a .csv that
 * parsed is: its line and column (1-based), as the .csv reader counts them
 * (lines whose first non-blank is '#' and blank lines hold no row). */
static void csv_position(const char *path, int row, int field, int *line, int *col)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t cap = 0;
    *line = *col = 0;
    for (int n = 1, rows = 0; f && getline(&text, &cap, f) >= 0; n++) {
        const char *q = text + strspn(text, " \t");
        if (*q == '#' || *q == '\n' || *q == '\r' || !*q || ++rows < row)
            continue;
        q = text;
        for (int k = 0; k < field && (q = strchr(q, ',')); k++)
            q++;
        *line = n;
        *col = q ? (int)(q + strspn(q, " \t") - text) + 1 : 1;
        break;
    }
    free(text);
    if (f)
        fclose(f);
}

/* The points of --focus and --points: the first (task inputs) columns of a
 * .csv as `onn verify --misses` writes it, every row a P output of task t. */
static optinc_status read_points(const char *path, const optinc_onn_task *t, int **out,
                                 size_t *n, optinc_error *err)
{
    optinc_cmat *m = NULL;
    int cplx = 0, np = optinc_onn_task_inputs(t);
    optinc_status st = optinc_csv_read(path, cli_read_opts(), &m, &cplx, err);
    if (st)
        return st;
    optinc_onn_domain d;
    if ((st = optinc_onn_domain_init(&d, t, err))) {
        optinc_cmat_free(m);
        return st;
    }
    if (cplx || m->cols < np) {
        int line = 0, col = 0;
        if (!cplx)
            csv_position(path, 1, 0, &line, &col);
        st = optinc_fail(err, OPTINC_EINPUT, path, line, col, "a file of points has a row of "
                         "at least %d real columns per point, the P output first (as onn verify "
                         "--misses writes it); this one has %d%s", np, m->cols,
                         cplx ? " and complex entries" : "");
    }
    *n = (size_t)m->rows;
    *out = st ? NULL : malloc(sizeof **out * *n * (size_t)np);
    if (!st && !*out)
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    int line, col;
    for (int r = 0; !st && r < m->rows; r++) {
        int *p = *out + (size_t)r * np;
        for (int k = 0; k < np && !st; k++) {
            double v = creal(OPTINC_AT(m, r, k));
            if (!(v >= 0 && v < d.radix[k] && v == floor(v))) {
                csv_position(path, r + 1, k, &line, &col);
                st = optinc_fail(err, OPTINC_EINPUT, path, line, col, "p%d = %g is not a P "
                                 "output of this task (an integer 0..%d); write the points of "
                                 "this ONN's task", k, v, d.radix[k] - 1);
            }
            p[k] = (int)v;
        }
        if (!st && !(optinc_onn_domain_count(&d, optinc_onn_domain_index(&d, p)) > 0)) {
            csv_position(path, r + 1, 0, &line, &col);
            st = optinc_fail(err, OPTINC_EINPUT, path, line, col, "no server inputs give this "
                             "P output; write reachable points");
        }
    }
    if (st) {
        free(*out);
        *out = NULL;
    }
    optinc_onn_domain_free(&d);
    optinc_cmat_free(m);
    return st;
}

static int onn_train(const cli_cmd *cmd, int argc, char **argv)
{
    task_opts t;
    task_defaults(&t);
    optinc_onn_train_opts o;
    optinc_onn_train_defaults(&o);
    int hidden[OPTINC_MAX_HIDDEN] = {125, 126, 127}, n_hidden = 3, quiet = 0, phase_bits = 8;
    const char *output = NULL, *segments = NULL, *resume = NULL, *name = NULL, *focus = NULL;
    const char *operand[CLI_MAX_OPERANDS];
    const cli_opt opts[] = {
        CLI_OPT_OUTPUT(&output, "SPEC.yaml", CLI_REQUIRED, NULL,
                       "the spec to write; its matrices go to SPEC without .yaml/"),
        TASK_OPTIONS(&t, NULL),
        /* optinc_onn_alloc takes hidden widths up to 4096 */
        {"hidden", 0, CLI_INTS, CLI_DST(int, hidden), "LIST", "hidden widths", .min = 1,
         .max = 4096, .size = OPTINC_MAX_HIDDEN, .count = &n_hidden},
        {"segments", 0, CLI_STRING, CLI_DST(const char *, &segments), "S",
         "unitary-diagonal segments per layer: auto, none, or RxC per layer, 0x0 dense",
         .dflt = "auto"},
        CLI_OPT_STRING("resume", 0, &resume, "SPEC",
                       "start from a trained ONN (two-stage or noise-aware tuning)"),
        CLI_OPT_EPOCHS(&o.max_epochs, NULL, "epochs of the cosine schedule"),
        CLI_OPT_LR(&o.lr, NULL, "Adam's learning rate"),
        CLI_OPT_BATCH(&o.batch, NULL, "points per step"),
        CLI_OPT_SEED(&o.seed, NULL, NULL, "seed of the initialization and the batches"),
        {"margin", 0, CLI_DOUBLE, CLI_DST(double, &o.margin), "M",
         "stop when every output is within 0.5-M of its level", .lo = 0, .hi = 0.5,
         .flags = CLI_BELOW},
        {"boost", 0, CLI_INT, CLI_DST(int, &o.boost), "K",
         "oversample points missing the margin up to K times", .min = 1, .max = 128},
        {"restarts", 0, CLI_INT, CLI_DST(int, &o.restarts), "R",
         "fresh starts from other seeds after a plateau", .min = 0, .max = 1000},
        {"noise", 0, CLI_DOUBLE, CLI_DST(double, &o.noise), "X",
         "noise-aware: relative weight noise per step", .lo = 0, .hi = 1},
        CLI_OPT_SAMPLE(&o.sample, "train on N random points when P has more outputs; 0 for all"),
        CLI_OPT_STRING("focus", 0, &focus, "FILE.csv",
                       "also train on these points every epoch (onn verify --misses)"),
        {"focus-repeat", 0, CLI_INT, CLI_DST(int, &o.focus_repeat), "R",
         "visits of each focus point per epoch", .min = 1, .max = 128},
        {"phase-bits", 0, CLI_INT, CLI_DST(int, &phase_bits), "B",
         "phase drivers of the compiled meshes", .min = 0, .max = 16},
        {"name", 0, CLI_STRING, CLI_DST(const char *, &name), "NAME", "the spec's name",
         .dflt = "onnNxB, at level L onnSxB_levelL, S = N^2"},
        CLI_OPT_QUIET(&quiet, "no summary"),
        CLI_OPT_END};
    int rc = cli_parse(cmd, opts, argc, argv, operand);
    if (rc >= 0)
        return rc;

    optinc_error err = {0};
    optinc_onn_meta meta = {0};
    optinc_onn net;
    optinc_status st;
    int seg[2 * OPTINC_ONN_MAX_LAYERS];
    cli_input(resume, "spec");
    cli_input(focus, "focus file");
    if (resume && task_given(&t))
        return cli_usage_error("onn train", "--resume continues the task of %s; drop --servers, "
                               "--bits, --level, --preprocessing, --rounding and --output-code",
                               resume);
    if (resume) {
        optinc_spec *spec;
        if ((st = optinc_spec_load(resume, cli_read_opts(), &spec, &err)))
            return cli_report(cmd, &err, st);
        st = optinc_onn_from_spec(spec, &net, &meta, &err);
        optinc_spec_free(spec);
        if (st)
            return cli_report(cmd, &err, st);
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
            return cli_report(cmd, &err, st);
        if ((st = optinc_onn_alloc(&net, &meta.task, hidden, n_hidden, NULL, &err)))
            return cli_report(cmd, &err, st);
        if (parse_segments(segments ? segments : "auto", &net, seg)) {
            optinc_onn_free(&net);
            return cli_usage_error("onn train", "--segments takes auto, none or one RxC per "
                                   "layer (%d layers)", n_hidden + 1);
        }
        optinc_onn_free(&net);
        if ((st = optinc_onn_alloc(&net, &meta.task, hidden, n_hidden, seg, &err)))
            return cli_report(cmd, &err, st);
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
    optinc_onn_export_opts eo = {name, phase_bits, o.seed, meta.level, meta.fan_in,
                                 meta.bits, prov};
    int *points = NULL;
    if ((focus && (st = read_points(focus, &net.task, &points, &o.n_focus, &err)))
        || (st = check_train_outputs(&net, output, &eo, &err))) {
        free(points);
        optinc_onn_free(&net);
        return cli_report(cmd, &err, st);
    }
    o.focus = points;
    /* the most epochs the run can take, over every start */
    progress pr = {!quiet && isatty(2),
                   o.max_epochs * (resume || o.noise > 0 ? 1 : 1 + o.restarts)};
    o.progress = show_progress;
    o.ctx = &pr;
    optinc_onn_train_result res;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = optinc_onn_train(&net, &o, resume != NULL, &res, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    free(points);
    if (pr.on)
        fputc('\n', stderr);
    optinc_onn_report rep;
    if (!st)
        st = optinc_onn_check(&net, 1000000, &rep, &err);
    if (st) {
        optinc_onn_free(&net);
        return cli_report(cmd, &err, st);
    }
    snprintf(prov, sizeof prov, "optinc %s onn train: seed %llu, %d epochs in %d start%s, lr "
             "%g, batch %d, margin %g, boost %d, noise %g%s%s%s%s; model accuracy %.6f (%llu/%llu "
             "P outputs)", OPTINC_VERSION, (unsigned long long)o.seed, res.epochs, res.starts,
             res.starts == 1 ? "" : "s", o.lr, o.batch, o.margin,
             o.boost, o.noise, resume ? ", resumed from " : "", resume ? resume : "",
             focus ? ", focus " : "", focus ? focus : "",
             rep.accuracy, (unsigned long long)rep.correct, (unsigned long long)rep.checked);
    /* the spec and its matrices go in place only once the summary is written too */
    optinc_outs set = {0};
    st = optinc_onn_export_add(&set, &net, output, &eo, &err);
    optinc_onn_cost model, svd;
    double ratio = optinc_onn_area_ratio(&net, &model, &svd);
    optinc_onn_free(&net);
    if (!st && !quiet) {
        printf("%s: %d epochs in %d start%s, %.1f min wall, %.1f min CPU\n", output,
               res.epochs, res.starts, res.starts == 1 ? "" : "s",
               ((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec)) / 60,
               res.seconds / 60);
        printf("model accuracy %.6f (%llu/%llu %sP outputs), over raw inputs %.6f, largest "
               "output error %.3f levels\n", rep.accuracy, (unsigned long long)rep.correct,
               (unsigned long long)rep.checked, rep.sampled ? "random " : "",
               rep.weighted_accuracy, res.max_error);
        printf("area: %.0f MZI-equivalents = %.1f%% of the SVD realization (%.0f)\n",
               model.total, 100 * ratio, svd.total);
    }
    if ((st = cli_outs_end(&set, st, &err)))
        return cli_report(cmd, &err, st);
    if (rep.accuracy < 1)
        cli_warn("the trained ONN is not exact on every P output; train longer (--epochs), "
                 "wider (--hidden) or with another --seed");
    return 0;
}

/* ---- verify ---------------------------------------------------------------- */

void hist_json(const char *key, const uint64_t *h, const double *w)
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

/* The chip of a report: its chip file and components, or the three legacy
 * settings. */
void devices_json(const device_opts *d, const optinc_onn_devices *dev)
{
    if (!dev->chip) {
        printf(", \"devices\": {\"ideal\": %s, \"drivers\": \"%s\", \"phase_sigma_rad\": ",
               dev->ideal == 1 ? "true" : "false", dev->ideal ? "continuous" : "programmed");
        cli_json_number(stdout, dev->ideal == 1 ? 0 : dev->phase_sigma_rad);
        printf(", \"chip_seed\": %llu}", (unsigned long long)dev->chip_seed);
        return;
    }
    const optinc_components *k = dev->chip;
    printf(", \"devices\": {\"ideal\": false, \"drivers\": \"chip\", \"chip\": ");
    cli_json_string(stdout, d->chip.path);
    const struct { const char *key; double v; } f[] = {
        {"mzi_insertion_loss_dB", k->mzi.insertion_loss_dB},
        {"phase_sigma_rad", k->mzi.phase_error_sigma_rad},
        {"splitter_error_sigma", k->mzi.splitter_error_sigma},
        {"phase_bits", k->phase_shifter.bits},
        {"thermal_crosstalk", k->phase_shifter.thermal_crosstalk},
        {"phase_noise_sigma_rad", k->phase_shifter.noise_sigma_rad},
        {"attenuator_insertion_loss_dB", k->attenuator.insertion_loss_dB},
        {"attenuator_bits", k->attenuator.bits},
        {"max_attenuation_dB", k->attenuator.max_attenuation_dB}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        cli_json_field(stdout, f[i].key, f[i].v);
    printf(", \"calibrated\": %s", dev->calibrate ? "true" : "false");
    if (dev->calibrate) {
        cli_json_field(stdout, "measure_phase_sigma_rad", dev->measure_phase_sigma_rad);
        cli_json_field(stdout, "measure_splitter_sigma", dev->measure_splitter_sigma);
    }
    printf(", \"chip_seed\": %llu}", (unsigned long long)dev->chip_seed);
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
    long chips;
    uint64_t sample;
    int json, threads;
    const char *misses, *points_file;
    double near;
    int *points;                /* the points of --points */
    size_t n_points;
} verify_cli;

/* The --misses file: a .csv of the points optinc_onn_verify_with reports. */
typedef struct misses_csv {
    FILE *f;
    int inputs;
} misses_csv;

static void write_miss(void *ctx, const int *p, uint64_t got, uint64_t want, double margin)
{
    const misses_csv *o = ctx;
    char b[OPTINC_SHORTEST_MAX];
    for (int k = 0; k < o->inputs; k++)
        fprintf(o->f, "%d,", p[k]);
    fprintf(o->f, "%llu,%llu,%s\n", (unsigned long long)got, (unsigned long long)want,
            margin == margin ? optinc_shortest(b, margin) : "-1");
}

/* Chip 1 of v (with --misses, its points written to the file). */
static optinc_status verify_one(const verify_cli *v, const optinc_circuit *c,
                                const optinc_onn_meta *m, optinc_onn_report *r, optinc_error *err)
{
    optinc_onn_verify_opts o;
    optinc_onn_verify_opts_default(&o);
    o.threads = v->threads;
    o.points = v->points;
    o.n_points = v->n_points;
    optinc_out out;
    misses_csv csv = {NULL, optinc_onn_task_inputs(&m->task)};
    optinc_status st = OPTINC_OK;
    if (v->misses) {
        if ((st = optinc_out_open(&out, v->misses, err)))
            return st;
        csv.f = out.f;
        fprintf(csv.f, "# optinc onn verify --misses: the P outputs of %s decoded wrong or within "
                "%g of a threshold\n#", c->name, v->near);
        for (int k = 0; k < csv.inputs; k++)
            fprintf(csv.f, " p%d,", k);
        fprintf(csv.f, " decoded, true, margin\n");
        o.point = write_miss;
        o.ctx = &csv;
        o.near = v->near;
    }
    st = optinc_onn_verify_with(c, m, &v->dev, v->sample, &o, r, NULL, err);
    if (v->misses && st)
        optinc_out_abort(&out);
    else if (v->misses)
        st = optinc_out_commit(&out, err);
    return st;
}

optinc_status load_onn(const char *path, const task_opts *t, optinc_circuit **c,
                       optinc_onn_meta *m, optinc_error *err)
{
    optinc_status st = optinc_onn_load(path, cli_read_opts(), c, m, err);
    if (!st)   /* the spec a netlist's header names, when its meta came from there */
        cli_input(m->spec_path, "spec");
    if (st == OPTINC_EINPUT && !*c && t
        && (t->servers_given || t->bits_given || t->level_given)) {
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
    if (!st && t && task_given(t)) {
        if (!(st = task_apply(t, m, err)))
            st = optinc_onn_meta_check(*c, m, err);
        if (st) {
            optinc_circuit_free(*c);
            *c = NULL;
        }
    }
    return st;
}

static int onn_verify(const cli_cmd *cmd, int argc, char **argv)
{
    verify_cli v = {.chips = 1, .sample = 1000000};
    device_opts d;
    device_defaults(&d);
    task_defaults(&v.t);
    const char *operand[CLI_MAX_OPERANDS];
    const cli_opt opts[] = {
        CLI_OPT_JSON(&v.json, "print {accuracy, inputs_checked, mzis, area_ratio, histogram ...}"),
        DEVICE_OPTIONS(&d),
        {"chips", 0, CLI_LONG, CLI_DST(long, &v.chips), "K",
         "Monte-Carlo over K chips from --chip-seed", .min = 1, .max = 100000},
        {"threads", 0, CLI_INT, CLI_DST(int, &v.threads), "T",
         "verify on T threads (the K chips, or one chip's points), the same results for any",
         .min = 1,
         .max = OPTINC_AR_MAX_THREADS, .dflt = "$OPTINC_THREADS or 1"},
        CLI_OPT_SAMPLE(&v.sample, "check N random points when P has more outputs; 0 for all"),
        CLI_OPT_STRING("misses", 0, &v.misses, "FILE.csv",
                       "write the points decoded wrong (and with --near, near) to FILE.csv"),
        {"near", 0, CLI_DOUBLE, CLI_DST(double, &v.near), "M",
         "with --misses: also the points within M levels of a threshold", .lo = 0, .hi = 0.5},
        CLI_OPT_STRING("points", 0, &v.points_file, "FILE.csv",
                       "check these points (as --misses writes them) instead of the box"),
        CLI_OPT_GROUP("The task of a netlist whose spec is gone:"),
        TASK_OPTIONS(&v.t, "the ONN's"),
        CLI_OPT_END};
    int rc = cli_threads_default("onn verify", &v.threads);
    if (rc < 0)
        rc = parse_devices(cmd, opts, argc, argv, operand, &d);
    if (rc >= 0)
        return rc;
    const char *path = operand[0];
    if ((v.misses || v.points_file) && v.chips > 1)
        return cli_usage_error(cmd->name, "--%s is for one chip; drop --chips",
                               v.misses ? "misses" : "points");
    cli_input(v.points_file, "file of points");
    optinc_error err = {0};
    optinc_circuit *c = NULL;
    optinc_onn_meta m;
    optinc_status st = device_finish(&d, &v.dev, &err);
    if (!st)
        st = load_onn(path, &v.t, &c, &m, &err);
    const char *outs[] = {v.misses};
    if (!st)
        st = cli_check_outputs(outs, 1, &err);
    if (!st && v.points_file)
        st = read_points(v.points_file, &m.task, &v.points, &v.n_points, &err);
    if (st) {
        optinc_circuit_free(c);
        return cli_report(cmd, &err, st);
    }
    optinc_onn_report total;
    memset(&total, 0, sizeof total);
    double acc_min = 1, acc_max = 0, acc_sum = 0, wacc_sum = 0, mae_max = 0, ge2_max = 0;
    optinc_onn_report *rk = malloc(sizeof *rk * (size_t)v.chips);
    st = !rk ? optinc_fail(&err, OPTINC_ERUN, NULL, 0, 0, "out of memory for %ld chips", v.chips)
         : v.chips == 1 ? verify_one(&v, c, &m, rk, &err)
                        : optinc_onn_verify_chips(c, &m, &v.dev, v.sample, v.chips, v.threads, rk,
                                                  &err);
    free(v.points);
    for (long k = 0; k < v.chips && !st; k++) {
        const optinc_onn_report r = rk[k];
        acc_min = r.accuracy < acc_min ? r.accuracy : acc_min;
        acc_max = r.accuracy > acc_max ? r.accuracy : acc_max;
        acc_sum += r.accuracy;
        wacc_sum += r.weighted_accuracy;
        mae_max = r.mean_abs_error_lsb > mae_max ? r.mean_abs_error_lsb : mae_max;
        ge2_max = r.p_error_ge2 > ge2_max ? r.p_error_ge2 : ge2_max;
        total.raw_inputs += r.raw_inputs;
        total.abs_error_sum += r.abs_error_sum;
        total.ge2_weight += r.ge2_weight;
        total.checked += r.checked;
        total.correct += r.correct;
        total.sampled = r.sampled;
        total.screened += r.screened;
        for (int b = 0; b < 2 * OPTINC_ONN_HIST + 1; b++) {
            total.hist[b] += r.hist[b];
            total.whist[b] += r.whist[b];
        }
    }
    free(rk);
    if (st) {
        optinc_circuit_free(c);
        return cli_report(cmd, &err, st);
    }
    optinc_onn_area a;
    optinc_onn_area_of(c, &m, &a);
    double acc = acc_sum / (double)v.chips, wacc = wacc_sum / (double)v.chips;
    double mae = total.raw_inputs > 0 ? total.abs_error_sum / total.raw_inputs : 0;
    double ge2 = total.raw_inputs > 0 ? total.ge2_weight / total.raw_inputs : 0;
    uint64_t per_chip = total.checked / (uint64_t)v.chips;
    char dt[1500];
    long splitters = 0, combiners = 0;    /* the fixed cards of segmented layers */
    for (int l = 0; l < c->n_layers; l++) {
        splitters += optinc_layer_splitters(&c->layers[l]);
        combiners += optinc_layer_combiners(&c->layers[l]);
    }
    if (v.json) {
        printf("{\"circuit\": ");
        cli_json_string(stdout, c->name);
        cli_json_field(stdout, "accuracy", acc);
        cli_json_field(stdout, "weighted_accuracy", wacc);
        printf(", \"inputs_checked\": %llu, \"correct\": %llu, \"exhaustive\": %s",
               (unsigned long long)per_chip, (unsigned long long)(total.correct / (uint64_t)v.chips),
               total.sampled ? "false" : "true");
        printf(", \"chips\": %ld, \"screened\": %llu", v.chips,
               (unsigned long long)(total.screened / (uint64_t)v.chips));
        cli_json_field(stdout, "accuracy_min", acc_min);
        cli_json_field(stdout, "accuracy_mean", acc);
        cli_json_field(stdout, "accuracy_max", acc_max);
        cli_json_field(stdout, "mean_abs_error_lsb", mae);
        cli_json_field(stdout, "mean_abs_error_lsb_max", mae_max);
        cli_json_field(stdout, "p_error_ge2", ge2);
        cli_json_field(stdout, "p_error_ge2_max", ge2_max);
        devices_json(&d, &v.dev);
        printf(", \"task\": {\"servers\": %d, \"bits\": %d, \"level\": %d, \"rounding\": \"%s\", "
               "\"code\": \"%s\", \"preprocessing\": \"%s\", \"p_outputs\": %d}", m.fan_in,
               m.bits, m.level, optinc_onn_rounding_names[m.task.rounding],
               optinc_onn_code_names[m.task.code], optinc_onn_preprocessing_names[m.task.pre],
               optinc_onn_task_inputs(&m.task));
        printf(", \"mzis\": %ld, \"attenuators\": %ld, \"splitters\": %ld, \"combiners\": %ld, "
               "\"padding_slots\": %ld", a.netlist_mzis, a.netlist_attenuators, splitters,
               combiners, a.netlist_padding);
        cli_json_field(stdout, "area_ratio", a.ratio);
        printf(", \"area\": {");
        cost_json("segmented", &a.model);
        printf(", ");
        cost_json("svd", &a.svd);
        printf("}");
        hist_json("histogram", total.hist, NULL);
        hist_json("histogram_raw_inputs", NULL, total.whist);
        printf("}\n");
    } else {
        printf("%s: %s, %llu P outputs %s%s\n", path, devices_text(&d, &v.dev, dt, sizeof dt),
               (unsigned long long)per_chip, total.sampled ? "sampled" : "(exhaustive)",
               v.chips > 1 ? "" : "");
        if (v.chips > 1)
            printf("chips %ld: accuracy mean %.6f, min %.6f, max %.6f\n", v.chips, acc, acc_min,
                   acc_max);
        else
            printf("accuracy %.6f (%llu/%llu), over raw server inputs %.6f\n", acc,
                   (unsigned long long)total.correct, (unsigned long long)total.checked, wacc);
        printf("mean |error| %.6g LSB, |error| >= 2 LSB %.6g (over raw server inputs; worst "
               "chip %.6g, %.6g)\n", mae, ge2, mae_max, ge2_max);
        printf("errors in LSBs (P outputs):");
        for (int b = 0; b < 2 * OPTINC_ONN_HIST + 1; b++)
            if (total.hist[b])
                printf("  %s%d: %llu", b == 0 ? "<=" : b == 2 * OPTINC_ONN_HIST ? ">=" : "",
                       b - OPTINC_ONN_HIST, (unsigned long long)total.hist[b]);
        printf("\nhardware: netlist %ld MZIs + %ld attenuators + %ld splitters + %ld "
               "combiners; segmented design %.0f MZI-equivalents = %.1f%% of its SVD "
               "realization (%.0f)\n", a.netlist_mzis, a.netlist_attenuators, splitters,
               combiners, a.model.total, 100 * a.ratio, a.svd.total);
    }
    optinc_circuit_free(c);
    return 0;
}

/* ---- export ---------------------------------------------------------------- */

/* The exact error histogram of K chips' tables, summed: every error value
 * (not the verifier's +-OPTINC_ONN_HIST bins), counted over raw server
 * inputs. */
static optinc_status write_hist(optinc_outs *set, const char *path, const char *src,
                                const char *devices, optinc_onn_lut *const *luts, long chips,
                                optinc_error *err)
{
    const optinc_onn_lut *lut = luts[0];
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
        for (long k = 0; k < chips; k++)
            bin[(long)luts[k]->code[i] - (long)optinc_onn_target(&lut->meta.task, p) + top] += c;
    optinc_onn_domain_free(&d);
    optinc_out out;
    if (!(st = optinc_out_open(&out, path, err))) {
        fprintf(out.f, "# optinc onn export: output errors of %s in LSBs\n# devices: %s\n"
                       "# DELTA COUNT, counts over uniformly distributed raw server codes%s\n",
                src, devices, chips > 1 ? ", summed over the chips" : "");
        for (long b = 0; b <= 2 * top; b++)
            if (bin[b] > 0)
                fprintf(out.f, "%ld %.17g\n", b - top, bin[b]);
        st = optinc_outs_add(set, &out, err);
    }
    free(bin);
    return st;
}

static int onn_export(const cli_cmd *cmd, int argc, char **argv)
{
    device_opts d;
    device_defaults(&d);
    long chips = 1;
    const char *hist = NULL, *lutp = NULL, *operand[CLI_MAX_OPERANDS];
    const cli_opt opts[] = {
        CLI_OPT_STRING("hist", 0, &hist, "FILE",
                       "error histogram (DELTA COUNT lines, counts over raw server inputs)"),
        CLI_OPT_STRING("lut", 0, &lutp, "FILE",
                       "aggregation table (INDEX CODE lines, index = sum_k p_k (3N+1)^k)"),
        DEVICE_OPTIONS(&d),
        {"chips", 0, CLI_LONG, CLI_DST(long, &chips), "K",
         "--hist: summed over K chips from --chip-seed (one chip for --lut)", .min = 1,
         .max = 1000},
        CLI_OPT_END};
    int rc = parse_devices(cmd, opts, argc, argv, operand, &d);
    if (rc >= 0)
        return rc;
    if (!hist && !lutp)
        return cli_usage_error("onn export", "nothing to write: give --hist FILE or --lut FILE");
    if (lutp && chips > 1)
        return cli_usage_error("onn export", "an aggregation table is one chip's: give --lut "
                               "without --chips, or --hist alone to sum %ld chips", chips);
    optinc_error err = {0};
    optinc_circuit *c = NULL;
    optinc_onn_meta m;
    optinc_onn_devices dev;
    const char *outputs[] = {hist, lutp};
    cli_input(operand[0], "ONN");
    optinc_status st = device_finish(&d, &dev, &err);
    if (!st)
        st = load_onn(operand[0], NULL, &c, &m, &err);
    optinc_onn_lut **luts = calloc((size_t)chips, sizeof *luts), *lut = NULL;
    if (!st && !luts)
        st = optinc_fail(&err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    if (!st)
        st = cli_check_outputs(outputs, 2, &err);
    for (long k = 0; k < chips && !st; k++) {     /* chip k as verify --chips draws it */
        optinc_onn_devices dk = dev;
        dk.chip_seed = optinc_chip_seed(dev.chip_seed, (int)k);
        st = optinc_onn_lut_build(c, &m, &dk, &luts[k], &err);
    }
    if (!st)
        lut = luts[0];
    char dt[1500];
    devices_text(&d, &dev, dt, sizeof dt);
    if (chips > 1)
        snprintf(dt + strlen(dt), sizeof dt - strlen(dt), ", %ld chips", chips);
    optinc_out out;
    optinc_outs set = {0};      /* the table and the histogram land together */
    if (!st && hist)
        st = write_hist(&set, hist, operand[0], dt, luts, chips, &err);
    if (!st && lutp && !(st = optinc_out_open(&out, lutp, &err))) {
        fprintf(out.f, "# optinc onn export: aggregation table of %s\n# devices: %s\n"
                       "# INDEX CODE, index = sum_k p_k (3N+1)^k, N = %d, %d digits\n",
                operand[0], dt, m.task.servers, optinc_onn_task_inputs(&m.task));
        for (uint64_t i = 0; i < lut->size; i++)
            fprintf(out.f, "%llu %u\n", (unsigned long long)i, lut->code[i]);
        st = optinc_outs_add(&set, &out, &err);
    }
    st = cli_outs_end(&set, st, &err);
    for (long k = 0; luts && k < chips; k++)
        optinc_onn_lut_free(luts[k]);
    free(luts);
    optinc_circuit_free(c);
    return st ? cli_report(cmd, &err, st) : 0;
}

/* The subcommands, and what their --help says besides the options. */
static const struct onn_command {
    cli_cmd cmd;
    int (*run)(const cli_cmd *cmd, int argc, char **argv);
} onn_commands[] = {
    {{"onn train", NULL, NULL,
      "Trains the ONN of one OptINC unit (or cascade level L) on every P "
      "output and\nwrites it as a spec that 'optinc compile' turns into a "
      "netlist."}, onn_train},
    {{"onn verify", "SPEC|NET", NULL,
      "Evaluates the compiled ONN on every P output and compares each decoded "
      "result\nwith the rounded average.  Ideal devices unless --programmed "
      "or --sigma."}, onn_verify},
    {{"onn export", "SPEC|NET", NULL,
      "Writes what 'optinc train' needs from a compiled ONN on one chip."}, onn_export},
    {{"onn cascade", "UNIT|LEVEL1 [LEVEL2]", NULL,
      "Checks a cascade of one unit over --servers or --levels (each level's "
      "chip\nexhaustively, then N random end-to-end inputs), or the two-level "
      "cascade of\nLEVEL1 and LEVEL2."}, onn_cascade},
    {{"onn cost", "UNIT [UNIT]", NULL,
      "Tabulates what cascades of each unit cost for F, F^2, ... servers: "
      "MZIs, area\nagainst SVD, optical depth, loss, latency, bytes per server "
      "and the cost\nmodel's step saving."}, onn_cost},
};

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
    for (size_t i = 0; i < sizeof onn_commands / sizeof onn_commands[0]; i++)
        if (!strcmp(sub, onn_commands[i].cmd.name + strlen("onn ")))
            return onn_commands[i].run(&onn_commands[i].cmd, argc - 1, argv + 1);
    return cli_usage_error("onn", "unknown command '%s' (train, verify, export, cascade or cost)", sub);
}
