/*
 * mesh_sf.c - Strawberry Fields' rectangular, rectangular_phase_end and
 * triangular (strawberryfields.decompositions) as flat arrays: the whole
 * computation the Python drop-in optinc.compat.strawberryfields makes, so
 * that Python only turns the arrays into SF's lists.
 *
 * The mesh is optinc's own (optinc_mesh_decompose: SF's nulling sequence
 * turned into physical MZIs, the phases pushed to the output).  Its MZIs go
 * back into T elements exactly, in propagation order: one MZI is a T
 * element times a phase common to its two modes,
 * MZ(a, b) = -i e^{i a/2} T((pi - a)/2, b + pi), and a phase x, y on a T's
 * inputs passes it as T(t, p) diag(e^{i x}, e^{i y}) = e^{i y} T(t, p + x - y),
 * so one sweep carries each mode's phase forward into the next element's
 * external phase and, at the end, into the diagonal.  The sequence of
 * elements on each pair of modes is SF's, so matching the k-th element on a
 * pair with SF's k-th on it puts them in SF's order.  Then each form's own
 * last step:
 *
 *   rectangular_phase_end: the mesh itself (SF pushes its T list through
 *     the middle diagonal, T^-1 D = D' T', which is the mesh's form); its
 *     Ti phases in (-pi, pi] as numpy.angle gives them, the pushed ones
 *     modulo 2 pi as SF's fmod leaves them.
 *   rectangular: each push undone in the reverse order, one closed formula
 *     per element: a push of T(theta, f) on modes (m, m+1) through D gave
 *     phi = D[m] - D[m+1] + pi and left D[m] = D[m+1] - f + pi.
 *   triangular: the Reck mesh of V's transpose, V^T = D T_K ... T_1, read
 *     backwards: V = Ti_1 ... Ti_K D with Ti(theta, phi) = T(theta, -phi)^T.
 *
 * Each step is the arithmetic the Python drop-in did with NumPy, operation
 * for operation (numpy.mod's sign rule included), so modes, thetas and
 * phases agree with it bit for bit; the diagonal and rectangular's pushed
 * phases go through complex products and arguments, which NumPy's SIMD
 * kernels round in the last bit differently from libm.
 *
 * SF checks unitarity first, with an O(N^3) product; with two threads that
 * check runs beside the decomposition, which does not read its result.
 */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include "compiler/core/freeall.h"
#include "compiler/mesh/turns.h"
#include "optinc/mesh.h"

/* numpy.mod(a, 2 pi): fmod, moved into [0, 2 pi) when negative, a zero
 * made +0. */
static double np_mod(double a)
{
    double m = turn_fmod(a);
    if (m == 0)
        return 0.0;
    return m < 0 ? m + 2 * M_PI : m;
}

/* (-pi, pi], as numpy.angle gives SF's nulling phases. */
static double wrap_pi(double phi)
{
    return M_PI - np_mod(M_PI - phi);
}

/* The upper modes of SF's elements in the order it lists them, into want
 * (n(n-1)/2 entries); returns the first list's length.  Rectangular:
 * anti-diagonal k = 0..n-2 is Ti elements on modes k..0 when k is even,
 * T elements on n-2-k..n-2 when odd; its tilist, then its tlist in push
 * order (reversed), as rectangular_phase_end lists them (rectangular's
 * tlist is that tail reversed again).  Triangular: column n-2-i nulled
 * from the bottom up, modes n-2 down to n-2-i, the whole sequence reversed. */
static int sf_modes(optinc_sf_form form, int n, int *want)
{
    int k_all = n * (n - 1) / 2, w = 0;
    if (form == OPTINC_SF_TRIANGULAR) {
        for (int i = n - 2; i >= 0; i--)
            for (int m = n - 2; m >= n - 2 - i; m--)
                want[k_all - 1 - w++] = m;
        return k_all;
    }
    for (int k = 0; k <= n - 2; k += 2)
        for (int m = k; m >= 0; m--)
            want[w++] = m;
    int lead = w;
    for (int k = (n - 2) % 2 ? n - 2 : n - 3; k >= 1; k -= 2)
        for (int m = n - 2; m >= n - 2 - k; m--)
            want[w++] = m;
    return lead;
}

