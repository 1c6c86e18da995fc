"""Strawberry Fields' interferometer decompositions on optinc's O(N^3) C
decomposition: replace

    from strawberryfields.decompositions import rectangular, triangular

by

    from optinc.compat.strawberryfields import rectangular, triangular

The functions take SF's arguments and return what SF's do: lists of
[n, m, theta, phi, n_size] in SF's order and matrix convention (T and Ti of
Clements et al., Eq. 1, as SF's T() and Ti() build them) and the diagonal,
and raise ValueError("The input matrix is not unitary") when
max|V V^H - I| > tol.

How they are made (optinc-python(7)): optinc's mesh is SF's nulling
sequence turned into physical MZIs with the phases pushed to the output;
optinc.decompose.t_elements() turns the MZIs back into T elements exactly,
whose sequence on each pair of modes is SF's, so a stable match of (mode
pair, occurrence) puts them in SF's order.  rectangular() then undoes SF's
own last step (rectangular_phase_end pushes the T elements of the second
half through the middle diagonal, T^-1 D = D' T'): each push is inverted in
the reverse order, one closed formula per element.  triangular() is the Reck
mesh of V's transpose, V^T = D T_K ... T_1, read backwards: V = Ti_1 ... Ti_K D
with Ti(theta, phi) = T(theta, -phi)^T.  Angles agree with SF's modulo 2 pi
and to rounding (SF's own arithmetic is O(N^5) and rounds differently).
"""
import collections
import gc
import threading

import numpy as np

from .. import decompose as _dec


def _rect_modes(n):
    """The upper modes of SF's rectangular elements: those of its Ti list,
    then those of its T list, each in SF's order."""
    ti, t = [], []
    for k, i in enumerate(range(n - 2, -1, -1)):
        if k % 2 == 0:
            ti.append(np.arange(n - 2 - i, -1, -1))
        else:
            t.append(np.arange(i, n - 1))
    cat = lambda parts: np.concatenate(parts) if parts else np.zeros(0, np.int64)
    return cat(ti), cat(t)


def _tri_modes(n):
    """The upper modes of SF's triangular elements, in SF's (returned) order."""
    parts = [np.arange(n - 2, n - 3 - i, -1) for i in range(n - 2, -1, -1)]
    return np.concatenate(parts)[::-1] if parts else np.zeros(0, np.int64)


def _wrap(phi):
    """phi in (-pi, pi], as numpy.angle gives SF's nulling phases."""
    return np.pi - np.mod(np.pi - phi, 2 * np.pi)


def _occurrences(modes, n):
    """mode * n + (how many earlier entries have the same mode): a key that
    names each element of a mesh by its place on its pair of modes."""
    order = np.argsort(modes, kind="stable")
    sorted_modes = modes[order]
    starts = np.searchsorted(sorted_modes, sorted_modes, side="left")
    occ = np.empty(len(modes), np.int64)
    occ[order] = np.arange(len(modes)) - starts
    return modes * n + occ


def _in_order(rows, want, n):
    """The permutation p with rows[p] == want, matching the k-th element
    on each pair of modes with the k-th."""
    p = np.empty(len(want), np.int64)
    p[np.argsort(_occurrences(want, n), kind="stable")] = \
        np.argsort(_occurrences(rows, n), kind="stable")
    return p


# The permutation into SF's order depends on the mesh's shape only, which
# depends on N only: like a plan, it is made once per (form, N) and reused
# while the mesh's rows are the same (the last few are kept).
_ORDERS = collections.OrderedDict()
_ORDERS_KEPT = 4
_orders_lock = threading.Lock()


