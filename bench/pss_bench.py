#!/usr/bin/env python3
"""Periodic steady state (nsspice pss) against the transient to steady state (issue 21, "Benchmark").

For each case and each period map (event: the default, exact Jacobian, 200 Radau steps per
period; theta: fixed-step θ-scheme, finite-difference Jacobian), `nsspice pss NETLIST --period T
--map M --compare-transient N` finds the orbit by shooting-Newton and then iterates the plain
transient (the same map, from the initial point) until one period repeats the last to 1e-9; both
are timed inside the same process (wall time of each part, as the report prints it). The CPU
time of the PSS alone is that of a process without --compare-transient (least of CPU_REPEATS);
the transient's CPU time is the CPU time of the process with it minus that (the rest of both
processes is the same). For the
buck, ngspice then runs the transient to the settling time of the event map on a regularized
netlist (SW RON = 1 uOhm, ROFF = 1 TOhm, diode N = 1e-4; TMAX = 10 ns), timed as a whole process,
in the same run of this script.

With --baseline EXE (another nsspice, e.g. main's build), the PSS of every case is also run by
that binary in the same run (without the transient count), for a before/after comparison of the
PSS alone, and the CPU time of each PSS process (least of 5 alternating runs; less sensitive to
a shared machine's load than wall time). The machine load (1-minute load average) at the start
and end is recorded: the machine may be shared.

Writes bench/results/pss.json and pss.md. Python 3 standard library; ngspice optional (its row
is left out when it is not on PATH). About 3 minutes (the LLC at resonance needs thousands of
transient periods).
"""
import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import bench_peers  # noqa: E402  (the directory of this script is on sys.path)

ROOT = Path(__file__).resolve().parent.parent

CASES = [
    # name, netlist, period, θ-map steps per period (the event map takes its default, 200)
    ("buck (CCM, 100 kHz)", "examples/buck.cir", 10e-6, 1000),
    ("buck, high-Q filter (Q = 9.5)", "bench/netlists/pss_buck_highq.cir", 10e-6, 1000),
    ("boost (100 kHz, 47 uF)", "examples/boost.cir", 10e-6, 500),
    ("series-resonant converter", "examples/analyses/pss_resonant.cir", 10e-6, 1000),
    ("series-resonant converter, 100 uF output", "bench/netlists/pss_resonant_100u.cir", 10e-6,
     1000),
    ("closed-loop comparator buck", "examples/buck_closed_loop.cir", 10e-6, 1000),
    ("LLC 400 V -> 12 V / 100 W, at resonance (100 kHz, 1000 uF)",
     "examples/analyses/pss_llc.cir", 10e-6, 1000),
    ("LLC, above resonance (111 kHz)", "bench/netlists/pss_llc_above.cir", 9e-6, 900),
    ("parallel-resonant converter (PRC)", "bench/netlists/pss_prc.cir", 10e-6, 1000),
]
# Self-oscillating circuits (--trigger; the event map only): name, netlist, guessed period,
# trigger. The transient is then the event map iterated over the period found.
TRIGGER_CASES = [
    ("relay-driven LC oscillator (--trigger)", "examples/analyses/pss_oscillator.cir", 6e-6,
     "v(t)=0 rise"),
    ("hysteretic buck, 2.5 ohm (--trigger)", "bench/netlists/pss_hysteretic_buck.cir", 20e-6,
     "i(l1) rise"),
]
MAPS = ("event", "theta")
CPU_REPEATS = 5
PSS_CPU_REPEATS = 3

NG_BUCK = ("""buck converter (examples/buck.cir), regularized for ngspice
""" + bench_peers.REGULARIZED_BUCK.replace("{", "{{").replace("}", "}}") + """.tran 10n {tstop:g} 0 10n uic
.control
run
rusage all
quit 0
.endc
.end
""")


def number(pattern, text, cast=float):
    m = re.search(pattern, text)
    return cast(m.group(1)) if m else None