/* p[i]: the index into rows[0..count) of SF's i-th element, want[i] the
 * upper modes in SF's order, the k-th element on a pair of modes matched
 * with SF's k-th, rows read forwards or backwards.  start (n + 1) and slot
 * (count) are scratch. */
static void sf_match(const int *rows, int count, int backwards, const int *want, int n,
                     int *start, int *slot, int *p)
{
    for (int m = 0; m <= n; m++)
        start[m] = 0;
    for (int i = 0; i < count; i++)
        start[rows[i] + 1]++;
    for (int m = 0; m < n; m++)
        start[m + 1] += start[m];
    for (int j = 0; j < count; j++) {
        int i = backwards ? count - 1 - j : j;
        slot[start[rows[i]]++] = i;
    }
    for (int m = n; m > 0; m--)     /* back to each mode's first slot */
        start[m] = start[m - 1];
    start[0] = 0;
    for (int i = 0; i < count; i++)
        p[i] = slot[start[want[i]]++];
}

/* The mesh as T elements in propagation order (rows, theta, phi) and the
 * diagonal, see the comment at the top. */
static void t_elements(const optinc_mesh *mesh, int *rows, double *theta, double *phi,
                       double *acc, double complex *diagonal)
{
    for (int m = 0; m < mesh->modes; m++)
        acc[m] = 0;
    for (int i = 0; i < mesh->n_mzi; i++) {
        const optinc_mzi *z = &mesh->mzi[i];
        int m = z->mode;
        double a = z->theta.rad;
        rows[i] = m;
        theta[i] = (M_PI - a) / 2;
        phi[i] = (z->phi.rad + M_PI) + (acc[m] - acc[m + 1]);
        acc[m] = acc[m + 1] = acc[m + 1] + (a / 2 - M_PI / 2);
    }
    for (int m = 0; m < mesh->modes; m++) {
        double s = mesh->screen[m].rad, c1 = cos(s), s1 = sin(s), c2 = cos(acc[m]),
               s2 = sin(acc[m]);
        diagonal[m] = CMPLX(c1 * c2 - s1 * s2, c1 * s2 + s1 * c2);
    }
}

/* Rectangular's tlist from the pushed elements out[lead..k_all) (push
 * order), in place: reversed into SF's order, each push undone, and the
 * diagonal the pushes started from (angle: n scratch). */
static void undo_pushes(optinc_sf_lists *out, int lead, int k_all, int n, double *angle)
{
    for (int i = lead, j = k_all - 1; i < j; i++, j--) {
        int m = out->mode[i];
        double t = out->theta[i], f = out->phi[i];
        out->mode[i] = out->mode[j], out->theta[i] = out->theta[j], out->phi[i] = out->phi[j];
        out->mode[j] = m, out->theta[j] = t, out->phi[j] = f;
    }
    for (int m = 0; m < n; m++)
        angle[m] = carg(out->diagonal[m]);
    /* Along one of tlist's anti-diagonals the modes ascend, so each undo
     * reads angles no earlier undo of its anti-diagonal wrote. */
    for (int i = lead; i < k_all; i++) {
        int m = out->mode[i];
        double beta = angle[m + 1], pushed = out->phi[i];
        out->phi[i] = M_PI - np_mod(angle[m] - beta);
        angle[m] = (pushed + beta) - M_PI;
    }
    for (int m = 0; m < n; m++)
        out->diagonal[m] = CMPLX(cos(angle[m]), sin(angle[m]));
}

/* The check on its own thread, every signal blocked there (the program's
 * handlers run on its own threads). */
typedef struct check_job { const optinc_cmat *V; double tol; int ok; } check_job;

