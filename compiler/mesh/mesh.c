/*
 * mesh.c - Clements and Reck decompositions of a unitary into physical MZIs.
 *
 * The nulling sequences are Strawberry Fields' order (Clements et al.,
 * Optica 3, 1460 (2016); Reck et al., PRL 73, 58 (1994)): Clements alternates column operations W := W.T^-1 (even
 * anti-diagonals) and row operations W := T.W (odd ones) until W is diagonal;
 * Reck nulls U^H column by column with row operations only.  Both produce
 * "T elements" T(theta, phi) = R(theta).diag(e^{i phi}, 1), which are then
 *
 *   1. commuted so the phase screen sits at the output (Clements Eq. 5),
 *   2. placed into physical columns as early as their modes allow,
 *   3. turned into physical MZIs, T = e^{i theta}.MZ(pi - 2 theta, phi + pi),
 *      carrying each common output phase forward into the next element's
 *      external phase and finally into the output screen (the MZI convention
 *      of optinc-netlist(5): MZ = B.diag(e^{i theta},1).B.diag(e^{i phi},1)),
 *   4. quantized to the phase driver's codes.
 *
 * Why it is O(N^3) and fast: each element touches only the two rows or
 * columns it changes, and only the part of them that is not yet zero (the
 * nulled lower-left triangle stays zero, so a row operation starts at the
 * column being nulled and a column operation stops at the row being nulled).
 * Row operations stream through two contiguous rows.  Column operations would
 * stride through the row-major matrix, so all the column operations of one
 * anti-diagonal are applied row by row instead: each row receives the whole
 * sequence of rotations as one sweep along contiguous memory, four rows at a
 * time as the lanes of a vector, and the rows the nulling front has not
 * reached yet receive them later, every pending diagonal in one visit to a
 * block of rows transposed once into lanes.
 *
 * Exact-zero tests decide the degenerate angles (as Strawberry Fields does),
 * so identity and permutation matrices give exact phases and no NaN.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/bigmem.h"
#include "compiler/core/freeall.h"
#include "compiler/mesh/turns.h"
#include "optinc/mesh.h"

typedef struct telem { int mode; double theta, phi; } telem;

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

/* ------------------------------------------------------------------ nulling */

/* The element that zeroes a against its partner b: with rho = sign.a/b
 * (+1 for the column operation W.T^-1, -1 for the row operation T.W, b
 * above a), theta = atan|rho| and phi = arg rho, and the coefficients the
 * kernels apply, c = cos theta, s = sin theta and e^{i phi} = er + i ei.
 * The coefficients come from a and b directly (c = |b|/h, s = |a|/h with
 * h^2 = |a|^2 + |b|^2, and e^{i phi} = p/|p| with p = sign.a.conj(b)), the
 * two angles from atan2 of the same numbers: the cosines and sines of the
 * angles, the complex division and hypot they replace were a tenth of a
 * decomposition at N = 1024, and the reconstruction error is the same
 * (within the spread over seeds).  Exact zeros take the angles, as before:
 * they decide the degenerate elements exactly (as Strawberry Fields does),
 * so identity and permutation matrices give exact phases and no NaN; so do
 * squares too small or too large for the direct formulas. */
typedef struct element { double theta, phi, c, s, er, ei; } element;

static element element_of(double complex a, double complex b, double sign)
{
    const double lo = 0x1p-450, hi = 0x1p450;
    double ar = creal(a), ai = cimag(a), br = creal(b), bi = cimag(b);
    double sa = ar * ar + ai * ai, sb = br * br + bi * bi;
    element e;
    if (sa >= lo && sb >= lo && sa <= hi && sb <= hi) {
        double na = sqrt(sa), nb = sqrt(sb), h = sqrt(sa + sb);
        double pr = sign * (ar * br + ai * bi), pi = sign * (ai * br - ar * bi);
        double np = sqrt(pr * pr + pi * pi);
        e.theta = atan2(na, nb);
        e.phi = atan2(pi, pr);
        e.c = nb / h;
        e.s = na / h;
        e.er = pr / np;
        e.ei = pi / np;
        return e;
    }
    if (a == 0) {
        e.theta = 0;
        e.phi = 0;
    } else if (b == 0) {
        e.theta = M_PI_2;
        e.phi = 0;
    } else {
        double complex rho = sign * a / b;
        e.theta = atan(cabs(rho));
        e.phi = carg(rho);
    }
    e.c = cos(e.theta);
    e.s = sin(e.theta);
    e.er = cos(e.phi);
    e.ei = sin(e.phi);
    return e;
}