def run_pss(exe, netlist, period, steps, limit, pss_map, trigger=None):
    cmd = [str(exe), "pss", str(ROOT / netlist), "--period", f"{period:g}", "--map", pss_map,
           "-o", "pss.csv"]
    if limit > 0:
        cmd += ["--compare-transient", str(limit)]
    if pss_map == "theta":
        cmd += ["--steps", str(steps)]
    if trigger:
        cmd += ["--trigger", trigger]
    with tempfile.TemporaryDirectory() as tmp:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    out = proc.stdout + proc.stderr
    shown = " ".join(cmd[1:]).replace(str(ROOT) + "/", "")
    res = {"command": shown, "exit": proc.returncode, "process_wall_s": wall, "process_cpu_s": cpu,
           "newton_iterations": number(r"Newton iterations\s+(\d+)", out, int),
           "pss_periods": number(r"periods simulated\s+(\d+)", out, int),
           "pss_s": number(r"time\s+([0-9.e+-]+) s", out),
           "final_periodicity": number(r"final periodicity\s+([0-9.e+-]+)", out),
           "transient_periods": number(r"transient to settle\s+(\d+) periods", out, int),
           "transient_s": number(r"periods in ([0-9.e+-]+) s", out),
           "period_s": number(r"T = ([0-9.e+-]+) s", out),
           "theta_fallback": "the theta map did not converge" in out}
    if res["pss_s"] and res["transient_s"]:
        res["transient_over_pss"] = res["transient_s"] / res["pss_s"]
    if proc.returncode != 0:
        res["error"] = out.strip()[-300:]
    return res


def add_cpu(res, exe, netlist, period, steps, pss_map, trigger=None):
    """CPU time of the PSS alone (least of PSS_CPU_REPEATS processes without the transient) and
    of the transient (the process with it, minus that)."""
    alone = min(run_pss(exe, netlist, period, steps, 0, pss_map, trigger)["process_cpu_s"]
                for _ in range(PSS_CPU_REPEATS))
    res["pss_cpu_s"] = alone
    if res.get("transient_s") is not None:
        res["transient_cpu_s"] = res["process_cpu_s"] - alone
        if alone > 0:
            res["transient_over_pss_cpu"] = res["transient_cpu_s"] / alone


