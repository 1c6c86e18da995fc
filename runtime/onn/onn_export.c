/*
 * onn_export.c - a trained ONN to a spec and back, and the loader that finds
 * an ONN's meta (its task and segmentation) for a spec or a netlist.
 *
 * Why the circuit looks the way it does.  The compiler chains layers
 * (input of layer l+1 = output of layer l) and realizes each layer as one
 * matrix, so the ONN's biases must be carried by light: the circuit takes
 * one carrier mode per layer (amplitude 1, split from the unit's laser),
 * layer l consumes the first carrier it receives as its bias input and passes
 * the others through with weight 1.  A segmented layer is written with its
 * grid (`segments: [R, G]`, R = rows / segment rows, G = cols / segment
 * columns of the model layer) and its carriers as `pass_through: K`
 * (circuit.h: the last K inputs are waveguides to the last K outputs), so
 * the compiler builds exactly the segments the ONN was trained in and the
 * netlist holds the design the area model counts; the first layer's segments
 * see the inputs times in_scale and the carrier, which its `input_scale`
 * says (the drive of the modulators, electronic like the gain, so no
 * element).  A dense layer compiles by SVD, which realizes the same matrix.  The ONN's input normalization (p_k times
 * in_scale) is folded into the first layer, so the circuit's inputs are the
 * P outputs in PAM4 level units.
 *
 * What the matrices cannot carry (the task, the rounding rule, the cascade
 * level, the segment shapes of the area model) is written to the spec's
 * allreduce: section and info: keys.  The compiler keeps it as the circuit's
 * ONN record, which the netlist carries in its `*! onn` header line, so a
 * netlist is used as an ONN without its spec; a netlist without that line
 * finds it through the spec path and sha256 its header records.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "optinc/fileio.h"
#include "optinc/netlist.h"
#include "optinc/onn.h"

/* Model layer l sizes: data inputs (without its carrier) and rows. */
static int data_in(const optinc_onn *net, int l) { return net->layers[l].cols - 1; }

/* Circuit matrix of layer l (rows x cols as returned), row-major. */
static double *circuit_matrix(const optinc_onn *net, int l, int *rows, int *cols)
{
    const optinc_onn_layer *L = &net->layers[l];
    int K = net->n_layers - l, din = data_in(net, l);
    *rows = L->rows + K - 1;
    *cols = din + K;
    double *M = calloc((size_t)*rows * (size_t)*cols, sizeof *M);
    if (!M)
        return NULL;
    double in = l == 0 ? net->in_scale : 1.0;
    for (int i = 0; i < L->rows; i++) {
        for (int j = 0; j < din; j++)
            M[(size_t)i * *cols + j] = L->w[(size_t)i * L->cols + j] * in;
        M[(size_t)i * *cols + din] = L->w[(size_t)i * L->cols + din] * net->carrier;
    }
    for (int k = 0; k < K - 1; k++)
        M[(size_t)(L->rows + k) * *cols + din + 1 + k] = 1.0;
    return M;
}

/* s as a YAML double-quoted scalar that libyaml reads back as s, on one
 * line: '"' and '\\' escaped, and as \\uHHHH every character a YAML stream
 * may not hold as it is or would read as a line break (the C0 and C1
 * controls, DEL, U+2028, U+2029, U+FEFF, U+FFFE, U+FFFF).  A byte that is
 * not UTF-8 has no escape: it is written as U+FFFD (callers that need the
 * bytes back refuse such text first). */
static void put_yaml_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (int n; *s; s += n ? n : 1) {
        n = optinc_utf8_length(s);
        unsigned long cp = n > 1 ? (unsigned char)s[0] & (0x7Fu >> n) : (unsigned char)s[0];
        for (int k = 1; k < n; k++)
            cp = cp << 6 | ((unsigned char)s[k] & 0x3Fu);
        if (!n)
            fputs("\\uFFFD", f);
        else if (cp == '"' || cp == '\\')
            fprintf(f, "\\%c", (int)cp);
        else if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || cp == 0x2028 || cp == 0x2029 ||
                 cp == 0xFEFF || cp == 0xFFFE || cp == 0xFFFF)
            fprintf(f, "\\u%04lX", cp);
        else
            fwrite(s, 1, (size_t)n, f);
    }
    fputc('"', f);
}

