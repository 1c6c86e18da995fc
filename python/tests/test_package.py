"""The optinc package over liboptinc, without torch.distributed: struct
layouts against the C compiler, plans on NumPy arrays and torch tensors,
tables against `optinc onn verify`, and bad input as Python exceptions."""
import ctypes
import json
import os
import pickle
import subprocess
import tempfile
import unittest

import numpy as np

import optinc
from optinc import _clib, _cmesh

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ONN = os.path.join(ROOT, "netlists", "onn4x8.pnl.sp")
PROG = os.environ.get("OPTINC") or os.path.join(ROOT, "build", "optinc")


def gradients(servers, n, seed=0):
    return np.random.default_rng(seed).standard_normal((servers, n), dtype=np.float32)


class TestLayout(unittest.TestCase):
    def test_structs_match_the_headers(self):
        """sizeof and every offsetof, from a C file compiled against include/."""
        lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "optinc/allreduce.h"',
                 '#include "optinc/onn.h"'] + ['#include "%s"' % h for h in _cmesh.HEADERS]
        lines.append('int main(void) {')
        structs = dict(_clib.STRUCTS, **_cmesh.STRUCTS)   # the circuit's mirrors too
        for cname, st in structs.items():
            lines.append('printf("%%zu\\n", sizeof(%s));' % cname)
            for field, _ in st._fields_:
                lines.append('printf("%%zu\\n", offsetof(%s, %s));' % (cname, field))
        lines.append("return 0; }")
        with tempfile.TemporaryDirectory() as d:
            src, exe = os.path.join(d, "layout.c"), os.path.join(d, "layout")
            with open(src, "w") as f:
                f.write("\n".join(lines))
            subprocess.run(["cc", "-std=c11", "-I" + os.path.join(ROOT, "include"), "-I" + ROOT,
                            src, "-o", exe], check=True)
            got = [int(x) for x in subprocess.run([exe], check=True, capture_output=True,
                                                  text=True).stdout.split()]
        want = []
        for st in structs.values():
            want.append(ctypes.sizeof(st))
            want += [getattr(st, field).offset for field, _ in st._fields_]
        self.assertEqual(got, want)


