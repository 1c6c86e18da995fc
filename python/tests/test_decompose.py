"""optinc.decompose and the Strawberry Fields drop-in: meshes rebuilt to
the unitary, T elements exact, and SF's return conventions checked the way
SF's own tests check them (identity, anti-identity, Haar N = 20, rebuilt
through T and Ti of Clements et al., Eq. 1), written here from the paper."""
import os
import sys
import unittest

import numpy as np

import optinc
from optinc import decompose as dec
from optinc.compat import strawberryfields as sf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sf_numpy_path  # noqa: E402

# Rebuilding N = 20 multiplies 190 elements, each rounding at ~1e-16 of a
# unit vector: 190 * 4 ulps is 2e-13 at most; 1e-12 is the acceptance's
# figure (SF's tests use 1e-12 too; measured 3.6e-14 for the anti-identity).
TOL = 1e-12


def haar(n, seed=0):
    """Mezzadri's Haar unitary: QR of a complex Gaussian matrix, R's phases out."""
    r = np.random.default_rng(seed)
    q, rr = np.linalg.qr((r.standard_normal((n, n)) + 1j * r.standard_normal((n, n)))
                         / np.sqrt(2))
    return q * (np.diag(rr) / np.abs(np.diag(rr)))


def T(m, n, theta, phi, size):
    """Eq. 1: e^{i phi} cos, -sin / e^{i phi} sin, cos on modes m, n."""
    M = np.identity(size, complex)
    M[m, m], M[m, n] = np.exp(1j * phi) * np.cos(theta), -np.sin(theta)
    M[n, m], M[n, n] = np.exp(1j * phi) * np.sin(theta), np.cos(theta)
    return M


def Ti(m, n, theta, phi, size):
    """T's inverse, T(theta, -phi) transposed."""
    return T(m, n, theta, -phi, size).T


CASES = [("identity", np.identity(20)), ("anti-identity", np.identity(20)[::-1]),
         ("haar", haar(20)), ("haar7", haar(7, 1)), ("one mode", np.array([[1j]]))]


