"""The workload examples (python/examples/resnet_fmnist.py, llama_text.py)
in tiny configurations: 2 servers, a dozen steps an epoch, ring and optinc.
Each run's table, CSV columns, finite and falling loss, and parameters that
every rank holds bit for bit; plot_runs.py draws the CSVs."""
import csv
import math
import os
import re
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
        lines = stdout.splitlines()
        self.assertEqual(len(lines), 5, stdout)  # header, 2 epochs, the CSV, the summary
        # the table at full width: every header whole, seconds to a tenth
        columns = COMMON[3:] + TINY[name][1] + TAIL
        self.assertEqual(lines[0].split(), columns)
        self.assertRegex(lines[2].split()[-1], r"^\d+\.\d$")
        self.assertEqual(lines[3], "CSV: " + out)
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
        # the summary: the final metric as the CSV has it, the bytes against
        # ring's for the same buckets (ring's own run: the same counts); the
        # metric is printed to 4 decimals, so equal within 5e-5
        final = TINY[name][1][-1]
        for alg in ("ring", "optinc"):
            rows = self.rows(name, alg)
            last = self.runs[name, alg][1].splitlines()[-1]
            m = re.fullmatch(r"%s: %s on 2 servers, 2 epochs: %s ([0-9.]+); (\d+) bytes per "
                             r"server and step, ([0-9.]+) of ring's (\d+); replicas agree bit "
                             r"for bit" % (name, alg, final), last)
            self.assertTrue(m, last)
            self.assertAlmostEqual(float(m.group(1)), float(rows[-1][final]), places=4)
            self.assertEqual(int(m.group(2)), int(rows[-1]["bytes_per_server_step"]))
            self.assertEqual(int(m.group(4)), ring)
            if alg == "ring":
                self.assertEqual(m.group(3), "1.000")

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

    def test_help_shows_the_true_defaults(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        for name, batch in (("resnet_fmnist", 32), ("llama_text", 8)):
            out = subprocess.run([sys.executable, os.path.join(EXAMPLES, name + ".py"),
                                  "--help"], env=env, capture_output=True, text=True,
                                 timeout=120, check=True).stdout
            self.assertIn("examples per server and step (default %d)" % batch,
                          " ".join(out.split()))
            self.assertIn("PyTorch's own allreduce", out)

    @unittest.skipUnless(have("matplotlib"), "python3-matplotlib is not installed")
    def test_plot(self):
        # both workloads' runs at once: a figure each, titled with its
        # workload, with a panel of bytes against ring; a run of one epoch
        # has that epoch as its one tick
        import matplotlib.image
        sys.path.insert(0, EXAMPLES)
        import plot_runs
        one = os.path.join(self.tmp.name, "one-epoch.csv")
        with open(self.runs["llama_text", "optinc"][3], newline="") as f:
            rows = list(csv.DictReader(f))
        with open(one, "w", newline="") as f:
            w = csv.DictWriter(f, list(rows[0]))
            w.writeheader()
            w.writerow(dict(rows[0], seed="4"))
        csvs = [self.runs[key][3] for key in sorted(self.runs)] + [one]
        drawn = plot_runs.plot(csvs, os.path.join(self.tmp.name, "runs.png"))
        self.assertEqual([d["workload"] for d in drawn], ["llama_text", "resnet_fmnist"])
        for d, runs in zip(drawn, (3, 2)):
            self.assertEqual(os.path.basename(d["path"]), "runs-%s.png" % d["workload"])
            # the PNG as written: 1500 x 450 pixels of RGBA
            self.assertEqual(matplotlib.image.imread(d["path"]).shape, (450, 1500, 4))
            self.assertIn("%d runs, 2 servers" % runs, d["title"])
            self.assertEqual(d["panels"][1:], ["training loss",
                                               "bytes per server and step against ring"])
            self.assertEqual(d["epochs"], [1, 2])
        self.assertTrue(drawn[0]["title"].startswith("LLaMA-style decoder"))
        self.assertEqual(drawn[0]["panels"][0], "validation perplexity")
        self.assertEqual(drawn[1]["panels"][0], "test accuracy (%)")
        only = plot_runs.plot([one], os.path.join(self.tmp.name, "one.png"))
        self.assertEqual(only[0]["path"], os.path.join(self.tmp.name, "one.png"))
        self.assertEqual(only[0]["epochs"], [1])
        self.assertIn("(no ring run)", only[0]["panels"][2])


if __name__ == "__main__":
    unittest.main()
