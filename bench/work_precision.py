#!/usr/bin/env python3
"""Work-precision study of `.tran` (issue 15): error against wall time for nsspice's
error-controlled default, its fixed-step theta-scheme, its event mode, and ngspice.

Circuits (the netlists as users have them; TSTEP is a print interval):
  buck       examples/buck.cir, 2 ms from zero (ideal switch and diode, 100 kHz PWM)
  bridge     examples/diode_bridge.cir, the Siconos DiodeBridge, 5 ms
  ab08c      examples/rlc_diode_stop.cir, Acary & Brogliato 2008 circuit (c), 1.5 s: the current
             stops for good at t = 0.5 s (closed form checked below)
  buckboost  bench/circuits/buckboost_dcm.cir, DCM inverting buck-boost, `.tran 1u 3m` (TSTEP =
             a tenth of the 10 us switching period, no TMAX, no UIC)

Figures the user reads, each taken from the run's own file (no --grid):
  avg    the average of a signal over a window at the end (trapezoidal rule over the file's rows)
  peak   the maximum of a signal over a window (the largest row)
  wave   max |y - y_ref| of the main output on a uniform grid of 20 001 points over the run (both
         files interpolated linearly), divided by max |y_ref|
Errors are relative to the reference; "err" (the plot's ordinate) is the largest of the three.
"at rows" is max |y - y_ref| at the file's own rows (reference interpolated), over max |y_ref|:
the solver's accuracy without the error of interpolating between rows. ".meas avg/peak": the
same average and peak as nsspice's own `--meas` computes them (nsspice runs only; not in err).
The "print-interval floor" is the wave error of the reference itself written only every TSTEP:
a run whose file has rows only every TSTEP (event mode, fixed steps >= TSTEP) cannot have a
smaller wave error.

Reference: nsspice --method event at evrtol = 1e-12 with the .tran print step divided so that the
file has ~2e5 rows. A second reference, the fixed theta-scheme (theta = 1/2) at h = TSTOP / 1e6,
is run alongside and the agreement of the two on the three figures is reported (it bounds how
far the reference itself can be trusted); for ab08c the closed form is reported too.

Runs (all in one invocation, sequential; the whole process's wall time and CPU time (user +
system, from getrusage: less sensitive to the other jobs of a shared machine), each the best of 5
runs when the first is under 0.5 s, of 3 under 2 s):
  adaptive  nsspice run (the default: error-controlled theta-scheme), .options reltol = 1e-2 ..
            1e-6 appended to a copy of the netlist
  fixed     nsspice run --step H, four steps per circuit
  event     nsspice run --method event --evrtol E, E = 1e-4 .. 1e-10
  ngspice   ngspice -b on the netlist that `nsspice compare --models regularized` writes (diodes
            IS = 1e-14 N = 0.05 RS = 1m, switches RON = 1m ROFF = 1G: compare's defaults), its
            .tran/.options/.control replaced: RELTOL = 1e-2 .. 1e-5 at two TMAX per circuit (one
            of them TSTEP, ngspice's own default when TSTEP < TSTOP/50); plus a sharper
            regularization (the diode models' N = 1e-3) at two RELTOLs and the smaller TMAX.
            Failures ("timestep too small", timeouts) are rows.
Ratios: for every ngspice run that finished, the cheapest nsspice adaptive (and event) run whose
err is not larger, and ngspice's wall time over it (and the same in CPU time).

Results: bench/results/work_precision.{json,md}, docs/work_precision.png (needs matplotlib and
numpy: run with /usr/bin/python3).

Usage: /usr/bin/python3 bench/work_precision.py [--build DIR] [--only buck,bridge] [--render]
"""
import argparse
import json
import math
import pathlib
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PLOT = ROOT / "docs" / "work_precision.png"
GRID_POINTS = 20001
NG_TIMEOUT = 60.0
NS_TIMEOUT = 120.0

