#!/usr/bin/env python3
"""Switching AC (nsspice ac) against the brute-force transient method (issue 21, "Benchmark").

For each case `nsspice ac NETLIST --period T --inject SRC --freq F1 F2 50 --check-transient 50`
runs, in one process and timed part by part (the report's wall times):
  * the periodic steady state (shooting-Newton, exact Jacobian), then the small-signal response
    at the 50 frequencies from the linearization of the period (the method of `nsspice ac`);
  * the brute force on the same 50 frequencies: a sine of 1e-3 of the source's peak injected at
    each (f' within 1% of f, windows of whole periods of T and 1/f'), the event-driven transient
    from the orbit until the fundamental settles to 1e-4, the fundamental extracted.
The ratio is brute force / (PSS + sweep); the largest disagreement of the two is printed.

Peer: ngspice runs the same brute force for one frequency of the voltage-mode buck (regularized
switch and diode, a tanh comparator, TMAX = 2 ns: at 10 ns its fundamental is 1 dB off and
changes from window to window; started from nsspice's orbit) over the periods
nsspice's check needed there, timed as a whole process in the same run of this script; its fundamental, extracted here from its
output over the last window, is compared with nsspice's (it settles only as far as those periods
let it: a sanity check, not a reference).

Writes bench/results/switching_ac.{json,md}. Python 3 standard library; ngspice optional.
A few minutes (the brute force is most of it).
"""
import argparse
import cmath
import json
import math
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from pss_bench import number  # noqa: E402  (the directory of this script is on sys.path)

ROOT = Path(__file__).resolve().parent.parent

CASES = [
    # name, netlist, period, injected source, saved signals, fstart, fstop
    ("voltage-mode buck, control-to-output", "examples/analyses/ac_vm_buck.cir", 10e-6, "vc",
     "v(out),i(l1)", 100, 45e3),
    ("peak-current-mode buck, control-to-output", "examples/analyses/ac_pcm_buck.cir", 10e-6, "vc",
     "v(out),i(l1)", 100, 45e3),
    ("closed-loop buck, loop gain", "examples/analyses/ac_loop_gain.cir", 10e-6, "vinj",
     "v(out),v(fb)", 100, 45e3),
]

NG_VM_BUCK = """voltage-mode buck (examples/analyses/ac_vm_buck.cir), regularized for ngspice
Vin in 0 DC 12
Vc ctl 0 DC 0.45 SIN(0.45 {amplitude:g} {f:.12g})
Vramp ramp 0 PULSE(0 1 0 9.99u 5n 5n 10u)
B1 g 0 V = 0.5*(1+tanh((V(ctl)-V(ramp))*1e5))
S1 in sw g 0 swm
D1 0 sw dmod
L1 sw out 100u IC={il:.12g}
C1 out 0 100u
R1 out 0 5
.model swm SW(VT=0.5 VH=0 RON=1e-6 ROFF=1e12)
.model dmod D(IS=1e-14 N=1e-4)
.ic v(out)={vout:.12g}
.tran 2n {tstop:.12g} 0 2n uic
.control
run
wrdata {data} v(out)
quit 0
.endc
.end
"""


def check_rows(text):
    """The --check-transient table: (f, signal, ac_db, tran_db, ddb, ac_deg, tran_deg, ddeg, periods)."""
    rows = []
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 9 and re.fullmatch(r"[0-9.e+-]+", f[0]) and f[1].startswith(("v(", "i(", "loop")):
            rows.append((float(f[0]), f[1], *map(float, f[2:8]), int(f[8])))
    return rows


