/*
 * mesh.c - Clements and Reck decompositions of a unitary into physical MZIs:
 * the phases and their quantization, the decomposition (the nulling of the
 * matrix into T elements is nulling.c's, on the path its table picks), the
 * layout of the elements into physical columns, and the rebuild of a mesh's
 * transfer matrix.
 *
 * The T elements T(theta, phi) = R(theta).diag(e^{i phi}, 1) are
 *
 *   1. commuted so the phase screen sits at the output (Clements Eq. 5),
 *   2. placed into physical columns as early as their modes allow,
 *   3. turned into physical MZIs, T = e^{i theta}.MZ(pi - 2 theta, phi + pi),
 *      carrying each common output phase forward into the next element's
 *      external phase and finally into the output screen (the MZI convention
 *      of optinc-netlist(5): MZ = B.diag(e^{i theta},1).B.diag(e^{i phi},1)),
 *   4. quantized to the phase driver's codes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/bigmem.h"
#include "compiler/core/freeall.h"
#include "compiler/mesh/nulling.h"
#include "compiler/mesh/turns.h"

/* ------------------------------------------------------------------ phases */

static double wrap_from(double x, double lo)
{
    double y = turn_fmod(x - lo);
    if (y < 0)
        y += 2 * M_PI;
    if (y >= 2 * M_PI)      /* fmod rounding can land exactly on 2 pi */
        y = 0;
    return lo + y;
}

void optinc_quantizer_from_components(optinc_quantizer *q, const optinc_components *c)
{
    q->bits = c->phase_shifter.bits;
    q->lo = c->phase_shifter.range_rad[0];
    q->hi = c->phase_shifter.range_rad[1];
    if (!(q->hi > q->lo)) {
        q->lo = 0;
        q->hi = 2 * M_PI;
    }
}

double optinc_quantizer_value(const optinc_quantizer *q, int code)
{
    return q->lo + code * ((q->hi - q->lo) / ldexp(1.0, q->bits));
}

void optinc_quantize_phase(const optinc_quantizer *q, double target, optinc_phase *p)
{
    double lo = q ? q->lo : 0.0;
    double x = wrap_from(target, lo);
    p->target_rad = target;
    if (!q || q->bits <= 0) {
        p->rad = x;
        p->code = -1;
        return;
    }
    double levels = ldexp(1.0, q->bits);
    double step = (q->hi - q->lo) / levels;
    double c = nearbyint((x - lo) / step);
    if (c >= levels)            /* lo + levels*step is lo + 2 pi or beyond: same phase as code 0 */
        c = 0;
    p->code = (int)c;
    p->rad = optinc_quantizer_value(q, p->code);
}

/* ------------------------------------------------------------------ layout */

typedef struct slot { int column, mode, element; } slot;

/* One stable counting-sort pass of s[0..n) by key (column or mode, < range)
 * into out. */
static int sort_pass(const slot *s, slot *out, int n, int range, int by_column)
{
    int *start = calloc((size_t)range + 1, sizeof *start);
    if (!start)
        return -1;
    for (int i = 0; i < n; i++)
        start[(by_column ? s[i].column : s[i].mode) + 1]++;
    for (int k = 0; k < range; k++)
        start[k + 1] += start[k];
    for (int i = 0; i < n; i++)
        out[start[by_column ? s[i].column : s[i].mode]++] = s[i];
    free(start);
    return 0;
}

/* s sorted by (column, mode), in linear time: by mode into tmp (room for
 * n), then stably by column back (the pairs are distinct, so this is the
 * one column-major order; qsort took 5% of a decomposition at N = 1024).
 * -1 when out of memory. */
static int sort_slots(slot *s, slot *tmp, int n, int modes, int columns)
{
    return sort_pass(s, tmp, n, modes, 0) || sort_pass(tmp, s, n, columns, 1) ? -1 : 0;
}

optinc_mesh *optinc_mesh_new(optinc_mesh_kind kind, int modes)
{
    optinc_mesh *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->kind = kind;
    m->modes = modes;
    m->n_mzi = modes * (modes - 1) / 2;
    m->mzi = optinc_zalloc_large(((size_t)m->n_mzi + 1) * sizeof *m->mzi);
    m->screen = calloc((size_t)modes + 1, sizeof *m->screen);
    if (!m->mzi || !m->screen) {
        optinc_mesh_free(m);
        return NULL;
    }
    return m;
}

void optinc_mesh_free(optinc_mesh *m)
{
    if (m)
        OPTINC_FREE_ALL(m->mzi, m->screen, m);
}