# signal names as nsspice writes them; ngspice's wrdata uses the same (lower case).
CIRCUITS = [
    {"key": "buck", "netlist": "examples/buck.cir", "tstep": 10e-9, "tstop": 2e-3,
     "signals": ["v(out)", "i(l1)"], "main": "v(out)",
     "avg": ("v(out)", 1.9e-3, 2e-3), "peak": ("v(out)", 0.0, 2e-3),
     "meas": ("avg v(out) from=1.9m to=2m", "max v(out) from=0 to=2m"),
     "steps": [1e-7, 3e-8, 1e-8, 3e-9], "tmax": [1e-7, 1e-8]},
    {"key": "bridge", "netlist": "examples/diode_bridge.cir", "tstep": 1e-6, "tstop": 5e-3,
     "signals": ["v(n1)", "v(nl)", "v(nr)"], "main": "v(n1)",
     "avg": ("v(nl)-v(nr)", 4e-3, 5e-3), "peak": ("v(nl)-v(nr)", 4e-3, 5e-3),
     "meas": ("avg v(nl,nr) from=4m to=5m", "max v(nl,nr) from=4m to=5m"),
     "steps": [1e-6, 3e-7, 1e-7, 3e-8], "tmax": [1e-6, 1e-7]},
    {"key": "ab08c", "netlist": "examples/rlc_diode_stop.cir", "tstep": 1e-3, "tstop": 1.5,
     "signals": ["v(n1)", "i(l1)"], "main": "v(n1)",
     "avg": ("v(n1)", 1.0, 1.5), "peak": ("i(l1)", 0.0, 1.5),
     "meas": ("avg v(n1) from=1 to=1.5", "max i(l1) from=0 to=1.5"),
     "steps": [1e-3, 1e-4, 1e-5, 1e-6], "tmax": [1e-3, 1e-4]},
    {"key": "buckboost", "netlist": "bench/circuits/buckboost_dcm.cir", "tstep": 1e-6,
     "tstop": 3e-3, "signals": ["v(out)", "i(l1)"], "main": "v(out)",
     "avg": ("v(out)", 2.9e-3, 3e-3), "peak": ("i(l1)", 2.9e-3, 3e-3),
     "meas": ("avg v(out) from=2.9m to=3m", "max i(l1) from=2.9m to=3m"),
     "steps": [1e-7, 3e-8, 1e-8, 3e-9], "tmax": [1e-6, 1e-7]},
]
RELTOLS = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6]
EVRTOLS = [1e-4, 1e-6, 1e-8, 1e-10]
NG_RELTOLS = [1e-2, 1e-3, 1e-4, 1e-5]
SHARP_DIODE = "IS=1e-14 N=1e-3 RS=1m"


# ---------------------------------------------------------------- waveforms and figures
def signal(cols, expr):
    if "-" in expr[2:]:
        a, b = expr.split("-", 1)
        return cols[a] - cols[b]
    return cols[expr]


def figures(cols, circ, grid):
    t = cols["time"]
    out = {}
    name, t0, t1 = circ["avg"]
    y = signal(cols, name)
    tw = np.concatenate(([t0], t[(t > t0) & (t < t1)], [t1]))
    out["avg"] = float(np.trapz(np.interp(tw, t, y), tw) / (t1 - t0))
    name, t0, t1 = circ["peak"]
    y = signal(cols, name)
    sel = (t >= t0 - 1e-15 * circ["tstop"]) & (t <= t1 + 1e-15 * circ["tstop"])
    out["peak"] = float(np.max(y[sel]))
    out["t"], out["y"] = t, signal(cols, circ["main"])
    out["wave"] = np.interp(grid, t, out["y"])
    out["t_end"] = float(t[-1])
    return out


def errors(fig, ref):
    scale = np.max(np.abs(ref["wave"]))
    e = {"avg": abs(fig["avg"] - ref["avg"]) / abs(ref["avg"]),
         "peak": abs(fig["peak"] - ref["peak"]) / abs(ref["peak"]),
         "wave": float(np.max(np.abs(fig["wave"] - ref["wave"])) / scale)}
    e["err"] = max(e.values())
    # at the file's own rows (the solver's accuracy without the file's interpolation error)
    e["rows"] = float(np.max(np.abs(fig["y"] - np.interp(fig["t"], ref["t"], ref["y"]))) / scale)
    return e


def print_floor(ref, circ, grid):
    """wave error of the reference itself written every TSTEP only (linear interpolation)."""
    ts = np.append(np.arange(0.0, circ["tstop"], circ["tstep"]), circ["tstop"])
    yf = np.interp(grid, ts, np.interp(ts, ref["t"], ref["y"]))
    return float(np.max(np.abs(yf - ref["wave"])) / np.max(np.abs(ref["wave"])))


def read_nsspice_csv(path):
    with open(path) as f:
        head = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {h.lower(): data[:, k] for k, h in enumerate(head)}


