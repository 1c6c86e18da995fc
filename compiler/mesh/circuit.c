/*
 * circuit.c - optinc_compile(): a spec's weight matrices into MZI meshes and
 * attenuator columns (the compiled circuit of circuit.h).
 *
 * Each layer's matrix W (rows x cols) is realized as W ~= s.T with a passive
 * T (every singular value <= 1), because optics cannot amplify; the gain s
 * is electronic and recorded in the circuit.  The attenuator position picks
 * the form:
 *
 *   middle  W = U.Sigma.V^H (SVD)  -> mesh(V^H), attenuators Sigma/s, mesh(U)
 *   output  W ~= Sigma.U           -> mesh(U), attenuators          (OptINC)
 *   input   W ~= U.Sigma           -> attenuators, mesh(U)
 *   none    W = s.U                -> mesh(U)
 *
 * The unitary-diagonal forms are exact only for matrices of that form (an
 * exported ONN layer is); otherwise the nearest such form is found by
 * alternating the two closed-form partial minimizations of |W - Sigma.U|_F
 * (given U, Sigma_ii = |<w_i, u_i>| with the phase moved into U's row; given
 * Sigma, U is the polar factor of Sigma.W) and the residual is reported.
 *
 * Why the scale of a matrix is bounded.  The decompositions compute with
 * squares and products of the entries (the SVD's norms, the residual and
 * Sigma.W of the unitary-diagonal form), so a matrix whose entries near the
 * largest double would come out as gain=inf and phases of NaN, and one of
 * entries near the smallest as a gain the netlist reader refuses.  A layer's
 * largest entry is therefore held to [ENTRY_MIN, ENTRY_MAX], where every
 * such square and sum of squares stays a finite, normal double (at most
 * 65536^2 entries of up to 1e140: below 1e290), and the matrix is refused,
 * at its definition, otherwise; the ratio of the gain to the entries is
 * what the optics realize, so scaling the matrix loses nothing.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/freeall.h"
#include "optinc/circuit.h"

#define ENTRY_MAX 1e140
#define ENTRY_MIN 1e-140
#define GAIN_MIN 1e-300         /* the netlist reader's floor for gain= */

optinc_circuit *optinc_circuit_new(const char *name, int n_layers)
{
    optinc_circuit *c = calloc(1, sizeof *c);
    optinc_layer *layers = calloc((size_t)n_layers + 1, sizeof *layers);
    if (!c || !layers) {
        OPTINC_FREE_ALL(c, layers);
        return NULL;
    }
    snprintf(c->name, sizeof c->name, "%s", name);
    c->n_layers = n_layers;
    c->layers = layers;
    return c;
}

void optinc_circuit_free(optinc_circuit *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n_layers; i++) {
        optinc_layer *L = &c->layers[i];
        for (int s = 0; s < L->n_stages; s++) {
            optinc_mesh_free(L->stage[s].mesh);
            free(L->stage[s].att);
        }
        optinc_cmat_free(L->target);
        free(L->input_scale);
    }
    for (int i = 0; i < c->n_warnings; i++)
        free(c->warnings[i]);
    OPTINC_FREE_ALL(c->warnings, c->layers, c);
}

void optinc_circuit_warn(optinc_circuit *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **w = realloc(c->warnings, sizeof *w * (size_t)(c->n_warnings + 1));
    if (!w)
        return;
    c->warnings = w;
    c->warnings[c->n_warnings] = strdup(buf);
    if (c->warnings[c->n_warnings])
        c->n_warnings++;
}

void optinc_att_program(optinc_att *a, double t_target, const optinc_components *c, int *capped)
{
    double max_db = c->attenuator.max_attenuation_dB > 0 ? c->attenuator.max_attenuation_dB : 60.0;
    double db = t_target > 0 ? -20.0 * log10(t_target) : INFINITY;
    if (!(db > 0))              /* t_target is 1 up to rounding (also turns -0 into 0) */
        db = 0;
    if (db > max_db) {
        db = max_db;
        if (capped)
            (*capped)++;
    }
    a->t_target = t_target;
    a->code = -1;
    if (c->attenuator.bits > 0) {
        double levels = ldexp(1.0, c->attenuator.bits) - 1;
        a->code = (int)nearbyint(db / max_db * levels);
        db = a->code * max_db / levels;
    }
    a->att_dB = db;
    a->t = pow(10.0, -db / 20.0);
}

/* ------------------------------------------------------------------ segments */