/* "specs/onn4x8.yaml" -> data dir "specs/onn4x8" and its relative name "onn4x8". */
static void data_dir_of(const char *spec_path, char *dir, size_t n, char *rel, size_t nrel)
{
    snprintf(dir, n, "%s", spec_path);
    char *dot = strrchr(dir, '.'), *slash = strrchr(dir, '/');
    if (dot && (!slash || dot > slash))
        *dot = 0;
    else
        snprintf(dir + strlen(dir), n - strlen(dir), ".d");
    slash = strrchr(dir, '/');
    snprintf(rel, nrel, "%s", slash ? slash + 1 : dir);
}

void optinc_onn_export_matrix_path(const char *spec_path, int layer, char *path, size_t size)
{
    char dir[1024], rel[1024];
    data_dir_of(spec_path, dir, sizeof dir, rel, sizeof rel);
    snprintf(path, size, "%s/W%d.npy", dir, layer + 1);
}

/* The spec's name is written as it is (`name: NAME`), so it must be what
 * the spec reader takes, an identifier: letters, digits and '_', not
 * starting with a digit, shorter than OPTINC_NAME_MAX.  Anything else
 * would give a spec optinc refuses, or one whose YAML says more than a
 * name (a newline starts a key of its own). */
static optinc_status check_name(const char *name, optinc_error *err)
{
    int ok = name && (isalpha((unsigned char)name[0]) || name[0] == '_') &&
             strlen(name) < OPTINC_NAME_MAX;
    for (const char *p = name; ok && *p; p++)
        ok = isalnum((unsigned char)*p) || *p == '_';
    if (ok)
        return OPTINC_OK;
    char shown[81];   /* the name as a message can show it: '?' for what is not printable */
    size_t n = 0;
    for (const char *p = name ? name : ""; *p && n + 1 < sizeof shown; p++)
        shown[n++] = isprint((unsigned char)*p) ? *p : '?';
    shown[n] = '\0';
    return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0, "the ONN's name '%s' is not an "
                       "identifier; use letters, digits and '_', starting with a letter or "
                       "'_', at most %d characters", shown, OPTINC_NAME_MAX - 1);
}

/* The folder of the matrices is the spec's file name without its extension,
 * which the spec names in its `file:` values: it must be a name of its own
 * (not "", "." or "..", which would put the matrices beside the spec or
 * above it) and UTF-8, which YAML holds exactly (it has no escape for a
 * byte that is not). */
static optinc_status check_data_dir(const char *spec_path, const char *rel, optinc_error *err)
{
    if (!*rel || !strcmp(rel, ".") || !strcmp(rel, ".."))
        return optinc_fail(err, OPTINC_EINPUT, spec_path, 0, 0, "the spec's name without its "
                           "extension, '%s', names no folder of its own for the matrices; "
                           "give the spec a name such as onn.yaml", rel);
    for (int n; *rel; rel += n)
        if (!(n = optinc_utf8_length(rel)))
            return optinc_fail(err, OPTINC_EINPUT, spec_path, 0, 0, "the spec's name is not "
                               "UTF-8 text, which its `file:` values (YAML) cannot hold "
                               "exactly; give the spec a UTF-8 name");
    return OPTINC_OK;
}

/* What optinc_out_check() refuses, and a FIFO or a device, which would be
 * written in place: the spec and its matrices are files `optinc compile`
 * reads back. */
static optinc_status check_file(const char *path, optinc_error *err)
{
    struct stat sb;
    optinc_status st = optinc_out_check(path, err);
    if (st || stat(path, &sb) != 0 || S_ISREG(sb.st_mode))
        return st;
    return optinc_fail(err, OPTINC_EINPUT, path, 0, 0, "output '%s' is %s, not a file; the "
                       "ONN's spec and matrices are files 'optinc compile' reads back, so give "
                       "the path of a file", path, S_ISFIFO(sb.st_mode) ? "a FIFO" : "a device");
}

optinc_status optinc_onn_export_check(const optinc_onn *net, const char *spec_path,
                                      const optinc_onn_export_opts *o, optinc_error *err)
{
    char dir[1024], rel[1024], path[1600];
    struct stat sb;
    data_dir_of(spec_path, dir, sizeof dir, rel, sizeof rel);
    optinc_status st = check_name(o->name, err);
    if (!st)
        st = check_file(spec_path, err);
    if (!st)
        st = check_data_dir(spec_path, rel, err);
    if (st)
        return st;
    if (stat(dir, &sb) != 0)
        return optinc_out_check(dir, err);   /* made by export: its folder must be writable */
    if (!S_ISDIR(sb.st_mode))
        return optinc_fail(err, OPTINC_EINPUT, dir, 0, 0, "'%s', where the ONN's matrices go, "
                           "is not a folder; remove it or give the spec another name", dir);
    for (int l = 0; !st && l < net->n_layers; l++) {
        optinc_onn_export_matrix_path(spec_path, l, path, sizeof path);
        st = check_file(path, err);
    }
    return st;
}

