#!/usr/bin/env python3
"""Issue 20: a diode-clamped RC network whose N clamps all switch together.

Circuit (N sections, one sine source):
  V1 in 0 SIN(-0.05 1 1k)   (offset: no zero crossing on the step grid, no degenerate step)
  section k = 1..N:  RF{k} in n{k} 1k          (every section fed from the one sine)
                     C{k}  n{k} 0  C_k          (C_k = 10 nF * (1 + 2 (k mod 7)/7): 10..27 nF)
                     RC{k} n{k} n{k+1} 100      (k < N: neighbouring sections coupled)
                     D{k}  n{k} 0  DI           (each node clamped to ground by an ideal diode)
In the positive half periods every node is clamped at 0 V (all N diodes conduct); at each zero
crossing of the sine all of them turn off in the same step; after the negative half they turn on
again within ~10 steps of each other (the spread of tau). 2000 steps of h = 1 us (2 ms): four
mass switching events of N pairs each.

Modes:
  clamp_network.py netlist N [--ngspice] [--tend T]   print the netlist
  clamp_network.py bench [--sizes 100,1000,10000] [--build build] [--reps R] [--max-wall S]
      nsspice (fixed step 1 us, theta = 1/2) and ngspice (D N=0.01, TMAX = 1 us) in the same run,
      whole processes, wall and CPU time and peak RSS (/usr/bin/time -v; CPU time is the steadier
      figure on a loaded machine), nsspice's counters, the ratios;
      the step costs inside one process (bench/clamp_step_bench, built with the project): median
      of the non-switching steps, mean and max of the steps whose mode changes; and over a run of
      STEADY_END (6 periods) the switching steps split by whether their new mode was met before
      in the run (from the third period on the modes recur, and those steps find their
      factorizations cached; the first meeting of each mode pays its factorization).
      Writes bench/results/clamp_network.{json,md}.
"""
import argparse
import json
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

import bench_peers

ROOT = pathlib.Path(__file__).resolve().parent.parent
H = "1u"
T_END = "2m"
STEADY_END = "6m"


def netlist(n, ngspice=False, t_end=T_END, model_card=None):
    lines = [f"diode-clamped RC network, N = {n} sections fed from one 1 kHz sine",
             "V1 in 0 SIN(-0.05 1 1k)"]
    for k in range(1, n + 1):
        c = 10e-9 * (1 + 2 * (k % 7) / 7)
        lines += [f"RF{k} in n{k} 1k", f"C{k} n{k} 0 {c:.6g}", f"D{k} n{k} 0 DI"]
        if k < n:
            lines.append(f"RC{k} n{k} n{k + 1} 100")
    model, tran = (("D(N=0.01)", f".tran {H} {t_end} 0 {H}") if ngspice else
                   ("D", f".tran {H} {t_end}\n.options stepping=fixed"))
    if model_card is not None:  # a SPICE diode for both (nsspice converts it to PWL segments)
        model = model_card
    control = [".control", "run", f"wrdata clamp_ng.txt v(n1) v(n{n})", "rusage all", ".endc"]
    return "\n".join(lines + [f".model DI {model}", tran] + (control if ngspice else []) +
                     [".end"]) + "\n"


def run_ours(nsspice, n, t_end, tmp, tag):
    path = tmp / f"clamp_{tag}_{n}.cir"
    path.write_text(netlist(n, False, t_end))
    cmd = [nsspice, "run", path, "-o", tmp / f"clamp_{tag}_{n}.csv", "--save",
           f"v(n1),v(n{n})", "--no-progress"]
    wall, rss, out = bench_peers.timed_rss(cmd, cwd=tmp)
    c = bench_peers.counters(out)
    return {"wall_s": wall, "cpu_s": cpu_seconds(out), "peak_rss_kB": rss, **c}, out


def run_ngspice(n, tmp):
    path = tmp / f"clamp_ng_{n}.cir"
    path.write_text(netlist(n, True))
    wall, rss, out = bench_peers.timed_rss(["ngspice", "-b", path], cwd=tmp, check=False)
    acc = re.search(r"Accepted timepoints\s*=\s*(\d+)", out)
    if acc is None:
        sys.exit(f"ngspice did not finish the clamp network N = {n}:\n" + out[-2000:])
    return {"wall_s": wall, "cpu_s": cpu_seconds(out), "peak_rss_kB": rss,
            "accepted": int(acc.group(1))}


def step_costs(build, n, tmp):
    """Per-step costs inside one process (bench/clamp_step_bench.cpp): non-switching steps
    (median) against steps whose mode changes (mean, max); then the same over STEADY_END, with
    the switching steps into modes met before apart ("steady")."""
    exe = (ROOT / build / "bench" / "clamp_step_bench").resolve()

    def one(t_end, tag):
        path = tmp / f"clamp_steps_{tag}_{n}.cir"
        path.write_text(netlist(n, False, t_end))
        proc = subprocess.run([exe, path], capture_output=True, text=True, check=True)
        return json.loads(proc.stdout)
    r = one(T_END, "run")
    r["ratio_switching_mean_over_plain_median"] = r["switching_mean_us"] / r["plain_median_us"]
    s = one(STEADY_END, "steady")
    s["ratio_into_met_over_plain_median"] = (s["switching_into_met_mean_us"] /
                                             s["plain_median_us"])
    s["ratio_into_new_over_plain_median"] = (s["switching_into_new_mean_us"] /
                                             s["plain_median_us"])
    r["steady"] = s
    return r