/* Columns, sort, physical settings with the carried phase, quantization.
 * order and tmp are scratch for n_mzi + 1 slots each (the nulled matrix's
 * two planes, which are done with: fresh pages would cost a fault and a
 * clear each, a tenth of the decomposition at N = 1024).  -1 when out of
 * memory. */
static int mesh_from_elements(optinc_mesh *mesh, const telem *el, const double *screen,
                               const optinc_quantizer *q, slot *order, slot *tmp)
{
    int n = mesh->modes;
    int *last = calloc((size_t)n + 1, sizeof *last);
    double *carry = calloc((size_t)n + 1, sizeof *carry);
    mesh->n_columns = 0;
    if (!last || !carry) {
        free(last);
        free(carry);
        return -1;
    }
    for (int i = 0; i < mesh->n_mzi; i++) {
        int m = el[i].mode;
        int col = last[m] > last[m + 1] ? last[m] : last[m + 1];
        last[m] = last[m + 1] = col + 1;
        if (col + 1 > mesh->n_columns)
            mesh->n_columns = col + 1;
        order[i] = (slot){col, m, i};
    }
    /* Column-major order is also a valid propagation order: MZIs of one
     * column act on disjoint modes. */
    int rc = sort_slots(order, tmp, mesh->n_mzi, n, mesh->n_columns);
    for (int i = 0; i < mesh->n_mzi && rc == 0; i++) {
        const telem *e = &el[order[i].element];
        int m = e->mode;
        mesh->mzi[i].mode = m;
        mesh->mzi[i].column = order[i].column;
        /* Rule F: the carried phases on the inputs shift the external phase. */
        optinc_quantize_phase(q, e->phi + carry[m] - carry[m + 1] + M_PI, &mesh->mzi[i].phi);
        optinc_quantize_phase(q, M_PI - 2 * e->theta, &mesh->mzi[i].theta);
        /* Keep the carried phases small: their rounding error grows with size. */
        carry[m] = carry[m + 1] = turn_remainder(carry[m + 1] + e->theta);
    }
    for (int k = 0; k < n; k++)
        optinc_quantize_phase(q, screen[k] + carry[k], &mesh->screen[k]);
    free(last);
    free(carry);
    return rc;
}

optinc_status optinc_mesh_decompose(const optinc_cmat *U, optinc_mesh_kind kind,
                                    const optinc_quantizer *q, optinc_mesh **out,
                                    optinc_error *err)
{
    return optinc_mesh_decompose_path(U, kind, q, OPTINC_MESH_PATH_AUTO, out, err);
}

optinc_status optinc_mesh_decompose_path(const optinc_cmat *U, optinc_mesh_kind kind,
                                         const optinc_quantizer *q, optinc_mesh_path path,
                                         optinc_mesh **out, optinc_error *err)
{
    int n = U->rows;
    if (U->rows != U->cols || n < 1)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "a mesh needs a square unitary, got %dx%d", U->rows, U->cols);
    mesh_nulling null = mesh_nulling_for(kind, path, n);
    if (!null)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "no such decomposition path for this mesh kind");
    optinc_mesh *mesh = optinc_mesh_new(kind, n);
    int ld = mesh_planar_stride(n);
    planar W = {optinc_zalloc_large(sizeof(double) * (size_t)n * ld),
                optinc_zalloc_large(sizeof(double) * (size_t)n * ld), n, ld};
    telem *el = optinc_zalloc_large(sizeof *el * (size_t)(n * (n - 1) / 2 + 1));
    double *screen = calloc((size_t)n, sizeof *screen);
    if (!mesh || !W.re || !W.im || !el || !screen) {
        optinc_mesh_free(mesh);
        OPTINC_FREE_ALL(W.re, W.im, el, screen);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory decomposing %dx%d", n, n);
    }
    /* Reck works on V = U^H (see reck_null): its row elements, taken in
     * order, are then the mesh of U with the output screen conj(D), the
     * same shape as the Clements result. */
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            double complex z = kind == OPTINC_MESH_RECK ? conj(OPTINC_AT(U, c, r)) : OPTINC_AT(U, r, c);
            W.re[(size_t)r * ld + c] = creal(z);
            W.im[(size_t)r * ld + c] = cimag(z);
        }
    int rc = null(&W, el, screen);
    /* A plane holds n * ld >= n^2 doubles, more than the n(n-1)/2 + 1
     * slots of 12 bytes mesh_from_elements sorts. */
    _Static_assert(sizeof(slot) <= 2 * sizeof(double), "a plane holds the slots");
    if (rc == 0)
        rc = mesh_from_elements(mesh, el, screen, q, (slot *)W.re, (slot *)W.im);
    OPTINC_FREE_ALL(W.re, W.im, el, screen);
    if (rc) {
        optinc_mesh_free(mesh);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory decomposing %dx%d", n, n);
    }
    *out = mesh;
    return OPTINC_OK;
}