/* The spec of net, whose matrices are rel/W*.npy of rows x cols. */
static void put_spec(FILE *f, const optinc_onn *net, const char *spec_path, const char *rel,
                     const optinc_onn_export_opts *o, const int *rows, const int *cols)
{
    const optinc_onn_task *t = &net->task;
    char path[1600];
    /* the paths quoted as the spec quotes its own, so the comment is one line */
    fputs("# An OptINC optical neural network, written by 'optinc onn train'.\n"
          "# Compile: optinc compile ", f);
    put_yaml_string(f, spec_path);
    fputs(" -o NET.pnl.sp; check: optinc onn verify ", f);
    put_yaml_string(f, spec_path);
    fprintf(f, "\n# Conventions (optinc-onn(7)): inputs are the P outputs in PAM4 level units,\n"
               "# then %d carriers of amplitude 1 (one bias per layer); outputs are PAM4\n"
               "# digits in level units, decoded from |y|.\n", net->n_layers);
    fprintf(f, "schema_version: 1\nname: %s\ninfo:\n", o->name);
    fprintf(f, "  description: \"OptINC ONN: %d servers, %d-bit codes, %s, level %d\"\n",
            o->fan_in, o->bits, t->pre == OPTINC_P_DIGIT_SUMS ? "digit sums" : "weighted sum",
            o->level);
    fprintf(f, "  onn_rounding: %s\n",
            t->rounding == OPTINC_ROUND_HALF_UP ? "half_up" : "half_even");
    fprintf(f, "  onn_code: %s\n", optinc_onn_code_names[t->code]);
    fprintf(f, "  onn_level: \"%d\"\n  onn_segments: \"", o->level);
    for (int l = 0; l < net->n_layers; l++)
        fprintf(f, "%s%dx%d", l ? " " : "", net->layers[l].seg_rows, net->layers[l].seg_cols);
    fputs("\"\n", f);
    if (o->provenance) {
        fputs("  onn_trained: ", f);
        put_yaml_string(f, o->provenance);
        fputc('\n', f);
    }
    fprintf(f, "settings:\n  mesh: clements\n  attenuators: middle\n  seed: %llu\n",
            (unsigned long long)o->seed);
    fprintf(f, "components:\n  phase_shifter:\n    bits: %d\n", o->phase_bits);
    fputs("matrices:\n", f);
    for (int l = 0; l < net->n_layers; l++) {
        fprintf(f, "  W%d: {file: ", l + 1);
        snprintf(path, sizeof path, "%s/W%d.npy", rel, l + 1);
        put_yaml_string(f, path);
        fprintf(f, ", shape: [%d, %d], dtype: real}\n", rows[l], cols[l]);
    }
    fputs("layers:\n", f);
    int approx[OPTINC_ONN_MAX_LAYERS], n_approx = 0;
    for (int l = 0; l < net->n_layers; l++) {
        const optinc_onn_layer *L = &net->layers[l];
        fprintf(f, "  - {name: L%d, matrix: W%d, attenuators: %s, activation: relu_eo", l + 1,
                l + 1, L->seg_rows > 0 ? "output" : "middle");
        if (L->seg_rows > 0) {
            fprintf(f, ", segments: [%d, %d]", L->rows / L->seg_rows, L->cols / L->seg_cols);
            if (net->n_layers - l - 1)
                fprintf(f, ", pass_through: %d", net->n_layers - l - 1);
            if (l == 0) {   /* the inputs' normalization beside the carrier: the drive */
                fputs(", input_scale: [", f);
                for (int j = 0; j < data_in(net, 0); j++)
                    fprintf(f, "%.17g, ", net->in_scale);
                fprintf(f, "%.17g]", net->carrier);
            }
            approx[n_approx++] = l + 1;
        }
        fputs("}\n", f);
    }
    int servers = o->level ? o->fan_in * o->fan_in : o->fan_in;
    fprintf(f, "allreduce:\n  servers: %d\n  gradient_bits: %d\n  symbol: pam4\n"
               "  block_quantization: {block_size: 1024}\n  preprocessing: %s\n  onn:\n"
               "    hidden: [",
            servers, o->bits, optinc_onn_preprocessing_names[t->pre]);
    for (int l = 0; l < net->n_layers - 1; l++)
        fprintf(f, "%s%d", l ? ", " : "", net->layers[l].rows);
    fprintf(f, "]\n    activation: relu_eo\n    approximation: %s\n",
            n_approx ? "unitary_diagonal" : "none");
    if (n_approx == net->n_layers) {
        fputs("    approximate_layers: all\n", f);
    } else if (n_approx) {
        fputs("    approximate_layers: [", f);
        for (int i = 0; i < n_approx; i++)
            fprintf(f, "%s%d", i ? ", " : "", approx[i]);
        fputs("]\n", f);
    }
    fprintf(f, "  cascade: {fan_in: %d, levels: %d}\n", o->fan_in, o->level ? 2 : 1);
}