def run_ngspice_buck(periods):
    tstop = periods * 10e-6
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "buck_ng.cir"
        path.write_text(NG_BUCK.format(tstop=tstop))
        t0 = time.perf_counter()
        proc = subprocess.run(["ngspice", "-b", path.name], cwd=tmp, capture_output=True,
                              text=True, timeout=120)
        wall = time.perf_counter() - t0
    log = proc.stdout + proc.stderr
    return {"command": f"ngspice -b (regularized buck, .tran 10n {tstop:g} 0 10n uic)",
            "simulated_s": tstop, "periods": periods, "wall_s": wall, "exit": proc.returncode,
            "accepted_points": number(r"Accepted timepoints\s*=\s*(\d+)", log, int)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="build directory holding nsspice")
    ap.add_argument("--limit", type=int, default=20000, help="most transient periods")
    ap.add_argument("--baseline", help="another nsspice binary whose PSS is timed too")
    args = ap.parse_args()
    exe = (ROOT / args.build / "nsspice").resolve()
    load_start = os.getloadavg()[0]
    rows = []
    for name, netlist, period, steps in CASES:
        for pss_map in MAPS:
            res = run_pss(exe, netlist, period, steps, args.limit, pss_map)
            res["case"] = name
            res["map"] = pss_map
            add_cpu(res, exe, netlist, period, steps, pss_map)
            if args.baseline:
                base = run_pss(Path(args.baseline).resolve(), netlist, period, steps, 0, pss_map)
                res["baseline"] = {k: base[k] for k in ("newton_iterations", "pss_periods",
                                                        "pss_s", "exit")}
                # CPU time of the whole PSS process (no transient count), the least of
                # CPU_REPEATS alternating runs of each binary: less sensitive to the machine's
                # load than the wall times.
                cpu = {"before": [], "after": []}
                for _ in range(CPU_REPEATS):
                    cpu["before"].append(run_pss(Path(args.baseline).resolve(), netlist, period,
                                                 steps, 0, pss_map)["process_cpu_s"])
                    cpu["after"].append(run_pss(exe, netlist, period, steps, 0,
                                                pss_map)["process_cpu_s"])
                res["cpu_before_s"] = min(cpu["before"])
                res["cpu_after_s"] = min(cpu["after"])
            rows.append(res)
            print(f"{name}, {pss_map} map: {res}")
    for name, netlist, guess, trigger in TRIGGER_CASES:
        res = run_pss(exe, netlist, guess, 0, args.limit, "event", trigger)
        res["case"] = f"{name}, T = {res['period_s']:.6g} s" if res["period_s"] else name
        res["map"] = "event"
        add_cpu(res, exe, netlist, guess, 0, "event", trigger)
        rows.append(res)
        print(f"{name}: {res}")
    ngspice = None
    buck = rows[0]
    if shutil.which("ngspice") and buck.get("transient_periods"):
        ngspice = run_ngspice_buck(buck["transient_periods"])
        ngspice["over_pss"] = ngspice["wall_s"] / buck["pss_s"] if buck["pss_s"] else None
        print(f"ngspice buck: {ngspice}")
    load_end = os.getloadavg()[0]
    results = ROOT / "bench" / "results"
    (results / "pss.json").write_text(json.dumps({"cases": rows, "ngspice_buck": ngspice,
                                                  "load_average": [load_start, load_end],
                                                  "baseline": args.baseline},
                                                 indent=2) + "\n")
    lines = ["# PSS against the transient to steady state (bench/pss_bench.py)", "",
             "| case | map | Newton it. | PSS periods | PSS time [s] | transient periods to 1e-9 | "
             "transient time [s] | transient / PSS | PSS CPU [s] | transient CPU [s] | "
             "transient / PSS, CPU |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    def cpu(value):
        return f"{value:.4f}" if value is not None else None

    for r in rows:
        ratio = r.get("transient_over_pss")
        cpu_ratio = r.get("transient_over_pss_cpu")
        failed = f" (failed: {r['error'][:80]})" if r.get("error") else ""
        shown_map = f"{r['map']} (failed, fell back to event)" if r.get("theta_fallback") \
            else r["map"]
        lines.append(f"| {r['case']} | {shown_map} | {r['newton_iterations']} | "
                     f"{r['pss_periods']} | {r['pss_s']} | {r['transient_periods']} | "
                     f"{r['transient_s']} | {ratio and f'{ratio:.1f}x'}{failed} | "
                     f"{cpu(r.get('pss_cpu_s'))} | {cpu(r.get('transient_cpu_s'))} | "
                     f"{cpu_ratio and f'{cpu_ratio:.1f}x'} |")
    if args.baseline:
        lines += ["", f"Before/after, the PSS alone (baseline: `{args.baseline}`, run in the same "
                      "run, same cases):", "",
                  "| case | map | before: Newton it. / periods / time [s] | after | "
                  "before / after time | process CPU before / after [s] (least of "
                  f"{CPU_REPEATS}) | before / after CPU |", "|---|---|---|---|---|---|---|"]
        for r in rows:
            b = r.get("baseline")
            if not b:
                continue
            speed = b["pss_s"] / r["pss_s"] if b.get("pss_s") and r.get("pss_s") else None
            cb, ca = r.get("cpu_before_s"), r.get("cpu_after_s")
            cpu_ratio = cb / ca if cb and ca else None
            lines.append(f"| {r['case']} | {r['map']} | {b['newton_iterations']} / "
                         f"{b['pss_periods']} / {b['pss_s']} | {r['newton_iterations']} / "
                         f"{r['pss_periods']} / {r['pss_s']} | {speed and f'{speed:.2f}x'} | "
                         f"{cb:.4f} / {ca:.4f} | {cpu_ratio and f'{cpu_ratio:.2f}x'} |")
    lines += ["", f"Machine load (1-minute average, 2 cores shared): {load_start:.1f} at the "
                  f"start, {load_end:.1f} at the end."]
    if ngspice:
        lines += ["", f"ngspice (regularized buck, TMAX = 10 ns) over the same "
                      f"{ngspice['periods']} periods: {ngspice['wall_s']:.3g} s wall (whole "
                      f"process), {ngspice['over_pss'] and round(ngspice['over_pss'], 1)}x the "
                      f"nsspice PSS time."]
    (results / "pss.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
