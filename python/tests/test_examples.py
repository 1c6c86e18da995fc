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
        self.assertEqual(len(lines), 6, out)
        self.assertTrue(lines[-2].startswith("step   20  loss "), out)
        # the summary: 2 servers, quantized codes of 1 byte against ring's 4-byte
        # floats sent 2(N-1)/N = 1 time, plus a 4-byte scale per block
        # (block 1024) of the model's 2,762 parameters: 0.25 and 3 scales
        m = re.fullmatch(r"quantized through optinc_hook on 2 servers, 20 steps: loss "
                         r"[0-9.]+; (\d+) bytes per server, ([0-9.]+) of the library's ring "
                         r"\((\d+)\); replicas agree bit for bit", lines[-1])
        self.assertTrue(m, lines[-1])
        self.assertEqual(int(m.group(1)), 20 * (2762 + 4 * 3))
        self.assertEqual(int(m.group(3)), 20 * 4 * 2762)

    def test_help_shows_descriptions_and_true_defaults(self):
        out = run(["python/examples/ddp_hook.py", "--help"])
        for text in ("(default 4)", "(default optinc)", "(default 300)", "not PyTorch's"):
            self.assertIn(text, out)


if __name__ == "__main__":
    unittest.main()