def read_wrdata(path):
    with open(path) as f:
        head = f.readline().split()
    data = np.loadtxt(path, skiprows=1, ndmin=2)
    cols = {h.lower(): data[:, k] for k, h in enumerate(head)}
    cols["time"] = data[:, 0]
    return cols


# ---------------------------------------------------------------- runs
def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed(cmd, cwd=None, timeout=None):
    """Wall time, the child's CPU time (user + system), the process (None on a timeout)."""
    cpu0, start = children_cpu(), time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, check=False,
                              timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        return (time.perf_counter() - start, None), None, exc
    return (time.perf_counter() - start, children_cpu() - cpu0), proc, None


def best_of(cmd, cwd=None, timeout=None, any_exit=False):
    """Best wall and CPU times over 5 runs when the first is under 0.5 s, 3 under 2 s, else 1;
    the last process. A nonzero exit is not repeated unless any_exit (ngspice -b exits 1 after
    a .control block's run even when it finished)."""
    (wall, cpu), proc, exc = timed(cmd, cwd, timeout)
    failed = proc is None or (proc.returncode != 0 and not any_exit)
    reps = 1 if failed or wall >= 2.0 else 3 if wall >= 0.5 else 5
    walls, cpus = [wall], [cpu]
    for _ in range(reps - 1):
        (w, c), proc, exc = timed(cmd, cwd, timeout)
        walls.append(w)
        cpus.append(c)
    return (min(walls), None if cpu is None else min(cpus)), proc, exc, reps


def with_options(src, dst, options=(), tstep=None):
    text = src.read_text()
    if tstep is not None:
        text, n = re.subn(r"^(\.tran\s+)(\S+)", lambda m: m.group(1) + f"{tstep:g}", text,
                          count=1, flags=re.I | re.M)
        if n != 1:
            sys.exit(f"{src}: no .tran card")
    extra = "".join(f".options {o}\n" for o in options)
    text, n = re.subn(r"^\.end\s*$", lambda m: extra + ".end", text, flags=re.I | re.M)
    if n != 1:
        sys.exit(f"{src}: no .end card")
    dst.write_text(text)
    return dst


def parse_report(report):
    res = {}
    m = re.search(r"^\s*steps\s+(\d+)(?:\s+accepted,\s+(\d+)\s+rejected)?", report, re.M)
    if m:
        res["steps"] = int(m.group(1))
        res["rejected"] = int(m.group(2)) if m.group(2) else 0
    zeno = re.findall(r"Zeno fallback", report)
    if zeno:
        res["zeno_fallbacks"] = len(zeno)
    for key in ("fallback", "warning"):
        lines = [ln.strip() for ln in report.splitlines() if key in ln.lower()]
        if lines:
            res[key + "_lines"] = lines[:5]
    return res


def run_nsspice(exe, circ, netlist, name, args, tmp, grid, ref=None, repeat=True):
    out = tmp / f"{name}.csv"
    meas_json = tmp / f"{name}.meas.json"
    cmd = [str(exe), "run", str(netlist), "-o", str(out), "--no-progress",
           "--save", ",".join(circ["signals"]), "--meas", circ["meas"][0], "--meas",
           circ["meas"][1], "--meas-json", str(meas_json), *args]
    shown = " ".join(cmd).replace(str(tmp) + "/", "")
    (wall, cpu), proc, exc, reps = (best_of(cmd, timeout=NS_TIMEOUT) if repeat else
                                    (*timed(cmd, timeout=NS_TIMEOUT), 1))
    res = {"command": shown, "wall_s": wall, "cpu_s": cpu, "reps": reps}
    if proc is None:
        res.update(ok=False, error=f"timeout after {NS_TIMEOUT:g} s")
        return res
    res.update(parse_report(proc.stdout + proc.stderr))
    if proc.returncode != 0:
        res.update(ok=False, exit=proc.returncode, error=(proc.stdout + proc.stderr)[-600:])
        return res
    fig = figures(read_nsspice_csv(out), circ, grid)
    res["ok"] = True
    res["figures"] = {k: fig[k] for k in ("avg", "peak", "t_end")}
    res["_fig"] = fig
    res["rows"] = sum(1 for _ in open(out)) - 1
    meas = [m["value"] for m in json.loads(meas_json.read_text())["measurements"]]
    res["meas"] = {"avg": meas[0], "peak": meas[1]}
    if ref is not None:
        res["errors"] = errors(fig, ref)
        res["errors"]["meas_avg"] = abs(meas[0] - ref["avg"]) / abs(ref["avg"])
        res["errors"]["meas_peak"] = abs(meas[1] - ref["peak"]) / abs(ref["peak"])
    return res