void optinc_att_channel(const optinc_stage *s, int k, int *in, int *out)
{
    int per = s->block_in < s->block_out ? s->block_in : s->block_out;
    int b = k / per, kk = k % per;
    *in = b * s->block_in + kk;
    *out = b * s->block_out + kk;
}

double optinc_chain_tap(const optinc_stage *s, int k)
{
    return s->kind == OPTINC_STAGE_SPLIT ? 1.0 / (s->fan - k) : 1.0 / (k + 2);
}

int optinc_segment_plan(int rows, int cols, int R, int G, optinc_stage plan[OPTINC_STAGES_MAX])
{
    int br = rows / R, bc = cols / G, B = R * G;
    memset(plan, 0, sizeof *plan * OPTINC_STAGES_MAX);
    plan[0] = (optinc_stage){.kind = OPTINC_STAGE_SPLIT, .tag = 'P', .modes_in = cols,
                             .modes_out = B * bc, .fan = R, .block = bc,
                             .n_att = R > 1 ? B * bc : 0};
    plan[1] = (optinc_stage){.kind = OPTINC_STAGE_MESH, .tag = 'Q', .modes_in = B * bc,
                             .modes_out = B * bc};
    plan[2] = (optinc_stage){.kind = OPTINC_STAGE_ATT, .tag = 'S', .modes_in = B * bc,
                             .modes_out = B * br, .n_att = B * br, .block_in = bc,
                             .block_out = br};
    plan[3] = (optinc_stage){.kind = OPTINC_STAGE_COMBINE, .tag = 'C', .modes_in = B * br,
                             .modes_out = rows, .fan = G, .block = br};
    return 4;
}

optinc_stage optinc_split_trims(const optinc_stage *s)
{
    return (optinc_stage){.kind = OPTINC_STAGE_ATT, .tag = 'T', .modes_in = s->modes_out,
                          .modes_out = s->modes_out, .att = s->att, .n_att = s->n_att,
                          .block_in = s->modes_out, .block_out = s->modes_out};
}

/* SPLIT: modes_in = cols, block = bc, modes_out = fan * cols; the block
 * columns G = cols / bc.  COMBINE: modes_out = rows, block = br, the fan is
 * G, and block b = i*G + j has its outputs at b*br. */
int optinc_split_target(const optinc_stage *s, int x, int i)
{
    int G = s->modes_in / s->block, j = x / s->block;
    return (i * G + j) * s->block + x % s->block;
}

int optinc_combine_source(const optinc_stage *s, int y, int j)
{
    return ((y / s->block) * s->fan + j) * s->block + y % s->block;
}

/* ------------------------------------------------------------------ counts */

int optinc_layer_mzis(const optinc_layer *L)
{
    int n = 0;
    for (int s = 0; s < L->n_stages; s++)
        if (L->stage[s].kind == OPTINC_STAGE_MESH)
            n += L->stage[s].mesh->n_mzi;
    return n;
}

int optinc_layer_attenuators(const optinc_layer *L)
{
    int n = 0;
    for (int s = 0; s < L->n_stages; s++)
        if (L->stage[s].kind == OPTINC_STAGE_ATT || L->stage[s].kind == OPTINC_STAGE_SPLIT)
            n += L->stage[s].n_att;
    return n;
}

/* Fixed cards of a stage of this kind: a fan-g chain has g-1 links, one
 * chain per input (SPLIT) or per output (COMBINE). */
static int chain_links(const optinc_layer *L, optinc_stage_kind kind)
{
    int n = 0;
    for (int s = 0; s < L->n_stages; s++) {
        const optinc_stage *st = &L->stage[s];
        if (st->kind == kind)
            n += (st->fan - 1) * (kind == OPTINC_STAGE_SPLIT ? st->modes_in : st->modes_out);
    }
    return n;
}

int optinc_layer_splitters(const optinc_layer *L) { return chain_links(L, OPTINC_STAGE_SPLIT); }
int optinc_layer_combiners(const optinc_layer *L) { return chain_links(L, OPTINC_STAGE_COMBINE); }

int optinc_layer_columns(const optinc_layer *L)
{
    int n = 0;
    for (int s = 0; s < L->n_stages; s++)
        n += L->stage[s].kind == OPTINC_STAGE_MESH ? L->stage[s].mesh->n_columns : 1;
    return n;
}

/* ------------------------------------------------------------------ transfer */

