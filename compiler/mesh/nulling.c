/*
 * nulling.c - the Clements and Reck nullings of a unitary into T elements,
 * on two paths: sequential, and blocked (the wavefront below).
 *
 * The nulling sequences are Strawberry Fields' order (Clements et al.,
 * Optica 3, 1460 (2016); Reck et al., PRL 73, 58 (1994)): Clements alternates column operations W := W.T^-1 (even
 * anti-diagonals) and row operations W := T.W (odd ones) until W is diagonal;
 * Reck nulls U^H column by column with row operations only.  Both produce
 * "T elements" T(theta, phi) = R(theta).diag(e^{i phi}, 1), which mesh.c
 * lays out into physical MZIs.
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
 * The blocked path applies the row operations of several sequences to the
 * columns only row operations touch as waves (the wavefront below): Reck's
 * panels of columns, and Clements' columns right of the nulling front.  It
 * gives the same bits; the table at the end says where it is taken.
 *
 * Exact-zero tests decide the degenerate angles (as Strawberry Fields does),
 * so identity and permutation matrices give exact phases and no NaN.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compiler/core/bigmem.h"
#include "compiler/core/freeall.h"
#include "compiler/mesh/nulling.h"
#include "compiler/mesh/turns.h"

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

/* Row stride: rows padded to whole cache lines and kept off multiples of
 * 512 B.  A power-of-two stride (8 KB at N = 1024) maps the rows a kernel
 * keeps in flight to the same L1 sets; the padding measured about 5% at
 * N = 1024. */
int mesh_planar_stride(int n)
{
    int ld = (n + 7) / 8 * 8;
    return ld % 64 == 0 ? ld + 8 : ld;
}

/* The wave kernels have an AVX-512 clone too, for its 32 vector registers:
 * a strip's row of WL doubles is one register there and the window of rows
 * stays in registers; in the AVX2 clone it is two, and the window spills
 * (blocked Reck measured 10x slower than sequential built for AVX2 alone),
 * so the table at the end takes the blocked path only where the AVX-512
 * clone runs (waves_fast). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define WIDE __attribute__((target_clones("arch=x86-64-v4", "avx2", "default"), optimize("O3")))
static int waves_fast(void) { return __builtin_cpu_supports("x86-64-v4"); }
#else
#define WIDE
static int waves_fast(void) { return 0; }
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
 * applied to the columns before `end`, its coefficients left in *co, and
 * returned as the element it is. */
