"""The workload examples (python/examples/resnet_fmnist.py, llama_text.py)
in tiny configurations: 2 servers, a dozen steps an epoch, ring and optinc.
Each run's table, CSV columns, finite and falling loss, and parameters that
every rank holds bit for bit; plot_runs.py draws the CSVs."""
import csv
import math
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
EXAMPLES = os.path.join(ROOT, "python", "examples")
COMMON = ["allreduce", "servers", "seed", "epoch", "steps", "train_loss"]
TAIL = ["bytes_per_server_step", "ranks_agree", "seconds"]
TINY = {
    "resnet_fmnist": (["--train-subset", "768", "--test-subset", "200"],
                      ["test_loss", "test_accuracy"]),
    "llama_text": (["--train-subset", "96", "--batch-size", "4", "--val-subset", "16",
                    "--dim", "32", "--layers", "2", "--context", "32"],
                   ["val_loss", "val_perplexity"]),
}


def have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


@unittest.skipIf(os.environ.get("OPTINC_TEST_BLAS") == "reference",
                 "BLAS=reference: the workloads' arithmetic is torch's, which the reference "
                 "BLAS slows about twofold; optinc's part, the all-reduce, uses no BLAS and "
                 "test_hook runs it")
class TestWorkloads(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        # the four runs at once: most of each is starting torch
        procs = {}
        for name, (opts, _) in TINY.items():
            for alg in ("ring", "optinc"):
                out = os.path.join(cls.tmp.name, "%s-%s.csv" % (name, alg))
                cmd = [sys.executable, os.path.join(EXAMPLES, name + ".py"), "--servers", "2",
                       "--allreduce", alg, "--epochs", "2", "--seed", "3", "--csv", out] + opts
                procs[name, alg] = (subprocess.Popen(cmd, cwd=cls.tmp.name, env=env,
                                                     stdout=subprocess.PIPE,
                                                     stderr=subprocess.PIPE, text=True), out)
        cls.runs = {}
        for key, (p, out) in procs.items():
            stdout, stderr = p.communicate(timeout=240)
            cls.runs[key] = (p.returncode, stdout, stderr, out)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def rows(self, name, alg):
        status, stdout, stderr, out = self.runs[name, alg]
        self.assertEqual(status, 0, stderr)
        self.assertNotIn("\r", stdout + stderr, "progress is for a terminal only")
        self.assertEqual(len(stdout.splitlines()), 3, stdout)    # header, 2 epochs
        with open(out, newline="") as f:
            reader = csv.DictReader(f)
            self.assertEqual(reader.fieldnames, COMMON + TINY[name][1] + TAIL)
            return list(reader)

    def check(self, name):
        metric = TINY[name][1][0]
        for alg in ("ring", "optinc"):
            with self.subTest(alg=alg):
                rows = self.rows(name, alg)
                self.assertEqual([r["epoch"] for r in rows], ["1", "2"])
                self.assertTrue(all(r["allreduce"] == alg for r in rows))
                losses = [float(r["train_loss"]) for r in rows]
                self.assertTrue(all(math.isfinite(x) for x in losses), losses)
                self.assertLess(losses[1], losses[0])
                self.assertTrue(math.isfinite(float(rows[-1][metric])))
                self.assertEqual([r["ranks_agree"] for r in rows], ["1", "1"])
        ring = int(self.rows(name, "ring")[0]["bytes_per_server_step"])
        opt = int(self.rows(name, "optinc")[0]["bytes_per_server_step"])
        # 2 servers: ring sends each float once (4 bytes), optinc 8-bit codes
        self.assertGreater(ring, 3 * opt)

    def test_resnet_fmnist(self):
        self.check("resnet_fmnist")

    def test_llama_text(self):
        self.check("llama_text")

    def test_chip_options_are_checked_before_any_process_starts(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        script = os.path.join(EXAMPLES, "resnet_fmnist.py")
        for opts, text in ((["--calibrate"], "give the chip with --chip CHIP.yaml"),
                           (["--chip", "c.yaml", "--allreduce", "ring"],
                            "use it with --allreduce optinc")):
            p = subprocess.run([sys.executable, script] + opts, cwd=self.tmp.name, env=env,
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn(text, p.stderr)
            self.assertEqual(os.listdir(self.tmp.name).count("resnet_fmnist-ring-s1.csv"), 0)

    @unittest.skipUnless(have("matplotlib"), "python3-matplotlib is not installed")
    def test_plot(self):
        sys.path.insert(0, EXAMPLES)
        import plot_runs
        png = os.path.join(self.tmp.name, "runs.png")
        plot_runs.plot([self.runs["resnet_fmnist", a][3] for a in ("ring", "optinc")], png)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