optinc_status optinc_stage_apply(const optinc_stage *s, const optinc_cmat *in, optinc_cmat *out)
{
    int B = in->cols;
    if (s->kind == OPTINC_STAGE_MESH) {
        memcpy(out->a, in->a, (size_t)in->rows * (size_t)B * sizeof *in->a);
        return optinc_mesh_apply(s->mesh, out);
    }
    memset(out->a, 0, (size_t)out->rows * (size_t)B * sizeof *out->a);
    if (s->kind == OPTINC_STAGE_SPLIT || s->kind == OPTINC_STAGE_COMBINE) {
        /* The ideal fixed optics: every branch carries 1/sqrt(fan). */
        double a = 1.0 / sqrt(s->fan);
        int split = s->kind == OPTINC_STAGE_SPLIT, n = split ? s->modes_in : s->modes_out;
        for (int x = 0; x < n; x++)
            for (int i = 0; i < s->fan; i++) {
                int from = split ? x : optinc_combine_source(s, x, i);
                int to = split ? optinc_split_target(s, x, i) : x;
                for (int b = 0; b < B; b++)
                    OPTINC_AT(out, to, b) += a * OPTINC_AT(in, from, b);
            }
        return OPTINC_OK;
    }
    for (int k = 0; k < s->n_att; k++) {
        int i, o;
        optinc_att_channel(s, k, &i, &o);
        for (int b = 0; b < B; b++)
            OPTINC_AT(out, o, b) = s->att[k].t * OPTINC_AT(in, i, b);
    }
    return OPTINC_OK;
}

optinc_cmat *optinc_layer_transfer(const optinc_layer *L)
{
    int K = L->pass_through, cols = L->cols - K;
    optinc_cmat *M = optinc_cmat_identity(cols);
    for (int s = 0; M && s < L->n_stages; s++) {
        optinc_cmat *next = optinc_cmat_new(L->stage[s].modes_out, cols);
        if (next && optinc_stage_apply(&L->stage[s], M, next) != OPTINC_OK) {
            optinc_cmat_free(next);
            next = NULL;
        }
        optinc_cmat_free(M);
        M = next;
    }
    for (int i = 0; M && L->input_scale && i < M->rows; i++)
        for (int j = 0; j < cols; j++)
            OPTINC_AT(M, i, j) *= L->input_scale[j];
    if (!M || !K)
        return M;
    optinc_cmat *T = optinc_cmat_new(L->rows, L->cols);
    for (int i = 0; T && i < L->rows - K; i++)
        memcpy(&OPTINC_AT(T, i, 0), &OPTINC_AT(M, i, 0), sizeof *T->a * (size_t)cols);
    for (int k = 0; T && k < K; k++)
        OPTINC_AT(T, L->rows - K + k, cols + k) = 1;
    optinc_cmat_free(M);
    return T;
}

double optinc_layer_reconstruction(const optinc_layer *L)
{
    optinc_cmat *T = optinc_layer_transfer(L);
    if (!T)
        return NAN;
    optinc_layer_apply_gain(L, L->gain, T);
    double worst = 0;
    for (size_t i = 0; i < (size_t)L->rows * (size_t)L->cols; i++) {
        double d = cabs(L->target->a[i] - T->a[i]);
        worst = d > worst ? d : worst;
    }
    optinc_cmat_free(T);
    return worst / L->gain;
}

void optinc_layer_apply_gain(const optinc_layer *L, double gain, optinc_cmat *y)
{
    size_t n = (size_t)(L->rows - L->pass_through) * (size_t)y->cols;
    for (size_t i = 0; i < n; i++)
        y->a[i] *= gain;
}

/* ------------------------------------------------------------------ forms */

/* Polar factor of A (square): the unitary nearest to A. */
static optinc_status polar(const optinc_cmat *A, optinc_cmat **out, optinc_error *err)
{
    optinc_cmat *U, *Vh;
    double *s;
    optinc_status st = optinc_svd(A, &U, &s, &Vh, err);
    if (st)
        return st;
    *out = optinc_cmat_new(A->rows, A->cols);
    optinc_cmat_mul(U, Vh, *out);
    optinc_cmat_free(U);
    optinc_cmat_free(Vh);
    free(s);
    return OPTINC_OK;
}

