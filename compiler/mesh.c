/*
 * mesh.c - Clements and Reck decompositions of a unitary into physical MZIs.
 *
 * The nulling sequences are those of algorithms.md §4 (Strawberry Fields'
 * order): Clements alternates column operations W := W.T^-1 (even
 * anti-diagonals) and row operations W := T.W (odd ones) until W is diagonal;
 * Reck nulls U^H column by column with row operations only.  Both produce
 * "T elements" T(theta, phi) = R(theta).diag(e^{i phi}, 1), which are then
 *
 *   1. commuted so the phase screen sits at the output (Clements Eq. 5),
 *   2. placed into physical columns as early as their modes allow,
 *   3. turned into physical MZIs, T = e^{i theta}.MZ(pi - 2 theta, phi + pi),
 *      carrying each common output phase forward into the next element's
 *      external phase and finally into the output screen (algorithms.md §4.4),
 *   4. quantized to the phase driver's codes.
 *
 * Why it is O(N^3) and fast: each element touches only the two rows or
 * columns it changes, and only the part of them that is not yet zero (the
 * nulled lower-left triangle stays zero, so a row operation starts at the
 * column being nulled and a column operation stops at the row being nulled).
 * Row operations stream through two contiguous rows.  Column operations would
 * stride through the row-major matrix, so all the column operations of one
 * anti-diagonal are applied row by row instead: each row receives the whole
 * sequence of rotations as one sweep along contiguous memory, blocks of rows
 * are interleaved for instruction-level parallelism, and only the few rows an
 * angle depends on are brought up to date before that angle is computed.
 *
 * Exact-zero tests decide the degenerate angles (as Strawberry Fields does),
 * so identity and permutation matrices give exact phases and no NaN.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optinc/mesh.h"

typedef struct telem { int mode; double theta, phi; } telem;

/* ------------------------------------------------------------------ phases */