def cpu_seconds(out):
    """User + system CPU time of a process from /usr/bin/time -v's report."""
    user = re.search(r"User time \(seconds\): ([\d.]+)", out)
    system = re.search(r"System time \(seconds\): ([\d.]+)", out)
    return float(user.group(1)) + float(system.group(1)) if user and system else None


def bench(args):
    nsspice = (ROOT / args.build / "nsspice").resolve()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="nsspice_clamp_"))
    result = {"circuit": __doc__.split("Modes:")[0].strip(), "h": H, "t_end": T_END, "sizes": []}
    rows = []
    for n in [int(v) for v in args.sizes.split(",")]:
        reps = args.reps if n <= 10000 else 1
        ours = [run_ours(nsspice, n, T_END, tmp, "full")[0] for _ in range(reps)]
        o = min(ours, key=lambda r: r["wall_s"]) if reps == 1 else sorted(
            ours, key=lambda r: r["wall_s"])[len(ours) // 2]
        ng = run_ngspice(n, tmp) if n <= args.ngspice_max else None
        sw = step_costs(args.build, n, tmp) if n <= args.steps_max else None
        r = {"N": n, "nsspice": o, "ngspice": ng, "steps": sw,
             "ratio_ngspice_over_nsspice": ng["wall_s"] / o["wall_s"] if ng else None,
             # CPU times have a resolution of 10 ms (/usr/bin/time)
             "ratio_ngspice_over_nsspice_cpu": ng["cpu_s"] / o["cpu_s"] if ng and o["cpu_s"] else
             None}
        cpu_ratio = (f"{r['ratio_ngspice_over_nsspice_cpu']:.1f}x"
                     if r["ratio_ngspice_over_nsspice_cpu"] else "-")
        result["sizes"].append(r)
        rows.append(
            f"| {n} | {o['wall_s']:.2f} / {o['cpu_s']:.2f} | {o['peak_rss_kB'] / 1024:.0f} | "
            f"{o['lcp_solves_with_pivoting']} / {o['pivots']} | {o['mode_changes']} | "
            f"{o['factorizations']} / {o['refactorizations']} | "
            + (f"{ng['wall_s']:.2f} / {ng['cpu_s']:.2f} | {ng['peak_rss_kB'] / 1024:.0f} | "
               f"{r['ratio_ngspice_over_nsspice']:.1f}x / {cpu_ratio} |"
               if ng else "- | - | - |")
            + (f" {sw['plain_median_us']:.0f} | {sw['switching_mean_us']:.0f} / "
               f"{sw['switching_max_us']:.0f} ({sw['switching_steps']}) | "
               f"{sw['ratio_switching_mean_over_plain_median']:.0f} | "
               f"{sw['steady']['plain_median_us']:.0f} | "
               f"{sw['steady']['switching_into_met_mean_us']:.0f} / "
               f"{sw['steady']['switching_into_met_max_us']:.0f} "
               f"({sw['steady']['switching_into_met_modes']}) | "
               f"{sw['steady']['ratio_into_met_over_plain_median']:.1f} | "
               f"{sw['steady']['switching_into_new_mean_us']:.0f} "
               f"({sw['steady']['switching_into_new_modes']}) | "
               f"{sw['steady']['ratio_into_new_over_plain_median']:.0f} |"
               if sw else " - | - | - | - | - | - | - | - |"))
        print(rows[-1], flush=True)
    table = ("| N | nsspice wall / CPU [s] | RSS [MB] | pivoting steps / pivots | mode changes | "
             "factorizations / refactorizations | ngspice wall / CPU [s] | ngspice RSS [MB] | "
             "ngspice / nsspice (wall / CPU) | non-switching step, median [us] | switching step, "
             "mean / max [us] (steps) | ratio | 6 periods: non-switching, median [us] | "
             "switching into a mode met before, mean / max [us] (steps) | ratio | "
             "switching into a new mode, mean [us] (steps) | ratio |\n"
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")
    if args.write:
        bench_peers.write_results("clamp_network", result, table)
    else:
        print(table)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("netlist")
    p.add_argument("n", type=int)
    p.add_argument("--ngspice", action="store_true")
    p.add_argument("--tend", default=T_END)
    p.add_argument("--model", default=None,
                   help="the diode's model for both simulators, e.g. 'D(IS=1e-14 N=1.05 RS=0.5)'")
    b = sub.add_parser("bench")
    b.add_argument("--build", default="build")
    b.add_argument("--sizes", default="100,1000,10000")
    b.add_argument("--reps", type=int, default=3)
    b.add_argument("--ngspice-max", type=int, default=10000)
    b.add_argument("--steps-max", type=int, default=10000, help="largest N for clamp_step_bench")
    b.add_argument("--write", action="store_true", help="write bench/results/clamp_network.*")
    args = ap.parse_args()
    if args.cmd == "netlist":
        sys.stdout.write(netlist(args.n, args.ngspice, args.tend, args.model))
    else:
        bench(args)


if __name__ == "__main__":
    main()
