/*
 * onn_model.c - the ONN as a network of weight matrices: allocation, the
 * double-precision forward pass and decoder, the exhaustive check of a model,
 * and the hardware counting model (MZI-equivalents, area ratio).
 *
 * The model is what the trainer produces and what export writes into a spec;
 * the compiled circuit (onn_verify.c) must agree with it.  The decoder is
 * shared by both, so "accuracy" is computed the same way for a model and for
 * a netlist: each output digit is |y|/out_scale rounded and clamped to 0..3
 * (a direct-detection PAM4 receiver: intensity thresholds at
 * ((k+1/2) out_scale)^2), and the value is sum_j digit_j 4^j.
 *
 * The counting model is in one function (optinc_onn_layer_cost) so every
 * area ratio the program prints uses the same rules; optinc-onn(7) states
 * them.  Segmented layers are the paper's "segmented" unitary-diagonal
 * approximation: an m x n weight cut into seg_rows x seg_cols blocks, each
 * block diag(s) . Q on one seg_cols-mode mesh and seg_rows attenuators, with
 * fixed splitters fanning every input out to its segments and fixed
 * combiners summing the segments of every output.
 */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/onn.h"

optinc_status optinc_onn_alloc(optinc_onn *net, const optinc_onn_task *t, const int *hidden,
                               int n_hidden, const int *seg, optinc_error *err)
{
    memset(net, 0, sizeof *net);
    net->task = *t;
    if (n_hidden < 0 || n_hidden > OPTINC_MAX_HIDDEN)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "an ONN has 0..%d hidden layers, got %d", OPTINC_MAX_HIDDEN, n_hidden);
    int p = optinc_onn_task_inputs(t);
    net->in_scale = t->pre == OPTINC_P_DIGIT_SUMS ? 1.0 / (3.0 * t->servers)
                                                  : 1.0 / ((double)t->servers * t->in_max);
    net->carrier = 1.0;
    net->out_scale = 1.0;
    net->n_layers = n_hidden + 1;
    int width = p + 1;             /* P outputs plus this layer's carrier */
    for (int l = 0; l < net->n_layers; l++) {
        optinc_onn_layer *L = &net->layers[l];
        L->cols = width;
        L->rows = l < n_hidden ? hidden[l] : optinc_onn_task_outputs(t);
        L->activation = OPTINC_ACT_RELU_EO;
        if (L->rows < 1 || L->rows > 4096)
            return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                               "hidden width %d is out of range 1..4096", L->rows);
        if (seg && seg[2 * l] > 0) {
            L->seg_rows = seg[2 * l];
            L->seg_cols = seg[2 * l + 1];
            if (L->seg_rows > L->seg_cols || L->rows % L->seg_rows || L->cols % L->seg_cols) {
                optinc_onn_free(net);
                return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                                   "layer %d is %dx%d: a %dx%d segment must divide it and "
                                   "have no more rows than columns",
                                   l + 1, L->rows, L->cols, L->seg_rows, L->seg_cols);
            }
        }
        L->w = calloc((size_t)L->rows * (size_t)L->cols, sizeof *L->w);
        if (!L->w) {
            optinc_onn_free(net);
            return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory for the ONN");
        }
        width = L->rows + 1;
    }
    return OPTINC_OK;
}

void optinc_onn_free(optinc_onn *net)
{
    for (int l = 0; l < OPTINC_ONN_MAX_LAYERS; l++) {
        free(net->layers[l].w);
        net->layers[l].w = NULL;
    }
    net->n_layers = 0;
}

/* ---- forward pass and decoder -------------------------------------------- */

void optinc_onn_input(const optinc_onn *net, const int *p, double *x)
{
    int n = optinc_onn_task_inputs(&net->task);
    for (int k = 0; k < n; k++)
        x[k] = net->in_scale * p[k];
    x[n] = net->carrier;
}

/* Gray: level j is digit j reflected (3 - digit) when digit j+1 is odd;
 * decoding walks from the top, where digit j+1 is already known.  Offset:
 * with q = 4^j and L = v mod q, digit j (j >= 1) is read from output j when
 * 4L is in [q, 3q), else from output D + j - 1, the digit of v + q/2 (one
 * more than digit j when 2L >= q); each is trained q/8 beyond where it is
 * read (8L in [q, 7q), and 8L outside [3q, 5q)), and decoding walks up from
 * digit 0, where L is already known.  Why not wider: trained a whole LSB
 * beyond (so digit 1's outputs everywhere, in case digit 0 is read 1 off),
 * the network was as exact but less robust, its digit-1 outputs steep again
 * (optinc-onn(7), Output code). */