class TestDecompose(unittest.TestCase):
    def test_meshes_rebuild_the_unitary(self):
        for kind in ("clements", "reck"):
            for name, U in CASES:
                with self.subTest(kind=kind, U=name):
                    table, diagonal = dec.decompose(U, kind)
                    n = len(U)
                    self.assertEqual(table.kind, kind)
                    self.assertEqual(len(table.theta), n * (n - 1) // 2)
                    np.testing.assert_allclose(dec.reconstruct(table, diagonal), U,
                                               rtol=0, atol=TOL)
                    np.testing.assert_allclose(np.abs(diagonal), 1, rtol=0, atol=1e-15)

    def test_clements_and_reck_are_the_named_kinds(self):
        U = haar(6, 2)
        self.assertEqual(dec.clements(U)[0].columns, 6)
        self.assertEqual(dec.reck(U)[0].columns, 2 * 6 - 3)

    def test_t_elements_are_exact(self):
        """The MZIs as T elements in propagation order, D at the output."""
        for kind in ("clements", "reck"):
            U = haar(12, 3)
            rows, theta, phi, D = dec.t_elements(*dec.decompose(U, kind))
            M = np.identity(12, complex)
            for m, t, p in zip(rows, theta, phi):
                M = T(m, m + 1, t, p, 12) @ M
            np.testing.assert_allclose(np.diag(D) @ M, U, rtol=0, atol=TOL)

    def test_reconstruct_uses_the_diagonal_given(self):
        U = haar(5, 4)
        table, diagonal = dec.clements(U)
        np.testing.assert_allclose(dec.reconstruct(table), U, rtol=0, atol=TOL)
        np.testing.assert_allclose(dec.reconstruct(table, -diagonal), -U, rtol=0, atol=TOL)
        with self.assertRaisesRegex(ValueError, "^diagonal: give 5"):
            dec.reconstruct(table, diagonal[:3])

    def test_not_unitary(self):
        for bad in (np.ones((3, 3)), np.ones((2, 3)), np.zeros(4), np.full((2, 2), np.nan),
                    1.0001 * np.identity(4)):
            with self.assertRaisesRegex(ValueError, "^The input matrix is not unitary$"):
                dec.clements(bad)
        # within tol passes, as numpy.allclose(U U^H, I, atol=tol, rtol=0)
        dec.clements(1.0001 * np.identity(4), tol=1e-3)
        with self.assertRaisesRegex(ValueError, "^kind 'butterfly'"):
            dec.decompose(np.identity(2), "butterfly")
        with self.assertRaisesRegex(TypeError, "^U holds"):
            dec.clements(np.array([["a"]]))

    def test_a_circuit_mesh_is_a_decomposition(self):
        """compile()'s meshes are tables reconstruct() takes."""
        U = haar(6, 5)
        mesh = optinc.compile(U, attenuators="none").layers[0].meshes[0]
        np.testing.assert_allclose(dec.reconstruct(mesh), U, rtol=0, atol=TOL)


def sf_rect_modes(n):
    """The upper modes of SF's rectangular nulling sequence (Clements et
    al., supplementary): Ti on even diagonals, T on odd ones."""
    ti, t = [], []
    for k, i in enumerate(range(n - 2, -1, -1)):
        if k % 2 == 0:
            ti += list(range(n - 2 - i, -1, -1))
        else:
            t += list(range(i, n - 1))
    return ti, t


def sf_tri_modes(n):
    """SF's triangular order: its nulling sequence (column n-i-2 from the
    bottom up), reversed."""
    return [n - j - 2 for i in range(n - 2, -1, -1) for j in range(i + 1)][::-1]


def apply(elements, f, M):
    """f(elements[-1]) ... f(elements[0]) . M"""
    for i in elements:
        M = f(*i) @ M
    return M


# Each function: how SF's tests rebuild V from its result, the elements in
# the order SF lists them, and the upper modes of that order.
FORMS = {
    sf.rectangular: lambda ti, d, t, n: (
        apply(reversed(t), Ti, np.diag(d) @ apply(ti, T, np.identity(n))), ti + t,
        sum(sf_rect_modes(n), [])),
    sf.rectangular_phase_end: lambda t, d, none, n: (
        np.diag(d) @ apply(t, T, np.identity(n)), t,
        sf_rect_modes(n)[0] + sf_rect_modes(n)[1][::-1]),
    sf.triangular: lambda t, d, none, n: (apply(t, Ti, np.diag(d)), t, sf_tri_modes(n)),
}


class TestStrawberryFields(unittest.TestCase):
    def test_rebuilt_through_T_and_Ti(self):
        for f, rebuild in FORMS.items():
            for name, U in CASES:
                with self.subTest(f=f.__name__, U=name):
                    out = f(U)
                    if f is not sf.rectangular:
                        self.assertIsNone(out[2])
                    M, elements, modes = rebuild(*out, len(U))
                    np.testing.assert_allclose(M, U, rtol=0, atol=TOL)
                    self.assertEqual([i[0] for i in elements], modes)
                    self.check_entries(elements, len(U))

    def check_entries(self, elements, n):
        for m, m1, theta, phi, size in elements:
            self.assertEqual((type(m), m1, size), (int, m + 1, n))
            # SF's thetas are arctan(|r|) (or 0, pi/2): in [0, pi/2]
            self.assertTrue(-1e-15 <= theta <= np.pi / 2 + 1e-15, theta)
            self.assertTrue(-np.pi - 1e-15 <= phi <= 2 * np.pi, phi)

    def test_identity_is_exact(self):
        """SF's exact-zero tests: the identity's elements are all theta 0."""
        tlist, diags, _ = sf.rectangular_phase_end(np.identity(20))
        self.assertEqual({i[2] for i in tlist}, {0.0})

    def test_arrays_are_the_numpy_paths(self):
        """The library's arrays (optinc_mesh_sf) against the drop-in's former
        NumPy path: modes, order and thetas are the same bits, and so are the
        phases that are sums and numpy.mod of the mesh's.  The diagonal (a
        product of two unit complex numbers) and rectangular's undone phases
        (through numpy.angle of it) go through NumPy's SIMD kernels, which
        round the last bit unlike libm (measured: 31% of arctan2 results
        differ by an ulp on an AVX-512 machine); an undone phase sums at most
        N/2 pushes, each a few ulps of 2 pi (8.9e-16), so N = 64 allows
        64 * 8.9e-16 = 5.7e-14: 1e-13 (measured 3.6e-15 at N = 64)."""
        forms = [(sf._RECTANGULAR, sf_numpy_path.rectangular),
                 (sf._RECTANGULAR_PHASE_END, sf_numpy_path.rectangular_phase_end),
                 (sf._TRIANGULAR, sf_numpy_path.triangular)]
        cases = CASES + [("haar%d" % n, haar(n, n)) for n in (2, 3, 4, 5, 8, 33, 64)] + \
            [("anti-identity 7", np.identity(7)[::-1])]
        for form, numpy_path in forms:
            for name, U in cases:
                with self.subTest(form=form, U=name):
                    mode, theta, phi, diagonal, first = sf._arrays(U, form, 1e-11)
                    mode0, theta0, phi0, diagonal0, first0 = numpy_path(U)
                    self.assertEqual(first, first0)
                    np.testing.assert_array_equal(mode, mode0)
                    np.testing.assert_array_equal(theta, theta0)
                    exact = first if form == sf._RECTANGULAR else len(phi)
                    np.testing.assert_array_equal(phi[:exact], phi0[:exact])
                    turns = lambda d: np.abs(np.angle(np.exp(1j * d)))
                    self.assertLess(turns(phi[exact:] - phi0[exact:]).max(initial=0), 1e-13)
                    self.assertLess(np.abs(diagonal - diagonal0).max(), 1e-13)

    def test_lists_are_sfs_types(self):
        """Python ints and floats, as SF's lists hold, and SF's split."""
        n = 9
        ti, diagonal, t = sf.rectangular(haar(n, 8))
        self.assertEqual((len(ti), len(t)), (16, 20))      # 1+3+5+7 and 2+4+6+8
        self.assertEqual(diagonal.dtype, complex)
        for e in ti + t:
            self.assertEqual([type(x) for x in e], [int, int, float, float, int])

    def test_not_square(self):
        for f in (sf.rectangular, sf.rectangular_phase_end, sf.triangular):
            for bad in (np.ones((2, 3)), np.identity(3)[:2], np.zeros(4), np.zeros((0, 0)),
                        np.identity(8).reshape(2, 4, 8)):
                with self.assertRaisesRegex(ValueError, "^The input matrix is not unitary$"):
                    f(bad)
            with self.assertRaisesRegex(TypeError, "^V holds"):
                f(np.array([["a"]]))

    def test_not_unitary(self):
        A = np.random.default_rng(6).random((5, 5)) + 1j
        for f in (sf.rectangular, sf.rectangular_phase_end, sf.triangular):
            for bad in (np.full((3, 3), np.nan), np.diag([1, 1, np.inf]), 2 * haar(6, 1)):
                with self.assertRaisesRegex(ValueError, "^The input matrix is not unitary$"):
                    f(bad)
            with self.assertRaisesRegex(ValueError, "^The input matrix is not unitary$"):
                f(A)
            with self.assertRaisesRegex(ValueError, "^The input matrix is not unitary$"):
                f(1.0001 * np.identity(3), tol=1e-5)
            f(1.0001 * np.identity(3), tol=1e-3)


if __name__ == "__main__":
    unittest.main()