/* The layer's matrix as the circuit takes it (carriers included). */
static optinc_cmat *layer_matrix(const optinc_onn *net, int l, int *rows, int *cols)
{
    double *M = circuit_matrix(net, l, rows, cols);
    optinc_cmat *C = M ? optinc_cmat_new(*rows, *cols) : NULL;
    for (size_t i = 0; C && i < (size_t)*rows * *cols; i++)
        C->a[i] = M[i];
    free(M);
    return C;
}

/* The matrices and the spec only make sense together, so they are one set
 * of outputs (fileio.h), the spec last: a failure on the way (a full disk)
 * leaves the previous ONN as it was, and a new folder of matrices is
 * removed again (also by a signal that ends the program, fileio.h). */
optinc_status optinc_onn_export_add(optinc_outs *set, const optinc_onn *net,
                                    const char *spec_path, const optinc_onn_export_opts *o,
                                    optinc_error *err)
{
    char dir[1024], rel[1024], path[1600];
    optinc_status st = optinc_onn_export_check(net, spec_path, o, err);
    if (st)
        return st;
    data_dir_of(spec_path, dir, sizeof dir, rel, sizeof rel);
    st = optinc_outs_mkdir(set, dir, err);
    int rows[OPTINC_ONN_MAX_LAYERS], cols[OPTINC_ONN_MAX_LAYERS];
    for (int l = 0; !st && l < net->n_layers; l++) {
        optinc_cmat *C = layer_matrix(net, l, &rows[l], &cols[l]);
        optinc_onn_export_matrix_path(spec_path, l, path, sizeof path);
        st = C ? optinc_npy_add(set, path, C, 1, err)
               : optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory exporting the ONN");
        optinc_cmat_free(C);
    }
    optinc_out out;
    if (!st && !(st = optinc_out_open(&out, spec_path, err))) {
        put_spec(out.f, net, spec_path, rel, o, rows, cols);
        st = optinc_outs_add(set, &out, err);
    }
    return st;
}

optinc_status optinc_onn_export(const optinc_onn *net, const char *spec_path,
                                const optinc_onn_export_opts *o, optinc_error *err)
{
    optinc_outs set = {0};
    return optinc_outs_end(&set, optinc_onn_export_add(&set, net, spec_path, o, err), err);
}

/* ---- meta ------------------------------------------------------------------- */

/* The meta of an ONN record (circuit.h), which came from `from`, for a
 * circuit of n_layers layers. */
static optinc_status meta_from_record(const optinc_circuit_onn *o, int n_layers,
                                      const char *from, optinc_onn_meta *m, optinc_error *err)
{
    memset(m, 0, sizeof *m);
    /* The record's words were checked against these lists where it was
     * read (circuit.c, netlist_dialect.c). */
    optinc_rounding rounding = optinc_word_index(optinc_onn_rounding_names, o->rounding);
    optinc_preproc pre = optinc_word_index(optinc_onn_preprocessing_names, o->preprocessing);
    m->level = o->level;
    m->bits = o->gradient_bits;
    m->fan_in = m->level ? o->cascade_fan_in : o->servers;
    optinc_status st = m->level ? optinc_onn_task_cascade(&m->task, m->level, m->fan_in, m->bits,
                                                          pre, rounding, err)
                                : optinc_onn_task_unit(&m->task, m->fan_in, m->bits, pre,
                                                       rounding, err);
    if (st)
        return st;
    m->task.code = optinc_word_index(optinc_onn_code_names, o->code);
    m->n_layers = n_layers;
    memcpy(m->seg, o->segments, sizeof o->segments[0] * 2 * (size_t)o->n_segments);
    snprintf(m->spec_path, sizeof m->spec_path, "%s", from);
    return OPTINC_OK;
}

