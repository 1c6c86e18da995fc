/*
 * mesh.h - MZI meshes: Clements (rectangular) and Reck (triangular)
 * decompositions of a unitary into physical MZI settings plus an output phase
 * screen, and the transfer matrix rebuilt from those settings alone.
 *
 * Physical MZI (the netlist's `mzi` card, optinc-netlist(5)), on modes (m, m+1):
 *
 *     MZ(theta, phi) = B . diag(e^{i theta}, 1) . B . diag(e^{i phi}, 1),
 *     B = [[1, i], [i, 1]] / sqrt(2)
 *
 * theta is the internal phase on the upper arm, phi the external phase on the
 * upper input.  A mesh is its MZIs in propagation order (column-major, then by
 * mode) followed by one phase shifter per mode (the output screen):
 *
 *     M = diag(e^{i screen}) . MZ_K ... MZ_1
 */
#ifndef OPTINC_MESH_H
#define OPTINC_MESH_H

#include "optinc/matrix.h"
#include "optinc/spec.h"

/* A programmed phase: what the decomposition asked for (target), what the
 * phase driver is set to (rad), and the driver's integer code (-1 when the
 * phase shifter is not quantized, then rad == target wrapped into range). */
typedef struct optinc_phase {
    double rad;
    double target_rad;
    int code;
} optinc_phase;

typedef struct optinc_mzi {
    int mode;            /* acts on modes (mode, mode+1) */
    int column;          /* physical column, 0-based */
    optinc_phase theta;  /* internal */
    optinc_phase phi;    /* external, on the input of `mode` */
} optinc_mzi;

typedef struct optinc_mesh {
    optinc_mesh_kind kind;
    int modes;
    int n_mzi;           /* modes*(modes-1)/2 */
    int n_columns;       /* modes for Clements, 2*modes-3 for Reck (1 mode: 0) */
    optinc_mzi *mzi;     /* n_mzi entries in propagation order */
    optinc_phase *screen;/* modes entries: output phase screen */
} optinc_mesh;

/* Phase-driver quantizer: `bits` codes over [lo, lo + 2^bits * step) with
 * step = (hi - lo) / 2^bits.  bits == 0 means continuous (phases are only
 * wrapped into [lo, lo + 2 pi)). */
typedef struct optinc_quantizer {
    int bits;
    double lo, hi;
} optinc_quantizer;

void optinc_quantizer_from_components(optinc_quantizer *q, const optinc_components *c);
/* Sets p->target_rad = target, p->code and p->rad (the programmed value). */
void optinc_quantize_phase(const optinc_quantizer *q, double target, optinc_phase *p);
/* Value a code programs. */
double optinc_quantizer_value(const optinc_quantizer *q, int code);

/* Decomposes the unitary U (n x n) into a mesh of the given kind; phases are
 * quantized with q (NULL = continuous).  O(n^3).  Returns OPTINC_EINPUT when U
 * is not square. */
optinc_status optinc_mesh_decompose(const optinc_cmat *U, optinc_mesh_kind kind,
                                    const optinc_quantizer *q, optinc_mesh **out,
                                    optinc_error *err);
optinc_mesh *optinc_mesh_new(optinc_mesh_kind kind, int modes);  /* empty, n_mzi slots */
void optinc_mesh_free(optinc_mesh *mesh);

/* Strawberry Fields' decompositions (strawberryfields.decompositions), the
 * whole computation of its functions of these names: its unitarity check,
 * the mesh, and its elements as T(theta, phi) of Clements et al., Eq. 1
 * (the T and Ti convention of SF's lists), in SF's order.  Built for the
 * Python drop-in optinc.compat.strawberryfields (optinc-python(7)). */
typedef enum optinc_sf_form {
    OPTINC_SF_RECTANGULAR,            /* tilist, diagonal, tlist */
    OPTINC_SF_RECTANGULAR_PHASE_END,  /* tlist, diagonal */
    OPTINC_SF_TRIANGULAR              /* tlist, diagonal */
} optinc_sf_form;

/* The caller's arrays for SF's lists of [n, n + 1, theta, phi, size]: the
 * n(n-1)/2 elements of the form's lists one after the other in SF's order
 * (rectangular: tilist's n_first, then tlist), and the n entries of the
 * diagonal. */
typedef struct optinc_sf_lists {
    int *mode;                 /* each element's n (its m is n + 1) */
    double *theta, *phi;
    double complex *diagonal;
    int n_first;               /* set by the call: the first list's length */
} optinc_sf_lists;

/* SF's function `form` of V with SF's check, max |V V^H - I| <= tol
 * (numpy.allclose(V @ V^H, I, atol=tol, rtol=0); NaN fails): OPTINC_EINPUT
 * when V is not square or fails it, OPTINC_ERUN when out of memory.  With
 * threads >= 2 the check runs on a second thread beside the decomposition
 * (not faster on a shared machine, optinc-python(7)); the results are the
 * same bits for any threads. */
optinc_status optinc_mesh_sf(const optinc_cmat *V, optinc_sf_form form, double tol,
                             int threads, optinc_sf_lists *out, optinc_error *err);

/* The 2x2 matrix of one physical MZI (row-major m[0..3]). */
void optinc_mzi_matrix(double theta, double phi, double complex m[4]);

/* Transfer matrix of the mesh rebuilt from the programmed phases only
 * (NULL when out of memory). */
optinc_cmat *optinc_mesh_matrix(const optinc_mesh *mesh);
/* M := mesh . M, in place (M has mesh->modes rows, any number of columns).
 * OPTINC_ERUN when out of memory, M unchanged. */
optinc_status optinc_mesh_apply(const optinc_mesh *mesh, optinc_cmat *M);

#endif