def ngspice_deck(translated, circ, reltol, tmax, out_name):
    """compare's regularized netlist with our .tran/.options/.control."""
    lines = translated.read_text().splitlines()
    k = next(i for i, ln in enumerate(lines) if ln.lower().startswith(".tran"))
    uic = " UIC" if "uic" in lines[k].lower() else ""
    body = lines[:k]
    tmax_s = f" 0 {tmax:g}" if tmax else ""
    vecs = " ".join(s for s in circ["signals"])
    return "\n".join(body + [
        f".tran {circ['tstep']:g} {circ['tstop']:g}{tmax_s}{uic}",
        f".options reltol={reltol:g}",
        ".control", "set wr_singlescale", "set wr_vecnames", "option numdgt=15", "run",
        f"wrdata {out_name} {vecs}", "rusage all", ".endc", ".end"]) + "\n"


def run_ngspice(translated, circ, reltol, tmax, tag, tmp, grid, ref):
    name = f"ng_{circ['key']}_{tag}_r{reltol:g}_t{tmax:g}"
    out = tmp / f"{name}.txt"
    deck = tmp / f"{name}.cir"
    deck.write_text(ngspice_deck(translated, circ, reltol, tmax, out.name))
    (wall, cpu), proc, exc, reps = best_of(["ngspice", "-b", deck.name], cwd=tmp,
                                           timeout=NG_TIMEOUT, any_exit=True)
    res = {"command": f"ngspice -b {deck.name}", "deck": deck.read_text(), "wall_s": wall,
           "cpu_s": cpu, "reps": reps, "reltol": reltol, "tmax_s": tmax}
    if proc is None:
        res.update(ok=False, error=f"timeout after {NG_TIMEOUT:g} s")
        return res
    log = proc.stdout + proc.stderr
    acc = re.search(r"Accepted timepoints\s*=\s*(\d+)", log)
    rej = re.search(r"Rejected timepoints\s*=\s*(\d+)", log)
    res["steps"] = int(acc.group(1)) if acc else None
    res["rejected"] = int(rej.group(1)) if rej else None
    problems = [ln.strip() for ln in log.splitlines()
                if re.search(r"too small|abort|singular|error", ln, re.I)]
    if not out.exists() or problems:
        res.update(ok=False, error="; ".join(problems)[:400] or log[-400:])
        return res
    cols = read_wrdata(out)
    if cols["time"][-1] < circ["tstop"] * (1 - 1e-9):
        res.update(ok=False, error=f"stopped at t = {cols['time'][-1]:g}")
        return res
    fig = figures(cols, circ, grid)
    res.update(ok=True, figures={k: fig[k] for k in ("avg", "peak", "t_end")},
               errors=errors(fig, ref))
    return res


def translate(exe, circ, tmp):
    """The regularized ngspice netlist nsspice compare writes (compare's run itself not timed)."""
    d = tmp / f"cmp_{circ['key']}"
    cmd = [str(exe), "compare", str(ROOT / circ["netlist"]), "--models", "regularized",
           "--no-escalate", "-q", "-d", str(d), "--timeout", "30", "--stall", "10"]
    subprocess.run(cmd, capture_output=True, text=True, check=False)
    path = d / "ngspice.cir"
    if not path.exists():
        sys.exit(f"nsspice compare wrote no ngspice netlist: {' '.join(cmd)}")
    return path


def sharpen(translated, tmp):
    """The same netlist with every regularized diode model's parameters set to SHARP_DIODE."""
    text, n = re.subn(r"^(\.model\s+dnsp_\S+\s+D)\(.*\)\s*$",
                      lambda m: f"{m.group(1)}({SHARP_DIODE})", translated.read_text(),
                      flags=re.I | re.M)
    if n == 0:
        sys.exit(f"{translated}: no regularized diode model to sharpen")
    path = translated.with_name("ngspice_sharp.cir")
    path.write_text(text)
    return path