/* Nearest W ~= diag(sigma).U (W square).  Returns U; fills sigma (>= 0). */
static optinc_status diag_unitary(const optinc_cmat *W, double *sigma, optinc_cmat **Uout,
                                  optinc_error *err)
{
    int n = W->rows;
    optinc_cmat *U = NULL, *SW = optinc_cmat_copy(W);
    optinc_status st = polar(W, &U, err);
    double prev = INFINITY;
    for (int it = 0; !st && it < 200; it++) {
        double resid = 0;
        for (int i = 0; i < n; i++) {
            double complex d = 0;
            for (int c = 0; c < n; c++)
                d += OPTINC_AT(W, i, c) * conj(OPTINC_AT(U, i, c));
            sigma[i] = cabs(d);
            double complex ph = sigma[i] > 0 ? d / sigma[i] : 1.0;
            for (int c = 0; c < n; c++) {
                OPTINC_AT(U, i, c) *= ph;
                double complex r = OPTINC_AT(W, i, c) - sigma[i] * OPTINC_AT(U, i, c);
                resid += creal(r * conj(r));
                OPTINC_AT(SW, i, c) = sigma[i] * OPTINC_AT(W, i, c);
            }
        }
        if (resid < 1e-30 || prev - resid <= 1e-15 * prev)
            break;
        prev = resid;
        optinc_cmat_free(U);
        U = NULL;
        st = polar(SW, &U, err);
    }
    optinc_cmat_free(SW);
    if (st) {
        optinc_cmat_free(U);
        return st;
    }
    *Uout = U;
    return OPTINC_OK;
}

/* ------------------------------------------------------------------ compile */

static optinc_status add_mesh(optinc_layer *L, char tag, const optinc_cmat *U,
                              optinc_error *err)
{
    optinc_quantizer q;
    optinc_quantizer_from_components(&q, &L->components);
    optinc_stage *s = &L->stage[L->n_stages];
    optinc_status st = optinc_mesh_decompose(U, L->mesh_kind, &q, &s->mesh, err);
    if (st)
        return st;
    s->kind = OPTINC_STAGE_MESH;
    s->tag = tag;
    s->modes_in = s->modes_out = U->rows;
    L->n_stages++;
    return OPTINC_OK;
}

static optinc_status add_att(optinc_layer *L, int modes_in, int modes_out, const double *sigma,
                             double gain)
{
    optinc_stage *s = &L->stage[L->n_stages];
    int k = modes_in < modes_out ? modes_in : modes_out;
    s->kind = OPTINC_STAGE_ATT;
    s->tag = 'S';
    s->modes_in = modes_in;
    s->modes_out = modes_out;
    s->n_att = k;
    s->block_in = modes_in;
    s->block_out = modes_out;
    s->att = calloc((size_t)k + 1, sizeof *s->att);
    if (!s->att)
        return OPTINC_ERUN;
    for (int i = 0; i < k; i++)
        optinc_att_program(&s->att[i], sigma[i] / gain, &L->components, &L->n_warnings_capped);
    L->n_stages++;
    return OPTINC_OK;
}

static double max_of(const double *x, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        if (x[i] > m)
            m = x[i];
    return m;
}

/* Bad input at the matrix's definition unless its largest entry (by
 * magnitude) is within [ENTRY_MIN, ENTRY_MAX], or the matrix is zero. */
static optinc_status check_scale(const optinc_spec *spec, const optinc_spec_matrix *sm,
                                 optinc_error *err)
{
    size_t n = (size_t)sm->rows * (size_t)sm->cols, at = 0;
    double big = 0;
    for (size_t i = 0; i < n; i++) {
        double a = cabs(sm->data[i]);     /* inf when re^2 + im^2 overflows */
        if (!(a <= big)) {
            big = a;
            at = i;
        }
    }
    if (big == 0 || (big >= ENTRY_MIN && big <= ENTRY_MAX))
        return OPTINC_OK;
    return optinc_fail(err, OPTINC_EINPUT, spec->path, sm->line, sm->column,
                       "matrix '%s': its largest entry, at row %zu, column %zu, is %.3g in "
                       "magnitude, %s %g: the decomposition computes with squares of the "
                       "entries, which would %s; scale the matrix %s (the layer's gain scales "
                       "with it)", sm->name, at / (size_t)sm->cols + 1, at % (size_t)sm->cols + 1,
                       big, big > ENTRY_MAX ? "above" : "below",
                       big > ENTRY_MAX ? ENTRY_MAX : ENTRY_MIN,
                       big > ENTRY_MAX ? "overflow" : "lose their precision",
                       big > ENTRY_MAX ? "down" : "up");
}