/* The matrix being nulled is kept planar (real parts and imaginary parts in
 * two row-major arrays): every kernel below is then a plain loop over
 * doubles that the compiler vectorizes, where C99 complex products would
 * carry NaN/Inf recovery calls.  The hot kernels are also built for AVX2 and
 * picked at load time when the processor has it, and at -O3 (GCC 12's -O2
 * vectorizer leaves them 3-4x slower); element-wise loops vectorized give
 * the same bits, and the golden netlists check that they do. */
typedef struct planar { double *re, *im; int n, ld; } planar;

/* Row stride: rows padded to whole cache lines and kept off multiples of
 * 512 B.  A power-of-two stride (8 KB at N = 1024) maps the rows a kernel
 * keeps in flight to the same L1 sets; the padding measured about 5% at
 * N = 1024. */
static int planar_stride(int n)
{
    int ld = (n + 7) / 8 * 8;
    return ld % 64 == 0 ? ld + 8 : ld;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define HOT __attribute__((target_clones("avx2", "default"), optimize("O3")))
#else
#define HOT
#endif

/* T(theta, phi) = [[a + ib, -s], [p + iq, c]]: a + ib = e^{i phi} cos theta,
 * p + iq = e^{i phi} sin theta, c = cos theta, s = sin theta. */
typedef struct tcoef { double a, b, p, q, c, s; } tcoef;

static tcoef tcoef_of(element e)
{
    return (tcoef){e.er * e.c, e.ei * e.c, e.er * e.s, e.ei * e.s, e.c, e.s};
}

/* Rows (xr,xi), (yr,yi) := T . rows, for `len` columns. */
HOT static void rows_apply_T(double *restrict xr, double *restrict xi, double *restrict yr,
                             double *restrict yi, int len, tcoef t)
{
    double a = t.a, b = t.b, p = t.p, q = t.q, c = t.c, s = t.s;
    for (int k = 0; k < len; k++) {
        double ur = xr[k], ui = xi[k], vr = yr[k], vi = yi[k];
        xr[k] = a * ur - b * ui - s * vr;
        xi[k] = a * ui + b * ur - s * vi;
        yr[k] = p * ur - q * ui + c * vr;
        yi[k] = p * ui + q * ur + c * vi;
    }
}

static double complex planar_at(const planar *W, int r, int c)
{
    size_t i = (size_t)r * W->ld + c;
    return W->re[i] + I * W->im[i];
}

/* The row operation on rows (m, m+1) from column c0 that zeroes W[m+1][c0]:
 * applied, and returned as the element it is. */
static telem planar_rows_T(planar *W, int m, int c0)
{
    element e = element_of(planar_at(W, m + 1, c0), planar_at(W, m, c0), -1);
    size_t x = (size_t)m * W->ld + c0, y = x + W->ld;
    rows_apply_T(W->re + x, W->im + x, W->re + y, W->im + y, W->n - c0, tcoef_of(e));
    return (telem){m, e.theta, e.phi};
}

/* Column operations of one anti-diagonal: op j is W.T^-1 on columns
 * (j, j+1); with e = e^{-i phi}:  W[j] := e.c.u - s.v,  W[j+1] := e.s.u + c.v. */
typedef struct colops { double *c, *s, *er, *ei; } colops;

/* Ops jhi..jlo (descending) on `rows` rows from r0, in place in the
 * row-major matrix.  Along one row the ops form a chain (op j reads the
 * column op j+1 wrote), so the column being carried stays in registers and
 * each element is loaded and stored once; RL rows go through the chain
 * together as the lanes of one vector (GCC's generic vectors: AVX2 in the
 * avx2 clone, SSE2 pairs elsewhere).  An earlier version gathered rows
 * into a transposed tile in memory instead; the rows near the front are new
 * for every diagonal, so the gather and scatter were paid for every op, and
 * working in place made the whole decomposition 1.6x faster at N = 1024.
 * Four full rows take four ops at a time: four columns of each row are one
 * contiguous load, and a 4x4 transpose in registers turns them into the
 * lanes of four columns (and back for the store), where gathering lane by
 * lane cost a load or a store and a shuffle per element.  Each lane sees
 * the same operations in the same order either way, so the bits are the
 * same. */
enum { RL = 4 };
typedef double lanes __attribute__((vector_size(RL * sizeof(double))));
/* The same vector at any double's address in a row (one unaligned load). */
typedef double lanes_at __attribute__((vector_size(RL * sizeof(double)), aligned(8), may_alias));
typedef long long lane_index __attribute__((vector_size(RL * sizeof(long long))));
_Static_assert(RL == 4, "rows_colops lists its lanes in four-element initializers");

/* Lanes i0..i3 of the eight lanes of x then y: GCC spells the two-vector
 * permutation __builtin_shuffle, clang (the fuzz build) __builtin_shufflevector. */
#if defined(__clang__)
#define SHUFFLE(x, y, i0, i1, i2, i3) __builtin_shufflevector(x, y, i0, i1, i2, i3)
#else
#define SHUFFLE(x, y, i0, i1, i2, i3) __builtin_shuffle(x, y, (lane_index){i0, i1, i2, i3})
#endif

/* t[q] := lane q of the four vectors x[0..3] (a 4x4 transpose). */
static inline void transpose4(const lanes x[RL], lanes t[RL])
{
    lanes a = SHUFFLE(x[0], x[1], 0, 4, 2, 6), b = SHUFFLE(x[0], x[1], 1, 5, 3, 7);
    lanes c = SHUFFLE(x[2], x[3], 0, 4, 2, 6), d = SHUFFLE(x[2], x[3], 1, 5, 3, 7);
    t[0] = SHUFFLE(a, c, 0, 1, 4, 5);
    t[1] = SHUFFLE(b, d, 0, 1, 4, 5);
    t[2] = SHUFFLE(a, c, 2, 3, 6, 7);
    t[3] = SHUFFLE(b, d, 2, 3, 6, 7);
}

/* Rows p[0..3], columns col..col+3, as four vectors of lanes (one a column). */
static inline void load_columns(double *const p[RL], int col, lanes t[RL])
{
    lanes x[RL];
    for (int l = 0; l < RL; l++)
        x[l] = *(const lanes_at *)(p[l] + col);
    transpose4(x, t);
}

static inline void store_columns(double *const p[RL], int col, const lanes t[RL])
{
    lanes x[RL];
    transpose4(t, x);
    for (int l = 0; l < RL; l++)
        *(lanes_at *)(p[l] + col) = x[l];
}

HOT static void rows_colops(planar *W, int r0, int rows, int jhi, int jlo, const colops *o)
{
    for (int g = 0; g < rows; g += RL) {
        int live = rows - g < RL ? rows - g : RL;
        double *wr[RL], *wi[RL];
        for (int l = 0; l < RL; l++) {      /* spare lanes repeat the first row */
            size_t row = (size_t)(r0 + g + (l < live ? l : 0)) * W->ld;
            wr[l] = W->re + row;
            wi[l] = W->im + row;
        }
        lanes vr = {wr[0][jhi + 1], wr[1][jhi + 1], wr[2][jhi + 1], wr[3][jhi + 1]};
        lanes vi = {wi[0][jhi + 1], wi[1][jhi + 1], wi[2][jhi + 1], wi[3][jhi + 1]};
        int j = jhi;
        /* Four ops j..j-3 read columns j-3..j and finish columns j-2..j+1. */
        for (; live == RL && j - 3 >= jlo; j -= 4) {
            lanes Ur[RL], Ui[RL];   /* column j-3+q, then finished column j-2+q */
            load_columns(wr, j - 3, Ur);
            load_columns(wi, j - 3, Ui);
            for (int q = RL - 1; q >= 0; q--) {
                int jj = j - 3 + q;
                double c = o->c[jj], s = o->s[jj], er = o->er[jj], ei = o->ei[jj];
                lanes xr = er * Ur[q] - ei * Ui[q], xi = er * Ui[q] + ei * Ur[q];
                Ur[q] = s * xr + c * vr;
                Ui[q] = s * xi + c * vi;
                vr = c * xr - s * vr;
                vi = c * xi - s * vi;
            }
            store_columns(wr, j - 2, Ur);
            store_columns(wi, j - 2, Ui);
        }
        for (; j >= jlo; j--) {
            double c = o->c[j], s = o->s[j], er = o->er[j], ei = o->ei[j];
            lanes ur = {wr[0][j], wr[1][j], wr[2][j], wr[3][j]};
            lanes ui = {wi[0][j], wi[1][j], wi[2][j], wi[3][j]};
            lanes xr = er * ur - ei * ui, xi = er * ui + ei * ur;
            lanes yr = s * xr + c * vr, yi = s * xi + c * vi;
            vr = c * xr - s * vr;
            vi = c * xi - s * vi;
            for (int l = 0; l < live; l++) {
                wr[l][j + 1] = yr[l];
                wi[l][j + 1] = yi[l];
            }
        }
        for (int l = 0; l < live; l++) {
            wr[l][jlo] = vr[l];
            wi[l][jlo] = vi[l];
        }
    }
}

/* Row ops RL at a time: ops j0..j0+RL-1 of an odd diagonal act on rows
 * (r-1, r), (r, r+1), ... from columns j0, j0+1, ...  Each op's angles need
 * its column after the ops before it, so the triangle of columns
 * j0..j0+RL-1 goes op by op first (rows_apply_T); then the rest of the rows
 * gets all RL ops in one sweep, each vector of four columns going down the
 * RL+1 rows as a chain (the row two ops share stays in registers), which
 * loads and stores each element once instead of once per op.  Every
 * element gets the same ops with the same coefficients in the same order as
 * op by op, so the bits are the same.  out gets the RL elements. */
HOT static void rows_T_chain(planar *W, int r, int j0, telem *out)
{
    double a[RL], b[RL], p[RL], q[RL], c[RL], s[RL];
    for (int t = 0; t < RL; t++) {
        int j = j0 + t, x = r - 1 + t;
        element e = element_of(planar_at(W, x + 1, j), planar_at(W, x, j), -1);
        size_t ox = (size_t)x * W->ld + j, oy = ox + W->ld;
        tcoef tc = tcoef_of(e);
        rows_apply_T(W->re + ox, W->im + ox, W->re + oy, W->im + oy, RL - t, tc);
        out[t] = (telem){x, e.theta, e.phi};
        a[t] = tc.a, b[t] = tc.b, p[t] = tc.p, q[t] = tc.q, c[t] = tc.c, s[t] = tc.s;
    }
    double *re[RL + 1], *im[RL + 1];
    for (int t = 0; t <= RL; t++) {
        re[t] = W->re + (size_t)(r - 1 + t) * W->ld;
        im[t] = W->im + (size_t)(r - 1 + t) * W->ld;
    }
    int k = j0 + RL;
    for (; k + RL <= W->n; k += RL) {
        lanes ur = *(const lanes_at *)(re[0] + k), ui = *(const lanes_at *)(im[0] + k);
        for (int t = 0; t < RL; t++) {
            lanes vr = *(const lanes_at *)(re[t + 1] + k), vi = *(const lanes_at *)(im[t + 1] + k);
            *(lanes_at *)(re[t] + k) = a[t] * ur - b[t] * ui - s[t] * vr;
            *(lanes_at *)(im[t] + k) = a[t] * ui + b[t] * ur - s[t] * vi;
            lanes yr = p[t] * ur - q[t] * ui + c[t] * vr;
            ui = p[t] * ui + q[t] * ur + c[t] * vi;
            ur = yr;
        }
        *(lanes_at *)(re[RL] + k) = ur;
        *(lanes_at *)(im[RL] + k) = ui;
    }
    for (; k < W->n; k++) {
        double ur = re[0][k], ui = im[0][k];
        for (int t = 0; t < RL; t++) {
            double vr = re[t + 1][k], vi = im[t + 1][k];
            re[t][k] = a[t] * ur - b[t] * ui - s[t] * vr;
            im[t][k] = a[t] * ui + b[t] * ur - s[t] * vi;
            double yr = p[t] * ur - q[t] * ui + c[t] * vr;
            ui = p[t] * ui + q[t] * ur + c[t] * vi;
            ur = yr;
        }
        re[RL][k] = ur;
        im[RL][k] = ui;
    }
}

/* The column operations of Clements' even anti-diagonals touch every row
 * above the diagonal, which makes them the memory-bound half of the work if
 * applied eagerly (the whole left block of W streams through the caches once
 * per diagonal).  They are applied lazily instead: a row only needs them when
 * the nulling front reaches it (rows >= n-3-k at diagonal k), so the rows
 * above it keep a backlog, and a block of BLOCK rows gets every pending
 * diagonal in one visit when the front reaches it.  The rows above
 * active_top have received no column operation at all, so that backlog is
 * every even diagonal computed so far, and their ops are kept for it.
 *
 * A block's visit is half of all the column operations, and it reuses the
 * block for every pending diagonal, so the block is transposed once into
 * lanes (column c of group h of RL rows is the vector re[c * GROUPS + h])
 * instead of once per diagonal by rows_colops: the ops then need no
 * shuffles, and the GROUPS groups' chains interleave.  The ops go in tiles
 * (ops j of diagonal d with U - TILE < j - d <= U, tile after tile with U
 * descending): op j of diagonal d+1 needs op j-1 of diagonal d, which the
 * tile holds, so every element gets the same ops in the same order as
 * diagonal after diagonal, and the columns a tile works on stay in L1. */
enum { BLOCK = 16, GROUPS = BLOCK / RL, TILE = 64 };
typedef struct lazy {
    planar *W;
    colops *diag;        /* diag[k/2]: ops j = 0..k of even diagonal k */
    int n_done;          /* even diagonals computed */
    int active_top;      /* rows >= active_top are up to date (a block boundary) */
    lanes *re, *im;      /* the block being visited, GROUPS vectors per column */
} lazy;

/* Ops jhi..jlo (descending) of o on the block in lanes, the same arithmetic
 * as rows_colops. */
HOT static void block_colops(lanes *restrict re, lanes *restrict im, int jhi, int jlo,
                             const colops *o)
{
    const double *restrict oc = o->c, *restrict os = o->s, *restrict oer = o->er,
                 *restrict oei = o->ei;
    lanes vr[GROUPS], vi[GROUPS];
    for (int h = 0; h < GROUPS; h++) {
        vr[h] = re[(size_t)(jhi + 1) * GROUPS + h];
        vi[h] = im[(size_t)(jhi + 1) * GROUPS + h];
    }
    for (int j = jhi; j >= jlo; j--) {
        double c = oc[j], s = os[j], er = oer[j], ei = oei[j];
        lanes *ur = re + (size_t)j * GROUPS, *ui = im + (size_t)j * GROUPS;
        for (int h = 0; h < GROUPS; h++) {
            lanes xr = er * ur[h] - ei * ui[h], xi = er * ui[h] + ei * ur[h];
            ur[GROUPS + h] = s * xr + c * vr[h];
            ui[GROUPS + h] = s * xi + c * vi[h];
            vr[h] = c * xr - s * vr[h];
            vi[h] = c * xi - s * vi[h];
        }
    }
    for (int h = 0; h < GROUPS; h++) {
        re[(size_t)jlo * GROUPS + h] = vr[h];
        im[(size_t)jlo * GROUPS + h] = vi[h];
    }
}

/* Columns 0..cols-1 (a multiple of RL, inside the padded rows) of rows
 * r0..r0+rows-1 between W and the block's lanes; rows beyond `rows` are
 * copies of the block's first row on the way in and are not written back. */
static void block_move(lazy *z, int r0, int rows, int cols, int to_lanes)
{
    planar *W = z->W;
    for (int h = 0; h < GROUPS; h++) {
        double *pr[RL], *pi[RL];
        int live = rows - h * RL < 0 ? 0 : rows - h * RL < RL ? rows - h * RL : RL;
        for (int l = 0; l < RL; l++) {
            size_t row = (size_t)(r0 + (l < live ? h * RL + l : 0)) * W->ld;
            pr[l] = W->re + row;
            pi[l] = W->im + row;
        }
        for (int c = 0; c < cols; c += RL) {
            lanes tr[RL], ti[RL];
            if (to_lanes) {
                load_columns(pr, c, tr);
                load_columns(pi, c, ti);
                for (int q = 0; q < RL; q++) {
                    z->re[(size_t)(c + q) * GROUPS + h] = tr[q];
                    z->im[(size_t)(c + q) * GROUPS + h] = ti[q];
                }
                continue;
            }
            for (int q = 0; q < RL; q++) {
                tr[q] = z->re[(size_t)(c + q) * GROUPS + h];
                ti[q] = z->im[(size_t)(c + q) * GROUPS + h];
            }
            if (live == RL) {
                store_columns(pr, c, tr);
                store_columns(pi, c, ti);
            } else {
                for (int l = 0; l < live; l++)
                    for (int q = 0; q < RL; q++) {
                        pr[l][c + q] = tr[q][l];
                        pi[l][c + q] = ti[q][l];
                    }
            }
        }
    }
}

static void bring_up_to(lazy *z, int row)
{
    while (z->active_top > row) {
        int r0 = (z->active_top - 1) / BLOCK * BLOCK, rows = z->active_top - r0;
        /* Diagonal d touches columns 0..2d+1. */
        int cols = (2 * z->n_done + RL - 1) / RL * RL;
        if (z->n_done > 0) {
            block_move(z, r0, rows, cols, 1);
            for (int U = z->n_done - 1; U > -z->n_done; U -= TILE)
                for (int d = 0; d < z->n_done; d++) {
                    int jhi = U + d < 2 * d ? U + d : 2 * d;
                    int jlo = U - TILE + 1 + d > 0 ? U - TILE + 1 + d : 0;
                    if (jhi >= jlo)
                        block_colops(z->re, z->im, jhi, jlo, &z->diag[d]);
                }
            block_move(z, r0, rows, cols, 0);
        }
        z->active_top = r0;
    }
}

static void clements_column_diagonal(lazy *z, int k, telem *out)
{
    planar *W = z->W;
    int n = W->n, base = n - 1 - k;
    colops *ops = &z->diag[k / 2];
    /* Row base+j needs ops k..j+1 before op j can be computed from it (the
     * rows below are already zero in the two columns op j touches).  Take
     * those rows bottom-up, RL at a time: the ops known before the group
     * starts go through rows_colops, the small triangle inside it is scalar. */
    for (int jt = k; jt >= 0; jt -= RL) {
        int jlo = jt - RL + 1 > 0 ? jt - RL + 1 : 0, rows = jt - jlo + 1;
        if (jt < k)
            rows_colops(W, base + jlo, rows, k, jt + 1, ops);
        for (int j = jt; j >= jlo; j--) {
            if (j < jt)
                rows_colops(W, base + j, 1, jt, j + 1, ops);
            element e = element_of(planar_at(W, base + j, j), planar_at(W, base + j, j + 1), 1);
            ops->c[j] = e.c;
            ops->s[j] = e.s;
            ops->er[j] = e.er;
            ops->ei[j] = -e.ei;
            rows_colops(W, base + j, 1, j, j, ops);
            out[k - j] = (telem){j, e.theta, e.phi};
        }
    }
    /* Rows already up to date above the diagonal get the sequence now; the
     * rest keep it as backlog. */
    if (z->active_top < base)
        rows_colops(W, z->active_top, base - z->active_top, k, 0, ops);
    z->n_done = k / 2 + 1;
}

/* Nulls W in Clements order.  Fills `out` with the n(n-1)/2 forward elements
 * in propagation order and `screen` with the output phase screen (Eq. 5 form:
 * U = diag(e^{i screen}) . T_K ... T_1).  -1 when out of memory. */
static int clements_null(planar *W, telem *out, double *screen)
{
    int n = W->n, nl = 0, nr = 0, total = n * (n - 1) / 2, ndiag = n / 2 + 1;
    /* The row elements fill `out` from the end (right[i] = out[total-1-i]):
     * pushing the screen through them below rewrites each in its own slot. */
    telem *right = out + total - 1;
    /* The block's lanes: columns up to n rounded to RL, plus the one a
     * chain reads before its first op. */
    size_t lane_bytes = sizeof(lanes) * GROUPS * ((size_t)(n + RL - 1) / RL * RL + 1);
    lazy z = {W, calloc((size_t)ndiag, sizeof(colops)), 0, n,
              aligned_alloc(sizeof(lanes), lane_bytes), aligned_alloc(sizeof(lanes), lane_bytes)};
    /* One block for the ops of all even diagonals: 4 arrays of k+1 each. */
    size_t need = 0;
    for (int k = 0; k <= n - 2; k += 2)
        need += 4 * (size_t)(k + 1);
    double *store = optinc_zalloc_large(sizeof(double) * (need + 1)), *p = store;
    if (!z.diag || !store || !z.re || !z.im) {
        OPTINC_FREE_ALL(store, z.diag, z.re, z.im);
        return -1;
    }
    for (int k = 0; k <= n - 2; k += 2) {
        colops *o = &z.diag[k / 2];
        o->c = p; o->s = p + k + 1; o->er = p + 2 * (k + 1); o->ei = p + 3 * (k + 1);
        p += 4 * (size_t)(k + 1);
    }
    for (int k = 0; k <= n - 2; k++) {
        bring_up_to(&z, n - 3 - k > 0 ? n - 3 - k : 0);
        if (k % 2 == 0) {
            clements_column_diagonal(&z, k, out + nl);
            nl += k + 1;
        } else {
            int j = 0;
            for (; j + RL <= k + 1; j += RL) {
                telem t[RL];
                rows_T_chain(W, n - 1 - k + j, j, t);
                for (int q = 0; q < RL; q++)
                    right[-nr++] = t[q];
            }
            for (; j <= k; j++)
                right[-nr++] = planar_rows_T(W, n - 2 - k + j, j);
        }
    }
    bring_up_to(&z, 0);
    for (int i = 0; i < n; i++)
        screen[i] = carg(planar_at(W, i, i));
    /* Push the screen through the inverse row elements (rule B), last first. */
    for (int i = nr - 1; i >= 0; i--) {
        telem e = right[-i];
        double alpha = screen[e.mode], beta = screen[e.mode + 1];
        out[nl++] = (telem){e.mode, e.theta, turn_remainder(alpha - beta + M_PI)};
        screen[e.mode] = turn_remainder(beta - e.phi + M_PI);
    }
    OPTINC_FREE_ALL(store, z.diag, z.re, z.im);
    return 0;
}

/* Reck on V = U^H: S_K..S_1 . V = D, so U = conj(D) . S_K ... S_1. */
static void reck_null(planar *V, telem *out, double *screen)
{
    int n = V->n, ne = 0;
    for (int c = 0; c <= n - 2; c++)
        for (int r = n - 1; r >= c + 1; r--)
            out[ne++] = planar_rows_T(V, r - 1, c);
    for (int i = 0; i < n; i++)
        screen[i] = -carg(planar_at(V, i, i));
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
    int n = U->rows;
    if (U->rows != U->cols || n < 1)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "a mesh needs a square unitary, got %dx%d", U->rows, U->cols);
    optinc_mesh *mesh = optinc_mesh_new(kind, n);
    int ld = planar_stride(n);
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
    int rc = 0;
    if (kind == OPTINC_MESH_RECK)
        reck_null(&W, el, screen);
    else
        rc = clements_null(&W, el, screen);
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