# ---------------------------------------------------------------- one circuit
def ab08c_closed_form():
    c, r, l = 25.330295910584444e-3, 0.1, 1.0
    wd = math.sqrt(1 / (l * c) - (r / (2 * l)) ** 2)
    sigma = r / (2 * l)
    # i(t) = (V0 / (L wd)) e^{-sigma t} sin(wd t); its peak where tan(wd t) = wd / sigma
    tp = math.atan2(wd, sigma) / wd
    return {"avg": -math.exp(-r * math.pi / (2 * l * wd)),
            "peak": math.exp(-sigma * tp) * math.sin(wd * tp) / (l * wd),
            "t_stop_current": math.pi / wd}


def rel(a, b):
    return abs(a - b) / abs(b)


def bench_circuit(exe, circ, tmp, log):
    key, tstop = circ["key"], circ["tstop"]
    src = ROOT / circ["netlist"]
    grid = np.linspace(0.0, tstop, GRID_POINTS)
    res = {"circuit": key, "netlist": circ["netlist"], "tstop_s": tstop,
           "tstep_s": circ["tstep"], "main": circ["main"], "avg": list(circ["avg"]),
           "peak": list(circ["peak"]), "tmax_s": circ["tmax"], "runs": []}

    # references
    ref_net = with_options(src, tmp / f"{key}_ref.cir", ["evrtol=1e-12"], tstep=tstop / 2e5)
    ev_ref = run_nsspice(exe, circ, ref_net, f"{key}_ref_event", ["--method", "event"], tmp,
                         grid, repeat=False)
    h_fine = tstop / 1e6
    fx_ref = run_nsspice(exe, circ, src, f"{key}_ref_fixed",
                         ["--method", "theta", "--theta", "0.5", "--step", f"{h_fine:g}"], tmp,
                         grid, repeat=False)
    for r in (ev_ref, fx_ref):
        if not r.get("ok"):
            sys.exit(f"{key}: reference run failed: {r['command']}\n{r.get('error')}")
    ref = ev_ref["_fig"]
    agree = errors(fx_ref["_fig"], ref)
    res["reference"] = {"event": {k: v for k, v in ev_ref.items() if k != "_fig"},
                        "fixed": {k: v for k, v in fx_ref.items() if k != "_fig"},
                        "agreement_fixed_vs_event": agree}
    res["reference"]["print_floor_wave"] = print_floor(ref, circ, grid)
    if key == "ab08c":
        cf = ab08c_closed_form()
        res["reference"]["closed_form"] = cf
        res["reference"]["event_vs_closed_form"] = {"avg": rel(ref["avg"], cf["avg"]),
                                                    "peak": rel(ref["peak"], cf["peak"])}
    log(f"{key}: reference avg {ref['avg']:.10g} peak {ref['peak']:.10g}; fixed h={h_fine:g} "
        f"vs event: avg {agree['avg']:.1e} peak {agree['peak']:.1e} wave {agree['wave']:.1e}; "
        f"print-interval floor of wave {res['reference']['print_floor_wave']:.1e}")

    def add(method, setting, r):
        r["method"], r["setting"] = method, setting
        r.pop("_fig", None)
        res["runs"].append(r)
        if r.get("ok"):
            e = r["errors"]
            log(f"  {method:9s} {setting:28s} wall {r['wall_s']:7.3f} s steps "
                f"{r.get('steps')!s:>8}  err avg {e['avg']:.1e} peak {e['peak']:.1e} "
                f"wave {e['wave']:.1e} rows {e['rows']:.1e}")
        else:
            log(f"  {method:9s} {setting:28s} FAILED ({r.get('error', '')[:160]!r})")

    # warm-up
    timed([str(exe), "run", str(src), "-o", str(tmp / "warm.csv"), "-q", "--no-progress"])
    for rt in RELTOLS:
        net = with_options(src, tmp / f"{key}_r{rt:g}.cir", [f"reltol={rt:g}"])
        add("adaptive", f"RELTOL={rt:g}",
            run_nsspice(exe, circ, net, f"{key}_ad_{rt:g}", [], tmp, grid, ref))
    for h in circ["steps"]:
        add("fixed", f"h={h:g}",
            run_nsspice(exe, circ, src, f"{key}_fx_{h:g}", ["--step", f"{h:g}"], tmp, grid, ref))
    for ev in EVRTOLS:
        add("event", f"evrtol={ev:g}",
            run_nsspice(exe, circ, src, f"{key}_ev_{ev:g}",
                        ["--method", "event", "--evrtol", f"{ev:g}"], tmp, grid, ref))
    translated = translate(exe, circ, tmp)
    res["ngspice_regularization"] = [ln for ln in translated.read_text().splitlines()
                                     if ln.lower().startswith(".model")]
    for tmax in circ["tmax"]:
        for rt in NG_RELTOLS:
            add("ngspice", f"RELTOL={rt:g} TMAX={tmax:g}",
                run_ngspice(translated, circ, rt, tmax, "n005", tmp, grid, ref))
    sharp = sharpen(translated, tmp)
    for rt in (1e-3, 1e-5):
        tmax = min(circ["tmax"])
        add("ngspice-sharp", f"N=1e-3 RELTOL={rt:g} TMAX={tmax:g}",
            run_ngspice(sharp, circ, rt, tmax, "n0001", tmp, grid, ref))
    res["ratios"] = ratios(res["runs"])
    res["proportionality"] = proportionality(res["runs"])
    return res