/* The gain s: the spec's, or sigma_max (1 for an all-zero matrix). */
static optinc_status pick_gain(const optinc_spec *spec, const optinc_spec_layer *sl,
                               double sigma_max, double *gain, optinc_error *err)
{
    if (sl->gain > 0) {
        if (sl->gain < sigma_max * (1 - 1e-12))
            return optinc_fail(err, OPTINC_EINPUT, spec->path, sl->line, sl->column,
                               "layer '%s': gain %.17g is below the largest singular value "
                               "%.17g, so the attenuators would have to amplify; remove "
                               "'gain' or set it to at least %.17g",
                               sl->name, sl->gain, sigma_max, sigma_max);
        if (sl->gain < GAIN_MIN)
            return optinc_fail(err, OPTINC_EINPUT, spec->path, sl->line, sl->column,
                               "layer '%s': gain %g is below %g, the smallest gain a netlist "
                               "holds; remove 'gain' or make it larger", sl->name, sl->gain,
                               GAIN_MIN);
        *gain = sl->gain;
    } else {
        *gain = sigma_max > 0 ? sigma_max : 1.0;
    }
    return OPTINC_OK;
}

/* The block meshes of a segmented layer as one block-diagonal mesh on the
 * expanded modes: mesh b's MZIs shifted by b*bc modes, in the compiler's
 * propagation order (column-major, then by mode) as the reader rebuilds it. */
static optinc_mesh *join_meshes(optinc_mesh *const *mesh, int n_blocks, int bc,
                                optinc_mesh_kind kind)
{
    optinc_mesh *M = calloc(1, sizeof *M);
    int total = 0, columns = 0;
    for (int b = 0; b < n_blocks; b++) {
        total += mesh[b]->n_mzi;
        columns = mesh[b]->n_columns > columns ? mesh[b]->n_columns : columns;
    }
    if (M) {
        M->kind = kind;
        M->modes = n_blocks * bc;
        M->n_columns = columns;
        M->mzi = calloc((size_t)total + 1, sizeof *M->mzi);
        M->screen = calloc((size_t)M->modes + 1, sizeof *M->screen);
    }
    if (!M || !M->mzi || !M->screen) {
        optinc_mesh_free(M);
        return NULL;
    }
    int *next = calloc((size_t)n_blocks + 1, sizeof *next);
    for (int col = 0; next && col < columns; col++)
        for (int b = 0; b < n_blocks; b++)
            for (; next[b] < mesh[b]->n_mzi && mesh[b]->mzi[next[b]].column == col; next[b]++) {
                M->mzi[M->n_mzi] = mesh[b]->mzi[next[b]];
                M->mzi[M->n_mzi++].mode += b * bc;
            }
    for (int b = 0; b < n_blocks; b++)
        memcpy(M->screen + (size_t)b * bc, mesh[b]->screen, sizeof *M->screen * (size_t)bc);
    if (!next || M->n_mzi != total) {
        free(next);
        optinc_mesh_free(M);
        return NULL;
    }
    free(next);
    return M;
}

/* A segmented layer (circuit.h): each block, padded with zero rows to a
 * square, takes its nearest diag(sigma).U (exact when the block's rows are
 * orthogonal, as a trained ONN segment's are); the gain is sqrt(R.G) times
 * the largest sigma, because the fixed splitters and combiners divide every
 * path by sqrt(R.G). */
