"""The capfilter and ladder cases of bench/run_bench.py (see its docstring)."""
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
LADDER_H, LADDER_T = "0.1u", "0.2m"

# examples/buck.cir for ngspice: the ideal switch and diode regularized (switch RON = 1 uOhm,
# ROFF = 1 TOhm; diode N = 1e-4), the element and model lines only; each benchmark adds its own
# title, .tran, .options and .control (event_bench, pss_bench, sweep_bench).
REGULARIZED_BUCK = """Vin in 0 DC 10
Vpwm ctrl 0 PULSE(0 1 0 10n 10n 4.99u 10u)
S1 in sw ctrl 0 swm
D1 0 sw dmod
L1 sw out 100u IC=0
C1 out 0 10u IC=0
R1 out 0 10
.model swm SW(VT=0.5 VH=0 RON=1e-6 ROFF=1e12)
.model dmod D(IS=1e-14 N=1e-4)
"""
# The "marginal" per-step cost excludes the start-up (parsing, assembly, analysis, first
# factorizations): the report's wall time of a run to LADDER_T minus that of a run to
# LADDER_T_SHORT, divided by the difference in steps.
LADDER_T_SHORT = "2u"


def counters(report):
    """nsspice's run-report counters."""
    def grab(pattern, cast=int):
        m = re.search(pattern, report)
        return cast(m.group(1)) if m else None
    hits, misses = grab(r"cache (\d+) hits"), grab(r"/ (\d+) misses")
    return {
        "steps": grab(r"steps\s+(\d+)"),
        "lcp_solves_with_pivoting": grab(r"LCP solves\s+(\d+) with pivoting"),
        "pivots": grab(r"(\d+) pivots"),
        "mode_changes": grab(r"(\d+) mode changes"),
        "factorizations": grab(r"factorizations\s+(\d+) full"),
        "refactorizations": grab(r"(\d+) refactorizations"),
        "cache_hit_rate": hits / (hits + misses) if hits is not None and misses else None,
        "us_per_step_report": grab(r"\(([\d.]+) µs/step\)", float),
        # The transient alone (initial point and steps; start-up and the file's last flush out).
        "us_per_step_stepping": grab(r"stepping [\d.]+ s \(([\d.]+) µs/step\)", float),
    }


def cpu_run(cmd, cwd=None, env=None):
    """(CPU seconds of the process, user + system; its stdout + stderr). Exits on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd,
                          check=False, env=None if not env else {**os.environ, **env})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{proc.stdout}\n{proc.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, proc.stdout + proc.stderr


def timed_rss(cmd, cwd=None, check=True):
    """Wall time, peak RSS [kB] (/usr/bin/time -v) and stdout+stderr of a whole process."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-v", *map(str, cmd)], capture_output=True, text=True,
                          cwd=cwd, check=False)
    wall = time.perf_counter() - start
    if check and proc.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{proc.stdout}\n{proc.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))
    return wall, rss, proc.stdout + proc.stderr