def run_case(exe, name, netlist, period, source, save, f1, f2, points):
    cmd = [str(exe), "ac", str(ROOT / netlist), "--period", f"{period:g}", "--inject", source,
           "--freq", f"{f1:g}", f"{f2:g}", str(points), "--save", save, "-o", "ac.csv",
           "--check-transient", str(points)]
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
        wall = time.perf_counter() - t0
    out = proc.stdout + proc.stderr
    rows = check_rows(out)
    res = {"case": name, "command": " ".join(cmd[1:]).replace(str(ROOT) + "/", ""),
           "exit": proc.returncode, "process_wall_s": wall,
           "pss_s": number(r"\n  time\s+([0-9.e+-]+) s", out),
           "newton_iterations": number(r"Newton iterations\s+(\d+)", out, int),
           "sweep_points": number(r"switching AC: (\d+) point", out, int),
           "sweep_s": number(r"switching AC: \d+ points? in ([0-9.e+-]+) s", out),
           "brute_frequencies": len({r[0] for r in rows}),
           "brute_periods": number(r"\), (\d+) periods in", out, int),
           "brute_s": number(r"periods in ([0-9.e+-]+) s\n", out),
           "max_abs_diff_db": max((abs(r[4]) for r in rows), default=None),
           "max_abs_diff_deg": max((abs(r[7]) for r in rows), default=None),
           "rows": rows}
    if res["pss_s"] is not None and res["sweep_s"] and res["brute_s"]:
        res["brute_over_ac"] = res["brute_s"] / (res["pss_s"] + res["sweep_s"])
        res["brute_over_sweep"] = res["brute_s"] / res["sweep_s"]
    if proc.returncode != 0:
        res["error"] = out.strip()[-600:]
    return res


def fundamental(times, values, f, window):
    """(2j/(A W)) ∫ y e^{-j2πft} dt over the last `window` seconds, y linear between points,
    per unit amplitude A = 1 (the caller divides)."""
    t_end = times[-1]
    w = 2 * math.pi * f
    total = 0j
    for k in range(1, len(times)):
        t0, t1 = times[k - 1], times[k]
        if t0 < t_end - window:
            continue
        h = t1 - t0
        if h <= 0:
            continue
        y0, y1 = values[k - 1], values[k]
        th = w * h
        e = cmath.exp(-1j * th)
        if abs(th) < 1e-3:
            a = complex(1 - th * th / 6, -th / 2)
            b = complex(0.5 - th * th / 8, -th / 3)
        else:
            a = (1 - e) / (1j * th)
            b = (e * (1 + 1j * th) - 1) / (th * th)
        total += h * cmath.exp(-1j * w * t0) * (y0 * a + (y1 - y0) * b)
    return 2j / window * total


