"""python/examples/mesh_tour.py runs as its page says and writes its plots
and SAX exports (the figures it prints come from the library, which
test_circuit checks), and README.md's "Meshes from Python" example runs as
written."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


class TestMeshTour(unittest.TestCase):
    def test_readme_example(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            block = f.read().split("### Meshes from Python", 1)[1]
        code = re.search(r"```python\n(.*?)```", block, re.S).group(1)
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"),
                   PYTHONDONTWRITEBYTECODE="1")
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                             capture_output=True, text=True, timeout=120).stdout.splitlines()
        self.assertEqual(out[0], "True")
        self.assertRegex(out[1], r"^\[ *\d+ +\d+ +\d+ +\d+\]$")
        # 4 modes: SF's sequence nulls diagonals of 1 and 3 elements with Ti, of 2 with T
        self.assertEqual(out[2], "4 2")

    def test_runs_and_writes_its_outputs(self):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"),
                   PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "tour")
            r = subprocess.run([sys.executable, os.path.join(ROOT, "python", "examples",
                                                             "mesh_tour.py"), "-o", out],
                               env=env, cwd=d, capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            for png in ("phases.png", "fidelity.png"):
                with open(os.path.join(out, png), "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            for name in ("haar64", "dense64x32"):
                with open(os.path.join(out, name + ".json")) as f:
                    self.assertIsInstance(json.load(f), dict)
            # one row per sigma, each fidelity in (0, 1]
            rows = [line.split() for line in r.stdout.splitlines()
                    if line.strip() and line.split()[0].replace(".", "").isdigit()]
            self.assertEqual(len(rows), 6)
            for row in rows:
                self.assertTrue(all(0 < float(x) <= 1 for x in row[1:]), row)


if __name__ == "__main__":
    unittest.main()