static double wrap_from(double x, double lo)
{
    double y = fmod(x - lo, 2 * M_PI);
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

/* (theta, phi) of the column operation W.T^-1 that zeroes a, partner b. */
static void angles_col(double complex a, double complex b, double *theta, double *phi)
{
    if (a == 0) { *theta = 0; *phi = 0; return; }
    if (b == 0) { *theta = M_PI_2; *phi = 0; return; }
    double complex rho = a / b;
    *theta = atan(cabs(rho));
    *phi = carg(rho);
}

/* (theta, phi) of the row operation T.W that zeroes a, partner b above it. */
static void angles_row(double complex a, double complex b, double *theta, double *phi)
{
    if (a == 0) { *theta = 0; *phi = 0; return; }
    if (b == 0) { *theta = M_PI_2; *phi = 0; return; }
    double complex rho = -a / b;
    *theta = atan(cabs(rho));
    *phi = carg(rho);
}

/* The matrix being nulled is kept planar (real parts and imaginary parts in
 * two row-major arrays): every kernel below is then a plain loop over
 * doubles that the compiler vectorizes, where C99 complex products would
 * carry NaN/Inf recovery calls.  The hot kernels are also built for AVX2 and
 * picked at load time when the processor has it, and at -O3 (GCC 12's -O2
 * vectorizer leaves them 3-4x slower); element-wise loops vectorized give
 * the same bits, and the golden netlists check that they do. */
typedef struct planar { double *re, *im; int n; } planar;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define HOT __attribute__((target_clones("avx2", "default"), optimize("O3")))
#else
#define HOT
#endif

/* Rows (xr,xi), (yr,yi) := T(theta, phi) . rows, for `len` columns. */
HOT static void rows_apply_T(double *restrict xr, double *restrict xi, double *restrict yr,
                             double *restrict yi, int len, double theta, double phi)
{
    double c = cos(theta), s = sin(theta);
    double a = cos(phi) * c, b = sin(phi) * c;      /* e^{i phi} cos theta */
    double p = cos(phi) * s, q = sin(phi) * s;      /* e^{i phi} sin theta */
    for (int k = 0; k < len; k++) {
        double ur = xr[k], ui = xi[k], vr = yr[k], vi = yi[k];
        xr[k] = a * ur - b * ui - s * vr;
        xi[k] = a * ui + b * ur - s * vi;
        yr[k] = p * ur - q * ui + c * vr;
        yi[k] = p * ui + q * ur + c * vi;
    }
}

static void planar_rows_T(planar *W, int m, int c0, double theta, double phi)
{
    size_t x = (size_t)m * W->n + c0, y = x + W->n;
    rows_apply_T(W->re + x, W->im + x, W->re + y, W->im + y, W->n - c0, theta, phi);
}

static double complex planar_at(const planar *W, int r, int c)
{
    size_t i = (size_t)r * W->n + c;
    return W->re[i] + I * W->im[i];
}

/* Column operations of one anti-diagonal: op j is W.T^-1 on columns
 * (j, j+1); with e = e^{-i phi}:  W[j] := e.c.u - s.v,  W[j+1] := e.s.u + c.v. */
typedef struct colops { double *c, *s, *er, *ei; } colops;

static void colop(double *wr, double *wi, int j, const colops *o)
{
    double c = o->c[j], s = o->s[j], er = o->er[j], ei = o->ei[j];
    double ur = wr[j], ui = wi[j], vr = wr[j + 1], vi = wi[j + 1];
    double tr = er * ur - ei * ui, ti = er * ui + ei * ur;   /* e.u */
    wr[j] = c * tr - s * vr;
    wi[j] = c * ti - s * vi;
    wr[j + 1] = s * tr + c * vr;
    wi[j + 1] = s * ti + c * vi;
}

/* Ops jhi..jlo (descending) on a tile of RB rows stored column-major,
 * tile[(j - c0)*RB + lane], holding columns c0.. of those rows: the lanes are
 * independent rows, so each op is one vector operation across them.  Each op
 * reads what the one before it wrote, so the lanes are the only parallelism:
 * 16 of them (four AVX vectors) hide that latency; 8 left it exposed. */
enum { RB = 16 };
HOT static void tile_colops(double *restrict tr, double *restrict ti, int jhi, int jlo, int c0,
                            const colops *o)
{
    for (int j = jhi; j >= jlo; j--) {
        double c = o->c[j], s = o->s[j], er = o->er[j], ei = o->ei[j];
        double *ur = tr + (j - c0) * RB, *ui = ti + (j - c0) * RB, *vr = ur + RB, *vi = ui + RB;
        for (int l = 0; l < RB; l++) {
            double xr = er * ur[l] - ei * ui[l], xi = er * ui[l] + ei * ur[l];
            double yr = vr[l], yi = vi[l];
            ur[l] = c * xr - s * yr;
            ui[l] = c * xi - s * yi;
            vr[l] = s * xr + c * yr;
            vi[l] = s * xi + c * yi;
        }
    }
}

/* Copies columns c0..c1 of `rows` rows from r0 into the tile (unused lanes
 * get a copy of row r0, computed and discarded), and back. */
static void tile_gather(const planar *W, int r0, int rows, int c0, int c1, double *tile)
{
    double *tr = tile, *ti = tile + (size_t)RB * (W->n + 1);
    for (int l = 0; l < RB; l++) {
        size_t row = (size_t)(r0 + (l < rows ? l : 0)) * W->n;
        for (int j = c0; j <= c1; j++) {
            tr[(j - c0) * RB + l] = W->re[row + j];
            ti[(j - c0) * RB + l] = W->im[row + j];
        }
    }
}

static void tile_scatter(planar *W, int r0, int rows, int c0, int c1, const double *tile)
{
    const double *tr = tile, *ti = tile + (size_t)RB * (W->n + 1);
    for (int l = 0; l < rows; l++) {
        size_t row = (size_t)(r0 + l) * W->n;
        for (int j = c0; j <= c1; j++) {
            W->re[row + j] = tr[(j - c0) * RB + l];
            W->im[row + j] = ti[(j - c0) * RB + l];
        }
    }
}

/* The column operations of Clements' even anti-diagonals touch every row
 * above the diagonal, which makes them the memory-bound half of the work if
 * applied eagerly (the whole left block of W streams through the caches once
 * per diagonal).  They are applied lazily instead: a row only needs them when
 * the nulling front reaches it (rows >= n-3-k at diagonal k), so the rows
 * above it keep a backlog, and a tile of RB rows is brought up to date in one
 * pass (one gather, every pending diagonal, one scatter) when the front
 * reaches it.  The operations of every even diagonal are kept for that. */
typedef struct lazy {
    planar *W;
    colops *diag;        /* diag[k/2]: ops j = 0..k of even diagonal k */
    int n_done;          /* even diagonals computed */
    int active_top;      /* rows >= active_top are up to date (a tile boundary) */
    int *tile_next;      /* per tile: the next pending diagonal */
    double *tile;
} lazy;

static void bring_up_to(lazy *z, int row)
{
    while (z->active_top > row) {
        int t = (z->active_top - 1) / RB, r0 = t * RB, rows = z->active_top - r0;
        int d0 = z->tile_next[t];
        if (d0 < z->n_done) {
            int c1 = 2 * (z->n_done - 1) + 1;
            tile_gather(z->W, r0, rows, 0, c1, z->tile);
            double *tr = z->tile, *ti = z->tile + (size_t)RB * (z->W->n + 1);
            for (int d = d0; d < z->n_done; d++)
                tile_colops(tr, ti, 2 * d, 0, 0, &z->diag[d]);
            tile_scatter(z->W, r0, rows, 0, c1, z->tile);
        }
        z->tile_next[t] = z->n_done;
        z->active_top = r0;
    }
}

static void clements_column_diagonal(lazy *z, int k, telem *out)
{
    planar *W = z->W;
    int n = W->n, base = n - 1 - k;
    colops *ops = &z->diag[k / 2];
    double *tr = z->tile, *ti = z->tile + (size_t)RB * (n + 1);
    /* Row base+j needs ops k..j+1 before op j can be computed from it (the
     * rows below are already zero in the two columns op j touches).  Take
     * those rows bottom-up, RB at a time: the ops known before the group
     * starts go through the tile, the small triangle inside it is scalar. */
    for (int jt = k; jt >= 0; jt -= RB) {
        int jlo = jt - RB + 1 > 0 ? jt - RB + 1 : 0, rows = jt - jlo + 1;
        if (jt < k) {
            tile_gather(W, base + jlo, rows, jt + 1, k + 1, z->tile);
            tile_colops(tr, ti, k, jt + 1, jt + 1, ops);
            tile_scatter(W, base + jlo, rows, jt + 1, k + 1, z->tile);
        }
        for (int j = jt; j >= jlo; j--) {
            double *wr = W->re + (size_t)(base + j) * n, *wi = W->im + (size_t)(base + j) * n;
            for (int i = jt; i > j; i--)
                colop(wr, wi, i, ops);
            double theta, phi;
            angles_col(wr[j] + I * wi[j], wr[j + 1] + I * wi[j + 1], &theta, &phi);
            ops->c[j] = cos(theta);
            ops->s[j] = sin(theta);
            ops->er[j] = cos(phi);
            ops->ei[j] = -sin(phi);
            colop(wr, wi, j, ops);
            out[k - j] = (telem){j, theta, phi};
        }
    }
    /* Rows already up to date above the diagonal get the sequence now; the
     * rest keep it as backlog. */
    for (int r0 = z->active_top; r0 < base; r0 += RB) {
        int rows = base - r0 < RB ? base - r0 : RB;
        tile_gather(W, r0, rows, 0, k + 1, z->tile);
        tile_colops(tr, ti, k, 0, 0, ops);
        tile_scatter(W, r0, rows, 0, k + 1, z->tile);
    }
    z->n_done = k / 2 + 1;
}

/* Nulls W in Clements order.  Fills `out` with the n(n-1)/2 forward elements
 * in propagation order and `screen` with the output phase screen (Eq. 5 form:
 * U = diag(e^{i screen}) . T_K ... T_1). */
static void clements_null(planar *W, telem *out, double *screen)
{
    int n = W->n, nl = 0, nr = 0, total = n * (n - 1) / 2, ndiag = n / 2 + 1;
    telem *right = malloc(sizeof *right * (size_t)(total + 1));
    lazy z = {W, calloc((size_t)ndiag, sizeof(colops)), 0, n,
              calloc((size_t)(n / RB + 2), sizeof(int)),
              malloc(sizeof(double) * 2 * RB * (size_t)(n + 1))};
    /* One block for the ops of all even diagonals: 4 arrays of k+1 each. */
    size_t need = 0;
    for (int k = 0; k <= n - 2; k += 2)
        need += 4 * (size_t)(k + 1);
    double *store = malloc(sizeof(double) * (need + 1)), *p = store;
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
            for (int j = 0; j <= k; j++) {
                int r = n - 1 - k + j;
                double theta, phi;
                angles_row(planar_at(W, r, j), planar_at(W, r - 1, j), &theta, &phi);
                planar_rows_T(W, r - 1, j, theta, phi);
                right[nr++] = (telem){r - 1, theta, phi};
            }
        }
    }
    bring_up_to(&z, 0);
    for (int i = 0; i < n; i++)
        screen[i] = carg(planar_at(W, i, i));
    /* Push the screen through the inverse row elements (rule B), last first. */
    for (int i = nr - 1; i >= 0; i--) {
        int m = right[i].mode;
        double alpha = screen[m], beta = screen[m + 1];
        out[nl++] = (telem){m, right[i].theta, remainder(alpha - beta + M_PI, 2 * M_PI)};
        screen[m] = remainder(beta - right[i].phi + M_PI, 2 * M_PI);
    }
    free(right);
    free(store);
    free(z.diag);
    free(z.tile_next);
    free(z.tile);
}