def orbit_start(exe):
    """v(out), i(l1) at t = 0 of the voltage-mode buck's orbit (nsspice pss)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([str(exe), "pss", str(ROOT / CASES[0][1]), "--period", "10u", "-o",
                        "pss.csv", "--save", "v(out),i(l1)", "-q"], cwd=tmp, check=True)
        first = (Path(tmp) / "pss.csv").read_text().splitlines()[1].split(",")
    return float(first[1]), float(first[2])


def run_ngspice(check_row, amplitude, start):
    f, _, _, tran_db, _, _, tran_deg, _, periods = check_row
    # The window nsspice used: q periods with f' = fs·p/q; the last q periods of the run.
    q = next(q for q in range(3, 100001) if abs(f * 10e-6 * q - round(f * 10e-6 * q)) < 1e-5)
    tstop = periods * 10e-6
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "vm_ng.cir"
        data = Path(tmp) / "vout.txt"
        path.write_text(NG_VM_BUCK.format(amplitude=amplitude, f=f, tstop=tstop, data=data.name,
                                          vout=start[0], il=start[1]))
        t0 = time.perf_counter()
        proc = subprocess.run(["ngspice", "-b", path.name], cwd=tmp, capture_output=True,
                              text=True, timeout=3600)
        wall = time.perf_counter() - t0
        times, values = [], []
        if data.exists():
            for line in data.read_text().splitlines():
                parts = line.split()
                if len(parts) >= 2:
                    times.append(float(parts[0]))
                    values.append(float(parts[1]))
    res = {"command": f"ngspice -b (regularized voltage-mode buck, sine of {amplitude:g} V at "
                      f"{f:.6g} Hz on vc, .tran 2n {tstop:g} 0 2n)",
           "f": f, "periods": periods, "wall_s": wall, "exit": proc.returncode,
           "points": len(times)}
    if len(times) > 10:
        h = fundamental(times, values, f, q * 10e-6) / amplitude
        res["ngspice_db"] = 20 * math.log10(abs(h))
        res["ngspice_deg"] = math.degrees(cmath.phase(h))
        # The window before the last: how far ngspice's fundamental still moves.
        cut = next(k for k in range(len(times)) if times[k] > times[-1] - q * 10e-6)
        h2 = fundamental(times[:cut], values[:cut], f, q * 10e-6) / amplitude
        res["ngspice_previous_window_db"] = 20 * math.log10(abs(h2))
        res["ngspice_previous_window_deg"] = math.degrees(cmath.phase(h2))
        res["nsspice_transient_db"] = tran_db
        res["nsspice_transient_deg"] = tran_deg
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="build directory holding nsspice")
    ap.add_argument("--points", type=int, default=50, help="frequencies of each sweep")
    ap.add_argument("--no-ngspice", action="store_true", help="leave the peer out")
    args = ap.parse_args()
    exe = (ROOT / args.build / "nsspice").resolve()
    rows = []
    for case in CASES:
        res = run_case(exe, *case, args.points)
        rows.append(res)
        shown = {k: v for k, v in res.items() if k != "rows"}
        print(f"{case[0]}: {shown}")
    ngspice = None
    vm = rows[0]
    if shutil.which("ngspice") and not args.no_ngspice and vm.get("rows"):
        row = next(r for r in vm["rows"] if r[1] == "v(out)" and r[0] > 1e3)
        ngspice = run_ngspice(row, 1e-3, orbit_start(exe))  # the check's default amplitude
        ngspice["nsspice_brute_s_per_frequency"] = vm["brute_s"] / max(vm["brute_frequencies"], 1)
        print(f"ngspice: {ngspice}")
    results = ROOT / "bench" / "results"
    summary = [{k: v for k, v in r.items() if k != "rows"} for r in rows]
    (results / "switching_ac.json").write_text(
        json.dumps({"cases": summary, "ngspice": ngspice}, indent=2) + "\n")
    lines = ["# Switching AC against the brute-force transient (bench/switching_ac_bench.py)", "",
             "| case | PSS [s] | sweep of N frequencies [s] | brute force, same N [s] | periods "
             "simulated | brute / (PSS + sweep) | largest difference |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = r.get("brute_over_ac")
        lines.append(f"| {r['case']} (N = {r['sweep_points']}) | {r['pss_s']} | {r['sweep_s']} | "
                     f"{r['brute_s']} | {r['brute_periods']} | "
                     f"{ratio and f'{ratio:.0f}x'} | {r['max_abs_diff_db']} dB, "
                     f"{r['max_abs_diff_deg']} deg |")
    if ngspice:
        lines += ["", f"ngspice, the brute force at one frequency of the voltage-mode buck "
                      f"({ngspice['f']:.6g} Hz, {ngspice['periods']} periods, TMAX = 2 ns): "
                      f"{ngspice['wall_s']:.3g} s wall (whole process) against nsspice's "
                      f"{ngspice['nsspice_brute_s_per_frequency']:.3g} s per frequency of its "
                      f"brute force; v(out) {ngspice.get('ngspice_db', float('nan')):.3f} dB / "
                      f"{ngspice.get('ngspice_deg', float('nan')):.2f} deg (the window before: "
                      f"{ngspice.get('ngspice_previous_window_db', float('nan')):.3f} dB / "
                      f"{ngspice.get('ngspice_previous_window_deg', float('nan')):.2f} deg) against nsspice's "
                      f"transient {ngspice.get('nsspice_transient_db', float('nan')):.3f} dB / "
                      f"{ngspice.get('nsspice_transient_deg', float('nan')):.2f} deg."]
    (results / "switching_ac.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