def write_results(name, result, table):
    out_dir = ROOT / "bench" / "results"
    out_dir.mkdir(exist_ok=True)
    (out_dir / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
    (out_dir / f"{name}.md").write_text(table)
    print(table)


def read_csv(path):
    with open(path) as f:
        lines = f.read().splitlines()
    return [[float(v) for v in line.split(",")] for line in lines[1:]]


def capfilter(args):
    nsspice = (ROOT / args.build / "nsspice").resolve()
    peer = ROOT / "bench" / "siconos_capfilter.py"
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="nsspice_bench_"))
    rows, result = [], {"circuit": "DiodeBridgeCapFilter (Siconos example), theta = 1, 5 ms",
                        "repetitions": args.reps, "runs": []}
    for h, name in ((1e-6, "capfilter_h1u.cir"), (1e-7, "capfilter_h100n.cir")):
        ours_csv, theirs_csv = tmp / "ns.csv", tmp / "si.csv"
        run_a = [nsspice, "run", ROOT / "bench" / "netlists" / name, "-o", ours_csv, "--save",
                 "v(n1),i(l1),v(nl,nr)", "--no-progress"]
        run_b = ["/usr/bin/python3", peer, h, 5e-3, 1, theirs_csv]
        timed_rss(run_a), timed_rss(run_b)  # warm-up
        a_wall, a_rss, b_loop, b_wall, b_rss = [], [], [], [], []
        for _ in range(args.reps):
            wall, rss, a_out = timed_rss(run_a)
            a_wall.append(wall)
            a_rss.append(rss)
            wall, rss, b_out = timed_rss(run_b)
            b_wall.append(wall)
            b_rss.append(rss)
            b_loop.append(json.loads(b_out.strip().splitlines()[0])["loop_s"])
        ours, theirs = read_csv(ours_csv), read_csv(theirs_csv)
        diff = [max(abs(x[c] - y[c]) for x, y in zip(ours, theirs)) for c in (1, 2, 3)]
        steps = round(5e-3 / h)
        a_med, b_med, b_loop_med = map(statistics.median, (a_wall, b_wall, b_loop))
        c = counters(a_out)
        run = {"h_s": h, "steps": steps, "nsspice_process_wall_s": a_med,
               "nsspice_us_per_step_process": 1e6 * a_med / steps, "nsspice_counters": c,
               "nsspice_peak_rss_kB": max(a_rss), "siconos_loop_wall_s": b_loop_med,
               "siconos_us_per_step_loop": 1e6 * b_loop_med / steps,
               "siconos_process_wall_s": b_med, "siconos_peak_rss_kB": max(b_rss),
               "ratio_siconos_loop_over_nsspice_process": b_loop_med / a_med,
               "ratio_per_step_loop_over_stepping":
                   (1e6 * b_loop_med / steps) / c["us_per_step_stepping"],
               "max_abs_diff_vC_iL_vf": diff}
        result["runs"].append(run)
        b_step = 1e6 * b_loop_med / steps
        rows.append(f"| DiodeBridgeCapFilter, theta = 1 | {h:g} s | {steps} | "
                    f"{c['us_per_step_stepping']:.2f} us/step | {b_loop_med:.3f} s = {b_step:.1f} "
                    f"us/step | **{b_step / c['us_per_step_stepping']:.1f}x** | {a_med:.3f} s = "
                    f"{1e6 * a_med / steps:.2f} us/step | {b_loop_med / a_med:.1f}x | "
                    f"{c['lcp_solves_with_pivoting']} / {c['pivots']} | "
                    f"{diff[0]:.1e} V / {diff[1]:.1e} A / {diff[2]:.1e} V |")
    table = ("| circuit | h | steps | nsspice stepping (report; CSV written alongside) | Siconos "
             "(loop only) | ratio per step | nsspice whole process | ratio, Siconos loop over "
             "nsspice process | pivoting steps / pivots | max abs diff v_C / i_L / v_f |\n"
             "|---|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    write_results("capfilter", result, table)


def report_wall(c):
    """Run-report wall time [s] from the counters (µs/step times steps)."""
    return c["us_per_step_report"] * c["steps"] * 1e-6


def ladder_netlist(n, ngspice, diodes=True, t_end=LADDER_T):
    lines = [f"diode-clamped RC ladder, N = {n}", "V1 n0 0 PULSE(0 5 0 1u 1u 20u 40u)",
             "VR rail 0 1"]
    for k in range(1, n + 1):
        lines += [f"R{k} n{k - 1} n{k} 1k", f"C{k} n{k} 0 1n"]
        if diodes:
            lines.append(f"D{k} n{k} rail DI")
    if diodes:
        lines.append(".model DI D(N=0.01)" if ngspice else ".model DI D")
    if ngspice:
        lines += [f".tran {LADDER_H} {LADDER_T} 0 {LADDER_H}", ".control", "run",
                  f"wrdata ladder_ng.txt v(n1) v(n{n})", "rusage all", ".endc"]
    else:
        lines.append(f".tran {LADDER_H} {t_end} UIC")
    return "\n".join(lines + [".end"]) + "\n"


def ladder_one(nsspice, n, reps, tmp):
    paths = {}
    for key, ng, diodes, t_end in (("ours", False, True, LADDER_T),
                                   ("linear", False, False, LADDER_T),
                                   ("ours_short", False, True, LADDER_T_SHORT),
                                   ("linear_short", False, False, LADDER_T_SHORT),
                                   ("ng", True, True, LADDER_T)):
        paths[key] = tmp / f"ladder_{key}_{n}.cir"
        paths[key].write_text(ladder_netlist(n, ng, diodes, t_end))
    save = ["--save", f"v(n1),v(n{n})", "--no-progress"]
    runs = {key: [nsspice, "run", paths[key], "-o", tmp / f"{key}.csv", *save]
            for key in ("ours", "linear", "ours_short", "linear_short")}
    runs["ng"] = ["ngspice", "-b", paths["ng"]]
    ng_reps = reps if n < 10000 else 1  # ngspice takes about 10 s per run at N = 10 000
    med, outs = {}, {}
    for key, cmd in runs.items():
        walls, rss, out = [], [], ""
        outs[key] = []
        for _ in range(ng_reps if key == "ng" else reps):
            w, r, out = timed_rss(cmd, cwd=tmp, check=key != "ng")  # ngspice -b exits 1 here
            walls.append(w)
            rss.append(r)
            outs[key].append(out)
        med[key] = (statistics.median(walls), max(rss), out)
    c, cl = counters(med["ours"][2]), counters(med["linear"][2])
    cs, cls = counters(med["ours_short"][2]), counters(med["linear_short"][2])
    # Marginal cost per step: the medians of the report's wall times, start-up subtracted.
    walls = {key: statistics.median(report_wall(counters(o)) for o in outs[key])
             for key in ("ours", "linear", "ours_short", "linear_short")}
    c["us_per_step_marginal"] = 1e6 * (walls["ours"] - walls["ours_short"]) / (
        c["steps"] - cs["steps"])
    cl["us_per_step_marginal"] = 1e6 * (walls["linear"] - walls["linear_short"]) / (
        cl["steps"] - cls["steps"])
    c["startup_s"], cl["startup_s"] = walls["ours_short"], walls["linear_short"]
    acc = re.search(r"Accepted timepoints\s*=\s*(\d+)", med["ng"][2])
    if acc is None:
        sys.exit(f"ngspice did not finish the ladder N = {n}:\n" + med["ng"][2][-2000:])
    return {"N": n, "nsspice": {"wall_s": med["ours"][0], "peak_rss_kB": med["ours"][1], **c},
            "nsspice_linear_floor": {"wall_s": med["linear"][0], "peak_rss_kB": med["linear"][1],
                                     **cl},
            "ngspice": {"wall_s": med["ng"][0], "peak_rss_kB": med["ng"][1],
                        "accepted": int(acc.group(1)) if acc else None},
            "ratio_step_over_linear_step": c["us_per_step_report"] / cl["us_per_step_report"],
            "ratio_step_over_linear_step_marginal":
                c["us_per_step_marginal"] / cl["us_per_step_marginal"],
            "ratio_ngspice_over_nsspice": med["ng"][0] / med["ours"][0]}


def ladder(args):
    nsspice = (ROOT / args.build / "nsspice").resolve()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="nsspice_bench_"))
    sizes = [int(v) for v in args.ladder_sizes.split(",")]
    result = {"circuit": "diode-clamped RC ladder (R 1k, C 1n, ideal diodes to a 1 V rail, "
                         f"PULSE 0-5 V period 40 us), h = {LADDER_H}, T = {LADDER_T}",
              "repetitions": args.reps, "sizes": []}
    rows = []
    for n in sizes:
        r = ladder_one(nsspice, n, args.reps, tmp)
        result["sizes"].append(r)
        o, lin, ng = r["nsspice"], r["nsspice_linear_floor"], r["ngspice"]
        rows.append(
            f"| {n} | {o['steps']} | {o['us_per_step_report']:.2f} | "
            f"{lin['us_per_step_report']:.2f} | {r['ratio_step_over_linear_step']:.2f} | "
            f"{o['us_per_step_marginal']:.2f} | {lin['us_per_step_marginal']:.2f} | "
            f"{r['ratio_step_over_linear_step_marginal']:.2f} | {o['startup_s'] * 1e3:.1f} ms | "
            f"{o['peak_rss_kB'] / 1024:.1f} MB | {o['lcp_solves_with_pivoting']} / {o['pivots']} | "
            f"{o['factorizations']} | {o['cache_hit_rate'] or float('nan'):.5f} | {o['mode_changes']} | "
            f"{ng['wall_s']:.2f} s, {ng['accepted']} steps, {ng['peak_rss_kB'] / 1024:.0f} MB | "
            f"**{r['ratio_ngspice_over_nsspice']:.1f}x** |")
    table = ("| N | steps | nsspice µs/step | linear floor µs/step | ratio | nsspice µs/step "
             "marginal | linear µs/step marginal | ratio marginal | start-up | peak RSS | pivoting "
             "steps / pivots | factorizations | cache hit rate | mode changes | ngspice | "
             "ngspice / nsspice (process) |\n"
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
             + "\n".join(rows) + "\n")
    write_results("ladder", result, table)