class TestPlan(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ideal = optinc.AggTable.onn(ONN, servers=4, bits=8)

    def test_algorithms(self):
        names = [a.name for a in optinc.algorithms()]
        self.assertEqual(names, ["ring", "optinc", "exact", "quantized"])
        self.assertEqual(optinc.algorithm("optinc").network, "star")
        self.assertTrue(optinc.algorithm("quantized").quantizes)
        with self.assertRaisesRegex(ValueError, "ring, optinc, exact or quantized"):
            optinc.Plan("nccl", 4)

    def test_every_server_gets_the_same_average(self):
        for alg in ("ring", "exact", "quantized", "optinc"):
            g = gradients(4, 1001)
            mean = g.astype(np.float64).mean(axis=0)
            plan = optinc.Plan(alg, 4, block_size=100, table=self.ideal)
            plan.run(g)
            for i in range(1, 4):
                self.assertEqual(g[0].tobytes(), g[i].tobytes(), alg)
            # the float sums against the float64 mean: |g| < 3.5, so three float
            # additions of partial sums under 16 (half an ulp, 4.8e-7, each)
            # over 4 and the division's own half ulp stay under 4.8e-7
            # (measured 1.2e-7); the quantized ones are within a step of the
            # block's codes of the float mean (max |g| / 106 <= 0.033 here,
            # measured 0.028)
            tol = 1e-6 if alg in ("ring", "exact") else 0.05
            self.assertLess(np.abs(g[0] - mean).max(), tol, alg)

    def test_ideal_onn_is_quantized_bit_for_bit(self):
        self.assertEqual(self.ideal.report.accuracy, 1.0)
        self.assertEqual(self.ideal.report.errors, {})
        self.assertEqual(self.ideal.codes(), optinc.AggTable.exact(4, 8).codes())
        a, b = gradients(4, 5000, 1), gradients(4, 5000, 1)
        optinc.Plan("optinc", 4, table=self.ideal).run(a)
        optinc.Plan("quantized", 4).run(b)
        self.assertEqual(a.tobytes(), b.tobytes())

    def test_torch_tensors_and_lists_in_place(self):
        import torch
        rows = [torch.from_numpy(r.copy()) for r in gradients(4, 777, 2)]
        ref = gradients(4, 777, 2)
        optinc.Plan("quantized", 4, block_size=64).run(rows, step=3)
        optinc.Plan("quantized", 4, block_size=64).run(ref, step=3)
        for r in rows:
            self.assertEqual(r.numpy().tobytes(), ref[0].tobytes())
        t = torch.from_numpy(gradients(4, 10))
        optinc.Plan("exact", 4).run(t)
        self.assertTrue(torch.equal(t[0], t[3]))

    def test_stats_model_the_network(self):
        n, block = 1000, 128
        plan = optinc.Plan("optinc", 4, block_size=block, table=self.ideal)
        plan.run(gradients(4, n))
        plan.run(gradients(4, n))
        s = plan.stats
        blocks = (n + block - 1) // block
        self.assertEqual(s.bytes_sent, (2 * (n + 4 * blocks),) * 4)  # codes once, scales once
        self.assertEqual(s.messages, (4,) * 4)
        ring = optinc.Plan("ring", 4)
        ring.run(gradients(4, n))
        self.assertEqual(ring.stats.bytes_sent, (4 * n * 2 * 3 // 4,) * 4)
        self.assertEqual(ring.stats.messages, (6,) * 4)
        ring.reset_stats()
        self.assertEqual(ring.stats.bytes_sent, (0,) * 4)

    def test_injected_errors_follow_seed_and_step(self):
        with tempfile.NamedTemporaryFile("w", suffix=".hist") as h:
            h.write("# every output wrong by one LSB\np_error 0.5\n-1 1\n1 1\n")
            h.flush()
            runs = {}
            for seed, step in ((1, 0), (1, 0), (1, 1), (2, 0)):
                g = gradients(4, 2000)
                plan = optinc.Plan("quantized", 4, inject=h.name, seed=seed)
                errors = plan.run(g, step=step)
                self.assertGreater(errors, 500)
                self.assertEqual(plan.stats.injected_errors, errors)
                runs.setdefault((seed, step), []).append(g[0].tobytes())
            self.assertEqual(runs[(1, 0)][0], runs[(1, 0)][1])
            self.assertNotEqual(runs[(1, 0)][0], runs[(1, 1)][0])
            self.assertNotEqual(runs[(1, 0)][0], runs[(2, 0)][0])

    def test_chip_table_is_what_optinc_onn_verify_measures(self):
        table = optinc.AggTable.onn(ONN, chip=dict(phase_sigma=0.05, seed=3))
        out = subprocess.run([PROG, "onn", "verify", ONN, "--sigma", "0.05", "--chip-seed", "3",
                              "--json"], check=True, capture_output=True, text=True).stdout
        cli = json.loads(out)
        # counts of codes, and their quotient printed in shortest round-trip
        # text: the same numbers exactly (one build, one machine)
        self.assertEqual(table.report.correct, cli["correct"])
        self.assertEqual(table.report.accuracy, cli["accuracy"])
        hist = optinc.ErrorHistogram.from_table(table)
        self.assertAlmostEqual(hist.p_error, 1 - cli["accuracy"])
        # the chip's seed defaults to the run's
        self.assertEqual(optinc.AggTable.onn(ONN, chip="programmed", seed=5).report,
                         optinc.AggTable.onn(ONN, chip=dict(programmed=True, seed=5)).report)

    def test_seed_1_is_optinc_onn_verify_without_chip_seed(self):
        """`optinc onn verify` draws its chip from --chip-seed 1 by default,
        AggTable.onn from seed=0: seed=1 gives the CLI's numbers, as
        optinc-python(7) says."""
        out = subprocess.run([PROG, "onn", "verify", ONN, "--sigma", "0.01", "--json"],
                             check=True, capture_output=True, text=True).stdout
        cli = json.loads(out)
        self.assertEqual(cli["devices"]["chip_seed"], 1)
        chip = dict(phase_sigma=0.01)
        one = optinc.AggTable.onn(ONN, chip=chip, seed=1).report
        self.assertEqual((one.checked, one.correct), (cli["inputs_checked"], cli["correct"]))
        self.assertEqual(one.accuracy, cli["accuracy"])
        self.assertNotEqual(optinc.AggTable.onn(ONN, chip=chip).report.correct, cli["correct"])

    def test_chip_file_table_is_what_optinc_onn_verify_measures(self):
        """A chip file, as drawn and recompiled from its measurement (a chip
        without coupler errors, so the recompilation takes a second): the
        numbers of `optinc onn verify --chip FILE [--calibrate]`."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "chip.yaml")
            with open(path, "w") as f:
                f.write("components:\n"
                        "  mzi: {insertion_loss_dB: 0.1, phase_error_sigma_rad: 0.01}\n"
                        "  phase_shifter: {bits: 12, thermal_crosstalk: 0.005}\n"
                        "calibration: {phase_sigma_rad: 0.001}\n")
            for calibrate in (False, True):
                table = optinc.AggTable.onn(ONN, chip=dict(file=path, calibrate=calibrate),
                                            seed=3)
                cmd = [PROG, "onn", "verify", ONN, "--chip", path, "--chip-seed", "3", "--json"]
                cli = json.loads(subprocess.run(cmd + ["--calibrate"] * calibrate, check=True,
                                                capture_output=True, text=True).stdout)
                self.assertEqual(table.report.correct, cli["correct"])
                self.assertEqual(table.report.accuracy, cli["accuracy"])
                accuracy = table.report.accuracy
            # the drawn chip is far off, its recompiled drivers nearly exact
            self.assertGreater(accuracy, 0.9)
            self.assertEqual(repr(optinc.Chip(file=path, seed=2)),
                             "Chip(file=%r, calibrate=False, seed=2)" % path)

    def test_error_feedback_and_stochastic_rounding(self):
        """Residuals kept by the caller: the time average of a constant
        gradient is the gradient (with stochastic rounding the servers send
        different codes, and the unit's rounding of their mean, which no
        server feeds back, stays within half a step); stochastic rounding
        changes the codes with the step, the same bits as a second plan;
        misuse is an exception."""
        g = gradients(1, 700, seed=4)[0]
        plans = [optinc.Plan("optinc", 4, block_size=256, table=self.ideal,
                             error_feedback=True, stochastic_rounding=sr) for sr in (0, 1)]
        for sr, plan in enumerate(plans):
            res, total, steps = np.zeros((4, g.size), np.float32), np.zeros(g.size), 128
            for step in range(steps):
                rows = np.tile(g, (4, 1))
                plan.run(rows, step=step, residuals=res)
                total += rows[0]
            lsb = np.abs(g).max() * 1.01 / 106   # the step: max / 106 at 8 bits
            self.assertLessEqual(np.abs(total / steps - g).max(), lsb / 2 if sr else lsb / steps)
            self.assertTrue(np.any(res != 0))
        a, b = gradients(4, 500, seed=5), gradients(4, 500, seed=5)
        sr = [optinc.Plan("quantized", 4, stochastic_rounding=True) for _ in range(2)]
        sr[0].run(a, step=3)
        sr[1].run(b, step=3)
        self.assertEqual(a.tobytes(), b.tobytes())
        c = gradients(4, 500, seed=5)
        sr[1].run(c, step=4)
        self.assertNotEqual(a.tobytes(), c.tobytes())
        with self.assertRaisesRegex(ValueError, "residuals="):
            plans[0].run(gradients(4, 10))
        with self.assertRaisesRegex(ValueError, "residuals have 9 elements"):
            plans[0].run(gradients(4, 10), residuals=np.zeros((4, 9), np.float32))
        with self.assertRaises(optinc.Error) as e:
            optinc.Plan("ring", 4, error_feedback=True)
        self.assertIn("not quantized", str(e.exception))

class TestBadInput(unittest.TestCase):
    def test_buffers_are_refused_before_c_sees_them(self):
        import torch
        plan = optinc.Plan("exact", 2)
        g = gradients(2, 8)
        cases = [
            (TypeError, "float64", [g[0].astype(np.float64), g[1]]),
            (TypeError, "float32", [g[0].astype(">f4"), g[1]]),
            (TypeError, "list", [list(g[0]), g[1]]),
            (ValueError, "contiguous", gradients(2, 16)[:, ::2]),
            (ValueError, "read-only", [np.frombuffer(g[0].tobytes(), np.float32), g[1]]),
            (ValueError, "one per server", g[:1]),
            (ValueError, "same length", [g[0], g[1][:4]]),
            (ValueError, "3-D", np.zeros((2, 2, 2), np.float32)),
            (TypeError, "torch.float64", [torch.zeros(8, dtype=torch.float64)] * 2),
            (ValueError, "contiguous", [torch.zeros(16)[::2]] * 2),
        ]
        for exc, text, grads in cases:
            with self.assertRaisesRegex(exc, text):
                plan.run(grads)

    def test_library_errors_carry_file_line_and_column(self):
        with self.assertRaises(optinc.Error) as e:
            optinc.AggTable.onn("no/such/net.pnl.sp")
        self.assertEqual((e.exception.status, e.exception.file), (2, "no/such/net.pnl.sp"))
        self.assertTrue(str(e.exception).startswith("no/such/net.pnl.sp: error: "))
        with tempfile.NamedTemporaryFile("w", suffix=".hist") as h:
            h.write("# a histogram\n0 10\n1 x\n")
            h.flush()
            with self.assertRaises(optinc.Error) as e:
                optinc.ErrorHistogram.load(h.name)
        self.assertEqual((e.exception.file, e.exception.line, e.exception.column),
                         (h.name, 3, 3))   # the field at fault
        self.assertIn("DELTA COUNT", e.exception.message)
        with self.assertRaisesRegex(ValueError, "bits 7: .*even width"):
            optinc.Plan("quantized", 4, bits=7)
        with self.assertRaisesRegex(optinc.Error, "4 servers and 8 bits"):
            optinc.Plan("optinc", 3, table=optinc.AggTable.exact(4, 8))
        with self.assertRaisesRegex(ValueError, "phase_sigma"):
            optinc.Chip(phase_sigma=-1)
        with self.assertRaisesRegex(ValueError, "chip 'broken'"):
            optinc.AggTable.onn(ONN, chip="broken")
        with self.assertRaisesRegex(ValueError, "whole device model"):
            optinc.Chip(file="chip.yaml", programmed=True)
        with self.assertRaisesRegex(ValueError, "give the chip file"):
            optinc.Chip(calibrate=True)
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as c:
            c.write("components:\n  mzi: {insertion_loss_dB: -1}\n")
            c.flush()
            with self.assertRaises(optinc.Error) as e:
                optinc.Chip(file=c.name)
        self.assertEqual((e.exception.status, e.exception.file, e.exception.line),
                         (2, c.name, 2))

    def test_numeric_arguments_refuse_nan_and_infinities(self):
        """NaN compares false with every bound and ctypes wraps what does not
        fit its C type: each is a ValueError naming the range, before C
        sees it (as `optinc onn verify --sigma nan` is refused)."""
        nan, inf = float("nan"), float("inf")
        for bad in (nan, inf, -inf, -0.1):
            with self.assertRaisesRegex(ValueError, r"phase_sigma .*finite number of "
                                                    r"radians >= 0"):
                optinc.Chip(phase_sigma=bad)
            with self.assertRaisesRegex(ValueError, "phase_sigma"):
                optinc.AggTable.onn(ONN, chip=dict(phase_sigma=bad))
        for bad in (nan, inf, -inf, -1, 2 ** 64, 2.5):
            with self.assertRaisesRegex(ValueError, r"seed .*integer from 0 to 2\^64-1"):
                optinc.Chip(seed=bad)
            with self.assertRaisesRegex(ValueError, r"seed .*integer from 0 to 2\^64-1"):
                optinc.AggTable.onn(ONN, seed=bad)
            with self.assertRaisesRegex(ValueError, r"seed .*integer from 0 to 2\^64-1"):
                optinc.Plan("quantized", 4, seed=bad)
            with self.assertRaisesRegex(ValueError, r"step .*integer from 0 to 2\^64-1"):
                optinc.Plan("exact", 2).run(gradients(2, 8), step=bad)
            with self.assertRaisesRegex(ValueError, "run_seed"):
                optinc.Chip().devices(run_seed=bad)
        for name in ("servers", "bits", "block_size"):
            for bad in (nan, inf, 8.5, 2 ** 32 + 4):
                with self.assertRaisesRegex(ValueError, "%s .*give an integer" % name):
                    optinc.Plan("quantized", **dict(dict(servers=4), **{name: bad}))
        with self.assertRaisesRegex(ValueError, "bits nan"):
            optinc.AggTable.exact(4, nan)
        with self.assertRaisesRegex(TypeError, "phase_sigma is a str"):
            optinc.Chip(phase_sigma="0.1")
        # valid values still work: the bounds, integral floats, NumPy scalars
        chip = optinc.Chip(phase_sigma=np.float64(0.01), seed=2 ** 64 - 1)
        self.assertEqual((chip.phase_sigma, chip.seed, chip.programmed), (0.01, 2 ** 64 - 1, True))
        self.assertEqual(chip.devices().chip_seed, 2 ** 64 - 1)
        self.assertEqual(optinc.Chip(phase_sigma=0).devices(run_seed=np.uint64(7)).chip_seed, 7)
        self.assertEqual(optinc.AggTable.onn(ONN, chip=dict(phase_sigma=0.01), seed=1.0).report,
                         optinc.AggTable.onn(ONN, chip=dict(phase_sigma=0.01), seed=1).report)
        plan = optinc.Plan("quantized", 4.0, bits=np.int64(8), seed=3.0)
        self.assertEqual((plan.servers, plan.bits, plan.seed), (4, 8, 3))
        g = gradients(4, 16)
        plan.run(g, step=2 ** 64 - 1)
        self.assertTrue(np.all(g == g[0]))


class TestPythonConventions(unittest.TestCase):
    """What a Python caller sees: errors in the arguments' names, relative
    netlist paths found alike from any folder, reprs, pickled settings."""

    def test_bits_is_checked_first_and_named(self):
        # before C reads the netlist: bits=7 is not the ONN's mismatch
        for bad in (7, 0, 14, -2):
            with self.assertRaisesRegex(ValueError, r"^bits %d: .*even width from 2 to 12"
                                        % bad):
                optinc.AggTable.onn(ONN, bits=bad)
            with self.assertRaisesRegex(ValueError, r"^bits %d: " % bad):
                optinc.AggTable.exact(4, bad)
        for bad in (7, 18):
            with self.assertRaisesRegex(ValueError, r"^bits %d: .*even width from 2 to 16"
                                        % bad):
                optinc.Plan("quantized", 4, bits=bad)
        # an algorithm that sends floats takes no width and checks none
        self.assertEqual(optinc.Plan("exact", 4, bits=7).bits, 7)

    def test_onn_mismatch_speaks_python(self):
        with self.assertRaises(optinc.Error) as e:
            optinc.AggTable.onn(ONN, servers=3)
        msg = e.exception.message
        self.assertIn("give servers= and bits= to match, or another path", msg)
        self.assertNotIn("--", msg)
        self.assertTrue(str(e.exception).endswith(msg))
        self.assertEqual((e.exception.status, e.exception.file), (2, ONN))

    def test_relative_netlists_resolve_from_anywhere(self):
        rel = os.path.join("netlists", "onn4x8.pnl.sp")
        here = os.getcwd()
        with tempfile.TemporaryDirectory() as d:
            os.chdir(d)
            try:
                # not here: the package's data root
                t = optinc.AggTable.onn(rel)
                self.assertEqual(t.source, ONN)
                self.assertEqual(t.report.accuracy, 1.0)
                # a path that names a file here is taken as given
                os.mkdir("netlists")
                with open(ONN, "rb") as src, open(rel, "wb") as dst:
                    dst.write(src.read())
                self.assertEqual(optinc.AggTable.onn(rel).source, rel)
                # found nowhere: the error names the path as written
                with self.assertRaises(optinc.Error) as e:
                    optinc.AggTable.onn("netlists/none.pnl.sp")
                self.assertEqual(e.exception.file, "netlists/none.pnl.sp")
            finally:
                os.chdir(here)
        self.assertEqual(optinc._core.DATA_ROOT, ROOT)

    def test_reprs(self):
        table = optinc.AggTable.exact(4, 8)
        self.assertEqual(repr(table), "<optinc.AggTable servers=4 bits=8 size=28561 "
                                      "source='exact' closed=False>")
        onn = optinc.AggTable.onn(ONN)
        self.assertEqual(repr(onn), "<optinc.AggTable servers=4 bits=8 size=28561 source=%r "
                                    "accuracy=1.0 closed=False>" % ONN)
        plan = optinc.Plan("optinc", 4, block_size=256, table=onn, seed=3,
                           error_feedback=True)
        self.assertEqual(repr(plan), "<optinc.Plan optinc servers=4 bits=8 block_size=256 "
                                     "table=%r seed=3 error_feedback closed=False>" % ONN)
        self.assertEqual(repr(optinc.Plan("ring", 2)),
                         "<optinc.Plan ring servers=2 seed=0 closed=False>")
        with tempfile.NamedTemporaryFile("w", suffix=".hist") as h:
            h.write("0 3\n1 1\n")
            h.flush()
            hist = optinc.ErrorHistogram.load(h.name)
            self.assertEqual(repr(hist), "<optinc.ErrorHistogram p_error=0.25 file=%r "
                                         "closed=False>" % h.name)
            with optinc.Plan("quantized", 4, inject=hist) as q:
                pass
            self.assertEqual(repr(q), "<optinc.Plan quantized servers=4 bits=8 "
                                      "block_size=1024 inject_p_error=0.25 seed=0 closed=True>")
            # a loaded histogram pickles as its file
            again = pickle.loads(pickle.dumps(hist))
            self.assertEqual((again.p_error, again.file), (0.25, h.name))
        # a closed object still says what it was
        table.close()
        self.assertTrue(repr(table).endswith("source='exact' closed=True>"))

    def test_chips_and_histograms_pickle_as_settings(self):
        chip = optinc.Chip(phase_sigma=0.01, seed=5)
        again = pickle.loads(pickle.dumps(chip))
        self.assertEqual(repr(again), repr(chip))
        self.assertEqual(again.devices().chip_seed, 5)
        onn = optinc.AggTable.onn(ONN, chip=chip)
        self.assertEqual(optinc.AggTable.onn(ONN, chip=again).codes(), onn.codes())
        measured = optinc.ErrorHistogram.from_table(onn)
        self.assertRegex(repr(measured), r"^<optinc.ErrorHistogram p_error=0\.2\d+ from counts "
                                         r"closed=False>$")
        with self.assertRaisesRegex(TypeError, "made from counts cannot be pickled"):
            pickle.dumps(measured)


if __name__ == "__main__":
    unittest.main()