/* Reck on V = U^H: S_K..S_1 . V = D, so U = conj(D) . S_K ... S_1. */
static void reck_null(planar *V, telem *out, double *screen)
{
    int n = V->n, ne = 0;
    for (int c = 0; c <= n - 2; c++)
        for (int r = n - 1; r >= c + 1; r--) {
            double theta, phi;
            angles_row(planar_at(V, r, c), planar_at(V, r - 1, c), &theta, &phi);
            planar_rows_T(V, r - 1, c, theta, phi);
            out[ne++] = (telem){r - 1, theta, phi};
        }
    for (int i = 0; i < n; i++)
        screen[i] = -carg(planar_at(V, i, i));
}

/* ------------------------------------------------------------------ layout */

typedef struct slot { int column, mode, element; } slot;

static int cmp_slot(const void *a, const void *b)
{
    const slot *x = a, *y = b;
    if (x->column != y->column)
        return x->column < y->column ? -1 : 1;
    return (x->mode > y->mode) - (x->mode < y->mode);
}

optinc_mesh *optinc_mesh_new(optinc_mesh_kind kind, int modes)
{
    optinc_mesh *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->kind = kind;
    m->modes = modes;
    m->n_mzi = modes * (modes - 1) / 2;
    m->mzi = calloc((size_t)m->n_mzi + 1, sizeof *m->mzi);
    m->screen = calloc((size_t)modes + 1, sizeof *m->screen);
    if (!m->mzi || !m->screen) {
        optinc_mesh_free(m);
        return NULL;
    }
    return m;
}