optinc_status optinc_onn_meta_from_spec(const optinc_spec *spec, optinc_onn_meta *m,
                                        optinc_error *err)
{
    optinc_circuit_onn o;
    memset(m, 0, sizeof *m);
    optinc_status st = optinc_circuit_onn_from_spec(spec, &o, err);
    return st ? st : meta_from_record(&o, spec->n_layers, spec->path, m, err);
}

optinc_status optinc_onn_meta_check(const optinc_circuit *c, const optinc_onn_meta *m,
                                    optinc_error *err)
{
    int L = c->n_layers, p = optinc_onn_task_inputs(&m->task);
    if (L != m->n_layers || L < 1 || L > OPTINC_ONN_MAX_LAYERS)
        return optinc_fail(err, OPTINC_EINPUT, m->spec_path, 0, 0,
                           "the ONN description has %d layers but the circuit has %d",
                           m->n_layers, L);
    if (c->layers[0].cols != p + L)
        return optinc_fail(err, OPTINC_EINPUT, m->spec_path, 0, 0,
                           "the circuit takes %d inputs, but an ONN of %d layers for this task "
                           "takes %d P outputs and %d carriers; check allreduce: servers, "
                           "gradient_bits and preprocessing", c->layers[0].cols, L, p, L);
    if (c->layers[L - 1].rows != optinc_onn_task_outputs(&m->task))
        return optinc_fail(err, OPTINC_EINPUT, m->spec_path, 0, 0,
                           "the circuit has %d outputs but the task's %d result digits in the "
                           "%s code take %d", c->layers[L - 1].rows, m->task.out_digits,
                           optinc_onn_code_names[m->task.code],
                           optinc_onn_task_outputs(&m->task));
    for (int l = 0; l < L; l++) {
        int sr = m->seg[2 * l], sc = m->seg[2 * l + 1];
        int rows = c->layers[l].rows - (L - l - 1), cols = c->layers[l].cols - (L - l) + 1;
        if (sr > 0 && (sc < sr || rows % sr || cols % sc))
            return optinc_fail(err, OPTINC_EINPUT, m->spec_path, 0, 0,
                               "layer %d (%dx%d without pass-through carriers) cannot be cut "
                               "into %dx%d segments", l + 1, rows, cols, sr, sc);
    }
    return OPTINC_OK;
}

optinc_status optinc_onn_from_spec(const optinc_spec *spec, optinc_onn *net,
                                   optinc_onn_meta *meta, optinc_error *err)
{
    optinc_status st = optinc_onn_meta_from_spec(spec, meta, err);
    if (st)
        return st;
    int L = spec->n_layers, hidden[OPTINC_MAX_HIDDEN];
    if (L < 1 || L > OPTINC_ONN_MAX_LAYERS)
        return optinc_fail(err, OPTINC_EINPUT, spec->path, 0, 0, "an ONN has 1..%d layers",
                           OPTINC_ONN_MAX_LAYERS);
    for (int l = 0; l < L - 1; l++)
        hidden[l] = spec->matrices[spec->layers[l].matrix].rows - (L - l - 1);
    if ((st = optinc_onn_alloc(net, &meta->task, hidden, L - 1, meta->seg, err)))
        return st;
    for (int l = 0; l < L; l++) {
        const optinc_spec_matrix *M = &spec->matrices[spec->layers[l].matrix];
        optinc_onn_layer *Y = &net->layers[l];
        int K = L - l, din = Y->cols - 1;
        if (M->rows != Y->rows + K - 1 || M->cols != din + K) {
            optinc_onn_free(net);
            return optinc_fail(err, OPTINC_EINPUT, spec->path, M->line, M->column,
                               "matrix '%s' is %dx%d, but layer %d of this ONN must be %dx%d "
                               "(with its pass-through carriers)", M->name, M->rows, M->cols,
                               l + 1, Y->rows + K - 1, din + K);
        }
        double in = l == 0 ? 1.0 / net->in_scale : 1.0;
        for (int i = 0; i < Y->rows; i++)
            for (int j = 0; j <= din; j++)
                Y->w[(size_t)i * Y->cols + j] =
                    creal(M->data[(size_t)i * M->cols + j]) * (j < din ? in : 1.0 / net->carrier);
    }
    return OPTINC_OK;
}