/* ------------------------------------------------------------------ rebuild */

void optinc_mzi_matrix(double theta, double phi, double complex m[4])
{
    double complex et = cexp(I * theta), ep = cexp(I * phi);
    m[0] = 0.5 * ep * (et - 1);
    m[1] = 0.5 * I * (et + 1);
    m[2] = 0.5 * I * ep * (et + 1);
    m[3] = 0.5 * (1 - et);
}

/* The reconstruction propagates M through the mesh a chunk of MESH_CHUNK
 * columns at a time with the simulator's planar kernels, in the sweep order
 * below: the rows a block of mesh columns works on stay in L1, and the wider
 * the chunk, the fewer times the MZIs' coefficients (32 bytes each, 17 MB at
 * N = 1024) stream in from memory; 32 measured best (the chunk, 512 KB at
 * N = 1024, still fits L2; 48 and 64 were no faster).
 *
 * An MZI is MZ(theta, phi) = g.R.diag(e^{i phi}, 1) with g = i e^{i theta/2}
 * and R = [[s, c], [c, -s]] real (s, c = sin, cos theta/2), so the kernel
 * carries the field u with a pending phase per mode, v = diag(P).u: the MZI
 * on modes m, m+1 with pending a, b takes u to R.diag(e^{i phi} a/b, 1).u
 * and leaves g.b pending on both, and the output screen takes the pending
 * phases last.  That is 12 multiplies and 6 adds a column instead of the 16
 * and 12 of a general 2x2, on half the coefficients: the zgemm of the same
 * N does 8 N^3 flops, the mesh about 14 N^3 of the general kernel's (before
 * the skipping below), 9 N^3 of this one. */
#ifndef MESH_CHUNK
#define MESH_CHUNK 32
#endif
#define REAL double
#define SFX _mesh
#define CHUNK MESH_CHUNK
#include "compiler/core/chunk_kernel.h"
#undef REAL
#undef SFX
#undef CHUNK

/* The sweep order: the mesh is cut into blocks of SWEEP_COLUMNS physical
 * columns, and a block is swept from the top mode down, every column of it
 * a couple of modes behind the one before, so the rows being worked on stay
 * in L1 while all the block's columns pass over them (column by column,
 * every MZI streamed its two rows from L2).  Within the block of columns
 * c0.., MZI (c, m) is taken at step m + 2(c - c0): it shares a mode only
 * with (c - 1, m +- 1), taken at step m + 2(c - c0) - 1 or - 3, before it,
 * and with MZIs of later columns, taken after it.  Any order in which each
 * MZI comes after the earlier ones on its modes gives the same numbers, bit
 * for bit (each MZI does the same operations on the same inputs).  A stable
 * counting sort into order[0..n_mzi); -1 when out of memory. */
enum { SWEEP_COLUMNS = 8 };
static int sweep_order(const optinc_mesh *mesh, int *order)
{
    enum { K = SWEEP_COLUMNS };
    int columns = 0;
    for (int i = 0; i < mesh->n_mzi; i++)
        columns = mesh->mzi[i].column + 1 > columns ? mesh->mzi[i].column + 1 : columns;
    size_t span = (size_t)mesh->modes + 2 * K, keys = ((size_t)columns + K - 1) / K * span;
    int *start = calloc(keys + 1, sizeof *start);
    if (!start)
        return -1;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < mesh->n_mzi; i++) {
            int c = mesh->mzi[i].column;
            size_t key = (size_t)(c / K) * span + (size_t)mesh->mzi[i].mode + 2 * (size_t)(c % K);
            if (pass == 0)
                start[key + 1]++;
            else
                order[start[key]++] = i;
        }
        for (size_t k = 0; pass == 0 && k < keys; k++)
            start[k + 1] += start[k];
    }
    free(start);
    return 0;
}

/* The MZIs in sweep order: mode[k] and t[4k..4k+4) (re, im of e^{i phi}
 * a/b, then s, c) of the k-th; scr: 2 per mode (e^{i screen} times the
 * pending phase). */
typedef struct swept { int n, modes; const int *mode; const double *t, *scr; } swept;