static void *check_run(void *arg)
{
    check_job *c = arg;
    c->ok = optinc_cmat_unitary_within(c->V, c->tol);
    return NULL;
}

static int check_beside(check_job *c, pthread_t *thread)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int started = pthread_create(thread, NULL, check_run, c) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return started;
}

/* SF's lists of a mesh of n modes into out (see mesh.h); -1 when out of
 * memory. */
static int sf_lists(const optinc_mesh *mesh, optinc_sf_form form, optinc_sf_lists *out)
{
    int n = mesh->modes, k_all = mesh->n_mzi;
    size_t k = (size_t)k_all + 1;
    int *ints = malloc(sizeof *ints * (4 * k + (size_t)n + 1));
    double *reals = malloc(sizeof *reals * (2 * k + 2 * (size_t)n));
    if (!ints || !reals) {
        OPTINC_FREE_ALL(ints, reals);
        return -1;
    }
    int *rows = ints, *want = ints + k, *slot = ints + 2 * k, *p = ints + 3 * k,
        *start = ints + 4 * k;
    double *theta = reals, *phi = reals + k, *acc = reals + 2 * k, *angle = acc + n;
    t_elements(mesh, rows, theta, phi, acc, out->diagonal);
    int triangular = form == OPTINC_SF_TRIANGULAR, lead = sf_modes(form, n, want);
    sf_match(rows, k_all, triangular, want, n, start, slot, p);
    for (int i = 0; i < k_all; i++) {
        out->mode[i] = rows[p[i]];
        out->theta[i] = theta[p[i]];
        out->phi[i] = triangular ? wrap_pi(-phi[p[i]])
                      : i < lead ? wrap_pi(phi[p[i]]) : np_mod(phi[p[i]]);
    }
    out->n_first = form == OPTINC_SF_RECTANGULAR ? lead : k_all;
    if (form == OPTINC_SF_RECTANGULAR)
        undo_pushes(out, lead, k_all, n, angle);
    OPTINC_FREE_ALL(ints, reals);
    return 0;
}

optinc_status optinc_mesh_sf(const optinc_cmat *V, optinc_sf_form form, double tol,
                             int threads, optinc_sf_lists *out, optinc_error *err)
{
    int n = V->rows;
    if (V->rows != V->cols || n < 1)
        return optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                           "a decomposition needs a square unitary, got %dx%d", V->rows, V->cols);
    check_job check = {V, tol, 0};
    pthread_t thread;
    int beside = threads > 1 && check_beside(&check, &thread);
    if (!beside)
        check_run(&check);
    /* Triangular is the Reck mesh of V's transpose. */
    optinc_cmat *VT = form == OPTINC_SF_TRIANGULAR && (beside || check.ok == 1)
                      ? optinc_cmat_new(n, n) : NULL;
    for (int r = 0; VT && r < n; r++)
        for (int c = 0; c < n; c++)
            OPTINC_AT(VT, c, r) = OPTINC_AT(V, r, c);
    optinc_mesh *mesh = NULL;
    optinc_status rc = OPTINC_OK;
    if ((beside || check.ok == 1) && (VT || form != OPTINC_SF_TRIANGULAR))
        rc = optinc_mesh_decompose(VT ? VT : V,
                                   VT ? OPTINC_MESH_RECK : OPTINC_MESH_CLEMENTS, NULL, &mesh, err);
    if (beside)
        pthread_join(thread, NULL);
    optinc_cmat_free(VT);
    if (rc == OPTINC_OK && check.ok == 0)
        rc = optinc_fail(err, OPTINC_EINPUT, NULL, 0, 0,
                         "the input matrix is not unitary: max |V V^H - I| is over tol = %g; "
                         "give a unitary, or a larger tol", tol);
    else if (rc == OPTINC_OK && (check.ok < 0 || !mesh || sf_lists(mesh, form, out)))
        rc = optinc_fail(err, OPTINC_ERUN, NULL, 0, 0, "out of memory decomposing %dx%d", n, n);
    optinc_mesh_free(mesh);
    return rc;
}
