#!/usr/bin/env python3
"""Side-by-side benchmark: nsspice against Siconos on the DiodeBridge circuit, same h and theta.

Runs, interleaved (warm-up, then A B A B ...), whole processes:
  nsspice run bench/netlists/diode_bridge_h100n.cir --theta 1 -o <tmp>.csv   (CSV output included)
  /usr/bin/python3 bench/siconos_diode_bridge.py 1e-7 5e-3 1 <tmp>.csv       (Debian python3-siconos)
and reports medians, per-step costs and their ratio, plus the largest difference between the two
waveforms (theta = 1: both compute the same discrete map, so it must be round-off).
Results: bench/results/diode_bridge.json and .md.  Usage: run_bench.py [--build DIR] [--reps N]
"""
import argparse
import csv
import json
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
H, T_END, THETA = 1e-7, 5e-3, 1.0
STEPS = round(T_END / H)


def timed(cmd):
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{proc.stdout}\n{proc.stderr}")
    return wall, proc.stdout


def read_columns(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    return {name: [float(r[i]) for r in rows[1:]] for i, name in enumerate(header)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    nsspice = (ROOT / args.build / "nsspice").resolve()
    netlist = ROOT / "bench" / "netlists" / "diode_bridge_h100n.cir"
    peer = ROOT / "bench" / "siconos_diode_bridge.py"
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="nsspice_bench_"))
    ours_csv, theirs_csv = tmp / "nsspice.csv", tmp / "siconos.csv"
    run_a = [str(nsspice), "run", str(netlist), "--theta", str(THETA), "-o", str(ours_csv)]
    run_b = ["/usr/bin/python3", str(peer), str(H), str(T_END), str(THETA), str(theirs_csv)]
    timed(run_a), timed(run_b)  # warm-up
    a_wall, b_wall, b_loop, a_report = [], [], [], ""
    for _ in range(args.reps):
        wall, a_report = timed(run_a)
        a_wall.append(wall)
        wall, out = timed(run_b)
        b_wall.append(wall)
        b_loop.append(json.loads(out.strip().splitlines()[-1])["loop_s"])
    ours, theirs = read_columns(ours_csv), read_columns(theirs_csv)
    diff_v = max(abs(x - y) for x, y in zip(ours["v(n1)"], theirs["v(n1)"]))
    diff_i = max(abs(x - y) for x, y in zip(ours["i(l1)"], theirs["i(l1)"]))
    a_med, b_med, b_loop_med = map(statistics.median, (a_wall, b_wall, b_loop))
    result = {
        "circuit": "DiodeBridge (Siconos example), 4 ideal diodes, LC tank, 1 kOhm load",
        "h_s": H, "t_end_s": T_END, "theta": THETA, "steps": STEPS, "repetitions": args.reps,
        "nsspice_process_wall_s": a_med,
        "nsspice_us_per_step_process": 1e6 * a_med / STEPS,
        "siconos_process_wall_s": b_med,
        "siconos_loop_wall_s": b_loop_med,
        "siconos_us_per_step_loop": 1e6 * b_loop_med / STEPS,
        "ratio_siconos_loop_over_nsspice_process": b_loop_med / a_med,
        "ratio_process_over_process": b_med / a_med,
        "max_abs_diff_vC_V": diff_v, "max_abs_diff_iL_A": diff_i,
        "nsspice_report": a_report,
    }
    out_dir = ROOT / "bench" / "results"
    out_dir.mkdir(exist_ok=True)
    (out_dir / "diode_bridge.json").write_text(json.dumps(result, indent=2) + "\n")
    table = (
        "| circuit | h | steps | nsspice (whole process, CSV written) | Siconos (integration loop only) "
        "| ratio per step | max abs diff v_C / i_L |\n|---|---|---|---|---|---|---|\n"
        f"| DiodeBridge, theta = 1 | {H:g} s | {STEPS} | {a_med:.3f} s = "
        f"{1e6 * a_med / STEPS:.2f} us/step | {b_loop_med:.3f} s = {1e6 * b_loop_med / STEPS:.1f} "
        f"us/step | **{b_loop_med / a_med:.1f}x** | {diff_v:.1e} V / {diff_i:.1e} A |\n")
    (out_dir / "diode_bridge.md").write_text(table)
    print(table)
    print(f"whole process vs whole process: nsspice {a_med:.3f} s, Siconos {b_med:.3f} s "
          f"({b_med / a_med:.1f}x)")


if __name__ == "__main__":
    main()