def ratios(runs):
    """For each ngspice run that finished: the cheapest nsspice run (adaptive, event) at least as
    accurate, and the wall-time ratio."""
    out = []
    for ng in runs:
        if not ng["method"].startswith("ngspice") or not ng.get("ok"):
            continue
        row = {"ngspice": ng["setting"], "ngspice_method": ng["method"],
               "ngspice_err": ng["errors"]["err"], "ngspice_wall_s": ng["wall_s"]}
        for method in ("adaptive", "event"):
            cand = [r for r in runs if r["method"] == method and r.get("ok")
                    and r["errors"]["err"] <= ng["errors"]["err"]]
            if cand:
                best = min(cand, key=lambda r: r["wall_s"])
                best_cpu = min(cand, key=lambda r: r["cpu_s"])
                row[method] = {"setting": best["setting"], "err": best["errors"]["err"],
                               "wall_s": best["wall_s"], "ratio": ng["wall_s"] / best["wall_s"],
                               "cpu_setting": best_cpu["setting"],
                               "cpu_ratio": ng["cpu_s"] / best_cpu["cpu_s"]}
            else:
                row[method] = None
        out.append(row)
    return out


def proportionality(runs):
    """err / RELTOL for the adaptive runs and the least-squares slope of log err vs log RELTOL."""
    pts = [(float(r["setting"].split("=")[1]), r["errors"]) for r in runs
           if r["method"] == "adaptive" and r.get("ok")]
    out = {"per_reltol": [{"reltol": rt, **{k: e[k] / rt for k in ("avg", "peak", "wave", "err")}}
                          for rt, e in pts]}
    for k in ("wave", "err"):
        xs = [math.log10(rt) for rt, e in pts if e[k] > 0]
        ys = [math.log10(e[k]) for rt, e in pts if e[k] > 0]
        if len(xs) >= 2:
            out[f"slope_{k}"] = float(np.polyfit(xs, ys, 1)[0])
    return out


# ---------------------------------------------------------------- output
def fmt_e(x):
    return "—" if x is None else f"{x:.1e}"


def summary(result):
    """One row per circuit: the default's error, the proportionality, the ratios to ngspice."""
    md = ["\n| circuit | default (RELTOL = 1e-3): err, wall | adaptive err / RELTOL (1e-2 .. 1e-6) "
          "| slope | ngspice runs finished / tried | best ngspice err | adaptive speed-up at "
          "ngspice's accuracy (min .. max) | event speed-up (min .. max) |\n"
          "|---|---|---|---|---|---|---|---|\n"]
    for c in result["circuits"]:
        d = next((r for r in c["runs"] if r["method"] == "adaptive"
                  and r["setting"] == "RELTOL=0.001" and r.get("ok")), None)
        p = c["proportionality"]
        ng = [r for r in c["runs"] if r["method"].startswith("ngspice")]
        ok = [r for r in ng if r.get("ok")]
        best = min((r["errors"]["err"] for r in ok), default=None)

        def span(m):
            xs = [q[m]["ratio"] for q in c["ratios"] if q[m]]
            cs = [q[m]["cpu_ratio"] for q in c["ratios"] if q[m]]
            miss = sum(1 for q in c["ratios"] if not q[m])
            txt = (f"{min(xs):.1f}× .. {max(xs):.1f}× (CPU {min(cs):.1f}× .. {max(cs):.1f}×)"
                   if xs else "—")
            return txt + (f" ({miss} not matched)" if miss else "")
        md.append(f"| {c['circuit']} | " + (f"{d['errors']['err']:.1e}, {d['wall_s']:.3f} s"
                                            if d else "failed") + " | " +
                  ", ".join(f"{q['err']:.2g}" for q in p["per_reltol"]) +
                  f" | {p.get('slope_err', float('nan')):.2f} | {len(ok)} / {len(ng)} | "
                  f"{fmt_e(best)} | {span('adaptive')} | {span('event')} |\n")
    return "".join(md)