static optinc_status compile_segmented(const optinc_spec *spec, const optinc_spec_layer *sl,
                                       optinc_layer *L, optinc_error *err)
{
    int R = sl->segments[0], G = sl->segments[1], B = R * G;
    int br = (L->rows - sl->pass_through) / R, bc = (L->cols - sl->pass_through) / G;
    L->seg_rows = R;
    L->seg_cols = G;
    L->pass_through = sl->pass_through;
    if (sl->input_scale) {
        size_t bytes = sizeof *L->input_scale * (size_t)(L->cols - L->pass_through);
        if (!(L->input_scale = malloc(bytes)))
            return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
        memcpy(L->input_scale, sl->input_scale, bytes);
    }
    L->n_stages = optinc_segment_plan(L->rows - L->pass_through, L->cols - L->pass_through, R,
                                      G, L->stage);
    optinc_cmat **U = calloc((size_t)B, sizeof *U);
    optinc_mesh **mesh = calloc((size_t)B, sizeof *mesh);
    double *sigma = calloc((size_t)B * bc + 1, sizeof *sigma);
    optinc_cmat *X = optinc_cmat_new(bc, bc);
    optinc_status st = U && mesh && sigma && X ? OPTINC_OK
                       : optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    double worst = 0;
    for (int b = 0; !st && b < B; b++) {
        int i = b / G, j = b % G;
        memset(X->a, 0, sizeof *X->a * (size_t)bc * bc);
        for (int r = 0; r < br; r++)
            for (int c = 0; c < bc; c++)
                OPTINC_AT(X, r, c) = OPTINC_AT(L->target, i * br + r, j * bc + c)
                                     / (L->input_scale ? L->input_scale[j * bc + c] : 1.0);
        st = diag_unitary(X, sigma + (size_t)b * bc, &U[b], err);
        for (int r = 0; !st && r < bc; r++)
            for (int c = 0; c < bc; c++) {
                double d = cabs(OPTINC_AT(X, r, c) - sigma[b * bc + r] * OPTINC_AT(U[b], r, c));
                worst = d > worst ? d : worst;
            }
    }
    if (!st)
        st = pick_gain(spec, sl, sqrt((double)B) * max_of(sigma, B * bc), &L->gain, err);
    optinc_quantizer q;
    optinc_quantizer_from_components(&q, &L->components);
    for (int b = 0; !st && b < B; b++)
        st = optinc_mesh_decompose(U[b], L->mesh_kind, &q, &mesh[b], err);
    if (!st && !(L->stage[1].mesh = join_meshes(mesh, B, bc, L->mesh_kind)))
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    optinc_stage *S = &L->stage[2], *P = &L->stage[0];
    if (!st && (!(S->att = calloc((size_t)S->n_att + 1, sizeof *S->att))
                || !(P->att = calloc((size_t)P->n_att + 1, sizeof *P->att))))
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    for (int k = 0; !st && k < P->n_att; k++)
        optinc_att_program(&P->att[k], 1, &L->components, NULL);
    for (int k = 0; !st && k < S->n_att; k++)
        optinc_att_program(&S->att[k], sigma[(k / br) * bc + k % br] * sqrt((double)B) / L->gain,
                           &L->components, &L->n_warnings_capped);
    L->approximation_error = st ? 0 : worst / L->gain;
    for (int b = 0; b < B; b++) {
        if (U)
            optinc_cmat_free(U[b]);
        if (mesh)
            optinc_mesh_free(mesh[b]);
    }
    OPTINC_FREE_ALL(U, mesh, sigma);
    optinc_cmat_free(X);
    return st;
}

