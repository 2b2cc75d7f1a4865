#!/usr/bin/env python3
"""Side-by-side benchmarks of nsspice against its peers, each pair run in the same invocation,
interleaved (warm-up, then A B A B ...), whole processes, medians of --reps repetitions.

  diode_bridge  nsspice vs Siconos (Debian python3-siconos) on Siconos's DiodeBridge, h = 0.1 us,
                5 ms, theta = 1 (the same discrete map: waveforms must agree to round-off);
                per-step cost of nsspice's whole process (CSV written) vs Siconos's loop.
  buck          nsspice (ideal switch and diode, h = 10 ns) vs ngspice 39 (regularized diode
                IS=1e-14 N=1, smooth XSPICE switch, TMAX = 10 ns) on the 2 ms buck converter;
                both write their waveforms; accepted steps of each and the wall-time ratio.

  capfilter     nsspice vs Siconos on DiodeBridgeCapFilter (reference/siconos README §4.4),
                theta = 1, h = 1 us and 0.1 us, 5 ms; waveforms compared, per-step costs.
  ladder        diode-clamped RC ladder, N = 10 .. 10000 sections (R = 1 kOhm, C = 1 nF, each
                node clamped by an ideal diode to a 1 V rail, PULSE 0 -> 5 V drive, period
                40 us, h = 0.1 us, 0.2 ms): nsspice vs ngspice (D N=0.01, TMAX = h, wrdata),
                the same RC ladder without diodes (nsspice: the linear-solve floor), per-step
                cost vs N, peak memory (/usr/bin/time -v), nsspice's counters.

Results: bench/results/<case>.json and .md.  Usage: run_bench.py [--build DIR] [--reps N] [--case NAME]
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

import bench_peers

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


def diode_bridge(args):
    nsspice = (ROOT / args.build / "nsspice").resolve()
    netlist = ROOT / "bench" / "netlists" / "diode_bridge_h100n.cir"
    peer = ROOT / "bench" / "siconos_diode_bridge.py"
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="nsspice_bench_"))
    ours_csv, theirs_csv = tmp / "nsspice.csv", tmp / "siconos.csv"
    run_a = [str(nsspice), "run", str(netlist), "--theta", str(THETA), "-o", str(ours_csv)]
    run_b = ["/usr/bin/python3", str(peer), str(H), str(T_END), str(THETA), str(theirs_csv)]
    timed(run_a), timed(run_b)  # warm-up
    a_wall, a_step, b_wall, b_loop, a_report = [], [], [], [], ""
    for _ in range(args.reps):
        wall, a_report = timed(run_a)
        a_wall.append(wall)
        a_step.append(stepping_us(a_report))
        wall, out = timed(run_b)
        b_wall.append(wall)
        b_loop.append(json.loads(out.strip().splitlines()[-1])["loop_s"])
    ours, theirs = read_columns(ours_csv), read_columns(theirs_csv)
    diff_v = max(abs(x - y) for x, y in zip(ours["v(n1)"], theirs["v(n1)"]))
    diff_i = max(abs(x - y) for x, y in zip(ours["i(l1)"], theirs["i(l1)"]))
    a_med, a_step_med, b_med, b_loop_med = map(statistics.median, (a_wall, a_step, b_wall, b_loop))
    b_step = 1e6 * b_loop_med / STEPS
    result = {
        "circuit": "DiodeBridge (Siconos example), 4 ideal diodes, LC tank, 1 kOhm load",
        "h_s": H, "t_end_s": T_END, "theta": THETA, "steps": STEPS, "repetitions": args.reps,
        "nsspice_process_wall_s": a_med,
        "nsspice_us_per_step_process": 1e6 * a_med / STEPS,
        "nsspice_us_per_step_stepping": a_step_med,
        "siconos_process_wall_s": b_med,
        "siconos_loop_wall_s": b_loop_med,
        "siconos_us_per_step_loop": 1e6 * b_loop_med / STEPS,
        "ratio_siconos_loop_over_nsspice_process": b_loop_med / a_med,
        "ratio_per_step_loop_over_loop": b_step / a_step_med,
        "ratio_process_over_process": b_med / a_med,
        "max_abs_diff_vC_V": diff_v, "max_abs_diff_iL_A": diff_i,
        "nsspice_report": a_report,
    }
    out_dir = ROOT / "bench" / "results"
    out_dir.mkdir(exist_ok=True)
    (out_dir / "diode_bridge.json").write_text(json.dumps(result, indent=2) + "\n")
    table = (
        "| circuit | h | steps | nsspice stepping (report; CSV written alongside) | Siconos "
        "(integration loop only) | ratio per step | nsspice whole process | ratio, Siconos loop "
        "over nsspice process | max abs diff v_C / i_L |\n|---|---|---|---|---|---|---|---|---|\n"
        f"| DiodeBridge, theta = 1 | {H:g} s | {STEPS} | {a_step_med:.3f} us/step | "
        f"{b_loop_med:.3f} s = {b_step:.1f} us/step | **{b_step / a_step_med:.1f}x** | "
        f"{a_med:.3f} s = {1e6 * a_med / STEPS:.2f} us/step | {b_loop_med / a_med:.1f}x | "
        f"{diff_v:.1e} V / {diff_i:.1e} A |\n")
    (out_dir / "diode_bridge.md").write_text(table)
    print(table)
    print(f"whole process vs whole process: nsspice {a_med:.3f} s, Siconos {b_med:.3f} s "
          f"({b_med / a_med:.1f}x)")


def stepping_us(report):
    """The run report's stepping time per step [µs]: the transient alone, start-up excluded."""
    us = bench_peers.counters(report)["us_per_step_stepping"]
    if us is None:
        sys.exit("no stepping time in the nsspice run report:\n" + report)
    return us


