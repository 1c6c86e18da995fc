"""The examples of README.md and optinc-python(7) run as they are written,
and the page shows python/examples/ddp_hook.py as it is."""
import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def read(path):
    with open(os.path.join(ROOT, path)) as f:
        return f.read()


def run(args, **kw):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    return subprocess.run([sys.executable] + args, cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True, timeout=120, **kw).stdout


class TestExamples(unittest.TestCase):
    def test_readme_example(self):
        block = read("README.md").split("## From Python", 1)[1]
        code = re.search(r"```python\n(.*?)```", block, re.S).group(1)
        out = run(["-c", code])
        self.assertRegex(out, r"^\(\d+, \d+, \d+, \d+\)$")

    def test_man_page_examples(self):
        page = read("man/optinc-python.7").split(".Sh EXAMPLES", 1)[1]
        plan, script = re.findall(r"\.Bd -literal\n(.*?)\.Ed\n", page, re.S)
        self.assertEqual(run(["-c", plan]).strip(), "(1004, 1004, 1004, 1004)")
        self.assertEqual(script, read("python/examples/ddp_hook.py"))

    def test_training_script(self):
        out = run(["python/examples/ddp_hook.py", "--servers", "2", "--allreduce", "quantized",
                   "--steps", "20"])
        lines = out.splitlines()
        self.assertEqual(len(lines), 5)
        self.assertTrue(lines[-1].startswith("step   20  loss "), out)


if __name__ == "__main__":
    unittest.main()
