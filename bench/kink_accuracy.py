"""Cost and accuracy of the error-controlled runs of the SPICE-model examples (docs/theory.md
§11.6, "Kinks of PWL models"): each variant against a fine fixed-step reference.

For each examples/spice_*.cir below and each variant (a binary, optionally with .options lines
put before the .tran card):
  * CPU time of the process (user + system, median of --reps runs);
  * the run report's accepted/rejected steps, backward-Euler restarts, located instants and
    their extra solves;
  * "wave": the largest error of any node voltage at the print times k·TSTEP against the
    reference, relative to that node's peak in the reference (and the node it is at);
  * "figure": the largest relative difference of the example's .meas figures to the reference's.
The reference is the same netlist at fixed steps h_ref (the table below, --step; the same PWL
models), resampled on the TSTEP grid (--grid TSTEP), computed once per run of this script.

Usage:
  /usr/bin/python3 bench/kink_accuracy.py --variant before=/path/nsspice \\
      --variant after=build/nsspice [--variant smooth=build/nsspice:'.options pwlkinks=smooth']
      [--reps 3] [--only clamp,zener] [--json out.json]
Python 3 standard library. Minutes (the references of the bucks and the boost are the slow part).
"""
import argparse
import csv
import json
import os
import pathlib
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
# example, h_ref [s] (docs/theory.md §11.6)
CASES = [("spice_rectifier_1n4007.cir", "0.5u"), ("spice_clamp_1n4148.cir", "50n"),
         ("spice_zener_clipper.cir", "0.25u"), ("spice_charge_pump_schottky.cir", "2.5n"),
         ("spice_boost_schottky.cir", "1n"), ("spice_mosfet_buck.cir", "2.5n"),
         ("spice_vdmos_buck.cir", "2.5n"), ("spice_bjt_switch.cir", "0.5n"),
         ("spice_diode_recovery.cir", "0.25n"), ("cmos_inverter_chain.cir", "0.5p")]
MEAS = re.compile(r"^\s*([a-z]+)\s*=\s*([-+0-9.eE]+)", re.M)
SUFFIX = {"f": 1e-15, "p": 1e-12, "n": 1e-9, "u": 1e-6, "m": 1e-3}


def number(text):
    m = re.fullmatch(r"([-+0-9.eE]+)([a-z]?)", text.lower())
    return float(m.group(1)) * SUFFIX.get(m.group(2), 1.0)


