"""Strawberry Fields' interferometer decompositions on optinc's O(N^3) C
decomposition: replace

    from strawberryfields.decompositions import rectangular, triangular

by

    from optinc.compat.strawberryfields import rectangular, triangular

The functions take SF's arguments and return what SF's do: lists of
[n, m, theta, phi, n_size] in SF's order and matrix convention (T and Ti of
Clements et al., Eq. 1, as SF's T() and Ti() build them) and the diagonal,
and raise ValueError("The input matrix is not unitary") unless
max|V V^H - I| <= tol.

The library does all of SF's computation in one call (optinc_mesh_sf,
mesh.h: the check, optinc's mesh, its MZIs turned back into T elements
exactly, SF's order and each form's last step, optinc-python(7)) and
returns flat arrays; what is left here is making SF's Python lists of them.
Angles agree with SF's modulo 2 pi and to rounding (SF's own arithmetic is
O(N^5) and rounds differently).
"""
import ctypes
import gc

import numpy as np

from .. import _clib, _cmesh
from .. import decompose as _dec
from .._clib import lib
from .._core import _raise

# optinc_sf_form (mesh.h)
_RECTANGULAR, _RECTANGULAR_PHASE_END, _TRIANGULAR = range(3)


def _arrays(V, form, tol):
    """optinc_mesh_sf of V: (modes, thetas, phis, diagonal, first list's length)."""
    a = _dec._square(V, "V")
    n = len(a)
    k = n * (n - 1) // 2
    mode, theta, phi = np.empty(k, np.intc), np.empty(k), np.empty(k)
    diagonal = np.empty(n, complex)
    ptr = lambda x, t: x.ctypes.data_as(ctypes.POINTER(t))
    lists = _cmesh.CSfLists(ptr(mode, ctypes.c_int), ptr(theta, ctypes.c_double),
                            ptr(phi, ctypes.c_double), ptr(diagonal, ctypes.c_double), 0)
    # The library reads V where it is when it is C-ordered complex (no copy,
    # a tenth of the C call at N = 256 with the copy's fresh pages).
    a = np.ascontiguousarray(a, complex)
    m = _cmesh.CCmat(n, n, ptr(a, ctypes.c_double))
    err = _clib.CError()
    with _clib.one_blas_thread():
        status = lib.optinc_mesh_sf(ctypes.byref(m), form, tol, 1, ctypes.byref(lists),
                                    ctypes.byref(err))
    if status == 2:
        raise ValueError("The input matrix is not unitary")
    if status:
        _raise(status, err)
    return mode, theta, phi, diagonal, lists.n_first


def _lists(mode, theta, phi, n):
    """SF's lists of [n, m, theta, phi, n_size] (Python ints and floats):
    an object array filled a column at a time, then listed, which measured
    the fastest way (optinc-python(7)); the lists share one int object per
    mode (15% of the lists' time at N = 1024, where ints are not cached).
    Half a million small lists (N = 1024) would set off the cyclic garbage
    collector over and over, which doubled the time; they hold no cycles,
    so it waits."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        ints = np.arange(n + 1).astype(object)
        table = np.empty((len(mode), 5), object)
        table[:, 0] = ints[mode]
        table[:, 1] = ints[1:][mode]
        table[:, 2] = theta
        table[:, 3] = phi
        table[:, 4] = n
        return table.tolist()
    finally:
        if enabled:
            gc.enable()


def rectangular_phase_end(V, tol=1e-11):
    """SF's rectangular_phase_end: (tlist, diagonal, None) with
    V = diag(diagonal) . T(tlist[-1]) ... T(tlist[0])."""
    mode, theta, phi, diagonal, _ = _arrays(V, _RECTANGULAR_PHASE_END, tol)
    return _lists(mode, theta, phi, len(diagonal)), diagonal, None


def rectangular(V, tol=1e-11):
    """SF's rectangular: (tilist, diagonal, tlist) with
    V = Ti(tlist[0]) ... Ti(tlist[-1]) . diag(diagonal) . T(tilist[-1]) ... T(tilist[0])."""
    mode, theta, phi, diagonal, first = _arrays(V, _RECTANGULAR, tol)
    both = _lists(mode, theta, phi, len(diagonal))
    return both[:first], diagonal, both[first:]


def triangular(V, tol=1e-11):
    """SF's triangular: (tlist, diagonal, None) with
    V = Ti(tlist[-1]) ... Ti(tlist[0]) . diag(diagonal)."""
    mode, theta, phi, diagonal, _ = _arrays(V, _TRIANGULAR, tol)
    return _lists(mode, theta, phi, len(diagonal)), diagonal, None
