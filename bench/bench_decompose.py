"""What the decompositions cost from Python: optinc.decompose and the
Strawberry Fields drop-in (optinc.compat.strawberryfields) at N = 64, 256,
1024 on a Haar unitary, against the library's C call alone
(optinc_mesh_decompose through ctypes), the drop-in's own call
(optinc_mesh_sf: SF's check, the mesh, SF's arrays), numpy.linalg.svd of the same size,
and an O(N^3) NumPy reference of SF's rectangular nulling sequence written
here (each T or Ti touches its two rows or columns only; SF's own code
multiplies N x N matrices for each, O(N^5)).  Strawberry Fields itself is
timed where it can be imported.

    OPTINC_LIBRARY=build/liboptinc.so /usr/bin/python3 bench/bench_decompose.py

Times are CPU seconds of the process (time.process_time, every thread),
best of several runs, as the C benchmarks measure; the machine is often
shared.  A second table splits the drop-in's overhead over the C call:
SF's unitarity check, the conversion into SF's arrays, and SF's Python
lists made two ways (an object array filled by columns, which the drop-in
uses, and a list comprehension), beside the least those lists can cost
(the lists alone with their floats, per object); and the check on a second
thread beside the decomposition (optinc_mesh_sf's threads = 2), in CPU and
in wall seconds.  Prints the closing-table lines
TARGET|SF drop-in rectangular from Python, N=1024 (CPU)|S|<=|1.0|s and
TARGET|drop-in overhead over the C call, N=256|PCT|<=|10|%.
"""
import ctypes
import gc
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


def best(f, reps, clock=time.process_time):
    """The least time of reps calls of f; what a call returns is freed
    after the clock stops (SF's lists take 1 to 2 ms to free at N = 256)."""
    t = float("inf")
    for _ in range(reps):
        t0 = clock()
        result = f()
        t = min(t, clock() - t0)
        del result
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


def sf_call(U, threads):
    """optinc_mesh_sf (rectangular) alone, with its arrays made once."""
    m = _cmesh.cmat_from(U, "U")
    n = len(U)
    k = n * (n - 1) // 2
    arrays = (np.empty(k, np.intc), np.empty(k), np.empty(k), np.empty(n, complex))
    ptr = lambda x, t: x.ctypes.data_as(ctypes.POINTER(t))
    lists = _cmesh.CSfLists(ptr(arrays[0], ctypes.c_int), ptr(arrays[1], ctypes.c_double),
                            ptr(arrays[2], ctypes.c_double), ptr(arrays[3], ctypes.c_double), 0)
    lists.keep = arrays         # the C call writes into them: they live as long as run

    def run():
        with _clib.one_blas_thread():
            _clib.lib.optinc_mesh_sf(m, 0, 1e-11, threads, ctypes.byref(lists),
                                     ctypes.byref(_clib.CError()))
    return m, run, arrays


def comprehension(mode, theta, phi, n):
    """SF's lists the plain Python way, for comparison (gc off, as the drop-in)."""
    gc.disable()
    try:
        return [[m, m + 1, t, p, n] for m, t, p in zip(mode.tolist(), theta.tolist(),
                                                        phi.tolist())]
    finally:
        gc.enable()


def floor(theta, phi):
    """The least SF's lists cost: K lists of five, and 2K floats."""
    gc.disable()
    try:
        return [[0, 0, 0, 0, 0] for _ in range(len(theta))], theta.tolist(), phi.tolist()
    finally:
        gc.enable()


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


def overheads(n, reps):
    """The second table's row for N = n: each of its timings once a round,
    round after round (the machine's load drifts), the best of each; CPU
    seconds, and wall seconds for the calls named so."""
    U = haar(n, n)
    m, c_run = c_call(U)
    m1, sf1, (mode, theta, phi, _) = sf_call(U, 1)
    m2, sf2, _ = sf_call(U, 2)
    jobs = [(c_run, time.process_time), (sf1, time.process_time), (sf2, time.process_time),
            (lambda: _clib.lib.optinc_cmat_unitary_within(m, 1e-11), time.process_time),
            (lambda: dropin._lists(mode, theta, phi, n), time.process_time),
            (lambda: comprehension(mode, theta, phi, n), time.process_time),
            (lambda: floor(theta, phi), time.process_time),
            (c_run, time.perf_counter), (sf1, time.perf_counter), (sf2, time.perf_counter)]
    t = [float("inf")] * len(jobs)
    for _ in range(reps):
        for i, (f, clock) in enumerate(jobs):
            t[i] = min(t[i], best(f, 1, clock))
    for x in (m, m1, m2):
        _clib.lib.optinc_cmat_free(x)
    return t


def main():
    sf = strawberryfields()
    print("Decompositions of a Haar unitary from Python (CPU seconds, best of runs)")
    print("%6s %9s %9s %9s %9s %9s %9s %9s %9s %9s %10s" % (
        "N", "C call", "sf call", "clements", "rect", "rect_pe", "triang", "svd", "numpy N3",
        "SF", "rect/C-1"))
    targets = {}
    for n in SIZES:
        U = haar(n, n)
        reps = 3 if n >= 1024 else 7
        m, run = c_call(U)
        tc = best(run, reps)
        _clib.lib.optinc_cmat_free(m)
        m, run, _ = sf_call(U, 1)
        tsc = best(run, reps)
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
        print("%6d %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.3f %9s %9.0f%%" % (
            n, tc, tsc, td, tr, tp, tt, ts, tn, "-" if tsf is None else "%.3f" % tsf,
            100 * (tr / tc - 1)))
        sys.stdout.flush()
        # the reference computes the same diagonal as the drop-in's rectangular
        # (SF's sequence both); a check that it is that reference, to 1e-9
        # (N^2/2 rotations of rounding 1e-16 each on unit vectors: 1e-10 at N = 1024)
        assert np.abs(reference - dropin.rectangular(U)[1]).max() < 1e-9
        targets[n] = (tr, tc)
    print("Where the drop-in's overhead goes (CPU ms, best of runs; % of the C call)")
    print("%6s %8s %8s %8s %10s %10s %10s %10s %10s %9s %7s %7s %7s" % (
        "N", "C call", "sf call", "sf 2thr", "check", "convert", "lists", "compreh.", "floor",
        "ns/object", "wall C", "wall 1", "wall 2"))
    for n in SIZES:
        tc, s1, s2, check, lists, compr, low, wc, w1, w2 = overheads(n, 5 if n >= 1024 else 15)
        k = n * (n - 1) // 2
        pct = lambda t: "%5.2f %3.0f%%" % (1e3 * t, 100 * t / tc)
        print("%6d %8.2f %8.2f %8.2f %s %s %s %s %s %9.1f %7.2f %7.2f %7.2f" % (
            n, 1e3 * tc, 1e3 * s1, 1e3 * s2, pct(check), pct(s1 - tc - check), pct(lists),
            pct(compr), pct(low), 1e9 * low / (3 * k), 1e3 * wc, 1e3 * w1, 1e3 * w2))
        sys.stdout.flush()
    tr, tc = targets[256]
    print("TARGET|SF drop-in rectangular from Python, N=1024 (CPU)|%.3f|<=|1.0|s"
          % targets[1024][0])
    print("TARGET|drop-in overhead over the C call, N=256|%.0f|<=|10|%%" % (100 * (tr / tc - 1)))


if __name__ == "__main__":
    main()
