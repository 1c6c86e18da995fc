"""The Strawberry Fields drop-in as it was before its work moved into the
library (optinc_mesh_sf, mesh.h): the C mesh through optinc.decompose,
turned into SF's lists with NumPy.  Kept as the tests' reference for the
arrays the library now returns (test_decompose.py); it returns arrays,
not SF's lists: (modes, thetas, phis, diagonal, length of the first list)."""
import collections
import threading

import numpy as np

from optinc import decompose as _dec


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


def _phase_end(V, tol):
    table, diagonal = _dec.clements(V, tol)
    n = table.modes
    rows, theta, phi, D = _dec.t_elements(table, diagonal)
    p, lead = _sf_order("rectangular", rows, n)
    # SF's Ti phases come from numpy.angle, its pushed ones modulo 2 pi
    phi = np.concatenate([_wrap(phi[p[:lead]]), np.mod(phi[p[lead:]], 2 * np.pi)])
    return rows[p], theta[p], phi, D, lead


def rectangular_phase_end(V, tol=1e-11):
    rows, theta, phi, D, _ = _phase_end(V, tol)
    return rows, theta, phi, D, len(rows)


def rectangular(V, tol=1e-11):
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
    return (np.concatenate([rows[:n_ti], t_rows]), np.concatenate([theta[:n_ti], t_theta]),
            np.concatenate([phi[:n_ti], f]), np.exp(1j * angle), n_ti)


def triangular(V, tol=1e-11):
    rows, theta, phi, D = _dec.t_elements(*_dec.reck(np.asarray(V).T, tol))
    p, _ = _sf_order("triangular", rows[::-1], len(D))
    return rows[::-1][p], theta[::-1][p], _wrap(-phi[::-1][p]), D, len(D) * (len(D) - 1) // 2