void optinc_onn_levels(const optinc_onn_task *t, uint64_t v, int *level)
{
    int D = t->out_digits;
    for (int j = 0; j < D; j++) {
        int d = (int)(v >> (2 * j) & 3), odd = (int)(v >> (2 * j + 2) & 1);
        level[j] = t->code == OPTINC_CODE_GRAY && odd ? 3 - d : d;
    }
    for (int j = 1; t->code == OPTINC_CODE_OFFSET && j < D; j++) {
        uint64_t q = 1ull << (2 * j), L8 = 8 * (v & (q - 1));
        level[D + j - 1] = L8 < 3 * q || L8 >= 5 * q ? (int)((v + q / 2) >> (2 * j) & 3) : -1;
        if (L8 < q || L8 >= 7 * q)
            level[j] = -1;
    }
}

/* The level of a detected amplitude, clamped to 0..3; *margin becomes the
 * smaller of itself and the amplitude's distance (in levels) from the
 * nearest threshold that would change the level read. */
static int level_of(double amplitude, double out_scale, double *margin)
{
    double x = fabs(amplitude) / out_scale, a = floor(x + 0.5);
    double m = x <= 0.5 ? 0.5 - x : x >= 2.5 ? x - 2.5 : 0.5 - fabs(x - a);
    if (*margin == *margin && !(m >= *margin))   /* a NaN comes in and stays: no margin */
        *margin = m;
    return a < 0 ? 0 : a > 3 ? 3 : (int)a;
}

uint64_t optinc_onn_decode_margin(const optinc_onn_task *t, double out_scale,
                                  const double *amplitude, double *margin)
{
    uint64_t v = 0;
    int D = t->out_digits;
    *margin = HUGE_VAL;
    if (t->code == OPTINC_CODE_OFFSET) {
        v = (uint64_t)level_of(amplitude[0], out_scale, margin);
        for (int j = 1; j < D; j++) {
            uint64_t q = 1ull << (2 * j);
            int plain = 4 * v >= q && 4 * v < 3 * q;
            int d = level_of(amplitude[plain ? j : D + j - 1], out_scale, margin);
            if (!plain && 2 * v >= q)
                d = (d + 3) & 3;
            v += (uint64_t)d << (2 * j);
        }
        return v;
    }
    for (int j = D - 1; j >= 0; j--) {
        int d = level_of(amplitude[j], out_scale, margin);
        if (t->code == OPTINC_CODE_GRAY && (v & 1))
            d = 3 - d;
        v = v * 4 + (uint64_t)d;
    }
    return v;
}

uint64_t optinc_onn_decode(const optinc_onn_task *t, double out_scale, const double *amplitude)
{
    double margin;
    return optinc_onn_decode_margin(t, out_scale, amplitude, &margin);
}

/* Widest layer input (carrier included). */
static int max_width(const optinc_onn *net)
{
    int w = net->layers[0].cols;
    for (int l = 0; l < net->n_layers; l++)
        if (net->layers[l].rows + 1 > w)
            w = net->layers[l].rows + 1;
    return w;
}

/* Real activation of a field that stays real in the ideal model. */
static double act_real(optinc_activation a, double z)
{
    switch (a) {
    case OPTINC_ACT_RELU_EO: return z > 0 ? z : 0;
    case OPTINC_ACT_ABS2: return z * z;
    default: return z;
    }
}

/* Batch forward: x (B x cols0), out amplitudes (B x outputs).  A hidden
 * layer's output rows get one more column, the next layer's carrier. */
static void forward_batch(const optinc_onn *net, int B, const double *x, double *out,
                          double *buf0, double *buf1)
{
    const double *in = x;
    double *bufs[2] = {buf0, buf1};
    for (int l = 0; l < net->n_layers; l++) {
        const optinc_onn_layer *L = &net->layers[l];
        int last = l == net->n_layers - 1, ld = last ? L->rows : L->rows + 1;
        double *z = last ? out : bufs[l & 1];
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, L->rows, L->cols, 1.0, in,
                    L->cols, L->w, L->cols, 0.0, z, ld);
        for (int b = 0; b < B; b++) {
            double *r = z + (size_t)b * ld;
            for (int i = 0; i < L->rows; i++)
                r[i] = act_real(L->activation, r[i]);
            if (!last)
                r[L->rows] = net->carrier;
        }
        in = z;
    }
}

uint64_t optinc_onn_eval(const optinc_onn *net, const int *p)
{
    int w = max_width(net);
    double *buf = malloc(sizeof *buf * (size_t)(3 * w + optinc_onn_task_outputs(&net->task) + 1));
    if (!buf)
        return UINT64_MAX;
    double *x = buf + 2 * w, *y = x + w;
    optinc_onn_input(net, p, x);
    forward_batch(net, 1, x, y, buf, buf + w);
    uint64_t v = optinc_onn_decode(&net->task, net->out_scale, y);
    free(buf);
    return v;
}

