#!/usr/bin/env python3
"""Writes tests/data/lcp/circuit_*.lcp: LCPs of real circuits at steps where the mode changes.

For each example netlist the script counts the run's steps, then, from a given fraction of the
run on, finds a step whose accepted mode differs from its starting mode by bisection on the
starting mode (the provenance line base_mode of `nsspice run --dump-mlcp K`), and stores
that step's dump. The dump is the step's LCP as handed to the LCP solver: the principal
pivot transform at the step's starting mode, equilibrated (docs/solvers.md §5).

    scripts/make_lcp_dumps.py [--nsspice BUILD/nsspice] [--out tests/data/lcp]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (stored name, example netlist, where to start looking, as a fraction of the run's steps)
CIRCUITS = [
    ("circuit_diode_bridge", "examples/diode_bridge.cir", 0.3),
    ("circuit_buck", "examples/buck.cir", 0.5),
    ("circuit_rlc_zener", "examples/rlc_zener.cir", 0.2),
    ("circuit_buck_closed_loop", "examples/buck_closed_loop.cir", 0.5),
    ("circuit_cmos_inverter_chain", "examples/cmos_inverter_chain.cir", 0.1),
]


class Runner:
    def __init__(self, nsspice, netlist, tmp):
        self.nsspice, self.netlist, self.tmp = nsspice, netlist, tmp

    def run(self, *extra):
        out = os.path.join(self.tmp, "run.csv")
        r = subprocess.run([self.nsspice, "run", self.netlist, "-o", out, "--no-progress", *extra],
                           check=True, capture_output=True, text=True)
        return r.stdout

    def steps(self):
        for line in self.run().splitlines():
            if line.strip().startswith("steps"):
                return int(line.split()[1])
        raise RuntimeError("no step count in the run report")

    def dump(self, k):
        self.run("-q", "--dump-mlcp", str(k))
        path = os.path.join(self.tmp, f"run.step{k}.lcp")
        return path, provenance(path)


def provenance(path):
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("M ") or line.startswith("q "):
                break
            if "=" in line and not line.startswith("#"):
                key, value = line.rstrip("\n").split("=", 1)
                out[key] = value
    return out


def find_change(runner, start, total):
    """A step k ≥ start whose accepted mode differs from its starting mode (bisection on the
    starting mode, base_mode of --dump-mlcp k), or None."""
    lo = start
    mode_lo = runner.dump(lo)[1]["base_mode"]
    width, hi = 1, None
    while lo + width < total:
        if runner.dump(lo + width)[1]["base_mode"] != mode_lo:
            hi = lo + width
            break
        lo, width = lo + width, width * 2
    if hi is None:
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if runner.dump(mid)[1]["base_mode"] == mode_lo:
            lo = mid
        else:
            hi = mid
    return lo


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nsspice", default=os.path.join(ROOT, "..", "build", "nsspice"))
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "lcp"))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="nsspice_dumps_")
    try:
        for name, netlist, fraction in CIRCUITS:
            src = os.path.join(ROOT, netlist)
            runner = Runner(a.nsspice, src, tmp)
            total = runner.steps()
            k, p = max(1, int(fraction * total)), {}
            for _ in range(20):  # a switch event changes the starting mode, not the step's own
                k = find_change(runner, k, total)
                if k is None:
                    break
                path, p = runner.dump(k)
                if p["base_mode"] != p["mode"]:
                    break
                k += 1
            if not k or p["base_mode"] == p["mode"]:
                print(f"{name}: no step with a mode change found", file=sys.stderr)
                continue
            text = open(path).read().replace(src, netlist)
            with open(os.path.join(a.out, name + ".lcp"), "w") as f:
                f.write(text)
            print(f"{name}: step {k}, t = {p['t']}, n = {len(p['mode'])}, "
                  f"{p['base_mode']} -> {p['mode']}")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