def nsspice_counts(report):
    steps = re.search(r"steps\s+(\d+)", report)
    return int(steps.group(1)) if steps else None


def buck(args):
    nsspice = (ROOT / args.build / "nsspice").resolve()
    ours = ROOT / "bench" / "netlists" / "buck_nsspice.cir"
    peer = ROOT / "bench" / "netlists" / "buck_ngspice_d1_fine.cir"
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="nsspice_bench_"))
    # The same signals ngspice's wrdata writes (i(l1), v(out), v(sw), the diode current, the
    # control), as text; and, second, every signal in SPICE's binary raw format.
    run_a = [str(nsspice), "run", str(ours), "-o", str(tmp / "buck.csv"),
             "--save", "i(l1),v(out),v(sw),i(d1),v(ctrl)"]
    run_raw = [str(nsspice), "run", str(ours), "-o", str(tmp / "buck.raw")]
    run_b = ["ngspice", "-b", str(peer)]

    def ngspice_run():
        start = time.perf_counter()
        proc = subprocess.run(run_b, capture_output=True, text=True, cwd=tmp, check=False)
        wall = time.perf_counter() - start
        out = proc.stdout + proc.stderr
        accepted = re.search(r"Accepted timepoints\s*=\s*(\d+)", out)
        rejected = re.search(r"Rejected timepoints\s*=\s*(\d+)", out)
        if accepted is None:
            sys.exit("ngspice did not finish the buck run:\n" + out[-2000:])
        return wall, int(accepted.group(1)), int(rejected.group(1)) if rejected else 0

    timed(run_a), timed(run_raw), ngspice_run()  # warm-up
    a_wall, r_wall, b_wall, a_report, b_counts = [], [], [], "", None
    for _ in range(args.reps):
        wall, a_report = timed(run_a)
        a_wall.append(wall)
        r_wall.append(timed(run_raw)[0])
        wall, acc, rej = ngspice_run()
        b_wall.append(wall)
        b_counts = (acc, rej)
    a_med, b_med, r_med = map(statistics.median, (a_wall, b_wall, r_wall))
    steps = nsspice_counts(a_report)
    result = {
        "circuit": "buck converter, Vin 10 V, 100 kHz PWM, L 100 uH, C 10 uF, R 10 Ohm, 2 ms",
        "nsspice": {"h_s": 1e-8, "steps": steps, "wall_s": a_med, "report": a_report},
        "ngspice": {"tmax_s": 1e-8, "accepted": b_counts[0], "rejected": b_counts[1], "wall_s": b_med,
                    "models": "D IS=1e-14 N=1; XSPICE aswitch r_on 1m r_off 1e6"},
        "nsspice_raw_output": {"wall_s": r_med},
        "ratio_ngspice_over_nsspice": b_med / a_med, "ratio_ngspice_over_nsspice_raw": b_med / r_med,
        "repetitions": args.reps,
    }
    out_dir = ROOT / "bench" / "results"
    out_dir.mkdir(exist_ok=True)
    (out_dir / "buck.json").write_text(json.dumps(result, indent=2) + "\n")
    table = ("| circuit | nsspice (h = 10 ns, ideal devices) | ngspice 39 (TMAX = 10 ns, regularized) "
             "| ratio |\n|---|---|---|---|\n"
             f"| buck 2 ms, text output of the same 5 signals | {a_med:.3f} s, {steps} steps | "
             f"{b_med:.3f} s, {b_counts[0]} accepted + {b_counts[1]} rejected | **{b_med / a_med:.1f}x** |\n"
             f"| buck 2 ms, nsspice writing every signal as binary raw | {r_med:.3f} s | (as above) "
             f"| **{b_med / r_med:.1f}x** |\n")
    (out_dir / "buck.md").write_text(table)
    print(table)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--case", default="all",
                    choices=["all", "diode_bridge", "buck", "capfilter", "ladder"])
    ap.add_argument("--ladder-sizes", default="10,100,1000,10000")
    args = ap.parse_args()
    if args.case in ("all", "diode_bridge"):
        diode_bridge(args)
    if args.case in ("all", "buck"):
        buck(args)
    if args.case in ("all", "capfilter"):
        bench_peers.capfilter(args)
    if args.case in ("all", "ladder"):
        bench_peers.ladder(args)


if __name__ == "__main__":
    main()
