"""The package's objects are safe by construction (optinc-python(7),
Lifetimes): a closed object raises ValueError on every use, and a plan keeps
what it borrows until it ends.  What could crash runs in a python of its
own, so that a segfault fails its test rather than the suite."""
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
import unittest

import numpy as np
import torch
import torch.distributed as dist

import optinc
import optinc.torch

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ONN = os.path.join(ROOT, "netlists", "onn4x8.pnl.sp")

# What every child starts from: the package and four servers' gradients.
PRELUDE = """\
import gc
import numpy as np
import optinc
ONN = %r
g = np.random.default_rng(0).standard_normal((4, 40000), dtype=np.float32)
""" % ONN


def child(code):
    """Runs PRELUDE and code in this interpreter and environment, from a
    temporary folder; returns the CompletedProcess."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), PYTHONDONTWRITEBYTECODE="1")
    with tempfile.TemporaryDirectory() as d:
        return subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)], cwd=d,
                              env=env, capture_output=True, text=True, timeout=120)


class ChildCase(unittest.TestCase):
    def assertRefused(self, code, *words):
        """code ends in a ValueError holding words (a crash is a signal: a
        negative return code)."""
        r = child(code)
        self.assertEqual(r.returncode, 1, r.stderr)
        last = r.stderr.strip().splitlines()[-1]
        self.assertTrue(last.startswith("ValueError: "), r.stderr)
        for w in words:
            self.assertIn(w, last)

    def assertPrints(self, code, out):
        r = child(code)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        self.assertEqual(r.stdout.split(), out)


class TestClosed(ChildCase):
    def test_every_use_of_a_closed_object_raises(self):
        made = {"Plan": "optinc.Plan('ring', 4)",
                "AggTable": "optinc.AggTable.exact(4, 8)",
                "ErrorHistogram": "optinc.ErrorHistogram.from_table(optinc.AggTable.onn(ONN))",
                "Chip": "optinc.Chip()"}
        uses = {"Plan": ["x.run(g)", "x.stats", "x.reset_stats()"],
                "AggTable": ["x.codes()", "optinc.Plan('optinc', 4, table=x)",
                             "optinc.ErrorHistogram.from_table(x)"],
                "ErrorHistogram": ["optinc.Plan('quantized', 4, inject=x)"],
                "Chip": ["x.devices()", "optinc.AggTable.onn(ONN, chip=x)"]}
        for name, make in made.items():
            for use in uses[name] + ["x.__enter__()"]:
                with self.subTest(name=name, use=use):
                    # closed twice: the second does nothing
                    self.assertRefused("x = %s\nx.close()\nx.close()\n%s\n" % (make, use),
                                       "optinc.%s is closed" % name)

    def test_with_closes_at_the_end(self):
        """A with block closes its object; the blocks of a table and of a
        plan over it may end in either order."""
        self.assertPrints("""
            with optinc.Plan("exact", 4) as plan:
                print(plan.closed, plan.run(g))
            print(plan.closed, (g == g[0]).all())
            with optinc.Chip() as chip:
                pass
            print(chip.closed)
            with optinc.AggTable.exact(4) as table:
                plan = optinc.Plan("optinc", 4, table=table)
            h = np.random.default_rng(1).standard_normal((4, 1000), dtype=np.float32)
            with plan:
                plan.run(h)
            print(table.closed, plan.closed, (h == h[0]).all(), table._finalizer.alive)
            """, ["False", "0", "True", "True", "True", "True", "True", "True", "False"])


class TestBorrowed(ChildCase):
    def test_a_plan_keeps_a_closed_table_and_histogram(self):
        """Closed while a plan uses them, the table and histogram stay in
        memory: the plan injects the same 8,754 errors into the same bits
        as before (on freed memory it read 0), and frees them at its end."""
        self.assertPrints("""
            table = optinc.AggTable.onn(ONN, chip=dict(phase_sigma=0.01), seed=1)
            hist = optinc.ErrorHistogram.from_table(table)
            plan = optinc.Plan("optinc", 4, table=table, inject=hist)
            a, b = g.copy(), g.copy()
            print(plan.run(a))
            table.close()
            hist.close()
            junk = [np.full(1 << 16, -1, np.int64) for _ in range(64)]
            print(plan.run(b), a.tobytes() == b.tobytes(), table._finalizer.alive)
            plan.close()
            print(table._finalizer.alive, hist._finalizer.alive)
            """, ["8754", "8754", "True", "True", "False", "False"])

    def test_the_last_user_frees(self):
        """Two plans on one table: the table lives until it is closed and
        both plans have ended (one closed, one collected), in any order; a
        table that is not closed outlives its plans."""
        self.assertPrints("""
            table = optinc.AggTable.exact(4, 8)
            plans = [optinc.Plan("optinc", 4, table=table) for _ in range(2)]
            plans[0].close()
            table.close()
            print(table._finalizer.alive)
            plans[1].run(g)
            del plans
            gc.collect()
            print(table._finalizer.alive)
            table = optinc.AggTable.exact(4, 8)
            optinc.Plan("optinc", 4, table=table).close()
            print(table._finalizer.alive, len(table.codes()))
            """, ["True", "False", "True", "28561"])

    def test_a_run_keeps_its_buffers(self):
        """Buffers from a generator live until the call returns (they were
        freed before C wrote into them: SIGSEGV)."""
        self.assertPrints("""
            plan = optinc.Plan("exact", 4)
            print(plan.run(np.full(40000, i, np.float32) for i in range(4)),
                  plan.stats.bytes_sent[0])
            """, ["0", "160000"])

    def test_devices_keep_the_chip_file(self):
        """chip.devices() points into the chip file: closing the chip
        frees the file only once the structure is collected."""
        self.assertPrints("""
            with open("chip.yaml", "w") as f:
                f.write("components:\\n  mzi: {phase_error_sigma_rad: 0.01}\\n")
            chip = optinc.Chip(file="chip.yaml")
            dev = chip.devices()
            chip.close()
            print(chip._finalizer.alive)
            del dev
            print(chip._finalizer.alive)
            """, ["True", "False"])


class TestAliasing(unittest.TestCase):
    """Buffers that share memory are refused before C sees them, naming
    the two; buffers side by side in one are not."""

    def assertOverlap(self, plan, grads, first, second, **kw):
        before = [np.array(g) for g in grads]
        with self.assertRaises(ValueError) as e:
            plan.run(grads, **kw)
        self.assertIn("%s and %s overlap in memory" % (first, second), str(e.exception))
        for g, b in zip(grads, before):        # untouched
            self.assertEqual(np.array(g).tobytes(), b.tobytes())

    def test_numpy(self):
        x = np.arange(8, dtype=np.float32)
        self.assertOverlap(optinc.Plan("ring", 4), [x, x, x, x],
                           "the gradient of server 0", "the gradient of server 1")
        b = np.arange(12, dtype=np.float32)
        for grads in ([b[0:8], b[4:12]], [b[4:12], b[0:8]]):
            self.assertOverlap(optinc.Plan("exact", 2), grads,
                               "the gradient of server 0", "the gradient of server 1")
        self.assertOverlap(optinc.Plan("exact", 3), [x[:4].copy(), x[4:], x[3:7]],
                           "the gradient of server 1", "the gradient of server 2")
        rows = np.lib.stride_tricks.as_strided(b, (2, 8), (16, 4))    # rows 4 apart
        self.assertOverlap(optinc.Plan("exact", 2), rows,
                           "the gradient of server 0", "the gradient of server 1")
        # side by side: averaged, 0..5 with 6..11
        optinc.Plan("exact", 2).run([b[0:6], b[6:12]])
        self.assertEqual(b.tolist(), [3, 4, 5, 6, 7, 8] * 2)

    def test_torch(self):
        t = torch.arange(12, dtype=torch.float32)
        self.assertOverlap(optinc.Plan("exact", 2), [t, t],
                           "the gradient of server 0", "the gradient of server 1")
        self.assertOverlap(optinc.Plan("exact", 3), [t[0:4], t[8:12], t[6:10]],
                           "the gradient of server 1", "the gradient of server 2")
        self.assertOverlap(optinc.Plan("exact", 2), t.as_strided((2, 6), (4, 1)),
                           "the gradient of server 0", "the gradient of server 1")
        # a tensor over a NumPy array's memory
        a = np.zeros(8, np.float32)
        self.assertOverlap(optinc.Plan("exact", 2), [a[2:6], torch.from_numpy(a)[:4]],
                           "the gradient of server 0", "the gradient of server 1")
        optinc.Plan("exact", 2).run(t.view(2, 6))
        self.assertEqual(t.tolist(), [3, 4, 5, 6, 7, 8] * 2)

    def test_residuals(self):
        plan = optinc.Plan("quantized", 4, error_feedback=True)
        g = np.zeros((4, 8), np.float32)
        res = [np.zeros(8, np.float32) for _ in range(4)]
        self.assertOverlap(plan, g, "the gradient of server 2", "the residual of server 1",
                           residuals=[res[0], g[2], res[2], res[3]])
        self.assertOverlap(plan, g, "the residual of server 0", "the residual of server 3",
                           residuals=[res[0], res[1], res[2], res[0]])


class PathLike:
    def __init__(self, path):
        self.path = path

    def __fspath__(self):
        return self.path


class TestNul(unittest.TestCase):
    """A path with a NUL is refused, naming the argument, as str, bytes or
    os.PathLike: C would read the file named before the NUL (the shipped
    netlist, a good histogram, a good chip file)."""

    def assertNul(self, what, call, path):
        for p in (path + "\0junk", os.fsencode(path) + b"\0junk", PathLike(path + "\0")):
            with self.subTest(what=what, path=p):
                with self.assertRaisesRegex(ValueError, "^%s .* holds a NUL byte" % what):
                    call(p)

    def test_every_path_argument(self):
        with tempfile.TemporaryDirectory() as d:
            hist, chip = os.path.join(d, "h.hist"), os.path.join(d, "chip.yaml")
            with open(hist, "w") as f:
                f.write("-1 1\n1 1\n")
            with open(chip, "w") as f:
                f.write("components:\n  mzi: {phase_error_sigma_rad: 0.01}\n")
            self.assertNul("path", optinc.AggTable.onn, ONN)
            self.assertNul("path", optinc.ErrorHistogram.load, hist)
            self.assertNul("inject", lambda p: optinc.Plan("quantized", 4, inject=p), hist)
            self.assertNul("file", lambda p: optinc.Chip(file=p), chip)
            self.assertNul("file", lambda p: optinc.AggTable.onn(ONN, chip=dict(file=p)), chip)
            # the paths themselves are good ones, in every form
            for p in (hist, os.fsencode(hist), PathLike(hist)):
                self.assertEqual(optinc.ErrorHistogram.load(p).p_error, 1.0)

    def test_hook_state(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=0,
                                world_size=1)
        try:
            self.assertNul("onn", lambda p: optinc.torch.OptincHookState(onn=p),
                           "netlists/onn4x8.pnl.sp")
        finally:
            dist.destroy_process_group()


if __name__ == "__main__":
    unittest.main()