def render(result):
    md = ["# Work-precision: nsspice (adaptive, fixed, event) and ngspice\n",
          "Generated by `bench/work_precision.py`; see its docstring for the definitions. "
          "Errors are relative to the reference (event mode, evrtol = 1e-12); `err` is the "
          "largest of avg, peak and wave. Wall and CPU (user + system) time of the whole process, "
          "each the best of 5 runs below 0.5 s, of 3 below 2 s.\n"]
    md.append(summary(result))
    for c in result["circuits"]:
        ref = c["reference"]
        a = ref["agreement_fixed_vs_event"]
        md.append(f"\n## {c['circuit']} ({c['netlist']}, {c['tstop_s']:g} s, main output "
                  f"{c['main']}; avg of {c['avg'][0]} over [{c['avg'][1]:g}, {c['avg'][2]:g}] s;"
                  f" peak of {c['peak'][0]} over [{c['peak'][1]:g}, {c['peak'][2]:g}] s)\n")
        md.append(f"Reference avg = {ref['event']['figures']['avg']:.10g}, peak = "
                  f"{ref['event']['figures']['peak']:.10g} (event, {ref['event']['wall_s']:.2f} s)."
                  f" Fixed θ = ½ at h = {c['tstop_s'] / 1e6:g} s ({ref['fixed']['wall_s']:.2f} s)"
                  f" against it: avg {a['avg']:.1e}, peak {a['peak']:.1e}, "
                  f"wave {a['wave']:.1e}. The "
                  f"reference itself written every TSTEP = {c['tstep_s']:g} s only would have a "
                  f"wave error of {ref['print_floor_wave']:.1e} (linear interpolation: the floor"
                  f" of any run whose file has rows only every TSTEP).")
        if "closed_form" in ref:
            cf, ec = ref["closed_form"], ref["event_vs_closed_form"]
            md.append(f" Closed form: avg {cf['avg']:.10g}, peak {cf['peak']:.10g}; event "
                      f"reference against it: avg {ec['avg']:.1e}, peak {ec['peak']:.1e}.")
        md.append("\n\n| method | setting | wall [s] | CPU [s] | steps (rejected) | rows | avg "
                  "| peak | "
                  "wave | err | at rows | .meas avg | .meas peak |\n"
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
        for r in c["runs"]:
            if r.get("ok"):
                e = r["errors"]
                steps = "—" if r.get("steps") is None else (
                    f"{r['steps']} ({r.get('rejected', 0)})")
                md.append(f"| {r['method']} | {r['setting']} | {r['wall_s']:.3f} | "
                          f"{r['cpu_s']:.3f} | {steps} | "
                          f"{r.get('rows', '—')} | {e['avg']:.1e} | {e['peak']:.1e} | "
                          f"{e['wave']:.1e} | {e['err']:.1e} | {e['rows']:.1e} | "
                          f"{fmt_e(e.get('meas_avg'))} | {fmt_e(e.get('meas_peak'))} |\n")
            else:
                err = re.sub(r"\s+", " ", r.get("error", ""))[:120].replace("|", "/")
                md.append(f"| {r['method']} | {r['setting']} | {r['wall_s']:.3f} | — | "
                          f"{r.get('steps', '—')} | — | **failed**: {err} | | | | | | |\n")
        p = c["proportionality"]
        md.append("\nAdaptive err / RELTOL: " + ", ".join(
            f"{q['reltol']:g}: {q['err']:.2g}" for q in p["per_reltol"]) +
            f"; slope of log err vs log RELTOL {p.get('slope_err', float('nan')):.2f} "
            f"(wave alone {p.get('slope_wave', float('nan')):.2f}).\n")
        md.append("\n| ngspice run | its err | wall | cheapest adaptive as accurate | ratio (of "
                  "CPU times: cheapest in CPU) | cheapest event as accurate | ratio |\n"
                  "|---|---|---|---|---|---|---|\n")
        for q in c["ratios"]:
            cells = []
            for m in ("adaptive", "event"):
                x = q[m]
                cells += ([f"{x['setting']} ({x['wall_s']:.3f} s)",
                           f"**{x['ratio']:.1f}×** (CPU {x['cpu_ratio']:.1f}×)"]
                          if x else ["none", "—"])
            md.append(f"| {q['ngspice_method']} {q['ngspice']} | {q['ngspice_err']:.1e} | "
                      f"{q['ngspice_wall_s']:.3f} s | " + " | ".join(cells) + " |\n")
    md.append(f"\nWhole benchmark: {result['elapsed_s']:.0f} s.\n")
    return "".join(md)


def plot(result):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    circs = result["circuits"]
    fig, axes = plt.subplots(2, 2, figsize=(12, 9.5), squeeze=False)
    styles = {"adaptive": ("o-", "C0", "nsspice adaptive (RELTOL)"),
              "fixed": ("s--", "C2", "nsspice fixed θ=½ (h)"),
              "event": ("^-", "C1", "nsspice event (evrtol)"),
              "ngspice": ("x:", "C3", "ngspice N=0.05 (RELTOL, TMAX)"),
              "ngspice-sharp": ("D:", "C4", "ngspice N=1e-3")}
    for ax, c in zip(axes.flat, circs):
        for method, (mk, col, label) in styles.items():
            groups = {}
            for r in c["runs"]:
                if r["method"] == method and r.get("ok"):
                    g = r["setting"].split("TMAX=")[1] if "TMAX=" in r["setting"] else ""
                    groups.setdefault(g, []).append(r)
            for g, rs in groups.items():
                xs = [r["wall_s"] for r in rs]
                ys = [max(r["errors"]["err"], 1e-16) for r in rs]
                lab = label + (f", TMAX={g}" if g and method == "ngspice" else "")
                ax.plot(xs, ys, mk if method != "ngspice" or g == f"{max(c['tmax_s']):g}"
                        else mk.replace("x", "+"), color=col, label=lab, alpha=0.85)
                if method in ("adaptive", "event"):
                    for r in rs:
                        ax.annotate(r["setting"].split("=")[1], (r["wall_s"],
                                    max(r["errors"]["err"], 1e-16)), fontsize=7,
                                    textcoords="offset points", xytext=(3, 3), color=col)
        if c["reference"]["print_floor_wave"] > 1e-10:  # else invisible below every run
            ax.axhline(c["reference"]["print_floor_wave"], ls="--", lw=0.8, color="grey",
                       label="reference written every TSTEP (interpolation floor)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{c['circuit']} ({c['netlist']})", fontsize=10)
        ax.set_xlabel("wall time [s] (whole process)")
        ax.set_ylabel("relative error (max of avg, peak, waveform)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Work-precision, error against the event-mode reference (bench/work_precision.py)")
    fig.tight_layout()
    PLOT.parent.mkdir(exist_ok=True)
    fig.savefig(PLOT, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="build directory holding nsspice")
    ap.add_argument("--only", default="", help="comma-separated circuit keys (default: all)")
    ap.add_argument("--render", action="store_true", help="table and plot again from the JSON")
    args = ap.parse_args()
    if args.render:
        result = json.loads((RESULTS / "work_precision.json").read_text())
        (RESULTS / "work_precision.md").write_text(render(result))
        plot(result)
        return
    exe = (ROOT / args.build / "nsspice").resolve()
    if not exe.exists():
        sys.exit(f"no {exe}: build first (cmake --build {args.build} --target nsspice)")
    if shutil.which("ngspice") is None:
        sys.exit("ngspice is not on PATH")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="nsspice_wp_"))
    started = time.perf_counter()
    only = set(filter(None, args.only.split(",")))
    result = {"nsspice": str(exe), "circuits": []}
    for circ in CIRCUITS:
        if only and circ["key"] not in only:
            continue
        result["circuits"].append(bench_circuit(exe, circ, tmp, lambda s: print(s, flush=True)))
    result["elapsed_s"] = time.perf_counter() - started
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "work_precision.json").write_text(json.dumps(result, indent=1) + "\n")
    table = render(result)
    (RESULTS / "work_precision.md").write_text(table)
    plot(result)
    print(table)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
