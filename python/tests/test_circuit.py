"""optinc.compile() and the Circuit (test_package checks the layouts of
their structures): the circuit the command line compiles from the same
matrix (compared exactly, through its netlist), the transfer, simulation,
Monte-Carlo, netlist, export and drawings, and every bad argument as a
Python exception naming it."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import optinc

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PROG = os.environ.get("OPTINC") or os.path.join(ROOT, "build", "optinc")


def cli(*args, cwd=None):
    return subprocess.run([PROG] + list(args), check=True, capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def spec_file(folder, W, extra="", layer="", settings="mesh: clements"):
    """A spec of one layer of W (saved beside it as W.npy), as a user writes it."""
    np.save(os.path.join(folder, "W.npy"), W)
    path = os.path.join(folder, "w.yaml")
    with open(path, "w") as f:
        f.write("schema_version: 1\nname: circuit\nsettings: {%s, seed: 0}\n%s"
                "matrices:\n  W: {shape: [%d, %d], dtype: %s, file: W.npy}\n"
                "layers:\n  - {name: L1, matrix: W%s}\n"
                % (settings, extra, W.shape[0], W.shape[1],
                   "complex" if np.iscomplexobj(W) else "real", layer))
    return path


def assert_same_layers(test, a, b):
    """Every table of two circuits equal, bit for bit."""
    test.assertEqual(len(a.layers), len(b.layers))
    for la, lb in zip(a.layers, b.layers):
        test.assertEqual((la.name, la.rows, la.cols, la.gain), (lb.name, lb.rows, lb.cols,
                                                                 lb.gain))
        test.assertEqual(len(la.stages), len(lb.stages))
        for sa, sb in zip(la.stages, lb.stages):
            test.assertEqual(type(sa), type(sb))
            for x, y in zip(sa, sb):
                if isinstance(x, np.ndarray):
                    np.testing.assert_array_equal(x, y)
                else:
                    test.assertEqual(x, y)


def gaussian(rows, cols, seed=0, cplx=False):
    r = np.random.default_rng(seed)
    W = r.standard_normal((rows, cols))
    return W + 1j * r.standard_normal((rows, cols)) if cplx else W


class TestCompile(unittest.TestCase):
    def test_identity(self):
        """The acceptance line of the issue."""
        c = optinc.compile(np.eye(8))
        # 2 meshes of 28 MZIs at theta, phi in {0, pi}: each entry is a sum of
        # products of sin/cos of multiples of pi (|sin pi| = 1.2e-16), so a
        # few dozen ulps at most (measured 2.4e-15)
        np.testing.assert_allclose(c.matrix(), np.eye(8), rtol=0, atol=1e-13)
        self.assertEqual(c.matrix().shape, (8, 8))

    def test_same_circuit_as_the_command_line(self):
        """Phases, targets, codes and gains exactly as `optinc compile`
        writes them for a spec of the same matrix (read back from its
        netlist, whose %.17g numbers read back exactly)."""
        cases = [(gaussian(10, 6, 1), dict(bits=6), "", "phase_shifter: {bits: 6}"),
                 (gaussian(8, 8, 2, cplx=True), dict(mesh="reck"), "", None),
                 (gaussian(8, 8, 3), dict(segments=(2, 2)), ", segments: [2, 2]", None)]
        for W, kw, layer, comp in cases:
            with self.subTest(kw=kw), tempfile.TemporaryDirectory() as d:
                settings = "mesh: %s" % kw.get("mesh", "clements")
                spec = spec_file(d, W, "components: {%s}\n" % comp if comp else "", layer,
                                 settings)
                cli("compile", spec, "-o", os.path.join(d, "w.pnl.sp"))
                theirs = optinc.read_netlist(os.path.join(d, "w.pnl.sp"))
                ours = optinc.compile(np.asfortranarray(W), **kw)
                assert_same_layers(self, ours, theirs)
                if "bits" in kw:
                    self.assertIsNotNone(ours.layers[0].meshes[0].theta_code)
                    self.assertTrue((ours.layers[0].meshes[0].theta_code < 64).all())

    def test_layers_of_a_shipped_netlist(self):
        """A two-layer netlist with an activation: no single matrix, each
        layer's by index or name, and the simulation applies the
        activation between them."""
        c = optinc.read_netlist(os.path.join(ROOT, "netlists", "twolayer.pnl.sp"))
        names = [L.name for L in c.layers]
        self.assertEqual(len(names), 2)
        with self.assertRaisesRegex(ValueError, "^layer: this circuit has activations"):
            c.matrix()
        first = c.matrix(names[0])
        np.testing.assert_array_equal(first, c.matrix(0))
        self.assertEqual(first.shape, (c.layers[0].rows, c.layers[0].cols))
        self.assertEqual(c.layers[0].reconstruction_error, -1)   # no W in a netlist
        x = gaussian(c.layers[0].cols, 3, 16)
        y = c.simulate(x, chip=optinc.Chip())
        self.assertEqual(y.shape, (c.layers[1].rows, 3))

    def test_netlist_round_trip(self):
        W = gaussian(6, 9, 4, cplx=True)
        c = optinc.compile(W, bits=8)
        with tempfile.TemporaryDirectory() as d:
            for form in ("hierarchical", "flat", "expanded", "flat-expanded"):
                p = os.path.join(d, form + ".sp")
                c.write_netlist(p, form=form)
                assert_same_layers(self, c, optinc.read_netlist(p))
            # the writer's bytes again from what it read: the netlist contract
            again = os.path.join(d, "again.sp")
            optinc.read_netlist(os.path.join(d, "hierarchical.sp")).write_netlist(again)
            with open(again, "rb") as f, open(os.path.join(d, "hierarchical.sp"), "rb") as g:
                self.assertEqual(f.read(), g.read())

    def test_any_dtype_and_order(self):
        """int, float32, Fortran order and a strided view give the circuit
        of the float64 C-ordered matrix (one conversion, the same values)."""
        W = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
        ref = optinc.compile(W.astype(float))
        for variant in (W, np.asfortranarray(W), W.astype(np.float32),
                        np.repeat(W, 2, axis=1)[:, ::2], W.tolist()):
            assert_same_layers(self, optinc.compile(variant), ref)

    def test_matrix_of_real_complex_rectangular_segmented(self):
        for W, kw in ((gaussian(10, 6, 5), {}), (gaussian(6, 10, 6, True), {}),
                      (gaussian(8, 8, 8, True), dict(mesh="reck", attenuators="middle"))):
            with self.subTest(shape=W.shape, kw=kw):
                M = optinc.compile(W, **kw).matrix()
                # the SVD (zgesdd) and the meshes' rebuild round at ~1e-15 of
                # sigma_max; 1e-12 relative leaves a factor of 100 (measured
                # 1.3e-15)
                np.testing.assert_allclose(M, W, rtol=0, atol=1e-12 * np.abs(W).max() * 10)

    def test_segmented_layer_is_its_approximation(self):
        """A segmented layer realizes its blocks' unitary-diagonal form
        (circuit.h): the matrix is W within the approximation error it
        reports, in units of the gain."""
        W = gaussian(8, 8, 7)
        c = optinc.compile(W, segments=(2, 2))
        L = c.layers[0]
        self.assertEqual([s[0] for s in L.stages if type(s) is tuple], ["split", "combine"])
        # the reported error is max|W - form| / gain, the form's own
        # rebuild adding rounding (1e-12 of it, as in test_matrix)
        self.assertLessEqual(np.abs(c.matrix() - W).max() / L.gain,
                             L.approximation_error + 1e-12)

    def test_layers_are_read_only_tables(self):
        c = optinc.compile(gaussian(4, 4, 9), bits=4)
        L = c.layers[0]
        self.assertEqual([m.tag for m in L.meshes], ["V", "U"])
        self.assertEqual(L.attenuator_columns[0].tag, "S")
        mesh = L.meshes[0]
        self.assertEqual(len(mesh.theta), 6)
        self.assertTrue(((mesh.row >= 0) & (mesh.row < 3)).all())
        with self.assertRaises(ValueError):
            mesh.theta[0] = 1.0
        # codes program the phases: rad = 2 pi code / 2^bits over [0, 2 pi)
        np.testing.assert_array_equal(mesh.theta, 2 * np.pi * mesh.theta_code / 16)


class TestRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.W = gaussian(6, 4, 10, cplx=True)
        cls.x = gaussian(4, 5, 11, cplx=True)

    def test_simulate(self):
        c = optinc.compile(self.W)
        ideal = c.simulate(self.x, chip=optinc.Chip())
        # one SVD and the meshes: as in test_matrix (measured 2e-15)
        np.testing.assert_allclose(ideal, self.W @ self.x, rtol=0, atol=1e-12)
        np.testing.assert_allclose(c.simulate(self.x[:, 0]), ideal[:, 0], rtol=0, atol=1e-12)
        a = c.simulate(self.x, chip=optinc.Chip(phase_sigma=0.05), seed=3)
        b = c.simulate(self.x, chip=optinc.Chip(phase_sigma=0.05), seed=3)
        self.assertEqual(a.tobytes(), b.tobytes())
        self.assertGreater(np.abs(a - ideal).max(), 1e-3)
        d = c.simulate(self.x, chip=optinc.Chip(phase_sigma=0.05), seed=4)
        self.assertNotEqual(a.tobytes(), d.tobytes())

    def test_chip_file(self):
        c = optinc.compile(self.W)
        chip = os.path.join(ROOT, "specs", "chips", sorted(os.listdir(
            os.path.join(ROOT, "specs", "chips")))[0])
        y = c.simulate(self.x, chip=chip, seed=1)
        self.assertEqual(y.shape, (6, 5))
        self.assertEqual(y.tobytes(), c.simulate(self.x, chip=optinc.Chip(file=chip),
                                                 seed=1).tobytes())

    def test_monte_carlo_as_the_command_line(self):
        """optinc simulate --monte-carlo 5 --calibrate --json on the spec of
        the same matrix and components: the same figures, exactly (its JSON
        numbers read back exactly)."""
        comp = {"mzi": {"phase_error_sigma_rad": 0.01, "splitter_error_sigma": 0.02}}
        U = np.linalg.qr(gaussian(8, 8, 12, True))[0]
        c = optinc.compile(U, attenuators="none", components=comp, seed=0)
        r = c.monte_carlo(5, seed=7, calibrate=True)
        with tempfile.TemporaryDirectory() as d:
            spec = spec_file(d, U, "components: %s\n" % json.dumps(comp),
                             ", attenuators: none")
            out = json.loads(cli("simulate", spec, "--monte-carlo", "5", "--seed", "7",
                                 "--calibrate", "--json").stdout)
        layer = out["layers"][0]
        for ours, theirs in ((r.mean, "chip"), (r.after_mean, "calibrated_chip")):
            self.assertEqual(ours[0]._asdict(), layer[theirs]["mean"])
        self.assertEqual(len(r.samples), 5)
        self.assertGreater(r.after_mean[0].fidelity, r.mean[0].fidelity)

    def test_export_and_draw(self):
        c = optinc.compile(gaussian(4, 4, 13), name="tour")
        with tempfile.TemporaryDirectory() as d:
            c.export("sax", os.path.join(d, "a.json"))
            c.write_netlist(os.path.join(d, "a.pnl.sp"))
            cli("export", os.path.join(d, "a.pnl.sp"), "--format", "sax", "-o",
                os.path.join(d, "b.json"))
            with open(os.path.join(d, "a.json"), "rb") as f, \
                    open(os.path.join(d, "b.json"), "rb") as g:
                self.assertEqual(f.read(), g.read())
            files = c.draw(os.path.join(d, "draw"), formats="svg")
            self.assertTrue(files)
            for p in files:
                self.assertTrue(os.path.getsize(p) > 0, p)
                self.assertTrue(p.endswith(".svg"))


class TestErrors(unittest.TestCase):
    def test_arguments_are_named(self):
        W = gaussian(4, 4, 14)
        cases = [
            (dict(W=np.zeros(4)), ValueError, "^W has shape"),
            (dict(W=np.array([["a"]])), TypeError, "^W holds"),
            (dict(W=np.full((2, 2), np.nan)), ValueError, "^W: "),
            (dict(mesh="butterfly"), ValueError, "^mesh 'butterfly': use 'clements'"),
            (dict(attenuators="left"), ValueError, "^attenuators"),
            (dict(bits=0), ValueError, "^bits 0"),
            (dict(bits=True), ValueError, "^bits True"),
            (dict(seed=-1), ValueError, "^seed -1"),
            (dict(segments=(3,)), ValueError, "^segments"),
            (dict(segments=(3, 3)), ValueError, "^segments: "),
            (dict(components={"mzi": {"nonsense": 1}}), ValueError, "^components: "),
            (dict(components=[1]), TypeError, "^components is a list"),
            (dict(gain=0.01), ValueError, "^gain: "),
            (dict(gain=float("nan")), ValueError, "^gain nan"),
            (dict(name="a b"), ValueError, "^name"),
        ]
        for kw, exc, pattern in cases:
            with self.subTest(kw=kw):
                kw.setdefault("W", W)
                with self.assertRaisesRegex(exc, pattern):
                    optinc.compile(**kw)

    def test_circuit_arguments(self):
        c = optinc.compile(gaussian(4, 3, 15))
        with tempfile.TemporaryDirectory() as d:
            for call, exc, pattern in [
                    (lambda: c.matrix(layer=3), ValueError, "^layer 3"),
                    (lambda: c.simulate(np.zeros(4)), ValueError, "^x has 4 rows"),
                    (lambda: c.simulate(np.zeros(3), chip=3), TypeError, "^chip is a int"),
                    (lambda: c.simulate(np.zeros(3), seed=-2), ValueError, "^seed"),
                    (lambda: c.monte_carlo(0), ValueError, "^chips 0"),
                    (lambda: c.monte_carlo(2, calibrate="yes"), ValueError, "^calibrate"),
                    (lambda: c.write_netlist(os.path.join(d, "x"), form="tree"), ValueError,
                     "^form 'tree'"),
                    (lambda: c.write_netlist("a\0b"), ValueError, "NUL"),
                    (lambda: c.export("svg", os.path.join(d, "x")), ValueError,
                     "^format 'svg': use sax"),
                    (lambda: c.export("sax", os.path.join(d, "x"), layout={"pitch": 1}),
                     ValueError, "^layout: no key"),
                    (lambda: c.draw(d, formats="pdf"), ValueError, "^formats: "),
                    (lambda: c.draw(d, detail=2), ValueError, "^detail")]:
                with self.subTest(pattern=pattern), self.assertRaisesRegex(exc, pattern):
                    call()

    def test_bad_netlist_is_an_error_with_its_position(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "bad.sp")
            with open(p, "w") as f:
                f.write("* not a netlist\nXU1 a b nothing\n")
            with self.assertRaises(optinc.Error) as e:
                optinc.read_netlist(p)
            self.assertEqual(e.exception.status, 2)
            self.assertRegex(str(e.exception), r"bad\.sp:\d+:\d+: error: ")

    def test_limits_of_the_environment(self):
        """The soft limits come from the environment as the command line's
        do (optinc-limits(7)), and their message names the variable."""
        env = dict(os.environ, OPTINC_MAX_MODES="4")
        code = ("import numpy, optinc\n"
                "try:\n    optinc.compile(numpy.eye(5))\n"
                "except ValueError as e:\n    print(e)\n"
                "print(optinc.compile(numpy.eye(4)).layers[0].rows)\n")
        env["PYTHONPATH"] = os.path.join(ROOT, "python")
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                             capture_output=True, text=True, timeout=120).stdout.splitlines()
        self.assertRegex(out[0], r"^W: .*OPTINC_MAX_MODES")
        self.assertEqual(out[1], "4")

    def test_closed_circuit_raises(self):
        c = optinc.compile(np.eye(2))
        with c:
            c.matrix()
        self.assertTrue(c.closed)
        for call in (lambda: c.matrix(), lambda: c.layers, lambda: c.simulate(np.ones(2)),
                     lambda: c.write_netlist("x.sp"), lambda: c.export("sax", "x.json"),
                     lambda: c.draw("x"), lambda: c.monte_carlo(1)):
            with self.assertRaisesRegex(ValueError, "optinc.Circuit is closed"):
                call()
        self.assertIn("closed=True", repr(c))


if __name__ == "__main__":
    unittest.main()