def run(cmd, cwd, env=None):
    """CPU time (user + system) of the process and its stdout + stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd,
                          check=False, env=None if not env else {**os.environ, **env})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{proc.stdout}\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, proc.stdout + proc.stderr


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    cols = [[float(v) for v in r] for r in rows[1:]]
    return head, cols


def on_grid(head, rows, tstep):
    """Rows at the print times k·tstep (exact decimals in the file), keyed by k."""
    out = {}
    for r in rows:
        k = round(r[0] / tstep)
        if abs(r[0] - k * tstep) <= 1e-9 * tstep and k not in out:
            out[k] = r
    return out


def wave_error(ref, got, head, only=None):
    nodes = [i for i, h in enumerate(head) if h.startswith("v(") and (only is None or h == only)]
    worst, where = 0.0, "-"
    for i in nodes:
        peak = max(abs(r[i]) for r in ref.values()) or 1.0
        err = max((abs(got[k][i] - r[i]) for k, r in ref.items() if k in got), default=0.0)
        if err / peak > worst:
            worst, where = err / peak, head[i]
    return worst, where


def report_counts(text):
    def grab(pattern):
        m = re.search(pattern, text)
        return int(m.group(1)) if m else 0
    return {"steps": grab(r"steps\s+(\d+) accepted"), "rejected": grab(r"(\d+) rejected"),
            "restarts": grab(r"(\d+) backward-Euler restarts"),
            "located": grab(r"(\d+) instants located"), "solves": grab(r"\((\d+) extra solves"),
            "floor": grab(r"(\d+) steps were accepted at the smallest step"),
            "status": re.search(r"run report \(([^)]*)\)", text).group(1)}


def variant_file(src, dst, lines):
    text = src.read_text()
    if lines:
        text = text.replace("\n.tran", "\n" + "".join(l + "\n" for l in lines) + ".tran", 1)
    dst.write_text(text)
    return dst


def case(name, h_ref, variants, reps, tmp):
    src = ROOT / "examples" / name
    tran = re.search(r"^\.tran\s+(\S+)", src.read_text(), re.M)
    tstep = number(tran.group(1))
    ref_csv = tmp / ("ref_" + name + ".csv")
    _, ref_out = run([variants[0][1], "run", src, "--step", h_ref, "--grid", tran.group(1), "-o",
                      ref_csv, "--no-progress"], tmp)
    head, rows = read_csv(ref_csv)
    ref = on_grid(head, rows, tstep)
    ref_meas = {k: float(v) for k, v in MEAS.findall(ref_out)}
    results = {}
    for label, binary, lines, env in variants:
        net = variant_file(src, tmp / f"{label}_{name}", lines)
        out_csv = tmp / f"{label}_{name}.csv"
        cpus, text = [], ""
        for _ in range(reps):
            cpu, text = run([binary, "run", net, "-o", out_csv, "--no-progress"], tmp, env)
            cpus.append(cpu)
        h2, rows2 = read_csv(out_csv)
        got = on_grid(h2, rows2, tstep)
        wave, node = wave_error(ref, got, head)
        wave_out, _ = wave_error(ref, got, head, "v(out)")
        meas = {k: float(v) for k, v in MEAS.findall(text)}
        fig = max((abs(meas[k] - v) / abs(v) for k, v in ref_meas.items() if k in meas and v),
                  default=0.0)
        results[label] = {"cpu_s": statistics.median(cpus), "cpu_runs": cpus, "wave": wave,
                          "wave_node": node, "wave_out": wave_out, "figure": fig, "meas": meas,
                          **report_counts(text)}
    return {"netlist": f"examples/{name}", "h_ref": h_ref, "ref_meas": ref_meas,
            "variants": results}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", action="append", required=True,
                    help="LABEL=BINARY[:OPTION LINE[;OPTION LINE]][|ENV=VALUE[,ENV=VALUE]]")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated substrings of the examples")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    variants = []
    for v in args.variant:
        label, rest = v.split("=", 1)
        rest, _, envs = rest.partition("|")
        binary, _, opts = rest.partition(":")
        env = dict(e.split("=", 1) for e in envs.split(",") if e)
        variants.append((label, pathlib.Path(binary).resolve(),
                         [o for o in opts.split(";") if o], env))
    picks = [c for c in CASES if not args.only or any(s in c[0] for s in args.only.split(","))]
    start = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    load0 = os.getloadavg()[0]
    out = []
    with tempfile.TemporaryDirectory() as d:
        for name, h_ref in picks:
            r = case(name, h_ref, variants, args.reps, pathlib.Path(d))
            out.append(r)
            cells = []
            for label, _, _, _ in variants:
                v = r["variants"][label]
                cells.append(f"{label}: {v['cpu_s']:.3f} s, {v['steps']}/{v['rejected']}/"
                             f"{v['restarts']}/{v['located']}({v['solves']}), wave {v['wave']:.1e}"
                             f" {v['wave_node']} (v(out) {v['wave_out']:.1e}), fig {v['figure']:.0e}"
                             + ("" if v["status"] == "completed" else f" ({v['status']})"))
            print(f"| {name} ({h_ref}) | " + " | ".join(cells) + " |", flush=True)
    print(f"run {start}, load average (1 min) {load0:.1f} at start, "
          f"{os.getloadavg()[0]:.1f} at end; CPU median of {args.reps}; "
          "steps/rejected/BE restarts/located(extra solves)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
