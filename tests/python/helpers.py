"""Shared by the Python tests: the nsspice binary of this build, a scratch directory, and a
reader of `nsspice run`'s CSV files that parses every number with Python's float() (the file
holds each double in its shortest exact form, so parsing it gives back the same bits)."""
import os
import pathlib
import shutil
import subprocess
import tempfile
import unittest

import numpy as np

BINARY = os.environ.get("NSSPICE_BINARY", "nsspice")
SOURCE = pathlib.Path(os.environ.get("NSSPICE_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
EXAMPLES = SOURCE / "examples"


def cli(args, cwd):
    """Runs `nsspice ARGS` in cwd; (exit code, stdout + stderr)."""
    p = subprocess.run([BINARY] + [str(a) for a in args], cwd=cwd, capture_output=True,
                       text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def read_table(path):
    """{column: array} of a CSV with a header; text fields stay strings."""
    lines = pathlib.Path(path).read_text().splitlines()
    header = lines[0].split(",")
    rows = [line.split(",") for line in lines[1:]]
    out = {}
    for k, name in enumerate(header):
        values = [r[k] for r in rows]
        try:
            out[name] = np.array([float(v) if v != "" else np.nan for v in values])
        except ValueError:
            out[name] = values
    return out


def same_bits(a, b):
    """Arrays equal bit for bit (0.0 and -0.0 differ; NaNs compare by their bits)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


class ScratchTest(unittest.TestCase):
    """A scratch directory per test (kept when the test fails)."""

    def setUp(self):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix=f"nsspice_py_{self._testMethodName}_"))

    def tearDown(self):
        outcome = getattr(self, "_outcome", None)
        errors = getattr(getattr(outcome, "result", None), "errors", []) + \
            getattr(getattr(outcome, "result", None), "failures", [])
        if not any(test is self for test, _ in errors):
            shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, text):
        (self.dir / name).write_text(text)
        return self.dir / name