static telem planar_rows_T(planar *W, int m, int c0, int end, tcoef *co)
{
    element e = element_of(planar_at(W, m + 1, c0), planar_at(W, m, c0), -1);
    size_t x = (size_t)m * W->ld + c0, y = x + W->ld;
    *co = tcoef_of(e);
    rows_apply_T(W->re + x, W->im + x, W->re + y, W->im + y, end - c0, *co);
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
 * op by op, so the bits are the same.  The ops stop before column `end`;
 * out gets the RL elements, co their coefficients. */
HOT static void rows_T_chain(planar *W, int r, int j0, int end, telem *out, tcoef *co)
{
    double a[RL], b[RL], p[RL], q[RL], c[RL], s[RL];
    for (int t = 0; t < RL; t++) {
        int j = j0 + t, x = r - 1 + t;
        element e = element_of(planar_at(W, x + 1, j), planar_at(W, x, j), -1);
        size_t ox = (size_t)x * W->ld + j, oy = ox + W->ld;
        tcoef tc = tcoef_of(e);
        rows_apply_T(W->re + ox, W->im + ox, W->re + oy, W->im + oy, RL - t, tc);
        out[t] = (telem){x, e.theta, e.phi};
        co[t] = tc;
        a[t] = tc.a, b[t] = tc.b, p[t] = tc.p, q[t] = tc.q, c[t] = tc.c, s[t] = tc.s;
    }
    double *re[RL + 1], *im[RL + 1];
    for (int t = 0; t <= RL; t++) {
        re[t] = W->re + (size_t)(r - 1 + t) * W->ld;
        im[t] = W->im + (size_t)(r - 1 + t) * W->ld;
    }
    int k = j0 + RL;
    for (; k + RL <= end; k += RL) {
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
    for (; k < end; k++) {
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

/* ------------------------------------------------------------------ wavefront */

/* The blocked paths apply several sequences of row elements (each on
 * consecutive pairs of rows, one after another) to a block of columns that
 * only row elements touch, as a wavefront (Van Zee, van de Geijn and
 * Quintana-Orti, ACM TOMS 40(3), 2014): a strip of WL columns walks the rows
 * once, WAVE + 1 of its rows in a window of registers; each step brings in
 * row y at slot 0 (slot t holds row y - dir.t), sequence q takes its element
 * on slots (q, q+1), one row behind sequence q-1, whose elements on those
 * rows are then done, and the row leaving slot WAVE is final.  Each entry
 * is loaded and stored once per WAVE sequences instead of once per element,
 * and gets the same elements with the same coefficients in the same order
 * as one sequence after another, so the bits are the same.
 *
 * Reck's sequences climb (dir = -1: slot q is the upper row of the pair),
 * Clements' descend (dir = +1: slot q+1 is).  Sequence q's element at step
 * s (row y_first + dir.s entering) is co[q][at[q] + sgn.s], live while that
 * index is in [lo[q], hi[q]]; steps where every sequence is live run on the
 * window in registers, the few at the ends (and a wave of fewer than WAVE
 * sequences) on a copy in memory, one sequence at a time. */
enum { WAVE = 4, AHEAD = 8, WL = 8 };
/* A row of a strip: WL columns, a whole cache line of each plane, one
 * vector of the AVX-512 clone (two of the AVX2 one). */
typedef double wlanes __attribute__((vector_size(WL * sizeof(double))));
typedef double wlanes_at __attribute__((vector_size(WL * sizeof(double)), aligned(8), may_alias));
typedef struct wave {
    int count;                  /* sequences, <= WAVE */
    int dir, sgn;               /* rows: +1 down, -1 up; index step per row */
    int y_first, steps;         /* the first row entering, and the steps */
    int row_lo, row_hi;         /* the rows of the matrix the wave may touch */
    const tcoef *co[WAVE];
    long at[WAVE], lo[WAVE], hi[WAVE];
} wave;

/* Sequence q's element on the window's slots (q, q+1). */
static inline __attribute__((always_inline)) void
wave_op(wlanes *wr, wlanes *wi, int q, int down, tcoef t)
{
    int x = down ? q + 1 : q, y = down ? q : q + 1;
    wlanes ur = wr[x], ui = wi[x], vr = wr[y], vi = wi[y];
    wr[x] = t.a * ur - t.b * ui - t.s * vr;
    wi[x] = t.a * ui + t.b * ur - t.s * vi;
    wr[y] = t.p * ur - t.q * ui + t.c * vr;
    wi[y] = t.p * ui + t.q * ur + t.c * vi;
}

/* Step s of the wave on the window: the row leaving stored, the row
 * entering loaded (rows outside [row_lo, row_hi] are neither), then the
 * sequences live at s (all of them when `all`, inlined with constant
 * indices so the window stays in registers). */
static inline __attribute__((always_inline)) void
wave_step(const wave *w, double *re, double *im, size_t ld, wlanes *wr, wlanes *wi, int s, int all)
{
    int y = w->y_first + w->dir * s, out = y - w->dir * (WAVE + 1);
    if (out >= w->row_lo && out <= w->row_hi) {
        *(wlanes_at *)(re + (size_t)out * ld) = wr[WAVE];
        *(wlanes_at *)(im + (size_t)out * ld) = wi[WAVE];
    }
    for (int t = WAVE; t > 0; t--) {
        wr[t] = wr[t - 1];
        wi[t] = wi[t - 1];
    }
    if (y >= w->row_lo && y <= w->row_hi) {
        wr[0] = *(const wlanes_at *)(re + (size_t)y * ld);
        wi[0] = *(const wlanes_at *)(im + (size_t)y * ld);
    }
    int ahead = y + w->dir * AHEAD;
    if (ahead >= w->row_lo && ahead <= w->row_hi) {
        __builtin_prefetch(re + (size_t)ahead * ld);
        __builtin_prefetch(im + (size_t)ahead * ld);
    }
    for (int q = 0; q < (all ? WAVE : w->count); q++) {
        long i = w->at[q] + (long)w->sgn * s;
        if (all || (i >= w->lo[q] && i <= w->hi[q]))
            wave_op(wr, wi, q, w->dir > 0, w->co[q][i]);
    }
}

/* The wave on the strip of columns k..k+WL-1 (inside the padded rows);
 * down is w->dir > 0, a constant in each of the two versions below, so the
 * window's slots are constant indices and stay in registers. */
static inline __attribute__((always_inline)) void
wave_strip(const wave *wave_in, planar *W, int k, int down)
{
    /* A copy the stores into the strip cannot alias (wlanes_at may alias
     * anything), so the loop keeps its fields in registers. */
    wave copy = *wave_in, *w = &copy;
    copy.dir = down ? 1 : -1;
    size_t ld = (size_t)W->ld;
    double *restrict re = W->re + k, *restrict im = W->im + k;
    /* The steps where every sequence is live: [s0, s1). */
    long s0 = w->count == WAVE ? 0 : w->steps, s1 = w->count == WAVE ? w->steps : 0;
    for (int q = 0; q < w->count; q++) {
        long from = w->sgn > 0 ? w->lo[q] - w->at[q] : w->at[q] - w->hi[q];
        long to = w->sgn > 0 ? w->hi[q] - w->at[q] : w->at[q] - w->lo[q];
        s0 = from > s0 ? from : s0;
        s1 = to + 1 < s1 ? to + 1 : s1;
    }
    s1 = s1 > s0 ? s1 : s0;
    wlanes mr[WAVE + 1] = {0}, mi[WAVE + 1] = {0}, wr[WAVE + 1], wi[WAVE + 1];
    for (int t = 0; t <= WAVE; t++) {       /* before step 0: slot t holds row y_first - dir.(t+1) */
        int y = w->y_first - w->dir * (t + 1);
        if (y >= w->row_lo && y <= w->row_hi) {
            mr[t] = *(const wlanes_at *)(re + (size_t)y * ld);
            mi[t] = *(const wlanes_at *)(im + (size_t)y * ld);
        }
    }
    int s = 0;
    for (; s < s0; s++)
        wave_step(w, re, im, ld, mr, mi, s, 0);
    for (int t = 0; t <= WAVE; t++) {
        wr[t] = mr[t];
        wi[t] = mi[t];
    }
    for (; s < s1; s++)
        wave_step(w, re, im, ld, wr, wi, s, 1);
    for (int t = 0; t <= WAVE; t++) {
        mr[t] = wr[t];
        mi[t] = wi[t];
    }
    for (; s < w->steps; s++)
        wave_step(w, re, im, ld, mr, mi, s, 0);
    for (int t = 0; t <= WAVE; t++) {       /* after the last step */
        int y = w->y_first + w->dir * (w->steps - 1 - t);
        if (y >= w->row_lo && y <= w->row_hi) {
            *(wlanes_at *)(re + (size_t)y * ld) = mr[t];
            *(wlanes_at *)(im + (size_t)y * ld) = mi[t];
        }
    }
}

WIDE static void wave_strip_up(const wave *w, planar *W, int k) { wave_strip(w, W, k, 0); }
WIDE static void wave_strip_down(const wave *w, planar *W, int k) { wave_strip(w, W, k, 1); }

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

/* The blocked Clements defers the row operations of its odd anti-diagonals
 * on the columns right of the nulling front: diagonal k reads and changes
 * only columns 0..k+1 but for its row ops, so the columns from `ready` on
 * have received no operation yet, and when the front needs them a block of
 * RIGHT of them receives every odd diagonal so far, WAVE diagonals at a time
 * as waves down the rows (diagonal k's op j on rows (n-2-k+j, n-1-k+j) at
 * the step that brings in row n-1-k+j+q, q its place in the wave; each op
 * comes after the ops of the diagonal before on its rows, in order).  co
 * holds the coefficients of every odd diagonal k from right_at(k). */
enum { RIGHT = 64 };
typedef struct right_block {
    planar *W;
    tcoef *co;
    int ready;           /* columns before it are up to date */
    int n_odd;           /* odd diagonals done: 1, 3, .., 2 n_odd - 1 */
} right_block;

static size_t right_at(int k) { return (size_t)(k / 2) * (size_t)(k / 2 + 1); }

/* Columns up to `col` up to date. */
static void right_up_to(right_block *b, int col)
{
    int n = b->W->n;
    while (b->ready <= col) {
        int end = b->ready + RIGHT < n ? b->ready + RIGHT : n;
        for (int c = b->ready; c < end; c += WL)
            for (int g = 0; g < b->n_odd; g += WAVE) {
                int k0 = 2 * g + 1, count = b->n_odd - g < WAVE ? b->n_odd - g : WAVE;
                wave w = {count, 1, 1, n - k0 - count, k0 + 2 * count - 1,
                          n - k0 - 2 * count, n - 1, {0}, {0}, {0}, {0}};
                for (int q = 0; q < count; q++) {
                    int k = k0 + 2 * q;
                    w.co[q] = b->co + right_at(k);
                    w.at[q] = w.y_first - q - n + 1 + k;
                    w.lo[q] = 0;
                    w.hi[q] = k;
                }
                wave_strip_down(&w, b->W, c);
            }
        b->ready = end;
    }
}

/* Nulls W in Clements order, the right columns' row ops deferred when
 * `blocked` (right_up_to).  Fills `out` with the n(n-1)/2 forward elements
 * in propagation order and `screen` with the output phase screen (Eq. 5 form:
 * U = diag(e^{i screen}) . T_K ... T_1).  -1 when out of memory. */
static int clements_nulling(planar *W, telem *out, double *screen, int blocked)
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
    right_block rb = {W, blocked ? malloc(sizeof(tcoef) * (right_at(n) + 1)) : NULL,
                      blocked && n > RIGHT ? RIGHT : n, 0};
    if (!z.diag || !store || !z.re || !z.im || (blocked && !rb.co)) {
        OPTINC_FREE_ALL(store, z.diag, z.re, z.im, rb.co);
        return -1;
    }
    for (int k = 0; k <= n - 2; k += 2) {
        colops *o = &z.diag[k / 2];
        o->c = p; o->s = p + k + 1; o->er = p + 2 * (k + 1); o->ei = p + 3 * (k + 1);
        p += 4 * (size_t)(k + 1);
    }
    for (int k = 0; k <= n - 2; k++) {
        bring_up_to(&z, n - 3 - k > 0 ? n - 3 - k : 0);
        right_up_to(&rb, k + 1);
        if (k % 2 == 0) {
            clements_column_diagonal(&z, k, out + nl);
            nl += k + 1;
        } else {
            /* Op j's coefficients, kept for right_up_to when it defers. */
            tcoef sink[RL], *kept = rb.co ? rb.co + right_at(k) : NULL;
            int j = 0;
            for (; j + RL <= k + 1; j += RL) {
                telem t[RL];
                rows_T_chain(W, n - 1 - k + j, j, rb.ready, t, kept ? kept + j : sink);
                for (int q = 0; q < RL; q++)
                    right[-nr++] = t[q];
            }
            for (; j <= k; j++)
                right[-nr++] = planar_rows_T(W, n - 2 - k + j, j, rb.ready, kept ? kept + j : sink);
            rb.n_odd++;
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
    OPTINC_FREE_ALL(store, z.diag, z.re, z.im, rb.co);
    return 0;
}

static int clements_null(planar *W, telem *out, double *screen)
{
    return clements_nulling(W, out, screen, 0);
}

static int clements_null_blocked(planar *W, telem *out, double *screen)
{
    return clements_nulling(W, out, screen, 1);
}

/* Reck on V = U^H: S_K..S_1 . V = D, so U = conj(D) . S_K ... S_1. */
static int reck_null(planar *V, telem *out, double *screen)
{
    int n = V->n, ne = 0;
    for (int c = 0; c <= n - 2; c++)
        for (int r = n - 1; r >= c + 1; r--)
            out[ne++] = planar_rows_T(V, r - 1, c, n, &(tcoef){0});
    for (int i = 0; i < n; i++)
        screen[i] = -carg(planar_at(V, i, i));
    return 0;
}

/* The blocked Reck: a panel of WAVE columns is nulled on the panel alone
 * (column c's sequence of row elements, bottom pair first, found on column c
 * and applied to the panel's columns right of it), and the panel's
 * sequences then go through the rest of the matrix as one wave climbing the
 * rows: sequence p has its element on rows (x, x+1) at the step that brings
 * in row x - p, the bottom pairs first, and all end together at the top. */
enum { PANEL = 2 * WAVE };

/* reck_null by panels.  A last panel without a column right of it is
 * nulled on the panel alone.  -1 when out of memory. */
static int reck_null_blocked(planar *V, telem *out, double *screen)
{
    int n = V->n, ne = 0;
    tcoef *co = malloc(sizeof *co * PANEL * (size_t)n);
    if (!co)
        return -1;
    for (int c0 = 0; c0 <= n - 2; c0 += PANEL) {
        int full = c0 + PANEL < n, end = full ? c0 + PANEL : n;
        for (int c = c0; c < end && c <= n - 2; c++)
            for (int r = n - 1; r >= c + 1; r--)
                out[ne++] = planar_rows_T(V, r - 1, c, end, &co[(size_t)(c - c0) * n + r - 1]);
        for (int g = 0; full && g < PANEL; g += WAVE) {
            int cg = c0 + g;
            wave w = {WAVE, -1, -1, n - 2, n - 1 - cg, cg, n - 1, {0}, {0}, {0}, {0}};
            for (int p = 0; p < WAVE; p++) {
                w.co[p] = co + (size_t)(g + p) * n;
                w.at[p] = n - 2 + p;
                w.lo[p] = cg + p;
                w.hi[p] = n - 2;
            }
            for (int k = end; k < n; k += WL)
                wave_strip_up(&w, V, k);
        }
    }
    for (int i = 0; i < n; i++)
        screen[i] = -carg(planar_at(V, i, i));
    free(co);
    return 0;
}

/* The nulling of each kind on each path, and the path optinc_mesh_decompose
 * takes from each N up (the last row of a kind whose from_n <= N), as
 * measured by `make bench` and by the two paths timed in alternation (CPU
 * time, one core of an AVX-512 machine, best of repetitions): blocked Reck
 * 1.14x the sequential one at N = 256 to 768 and 1.34x at 1024, within 4%
 * below 256; blocked Clements 2-6% slower from N = 128 to 1536 (its row
 * rotations left of the front cannot be deferred, and the sequential path
 * already applies them four per load of an entry) and 3-5% faster at 2048,
 * where the deferred ones' savings in memory traffic come out ahead. */
static const struct {
    optinc_mesh_kind kind;
    optinc_mesh_path path;
    mesh_nulling null;
} nullings[] = {
    {OPTINC_MESH_CLEMENTS, OPTINC_MESH_PATH_SEQUENTIAL, clements_null},
    {OPTINC_MESH_CLEMENTS, OPTINC_MESH_PATH_BLOCKED, clements_null_blocked},
    {OPTINC_MESH_RECK, OPTINC_MESH_PATH_SEQUENTIAL, reck_null},
    {OPTINC_MESH_RECK, OPTINC_MESH_PATH_BLOCKED, reck_null_blocked},
};
static const struct {
    optinc_mesh_kind kind;
    int from_n;
    optinc_mesh_path path;
    int wide;            /* only where the waves run their AVX-512 clone */
} fastest[] = {
    {OPTINC_MESH_CLEMENTS, 1, OPTINC_MESH_PATH_SEQUENTIAL, 0},
    {OPTINC_MESH_CLEMENTS, 2048, OPTINC_MESH_PATH_BLOCKED, 1},
    {OPTINC_MESH_RECK, 1, OPTINC_MESH_PATH_SEQUENTIAL, 0},
    {OPTINC_MESH_RECK, 256, OPTINC_MESH_PATH_BLOCKED, 1},
};

optinc_mesh_path optinc_mesh_path_for(optinc_mesh_kind kind, int n)
{
    optinc_mesh_path path = OPTINC_MESH_PATH_SEQUENTIAL;
    for (size_t i = 0; i < sizeof fastest / sizeof fastest[0]; i++)
        if (fastest[i].kind == kind && fastest[i].from_n <= n && (!fastest[i].wide || waves_fast()))
            path = fastest[i].path;
    return path;
}

mesh_nulling mesh_nulling_for(optinc_mesh_kind kind, optinc_mesh_path path, int n)
{
    if (path == OPTINC_MESH_PATH_AUTO)
        path = optinc_mesh_path_for(kind, n);
    for (size_t i = 0; i < sizeof nullings / sizeof nullings[0]; i++)
        if (nullings[i].kind == kind && nullings[i].path == path)
            return nullings[i].null;
    return NULL;
}
