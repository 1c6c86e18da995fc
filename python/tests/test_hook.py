"""optinc.torch.optinc_hook in DistributedDataParallel: 4 gloo processes on
127.0.0.1 train a small model (ddp_worker.py) with the built-in
allreduce_hook and with the hook under each algorithm; this process compares
what they saved."""
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

import torch
import torch.multiprocessing as mp

import optinc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ddp_worker  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
WORLD = 4
TIMEOUT_S = 120


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_workers(out, main=ddp_worker.main, world=WORLD, timeout_s=TIMEOUT_S):
    """main(rank, world, port, out) on `world` spawned processes, within timeout_s."""
    ctx = mp.spawn(main, args=(world, free_port(), out), nprocs=world, join=False)
    deadline = time.monotonic() + timeout_s
    while not ctx.join(timeout=1):
        if time.monotonic() > deadline:
            for p in ctx.processes:
                p.kill()
            raise AssertionError("the DDP workers did not finish in %d s" % timeout_s)


class TestHook(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory() as out:
            run_workers(out)
            cls.res = [torch.load(os.path.join(out, "rank%d.pt" % r)) for r in range(WORLD)]

    # gloo's float sums and ours add the 4 gradients in other orders: a float
    # ulp or so (2^-23 = 1.2e-7) of the norm; measured 8.2e-8 at most over
    # OpenBLAS's Cooperlake, Haswell and Sandybridge kernels and the reference
    # BLAS (torch's), so 1e-6 leaves a factor 12
    def test_exact_matches_allreduce_hook(self):
        for r in range(WORLD):
            ref, got = self.res[r]["builtin"], self.res[r]["exact"]
            for step, (a, b) in enumerate(zip(ref[0], got[0])):
                rel = float((a - b).norm() / a.norm())
                self.assertLessEqual(rel, 1e-6, "rank %d step %d" % (r, step))
            rel = float((ref[1] - got[1]).norm() / ref[1].norm())
            self.assertLessEqual(rel, 1e-6, "rank %d parameters" % r)

    def test_ring_matches_allreduce_hook(self):
        for a, b in zip(self.res[0]["builtin"][0], self.res[0]["ring"][0]):
            self.assertLessEqual(float((a - b).norm() / a.norm()), 1e-6)

    def test_optinc_ideal_is_quantized_bit_for_bit(self):
        # the same codes (the ideal unit's table is exact), decoded alike: the
        # same bits; the accuracy is a quotient of counts, 1 when all are right
        source, report = self.res[0]["table"]
        self.assertTrue(source.endswith("netlists/onn4x8.pnl.sp"))
        self.assertEqual(report["accuracy"], 1.0)
        for r in range(WORLD):
            q, o = self.res[r]["quantized"], self.res[r]["optinc"]
            for a, b in zip(q[0], o[0]):
                self.assertTrue(torch.equal(a, b))
            self.assertTrue(torch.equal(q[1], o[1]))
        # the quantized gradients are not the float ones
        self.assertFalse(torch.equal(self.res[0]["quantized"][0][0],
                                     self.res[0]["exact"][0][0]))

    def test_feedback_and_rounding_options(self):
        for r in range(WORLD):
            q, o = self.res[r]["quantized_feedback"], self.res[r]["optinc_feedback"]
            self.assertTrue(torch.equal(q[1], o[1]), "rank %d" % r)
            self.assertGreater(self.res[r]["optinc_residuals"], 0)
        self.assertFalse(torch.equal(self.res[0]["optinc_feedback"][1],
                                     self.res[0]["optinc"][1]))

    def test_every_rank_holds_the_same_parameters(self):
        # exact: every rank gets the same averaged bytes and updates alike
        for alg in ("builtin", "exact", "ring", "quantized", "optinc", "optinc_feedback"):
            p0 = self.res[0][alg][1].numpy().tobytes()
            for r in range(1, WORLD):
                self.assertEqual(p0, self.res[r][alg][1].numpy().tobytes(), "%s rank %d"
                                 % (alg, r))
                for a, b in zip(self.res[0][alg][0], self.res[r][alg][0]):
                    self.assertEqual(a.numpy().tobytes(), b.numpy().tobytes())

    def test_hook_output_is_the_plans_byte_for_byte(self):
        for r in range(WORLD):
            same = self.res[r]["plan_same"]
            self.assertGreater(len(same), ddp_worker.STEPS + 2)  # rebuilt: 2 a step
            self.assertTrue(all(same), "rank %d: %s" % (r, same))

    def test_bytes_of_the_modelled_network(self):
        n = sum(p.numel() for p in ddp_worker.model().parameters())
        steps = ddp_worker.STEPS
        ring = self.res[0]["ring_bytes"]
        opt = self.res[0]["optinc_bytes"]
        # ring: 2(N-1) chunks of about n/N floats per step
        per_step = ring["bytes_sent"][0] / steps
        self.assertAlmostEqual(per_step / (4 * n), 2 * (WORLD - 1) / WORLD, delta=0.05)
        self.assertEqual(ring["messages"][0], 2 * (WORLD - 1) * len(self.res[0]["plan_same"]))
        # optinc: every byte code once, plus 4-byte scales of blocks, once
        per_step = opt["bytes_sent"][0] / steps
        self.assertGreaterEqual(per_step, n)
        buckets = len(self.res[0]["plan_same"])
        self.assertLess(per_step, n * (1 + 4.0 / ddp_worker.BLOCK) + 4 * buckets / steps)
        self.assertEqual(len(set(opt["bytes_sent"])), 1)

    def test_bad_input_is_a_python_exception(self):
        for r in range(WORLD):
            status, file, text = self.res[r]["bad_onn"]
            self.assertEqual(status, 2)
            self.assertIn("no/such/onn.pnl.sp", file)
            self.assertIn("error:", text)
            self.assertIn("float32", self.res[r]["bad_bucket"])

    def test_none_and_a_process_group_as_the_state(self):
        # DDP's conventions: one state for the default group, optinc on the
        # shipped 4-server unit, the bits of OptincHookState()'s defaults
        for r in range(WORLD):
            want = self.res[r]["state_defaults"][1].numpy().tobytes()
            for alg in ("state_none", "state_world"):
                self.assertEqual(self.res[r][alg][1].numpy().tobytes(), want, "%s rank %d"
                                 % (alg, r))
            states = self.res[r]["group_states"]
            self.assertEqual(len(states), 1)
            self.assertIn("optinc servers=4 bits=8 block_size=1024", states[0])
            self.assertIn("onn='netlists/onn4x8.pnl.sp' world_size=4 rank=%d step=%d"
                          % (r, 2 * ddp_worker.STEPS), states[0])
            self.assertIn("pass an optinc.torch.OptincHookState(...), None or a process group",
                          self.res[r]["bad_state"])
            self.assertIn("is a str", self.res[r]["bad_state"])

    def test_a_pickled_state_continues_bit_for_bit(self):
        for r in range(WORLD):
            c = self.res[r]["checkpoint"]
            self.assertEqual(c["whole"].numpy().tobytes(), c["resumed"].numpy().tobytes(),
                             "rank %d" % r)
            self.assertEqual(c["stats"][0], c["stats"][1])
            self.assertGreater(c["stats"][0].injected_errors, 0)
            self.assertEqual(c["steps"], (ddp_worker.STEPS, ddp_worker.STEPS))
            self.assertEqual(c["residuals"][0], c["residuals"][1])
            self.assertGreater(len(c["residuals"][0]), 1)
            # what the checkpoint carries matters: a fresh state differs
            self.assertFalse(torch.equal(c["whole"], c["restarted"]))
            self.assertIn("<optinc.torch.OptincHookState optinc servers=4", c["repr"])
            self.assertIn("inject_p_error=", c["repr"])


    def test_nonfinite_values_stay_where_they_are(self):
        # rank 1's NaN or inf at one element: every rank sees it there, and
        # every other element keeps its bits (rank 3's values set the scale);
        # an outlier of 1e38 there changes no other element either
        at = ddp_worker.NONFINITE_AT
        for r in range(WORLD):
            own = self.res[r]["own"]
            base = own["as_is"]
            self.assertTrue(bool(torch.isnan(own["nan"][at])), "rank %d" % r)
            self.assertEqual(float(own["inf"][at]), float("inf"), "rank %d" % r)
            self.assertTrue(bool(torch.isfinite(own["outlier"][at])))
            others = torch.arange(base.numel()) != at
            for what in ("nan", "inf", "outlier"):
                self.assertEqual(own[what][others].numpy().tobytes(),
                                 base[others].numpy().tobytes(), "%s rank %d" % (what, r))

    def test_half_precision_buckets(self):
        # float16 and bfloat16 values are exact in float32: the hook's result
        # is the plan's on them (the ideal unit: quantized's bits), rounded
        # to the bucket's dtype
        plan = optinc.Plan("quantized", WORLD)
        for dtype in (torch.float16, torch.bfloat16):
            rows = torch.stack([ddp_worker.own_bucket(r).to(dtype).float()
                                for r in range(WORLD)])
            plan.run(rows)
            for r in range(WORLD):
                got = self.res[r]["own"][dtype]
                self.assertEqual(got.dtype, dtype)
                self.assertTrue(torch.equal(got, rows[r].to(dtype)), "%s rank %d" % (dtype, r))


class TestNonFinitePlan(unittest.TestCase):
    """The plan on 4 servers' 3,000 elements (blocks of 1024), server i's
    values (i + 1) times normal draws, so server 3's set every scale: one bad
    value at one element of server 1 changes that element only."""

    def test_one_bad_value_changes_its_element_only(self):
        import numpy
        rows = numpy.random.default_rng(0).standard_normal((4, 3000), dtype=numpy.float32)
        rows *= numpy.arange(1, 5, dtype=numpy.float32)[:, None]
        at = 1500
        for alg in ("optinc", "quantized"):
            plan = optinc.Plan(alg, 4)
            base = rows.copy()
            plan.run(base)
            for value, want in ((float("nan"), "nan"), (float("inf"), "inf"),
                                (-float("inf"), "-inf"), (1e38, None)):
                bad = rows.copy()
                bad[1, at] = value
                plan.run(bad)
                if want:
                    self.assertEqual([str(v) for v in bad[:, at]], [want] * 4, alg)
                else:      # the outlier saturates: finite, at most the scale
                    self.assertTrue(numpy.all(numpy.abs(bad[:, at]) <= numpy.abs(rows).max()))
                keep = numpy.arange(3000) != at
                self.assertEqual(bad[:, keep].tobytes(), base[:, keep].tobytes(),
                                 "%s, %r" % (alg, value))
            # +inf and -inf on two servers: NaN, as their sum
            bad = rows.copy()
            bad[1, at], bad[2, at] = float("inf"), -float("inf")
            plan.run(bad)
            self.assertTrue(numpy.isnan(bad[:, at]).all())


# One gloo rank in a python of its own, from a temporary folder.
ONE_RANK = """\
import torch, torch.distributed as dist
import optinc, optinc.torch as ot
dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d", rank=0, world_size=1)

class Bucket:
    def buffer(self): return torch.zeros(10)
    def index(self): return 0
    def is_last(self): return True

def fails(f):
    try:
        f()
    except Exception as e:
        print(type(e).__name__ + ": " + str(e))
"""


class TestOneRank(unittest.TestCase):
    def run_rank(self, code):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"),
                   PYTHONDONTWRITEBYTECODE="1")
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([sys.executable, "-c", ONE_RANK % free_port()
                                + textwrap.dedent(code)], cwd=d, env=env,
                               capture_output=True, text=True, timeout=TIMEOUT_S)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        return r.stdout.splitlines()

    def test_errors_name_the_python_arguments(self):
        out = self.run_rank("""
            fails(lambda: ot.optinc_hook(None, Bucket()))
            fails(lambda: ot.optinc_hook(dist.group.WORLD, Bucket()))
            fails(lambda: ot.OptincHookState(bits=7))
            fails(lambda: ot.OptincHookState())
            print(ot.OptincHookState("exact"))
        """)
        for line in out[:2]:
            self.assertEqual(line, "TypeError: pass an optinc.torch.OptincHookState(...) as "
                                   "the hook's state: no shipped OptINC unit for 1 servers "
                                   "(the package ships units for 4)")
        self.assertEqual(out[2], "ValueError: bits 7: an aggregation table takes an even "
                                 "width from 2 to 12")
        # the shipped unit, found from another folder, does not fit one rank
        self.assertRegex(out[3], r"^Error: /.*netlists/onn4x8.pnl.sp: error: this ONN averages "
                                 r"4 servers' 8-bit codes .* give a process group of that size "
                                 r"and bits= to match, or another onn=$")
        self.assertEqual(out[4], "<optinc.torch.OptincHookState exact servers=1 seed=0 onn=None "
                                 "world_size=1 rank=0 step=0 closed=False>")


if __name__ == "__main__":
    unittest.main()