static optinc_status compile_layer(const optinc_spec *spec, const optinc_spec_layer *sl,
                                   optinc_layer *L, optinc_error *err)
{
    const optinc_spec_matrix *sm = &spec->matrices[sl->matrix];
    int m = sm->rows, n = sm->cols, k = m < n ? m : n;
    snprintf(L->name, sizeof L->name, "%s", sl->name);
    L->line = sl->line;
    L->column = sl->column;
    L->rows = m;
    L->cols = n;
    L->mesh_kind = sl->mesh;
    L->attenuators = sl->attenuators;
    L->activation = sl->activation;
    L->components = sl->components;
    L->target = optinc_cmat_new(m, n);
    if (!L->target)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    memcpy(L->target->a, sm->data, (size_t)m * (size_t)n * sizeof *sm->data);
    optinc_status st = check_scale(spec, sm, err);
    if (st)
        return st;

    if (sl->attenuators != OPTINC_ATT_MIDDLE && !sl->segments[0] && m != n)
        return optinc_fail(err, OPTINC_EINPUT, spec->path, sl->line, sl->column,
                           "layer '%s': attenuators: %s needs a square matrix, but '%s' is "
                           "%dx%d; use attenuators: middle (SVD) for non-square layers",
                           sl->name,
                           sl->attenuators == OPTINC_ATT_NONE ? "none"
                           : sl->attenuators == OPTINC_ATT_INPUT ? "input" : "output",
                           sm->name, m, n);

    optinc_cmat *U = NULL, *Vh = NULL, *X = NULL;
    double *sigma = NULL;
    if (sl->segments[0] > 0) {
        if ((st = compile_segmented(spec, sl, L, err)))
            goto out;
    } else if (sl->attenuators == OPTINC_ATT_MIDDLE || sl->attenuators == OPTINC_ATT_NONE) {
        st = optinc_svd(L->target, &U, &sigma, &Vh, err);
        if (st)
            goto out;
        st = pick_gain(spec, sl, max_of(sigma, k), &L->gain, err);
        if (st)
            goto out;
        if (sl->attenuators == OPTINC_ATT_MIDDLE) {
            if ((st = add_mesh(L, 'V', Vh, err)) || (st = add_att(L, n, m, sigma, L->gain))
                || (st = add_mesh(L, 'U', U, err)))
                goto out;
        } else {
            X = optinc_cmat_copy(L->target);
            for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
                X->a[i] /= L->gain;
            double e = optinc_cmat_unitarity_error(X);
            if (e > 1e-9) {
                st = optinc_fail(err, OPTINC_EINPUT, spec->path, sl->line, sl->column,
                                 "layer '%s': attenuators: none needs W/gain to be unitary, but "
                                 "max|W^H W/s^2 - I| = %.3g; use attenuators: middle", sl->name, e);
                goto out;
            }
            if ((st = add_mesh(L, 'U', X, err)))
                goto out;
        }
    } else {
        /* Unitary-diagonal: output W ~= Sigma.U; input W ~= U.Sigma <=> W^H ~= Sigma.U^H. */
        int input = sl->attenuators == OPTINC_ATT_INPUT;
        X = input ? optinc_cmat_adjoint(L->target) : optinc_cmat_copy(L->target);
        sigma = calloc((size_t)n + 1, sizeof *sigma);
        if (!X || !sigma) {
            st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
            goto out;
        }
        if ((st = diag_unitary(X, sigma, &U, err)))
            goto out;
        if (input) {
            optinc_cmat *Uh = optinc_cmat_adjoint(U);
            optinc_cmat_free(U);
            U = Uh;
        }
        st = pick_gain(spec, sl, max_of(sigma, n), &L->gain, err);
        if (st)
            goto out;
        if (input)
            st = add_att(L, n, n, sigma, L->gain);
        if (!st)
            st = add_mesh(L, 'U', U, err);
        if (!st && !input)
            st = add_att(L, n, n, sigma, L->gain);
        if (st)
            goto out;
        /* How far the best form is from W, before any phase is programmed. */
        double worst = 0;
        for (int i = 0; i < n; i++)
            for (int c = 0; c < n; c++) {
                double complex form = input ? OPTINC_AT(U, i, c) * sigma[c]
                                            : sigma[i] * OPTINC_AT(U, i, c);
                double d = cabs(OPTINC_AT(L->target, i, c) - form);
                worst = d > worst ? d : worst;
            }
        L->approximation_error = worst / L->gain;
    }

    L->reconstruction_error = optinc_layer_reconstruction(L);
    if (isnan(L->reconstruction_error))
        st = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
out:
    optinc_cmat_free(U);
    optinc_cmat_free(Vh);
    optinc_cmat_free(X);
    free(sigma);
    return st;
}

static const optinc_spec_info *info_get(const optinc_spec *s, const char *key)
{
    for (int i = 0; i < s->n_info; i++)
        if (!strcmp(s->info[i].key, key))
            return &s->info[i];
    return NULL;
}

/* Info key `key` into dst (OPTINC_ONN_WORD_MAX bytes): one of the two words
 * of `words`, the first when the key is absent. */
static optinc_status info_word(const optinc_spec *spec, const char *key,
                               const char *const *words, char *dst, optinc_error *err)
{
    const optinc_spec_info *v = info_get(spec, key);
    if (v && optinc_word_index(words, v->value) < 0)
        return optinc_fail(err, OPTINC_EINPUT, spec->path, v->line, v->column,
                           "info: %s is '%s'; use %s or %s", key, v->value, words[0], words[1]);
    snprintf(dst, OPTINC_ONN_WORD_MAX, "%s", v ? v->value : words[0]);
    return OPTINC_OK;
}