void optinc_onn_report_add(optinc_onn_report *r, uint64_t got, uint64_t want, double weight,
                           double *weighted_ok)
{
    r->checked++;
    if (got == want) {
        r->correct++;
        *weighted_ok += weight;
    }
    double e = (double)got - (double)want;
    int b = e < -OPTINC_ONN_HIST ? -OPTINC_ONN_HIST : e > OPTINC_ONN_HIST ? OPTINC_ONN_HIST : (int)e;
    r->hist[b + OPTINC_ONN_HIST]++;
    r->whist[b + OPTINC_ONN_HIST] += weight;
    r->abs_error_sum += weight * fabs(e);
    if (fabs(e) >= 2)
        r->ge2_weight += weight;
}

void optinc_onn_report_finish(optinc_onn_report *r, double weighted_ok, double weight_total)
{
    r->accuracy = r->checked ? (double)r->correct / (double)r->checked : 0;
    r->weighted_accuracy = weight_total > 0 ? weighted_ok / weight_total : 0;
    r->raw_inputs = weight_total;
    r->mean_abs_error_lsb = weight_total > 0 ? r->abs_error_sum / weight_total : 0;
    r->p_error_ge2 = weight_total > 0 ? r->ge2_weight / weight_total : 0;
}

optinc_status optinc_onn_check(const optinc_onn *net, uint64_t sample, optinc_onn_report *r,
                               optinc_error *err)
{
    optinc_onn_domain d;
    optinc_status st = optinc_onn_domain_init(&d, &net->task, err);
    if (st)
        return st;
    memset(r, 0, sizeof *r);
    enum { B = 1024 };
    int w = max_width(net), n_in = net->layers[0].cols, D = optinc_onn_task_outputs(&net->task);
    double *x = malloc(sizeof *x * B * (size_t)n_in), *y = malloc(sizeof *y * B * (size_t)D);
    double *b0 = malloc(sizeof *b0 * B * (size_t)w), *b1 = malloc(sizeof *b1 * B * (size_t)w);
    uint64_t *want = malloc(sizeof *want * B);
    double *cnt = malloc(sizeof *cnt * B);
    if (!x || !y || !b0 || !b1 || !want || !cnt) {
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory checking the ONN");
        goto out;
    }
    optinc_onn_walk walk;
    optinc_onn_walk_init(&walk, &d, sample, 1);
    r->sampled = walk.sampled;
    double ok = 0, total = 0;
    for (int n = B; n == B;) {
        uint64_t idx;
        int p[OPTINC_ONN_MAX_DIGITS];
        for (n = 0; n < B && optinc_onn_walk_next(&walk, &idx, p, &cnt[n]); n++) {
            optinc_onn_input(net, p, x + (size_t)n * n_in);
            want[n] = optinc_onn_target(&net->task, p);
        }
        forward_batch(net, n, x, y, b0, b1);
        for (int k = 0; k < n; k++) {
            uint64_t got = optinc_onn_decode(&net->task, net->out_scale, y + (size_t)k * D);
            optinc_onn_report_add(r, got, want[k], cnt[k], &ok);
            total += cnt[k];
        }
    }
    optinc_onn_report_finish(r, ok, total);
out:
    free(x); free(y); free(b0); free(b1); free(want); free(cnt);
    optinc_onn_domain_free(&d);
    return st;
}

/* ---- counting model ------------------------------------------------------- */

static double mesh_mzis(int n) { return 0.5 * n * (n - 1); }

void optinc_onn_layer_cost(const optinc_onn_layer *L, int svd, optinc_onn_cost *c)
{
    memset(c, 0, sizeof *c);
    if (svd || L->seg_rows <= 0) {
        c->meshes = mesh_mzis(L->rows) + mesh_mzis(L->cols);
        c->attenuators = L->rows < L->cols ? L->rows : L->cols;
    } else {
        int gr = L->rows / L->seg_rows, gc = L->cols / L->seg_cols;
        c->meshes = (double)gr * gc * mesh_mzis(L->seg_cols);
        /* the segments' own, and a trim at the end of every split branch */
        c->attenuators = (double)gr * gc * L->seg_rows + (gr > 1 ? (double)L->cols * gr : 0);
        c->splitters = (double)L->cols * (gr - 1);
        c->combiners = (double)L->rows * (gc - 1);
    }
    c->total = c->meshes + c->attenuators + c->splitters + c->combiners;
}

static void cost_add(optinc_onn_cost *a, const optinc_onn_cost *b)
{
    a->meshes += b->meshes;
    a->attenuators += b->attenuators;
    a->splitters += b->splitters;
    a->combiners += b->combiners;
    a->total += b->total;
}

double optinc_onn_area_ratio(const optinc_onn *net, optinc_onn_cost *approx, optinc_onn_cost *svd)
{
    optinc_onn_cost a = {0}, s = {0}, c;
    for (int l = 0; l < net->n_layers; l++) {
        optinc_onn_layer_cost(&net->layers[l], 0, &c);
        cost_add(&a, &c);
        optinc_onn_layer_cost(&net->layers[l], 1, &c);
        cost_add(&s, &c);
    }
    if (approx)
        *approx = a;
    if (svd)
        *svd = s;
    return a.total / s.total;
}