def _sf_order(form, rows, n):
    """(p, lead): rows[p] is SF's sequence of upper modes for form
    ("rectangular": its Ti elements, the first lead, then its T elements
    in push order; "triangular": its returned order)."""
    with _orders_lock:
        hit = _ORDERS.get((form, n))
        if hit is not None and np.array_equal(hit[0], rows):
            _ORDERS.move_to_end((form, n))
            return hit[1], hit[2]
    if form == "rectangular":
        ti, t = _rect_modes(n)
        want, lead = np.concatenate([ti, t[::-1]]), len(ti)
    else:
        want, lead = _tri_modes(n), 0
    p = _in_order(rows, want, n)
    with _orders_lock:
        _ORDERS[(form, n)] = (rows.copy(), p, lead)
        while len(_ORDERS) > _ORDERS_KEPT:
            _ORDERS.popitem(last=False)
    return p, lead


def _list(rows, theta, phi, n):
    """SF's lists of [n, m, theta, phi, n_size].  Half a million small lists
    (N = 1024) would set off the cyclic garbage collector over and over,
    which doubled the time; they hold no cycles, so it waits."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return [[m, m + 1, t, p, n] for m, t, p in zip(rows.tolist(), theta.tolist(),
                                                        phi.tolist())]
    finally:
        if enabled:
            gc.enable()


def _phase_end(V, tol):
    table, diagonal = _dec.clements(V, tol)
    n = table.modes
    rows, theta, phi, D = _dec.t_elements(table, diagonal)
    p, lead = _sf_order("rectangular", rows, n)
    # SF's Ti phases come from numpy.angle, its pushed ones modulo 2 pi
    phi = np.concatenate([_wrap(phi[p[:lead]]), np.mod(phi[p[lead:]], 2 * np.pi)])
    return rows[p], theta[p], phi, D, lead


def rectangular_phase_end(V, tol=1e-11):
    """SF's rectangular_phase_end: (tlist, diagonal, None) with
    V = diag(diagonal) . T(tlist[-1]) ... T(tlist[0])."""
    rows, theta, phi, D, _ = _phase_end(V, tol)
    return _list(rows, theta, phi, len(D)), D, None


def rectangular(V, tol=1e-11):
    """SF's rectangular: (tilist, diagonal, tlist) with
    V = Ti(tlist[0]) ... Ti(tlist[-1]) . diag(diagonal) . T(tilist[-1]) ... T(tilist[0])."""
    rows, theta, phi, D, n_ti = _phase_end(V, tol)
    n = len(D)
    angle = np.angle(D)
    # Undo SF's pushes, last first, which is tlist's order: a push of
    # T(theta, f) on modes (m, m+1) through D gave phi = D[m] - D[m+1] + pi
    # and left D[m] = D[m+1] - f + pi, D[m+1] as it was.  Along one of
    # tlist's diagonals the modes ascend, so every undo reads the angles
    # the diagonal started from: a diagonal is one vector step.
    t_rows, t_theta, pushed = rows[n_ti:][::-1], theta[n_ti:][::-1], phi[n_ti:][::-1]
    f = np.empty(len(pushed))
    start = 0
    for length in range(2, n, 2):           # tlist's diagonals: k odd, k + 1 elements
        s = slice(start, start + length)
        m = t_rows[s]
        beta = angle[m + 1]
        f[s] = np.pi - np.mod(angle[m] - beta, 2 * np.pi)
        angle[m] = pushed[s] + beta - np.pi
        start += length
    return (_list(rows[:n_ti], theta[:n_ti], phi[:n_ti], n), np.exp(1j * angle),
            _list(t_rows, t_theta, f, n))


def triangular(V, tol=1e-11):
    """SF's triangular: (tlist, diagonal, None) with
    V = Ti(tlist[-1]) ... Ti(tlist[0]) . diag(diagonal)."""
    a = _dec._unitary(V, tol)
    table, diagonal = _dec.mesh_of(a.T, "reck")
    rows, theta, phi, D = _dec.t_elements(table, diagonal)
    p, _ = _sf_order("triangular", rows[::-1], len(D))
    return _list(rows[::-1][p], theta[::-1][p], _wrap(-phi[::-1][p]), len(D)), D, None
