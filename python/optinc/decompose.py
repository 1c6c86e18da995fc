"""Unitaries into meshes of MZIs on NumPy arrays: the library's O(N^3)
Clements and Reck decompositions (optinc_mesh_decompose, mesh.h) and the
matrix rebuilt from their phases alone (optinc_mesh_matrix).

    table, diagonal = optinc.decompose.clements(U)
    U2 = optinc.decompose.reconstruct(table, diagonal)

table is an optinc.circuit.Mesh of the physical MZIs in propagation order
(column, row = upper mode, theta internal, phi external; the netlist's
convention, MZ = B.diag(e^{i theta},1).B.diag(e^{i phi},1)), diagonal the
output screen, U = diag(diagonal) . MZ_K ... MZ_1.  t_elements() turns the
table into the T(theta, phi) elements of Clements et al.'s Eq. 1, the form
optinc.compat.strawberryfields returns.
"""
import ctypes

import numpy as np

from . import _clib, _cmesh
from ._clib import lib
from ._core import _call
from .circuit import MESHES, mesh_table


def _square(U, what="U"):
    """U as a square, non-empty 2-D array of numbers; otherwise SF's
    ValueError("The input matrix is not unitary")."""
    a = np.asarray(U)
    if a.dtype.kind not in "biufc":
        raise TypeError("%s holds %s: give a complex or real unitary" % (what, a.dtype))
    n = a.shape[0] if a.ndim == 2 else -1
    if a.ndim != 2 or a.shape != (n, n) or n == 0:
        raise ValueError("The input matrix is not unitary")
    return a


def decompose(U, kind, tol=1e-11):
    """U (unitary within tol: max|U U^H - I| <= tol, numpy.allclose's test
    with rtol = 0, as Strawberry Fields checks) decomposed into a mesh of
    kind ("clements" or "reck"): (table, diagonal), see the module's
    comment."""
    if kind not in MESHES:
        raise ValueError("kind %r: use %s" % (kind, " or ".join(map(repr, MESHES))))
    m = _cmesh.cmat_from(_square(U), "U")
    out = ctypes.POINTER(_cmesh.CMesh)()
    try:
        with _clib.one_blas_thread():
            unitary = lib.optinc_cmat_unitary_within(m, tol)
            if unitary < 0:
                raise MemoryError("no memory to check U's unitarity")
            if not unitary:
                raise ValueError("The input matrix is not unitary")
            _call(lib.optinc_mesh_decompose, m, MESHES.index(kind), None, ctypes.byref(out))
    finally:
        lib.optinc_cmat_free(m)
    try:
        table = mesh_table(out)
    finally:
        lib.optinc_mesh_free(out)
    return table, np.exp(1j * table.screen)


def clements(U, tol=1e-11):
    """The rectangular (Clements) mesh of the unitary U: (table, diagonal)."""
    return decompose(U, "clements", tol)


def reck(U, tol=1e-11):
    """The triangular (Reck) mesh of the unitary U: (table, diagonal)."""
    return decompose(U, "reck", tol)


def reconstruct(table, diagonal=None):
    """The unitary diag(diagonal) . MZ_K ... MZ_1 of a table's phases (the
    table's own screen when diagonal is None), rebuilt by the library."""
    n, k = table.modes, len(table.theta)
    if not (len(table.row) == len(table.phi) == k and k == n * (n - 1) // 2):
        raise ValueError("table: %d MZIs on %d modes: a mesh has %d"
                         % (k, n, n * (n - 1) // 2))
    screen = table.screen if diagonal is None else np.angle(np.asarray(diagonal))
    if np.shape(screen) != (n,):
        raise ValueError("diagonal: give %d entries, one per mode" % n)
    m = lib.optinc_mesh_new(MESHES.index(table.kind), n)
    if not m:
        raise MemoryError("no memory for a mesh of %d modes" % n)
    try:
        mzi, scr = m.contents.mzi, m.contents.screen
        for j in range(k):
            z = mzi[j]
            z.mode, z.column = int(table.row[j]), int(table.column[j])
            z.theta.rad = z.theta.target_rad = table.theta[j]
            z.phi.rad = z.phi.target_rad = table.phi[j]
            z.theta.code = z.phi.code = -1
        for j in range(n):
            scr[j].rad = scr[j].target_rad = screen[j]
            scr[j].code = -1
        return _cmesh.cmat_array(lib.optinc_mesh_matrix(m))
    finally:
        lib.optinc_mesh_free(m)


def t_elements(table, diagonal):
    """The mesh as T elements (Clements et al., Eq. 1, on modes (m, m+1)):
    T(theta, phi) = [[e^{i phi} cos theta, -sin theta],
                     [e^{i phi} sin theta,  cos theta]],
    U = diag(D) . T_K ... T_1 in the table's propagation order.  Returns
    (rows, theta, phi, D).

    Exact conversion: one MZI is a T element times a phase common to its two
    modes, MZ(a, b) = -i e^{i a/2} T((pi - a)/2, b + pi).  Phases on a
    T's inputs pass it as T(t, p) diag(e^{i x}, e^{i y}) = e^{i y} T(t, p + x - y),
    so a sweep in propagation order carries each mode's phase forward to
    the next element's external phase and, at the end, into D.  MZIs of one
    column share no mode, so the sweep goes a column at a time."""
    rows, a, b = table.row, table.theta, table.phi
    theta = (np.pi - a) / 2
    phi = b + np.pi
    common = a / 2 - np.pi / 2
    acc = np.zeros(table.modes)
    cuts = np.flatnonzero(np.diff(table.column)) + 1
    for s in np.split(np.arange(len(rows)), cuts):
        m = rows[s]
        phi[s] += acc[m] - acc[m + 1]
        acc[m] = acc[m + 1] = acc[m + 1] + common[s]
    return rows, theta, phi, np.asarray(diagonal) * np.exp(1j * acc)