/* ---- loading ------------------------------------------------------------------ */

/* 1 when the file at path has the given SHA-256. */
static int sha_matches(const char *path, const uint8_t sha[32])
{
    unsigned char d[32];
    optinc_error e;
    return !optinc_sha256_file(path, d, &e) && !memcmp(d, sha, sizeof d);
}

/* The task of a netlist without its `*! onn` line and spec, read from its
 * shape: 4 servers and digit sums, one input per PAM4 digit besides the L
 * carriers, so B = 2 x inputs (kept in 2..32: a circuit of another shape is
 * then refused by optinc_onn_meta_check for its inputs, not for B); 2D - 1
 * outputs for D > 1 digits are the offset code's, others binary; each
 * layer's segment shape is its grid's block without the pass-through
 * carriers.  The command line's task options override it. */
static optinc_status meta_defaults(const optinc_circuit *c, optinc_onn_meta *m, optinc_error *err)
{
    memset(m, 0, sizeof *m);
    int L = c->n_layers, in = c->layers[0].cols - L, out = c->layers[L - 1].rows;
    int D = in < 1 ? 1 : in > 16 ? 16 : in;
    m->fan_in = 4;
    m->bits = 2 * D;
    m->n_layers = L;
    optinc_status st = optinc_onn_task_unit(&m->task, 4, m->bits, OPTINC_P_DIGIT_SUMS,
                                            OPTINC_ROUND_HALF_EVEN, err);
    optinc_onn_task offset = m->task;
    offset.code = OPTINC_CODE_OFFSET;
    if (!st && D > 1 && out == optinc_onn_task_outputs(&offset))
        m->task = offset;
    for (int l = 0; l < L && l < OPTINC_ONN_MAX_LAYERS; l++) {
        const optinc_layer *y = &c->layers[l];
        if (y->seg_rows > 0 && y->seg_cols > 0) {
            m->seg[2 * l] = (y->rows - y->pass_through) / y->seg_rows;
            m->seg[2 * l + 1] = (y->cols - y->pass_through) / y->seg_cols;
        }
    }
    return st;
}

static optinc_status spec_meta(const char *path, const optinc_read_opts *opts, optinc_onn_meta *m,
                               optinc_error *err)
{
    optinc_spec *spec;
    optinc_status st = optinc_spec_load(path, opts, &spec, err);
    if (st)
        return st;
    st = optinc_onn_meta_from_spec(spec, m, err);
    optinc_spec_free(spec);
    return st;
}

optinc_status optinc_onn_load(const char *path, const optinc_read_opts *opts, optinc_circuit **c,
                              optinc_onn_meta *meta, optinc_error *err)
{
    const char *dot = strrchr(path, '.');
    int yaml = dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml"));
    optinc_status st = optinc_circuit_load(path, opts, c, err);
    if (st)
        return st;
    const optinc_circuit *k = *c;
    if (yaml) {
        st = spec_meta(path, opts, meta, err);
    } else if (k->onn.present) {
        st = meta_from_record(&k->onn, k->n_layers, path, meta, err);
    } else {
        st = meta_defaults(k, meta, err);
        if (!st && k->spec_path[0]) {
            /* the recorded path, as given when compiling: try it as is, next
             * to the netlist, and next to the netlist's directory */
            char dir[1024], joined[2100], cand[3][2300];
            optinc_path_dir(path, dir, sizeof dir);
            snprintf(cand[0], sizeof cand[0], "%s", k->spec_path);
            optinc_path_join(dir, k->spec_path, cand[1], sizeof cand[1]);
            snprintf(joined, sizeof joined, "%s/..", dir);
            optinc_path_join(joined, k->spec_path, cand[2], sizeof cand[2]);
            for (int i = 0; i < 3; i++)
                if (sha_matches(cand[i], k->spec_sha256)) {
                    st = spec_meta(cand[i], opts, meta, err);
                    break;
                }
        }
    }
    if (!st)
        st = optinc_onn_meta_check(*c, meta, err);
    if (st) {
        optinc_circuit_free(*c);
        *c = NULL;
    }
    return st;
}