optinc_status optinc_circuit_onn_from_spec(const optinc_spec *spec, optinc_circuit_onn *o,
                                           optinc_error *err)
{
    memset(o, 0, sizeof *o);
    const optinc_spec_allreduce *a = &spec->allreduce;
    if (!a->present)
        return optinc_fail(err, OPTINC_EINPUT, spec->path, 0, 0,
                           "the spec has no allreduce: section, so it does not describe an "
                           "ONN; train one with 'optinc onn train'");
    const optinc_spec_info *lv = info_get(spec, "onn_level");
    const optinc_spec_info *segs = info_get(spec, "onn_segments");
    optinc_status st;
    if ((st = info_word(spec, "onn_rounding", optinc_onn_rounding_names, o->rounding, err))
        || (st = info_word(spec, "onn_code", optinc_onn_code_names, o->code, err)))
        return st;
    o->level = 0;
    if (lv && (!strchr("012", lv->value[0]) || !lv->value[0] || lv->value[1]))
        return optinc_fail(err, OPTINC_EINPUT, spec->path, lv->line, lv->column,
                           "info: onn_level is '%s'; use 0 (one unit), 1 or 2 (cascade)",
                           lv->value);
    if (lv)
        o->level = lv->value[0] - '0';
    if (spec->n_layers > OPTINC_ONN_SEGMENTS_MAX)
        return optinc_fail(err, OPTINC_EINPUT, spec->path,
                           spec->layers[OPTINC_ONN_SEGMENTS_MAX].line,
                           spec->layers[OPTINC_ONN_SEGMENTS_MAX].column,
                           "the spec has %d layers, more than the %d an ONN can have",
                           spec->n_layers, OPTINC_ONN_SEGMENTS_MAX);
    const char *sg = segs ? segs->value : NULL;
    for (int l = 0; sg && l < spec->n_layers; l++) {
        int sr, sc, used;
        if (sscanf(sg, " %dx%d%n", &sr, &sc, &used) != 2 || sr < 0 || sc < 0 || sr > 65536
            || sc > 65536)
            return optinc_fail(err, OPTINC_EINPUT, spec->path, segs->line, segs->column,
                               "info: onn_segments must list one ROWSxCOLS per layer (0x0 for "
                               "a dense layer), got '%s'", segs->value);
        o->segments[2 * l] = sr;
        o->segments[2 * l + 1] = sc;
        o->n_segments = l + 1;
        sg += used;
    }
    /* `none` leaves the servers' digits apart, and no task of the ONN
     * runtime (onn.h) takes them so. */
    if (optinc_word_index(optinc_onn_preprocessing_names, a->preprocessing) < 0)
        return optinc_fail(err, OPTINC_EINPUT, spec->path, a->preprocessing_line,
                           a->preprocessing_column, "allreduce: preprocessing is '%s', which no "
                           "ONN computes; use %s or %s", a->preprocessing,
                           optinc_onn_preprocessing_names[0], optinc_onn_preprocessing_names[1]);
    o->servers = a->servers;
    o->gradient_bits = a->gradient_bits;
    snprintf(o->preprocessing, sizeof o->preprocessing, "%s", a->preprocessing);
    o->cascade_fan_in = a->cascade_fan_in;
    o->cascade_levels = a->cascade_levels;
    o->present = 1;
    return OPTINC_OK;
}

optinc_status optinc_compile(const optinc_spec *spec, optinc_circuit **out, optinc_error *err)
{
    optinc_circuit *c = optinc_circuit_new(spec->name, spec->n_layers);
    if (!c)
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory");
    snprintf(c->spec_path, sizeof c->spec_path, "%s", spec->path);
    memcpy(c->spec_sha256, spec->sha256, sizeof c->spec_sha256);
    c->seed = spec->settings.seed;
    c->wavelength_um = spec->settings.wavelength_um;
    /* A spec whose ONN description is malformed still compiles: the runtime
     * reports the problem when the circuit is used as an ONN. */
    if (spec->allreduce.present && optinc_circuit_onn_from_spec(spec, &c->onn, NULL))
        memset(&c->onn, 0, sizeof c->onn);
    for (int i = 0; i < spec->n_layers; i++) {
        const optinc_spec_layer *sl = &spec->layers[i];
        optinc_status st = compile_layer(spec, sl, &c->layers[i], err);
        if (st) {
            optinc_circuit_free(c);
            return st;
        }
        if (i > 0 && c->layers[i].cols != c->layers[i - 1].rows) {
            int cols = c->layers[i].cols, prev = c->layers[i - 1].rows;
            optinc_circuit_free(c);
            return optinc_fail(err, OPTINC_EINPUT, spec->path, sl->line, sl->column,
                               "layer '%s' takes %d inputs but the layer before it gives %d "
                               "outputs; layers chain in order, so the shapes must match",
                               sl->name, cols, prev);
        }
        const optinc_layer *L = &c->layers[i];
        if (L->n_warnings_capped)
            optinc_circuit_warn(c, "layer '%s': %d attenuator(s) capped at %g dB; raise "
                                "components.attenuator.max_attenuation_dB to realize them",
                                L->name, L->n_warnings_capped,
                                L->components.attenuator.max_attenuation_dB > 0
                                    ? L->components.attenuator.max_attenuation_dB : 60.0);
        if (L->approximation_error > 1e-9)
            optinc_circuit_warn(c, "layer '%s': the unitary-diagonal form differs from the "
                                "matrix by up to %.3g (relative to the gain)", L->name,
                                L->approximation_error);
    }
    *out = c;
    return OPTINC_OK;
}