void optinc_mesh_free(optinc_mesh *m)
{
    if (m) {
        free(m->mzi);
        free(m->screen);
        free(m);
    }
}

/* Columns, sort, physical settings with the carried phase, quantization. */
static void mesh_from_elements(optinc_mesh *mesh, const telem *el, const double *screen,
                               const optinc_quantizer *q)
{
    int n = mesh->modes;
    int *last = calloc((size_t)n + 1, sizeof *last);
    double *carry = calloc((size_t)n + 1, sizeof *carry);
    double *theta = malloc(sizeof *theta * (size_t)(mesh->n_mzi + 1));
    double *phi = malloc(sizeof *phi * (size_t)(mesh->n_mzi + 1));
    slot *order = malloc(sizeof *order * (size_t)(mesh->n_mzi + 1));
    mesh->n_columns = 0;
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
    qsort(order, (size_t)mesh->n_mzi, sizeof *order, cmp_slot);
    for (int i = 0; i < mesh->n_mzi; i++) {
        const telem *e = &el[order[i].element];
        int m = e->mode;
        mesh->mzi[i].mode = m;
        mesh->mzi[i].column = order[i].column;
        /* Rule F: the carried phases on the inputs shift the external phase. */
        phi[i] = e->phi + carry[m] - carry[m + 1] + M_PI;
        theta[i] = M_PI - 2 * e->theta;
        /* Keep the carried phases small: their rounding error grows with size. */
        carry[m] = carry[m + 1] = remainder(carry[m + 1] + e->theta, 2 * M_PI);
    }
    for (int i = 0; i < mesh->n_mzi; i++) {
        optinc_quantize_phase(q, theta[i], &mesh->mzi[i].theta);
        optinc_quantize_phase(q, phi[i], &mesh->mzi[i].phi);
    }
    for (int k = 0; k < n; k++)
        optinc_quantize_phase(q, screen[k] + carry[k], &mesh->screen[k]);
    free(last);
    free(carry);
    free(theta);
    free(phi);
    free(order);
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
    planar W = {malloc(sizeof(double) * (size_t)n * n), malloc(sizeof(double) * (size_t)n * n), n};
    telem *el = malloc(sizeof *el * (size_t)(n * (n - 1) / 2 + 1));
    double *screen = calloc((size_t)n, sizeof *screen);
    if (!mesh || !W.re || !W.im || !el || !screen) {
        optinc_mesh_free(mesh);
        free(W.re);
        free(W.im);
        free(el);
        free(screen);
        return optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory decomposing %dx%d", n, n);
    }
    /* Reck works on U^H (algorithms.md §4.3, the output-screen variant). */
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            double complex z = kind == OPTINC_MESH_RECK ? conj(OPTINC_AT(U, c, r)) : OPTINC_AT(U, r, c);
            W.re[(size_t)r * n + c] = creal(z);
            W.im[(size_t)r * n + c] = cimag(z);
        }
    if (kind == OPTINC_MESH_RECK)
        reck_null(&W, el, screen);
    else
        clements_null(&W, el, screen);
    mesh_from_elements(mesh, el, screen, q);
    free(W.re);
    free(W.im);
    free(el);
    free(screen);
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

void optinc_mesh_apply(const optinc_mesh *mesh, optinc_cmat *M)
{
    int nc = M->cols;
    for (int i = 0; i < mesh->n_mzi; i++) {
        const optinc_mzi *z = &mesh->mzi[i];
        double complex t[4];
        optinc_mzi_matrix(z->theta.rad, z->phi.rad, t);
        double complex *restrict x = M->a + (size_t)z->mode * nc;
        double complex *restrict y = x + nc;
        for (int k = 0; k < nc; k++) {
            double complex u = x[k], v = y[k];
            x[k] = t[0] * u + t[1] * v;
            y[k] = t[2] * u + t[3] * v;
        }
    }
    for (int r = 0; r < mesh->modes; r++) {
        double complex e = cexp(I * mesh->screen[r].rad);
        double complex *x = M->a + (size_t)r * nc;
        for (int k = 0; k < nc; k++)
            x[k] *= e;
    }
}

optinc_cmat *optinc_mesh_matrix(const optinc_mesh *mesh)
{
    optinc_cmat *M = optinc_cmat_identity(mesh->modes);
    if (M)
        optinc_mesh_apply(mesh, M);
    return M;
}
