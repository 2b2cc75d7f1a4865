#!/usr/bin/env python3
"""Before/after CPU time of two nsspice binaries on the same runs (work that must not change
the results: the output files are compared byte for byte).

For each netlist, `nsspice run` with its defaults (the .tran of the netlist; a clamp network of
bench/clamp_network.py with --clamp N, saving v(n1) and v(nN) as that bench does), REPS runs of
each binary alternating (before, after, before, ...): the median CPU time (user + system of the
process, less sensitive than wall time to other work on a shared machine), the steps and
rejected steps of the run report, and whether the two output files are identical (cmp). The
1-minute load average at the start and end is printed: the machine may be shared.

Usage:
  python3 bench/ab_cpu.py --before OLD_NSSPICE --after NEW_NSSPICE [--reps 5] [--clamp 1000]
      [--json out.json] NETLIST...
Prints a Markdown table. Python 3 standard library only.
"""
import argparse
import filecmp
import json
import os
import pathlib
import re
import resource
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import clamp_network  # noqa: E402


def run(exe, netlist, out, extra):
    """CPU seconds of one run and its report's counters."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([exe, "run", str(netlist), "-o", str(out), "--no-progress"] + extra,
                          capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{exe} failed on {netlist} (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    m = re.search(r"steps\s+(\d+) accepted, (\d+) rejected", proc.stdout)
    status = re.search(r"run report \(([^)]*)\)", proc.stdout)
    return cpu, {"steps": int(m.group(1)) if m else None,
                 "rejected": int(m.group(2)) if m else None,
                 "status": status.group(1) if status else None}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--clamp", type=int, default=0, help="also the clamp network of N sections")
    ap.add_argument("--json")
    ap.add_argument("netlists", nargs="*")
    args = ap.parse_args()
    if args.reps < 1:
        sys.exit("--reps must be at least 1")
    exes = {"before": os.path.abspath(args.before), "after": os.path.abspath(args.after)}
    rows = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = pathlib.Path(tmp_name)
        cases = [(pathlib.Path(n), pathlib.Path(n).name, []) for n in args.netlists]
        if args.clamp > 0:
            path = tmp / f"clamp_network_{args.clamp}.cir"
            path.write_text(clamp_network.netlist(args.clamp))
            cases.append((path, f"clamp network N = {args.clamp}",
                          ["--save", f"v(n1),v(n{args.clamp})"]))
        load0 = os.getloadavg()[0]
        for netlist, name, extra in cases:
            cpu = {"before": [], "after": []}
            info = {}
            for _ in range(args.reps):
                for tag, exe in exes.items():
                    seconds, info[tag] = run(exe, netlist, tmp / f"{tag}.csv", extra)
                    cpu[tag].append(seconds)
            same = filecmp.cmp(tmp / "before.csv", tmp / "after.csv", shallow=False)
            rows.append({"netlist": name, "cpu_before_s": cpu["before"],
                         "cpu_after_s": cpu["after"], "before": info["before"],
                         "after": info["after"], "identical_output": same})
        load1 = os.getloadavg()[0]
    print(f"load average (1 min) {load0:.1f} at the start, {load1:.1f} at the end; "
          f"CPU time median of {args.reps}, alternating\n")
    print("| run | CPU before | CPU after | before / after | steps (rejected) before / after "
          "| output identical |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        b, a = statistics.median(r["cpu_before_s"]), statistics.median(r["cpu_after_s"])
        sb, sa = r["before"], r["after"]
        print(f"| {r['netlist']} | {b:.3f} s | {a:.3f} s | {b / a:.2f}x "
              f"| {sb['steps']} ({sb['rejected']}) / {sa['steps']} ({sa['rejected']}) "
              f"| {'yes' if r['identical_output'] else 'NO'} |")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(
            {"load_start": load0, "load_end": load1, "reps": args.reps, "rows": rows}, indent=1))
    if not all(r["identical_output"] for r in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
