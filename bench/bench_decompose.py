"""What the decompositions cost from Python: optinc.decompose and the
Strawberry Fields drop-in (optinc.compat.strawberryfields) at N = 64, 256,
1024 on a Haar unitary, against the library's C call alone
(optinc_mesh_decompose through ctypes), numpy.linalg.svd of the same size,
and an O(N^3) NumPy reference of SF's rectangular nulling sequence written
here (each T or Ti touches its two rows or columns only; SF's own code
multiplies N x N matrices for each, O(N^5)).  Strawberry Fields itself is
timed where it can be imported.

    OPTINC_LIBRARY=build/liboptinc.so /usr/bin/python3 bench/bench_decompose.py

Times are CPU seconds of the process (time.process_time, every thread),
best of several runs, as the C benchmarks measure; the machine is often
shared.  Prints the closing-table lines
TARGET|SF drop-in rectangular from Python, N=1024 (CPU)|S|<=|1.0|s and
TARGET|drop-in overhead over the C call, N=256|PCT|<=|10|%.
"""
import ctypes
import os
import sys
import time

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
sys.path.insert(0, os.path.join(ROOT, "python"))
from optinc import _clib, _cmesh, decompose  # noqa: E402
from optinc.compat import strawberryfields as dropin  # noqa: E402

SIZES = (64, 256, 1024)


def haar(n, seed):
    r = np.random.default_rng(seed)
    q, rr = np.linalg.qr((r.standard_normal((n, n)) + 1j * r.standard_normal((n, n)))
                         / np.sqrt(2))
    return q * (np.diag(rr) / np.abs(np.diag(rr)))


def best(f, reps):
    t = float("inf")
    for _ in range(reps):
        t0 = time.process_time()
        f()
        t = min(t, time.process_time() - t0)
    return t


def c_call(U):
    """optinc_mesh_decompose alone on a matrix already in C."""
    m = _cmesh.cmat_from(U, "U")

    def run():
        out, err = ctypes.POINTER(_cmesh.CMesh)(), _clib.CError()
        with _clib.one_blas_thread():
            _clib.lib.optinc_mesh_decompose(m, 0, None, ctypes.byref(out), ctypes.byref(err))
        _clib.lib.optinc_mesh_free(out)
    return m, run


def numpy_rectangular(V):
    """SF's rectangular nulling sequence in O(N^3): each Ti (from the
    right) rotates two columns, each T (from the left) two rows."""
    W = np.array(V, complex)
    n = len(W)
    for k, i in enumerate(range(n - 2, -1, -1)):
        if k % 2 == 0:
            for j in reversed(range(n - 1 - i)):
                a, b = W[i + j + 1, j], W[i + j + 1, j + 1]
                theta = np.arctan(abs(a / b)) if a != 0 and b != 0 else (0 if a == 0 else np.pi / 2)
                phi = np.angle(a / b) if a != 0 and b != 0 else 0
                c, s, e = np.cos(theta), np.sin(theta), np.exp(-1j * phi)
                x, y = W[:, j].copy(), W[:, j + 1]
                W[:, j] = x * e * c - y * s
                W[:, j + 1] = x * e * s + y * c
        else:
            for j in range(n - 1 - i):
                a, b = W[i + j + 1, j], W[i + j, j]
                theta = np.arctan(abs(a / b)) if a != 0 and b != 0 else (0 if a == 0 else np.pi / 2)
                phi = np.angle(-a / b) if a != 0 and b != 0 else 0
                c, s, e = np.cos(theta), np.sin(theta), np.exp(1j * phi)
                x, y = W[i + j].copy(), W[i + j + 1]
                W[i + j] = e * c * x - s * y
                W[i + j + 1] = e * s * x + c * y
    return np.diag(W)


def strawberryfields():
    try:
        from strawberryfields import decompositions
        return decompositions
    except ImportError as e:
        print("strawberryfields: not timed: %s (it is not a Debian package)" % e)
        return None


def main():
    sf = strawberryfields()
    print("Decompositions of a Haar unitary from Python (CPU seconds, best of runs)")
    print("%6s %9s %9s %9s %9s %9s %9s %9s %9s %10s" % (
        "N", "C call", "clements", "rect", "rect_pe", "triang", "svd", "numpy N3", "SF",
        "rect/C-1"))
    targets = {}
    for n in SIZES:
        U = haar(n, n)
        reps = 3 if n >= 1024 else 7
        m, run = c_call(U)
        tc = best(run, reps)
        _clib.lib.optinc_cmat_free(m)
        td = best(lambda: decompose.clements(U), reps)
        tr = best(lambda: dropin.rectangular(U), reps)
        tp = best(lambda: dropin.rectangular_phase_end(U), reps)
        tt = best(lambda: dropin.triangular(U), reps)
        ts = best(lambda: np.linalg.svd(U), reps)
        t0 = time.process_time()
        reference = numpy_rectangular(U)
        tn = time.process_time() - t0
        tsf = best(lambda: sf.rectangular(U), 1) if sf is not None and n <= 256 else None
        print("%6d %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.3f %9s %9.0f%%" % (
            n, tc, td, tr, tp, tt, ts, tn, "-" if tsf is None else "%.3f" % tsf,
            100 * (tr / tc - 1)))
        sys.stdout.flush()
        # the reference computes the same diagonal as the drop-in's rectangular
        # (SF's sequence both); a check that it is that reference, to 1e-9
        # (N^2/2 rotations of rounding 1e-16 each on unit vectors: 1e-10 at N = 1024)
        assert np.abs(reference - dropin.rectangular(U)[1]).max() < 1e-9
        targets[n] = (tr, tc)
    tr, tc = targets[256]
    print("TARGET|SF drop-in rectangular from Python, N=1024 (CPU)|%.3f|<=|1.0|s"
          % targets[1024][0])
    print("TARGET|drop-in overhead over the C call, N=256|%.0f|<=|10|%%" % (100 * (tr / tc - 1)))


if __name__ == "__main__":
    main()