/* Rows outside [lo, hi] of the chunk are zero, and an MZI whose two rows are
 * zero leaves them zero, so it is skipped; each MZI that runs widens the
 * lit range to its two rows.  Light entering a Clements mesh on a few modes
 * spreads by one mode per column, so for the identity (the reconstruction)
 * this skips about a third of the work.  The values that are computed are
 * the same bits: a skipped MZI would only have written zeros, and adding or
 * multiplying a zero of either sign changes no nonzero number. */
HOT static void mesh_chunk(const swept *w, double *re, double *im, int lo, int hi)
{
    for (int k = 0; k < w->n; k++) {
        int m = w->mode[k];
        if (m + 1 < lo || m > hi)
            continue;
        lo = m < lo ? m : lo;
        hi = m + 1 > hi ? m + 1 : hi;
        size_t x = (size_t)m * MESH_CHUNK, y = x + MESH_CHUNK;
        rotate_real_mesh(re + x, im + x, re + y, im + y, w->t + 4 * (size_t)k);
    }
    for (int r = 0; r < w->modes; r++)
        phase_mesh(re + (size_t)r * MESH_CHUNK, im + (size_t)r * MESH_CHUNK, w->scr[2 * r],
                   w->scr[2 * r + 1]);
}

/* The first and last rows of the chunk at column b0 of M with a nonzero
 * entry (lo > hi when there is none). */
static void lit_rows(const optinc_cmat *M, int b0, int *lo, int *hi)
{
    int nb = M->cols - b0 < MESH_CHUNK ? M->cols - b0 : MESH_CHUNK;
    *lo = M->rows;
    *hi = -1;
    for (int r = 0; r < M->rows; r++)
        for (int j = 0; j < nb; j++)
            if (OPTINC_AT(M, r, b0 + j) != 0) {
                *lo = r < *lo ? r : *lo;
                *hi = r;
                break;
            }
}

optinc_status optinc_mesh_apply(const optinc_mesh *mesh, optinc_cmat *M)
{
    int n = mesh->modes, nz = mesh->n_mzi;
    double *t = optinc_alloc_large(sizeof *t * (4 * (size_t)nz + 2 * (size_t)n));
    double *planes = malloc(sizeof *planes * 2 * MESH_CHUNK * (size_t)n);
    double complex *pending = malloc(sizeof *pending * (size_t)n);
    int *order = malloc(sizeof *order * ((size_t)nz + 1));
    int *mode = malloc(sizeof *mode * ((size_t)nz + 1));
    if (!t || !planes || !pending || !order || !mode || sweep_order(mesh, order)) {
        OPTINC_FREE_ALL(t, planes, pending, order, mode);
        return OPTINC_ERUN;
    }
    double *scr = t + 4 * (size_t)nz;
    for (int r = 0; r < n; r++)
        pending[r] = 1;
    for (int k = 0; k < nz; k++) {
        const optinc_mzi *z = &mesh->mzi[order[k]];
        int m = z->mode;
        double s = sin(0.5 * z->theta.rad), c = cos(0.5 * z->theta.rad);
        double complex a = pending[m], b = pending[m + 1];
        double complex p = CMPLX(cos(z->phi.rad), sin(z->phi.rad)) * a * conj(b);
        pending[m] = pending[m + 1] = CMPLX(-s, c) * b;
        mode[k] = m;
        t[4 * (size_t)k] = creal(p);
        t[4 * (size_t)k + 1] = cimag(p);
        t[4 * (size_t)k + 2] = s;
        t[4 * (size_t)k + 3] = c;
    }
    for (int r = 0; r < n; r++) {
        double complex e = CMPLX(cos(mesh->screen[r].rad), sin(mesh->screen[r].rad)) * pending[r];
        scr[2 * r] = creal(e);
        scr[2 * r + 1] = cimag(e);
    }
    swept w = {nz, n, mode, t, scr};
    double *re = planes, *im = planes + MESH_CHUNK * (size_t)n;
    for (int b0 = 0; b0 < M->cols; b0 += MESH_CHUNK) {
        int lo, hi;
        lit_rows(M, b0, &lo, &hi);
        chunk_load_mesh(M, b0, re, im);
        mesh_chunk(&w, re, im, lo, hi);
        chunk_store_mesh(M, b0, re, im);
    }
    OPTINC_FREE_ALL(t, planes, pending, order, mode);
    return OPTINC_OK;
}

optinc_cmat *optinc_mesh_matrix(const optinc_mesh *mesh)
{
    optinc_cmat *M = optinc_cmat_identity(mesh->modes);
    if (M && optinc_mesh_apply(mesh, M) != OPTINC_OK) {
        optinc_cmat_free(M);
        return NULL;
    }
    return M;
}
