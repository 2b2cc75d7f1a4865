#!/usr/bin/env python3
"""Does `nsspice compare` get a SPICE run that finishes? (issue 19)

For every example (examples/*.cir) and every escalation-ladder case (tests/data/compare/*.cir:
netlists on which ngspice fails with compare's default regularization), runs

    nsspice compare NETLIST -q --timeout T --json ...

with its defaults (the question chosen by the netlist: the user's SPICE models when it has any,
else regularized devices) and records from compare.json: whether ngspice reached TSTOP, after
how many attempts of the ladder (and which remedy the last one added), the wall times of nsspice
(in-process: parse, assembly, transient) and of ngspice (every attempt, and the one used alone)
and their ratio, and the verdict line. ngspice runs in the same run of the script, on the same
machine, as compare itself runs it.

    python3 bench/compare_ladder.py --build build          # ~3 min; bench/results/compare_ladder.*

Python 3 standard library only; needs `ngspice` on PATH.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from bench_peers import write_results  # noqa: E402


def cases():
    examples = sorted((ROOT / "examples").glob("*.cir"))
    ladder = sorted((ROOT / "tests" / "data" / "compare").glob("*.cir"))
    return [("example", p) for p in examples] + [("ladder case", p) for p in ladder]


def run_case(nsspice, kind, path, tmp, timeout, stall):
    out = tmp / path.stem
    json_path = out / "compare.json"
    cmd = [str(nsspice), "compare", str(path), "-d", str(out), "-q", "--timeout", str(timeout),
           "--stall", str(stall)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    row = {"kind": kind, "netlist": str(path.relative_to(ROOT)), "exit_code": proc.returncode,
           "compare_wall_s": wall}
    if not json_path.exists():
        row["error"] = (proc.stdout + proc.stderr).strip().splitlines()[-1:]
        return row
    j = json.loads(json_path.read_text())
    ng = j["ngspice"]
    attempts = ng.get("attempts", [])
    used = next((a for a in attempts if a["attempt"] == ng.get("used_attempt")), None)
    row.update({
        "question": j["question"],
        "finished": not ng["failed"],
        "t_end": ng["t_end"], "t_stop": j["t_stop"],
        "attempts": len(attempts),
        "last_change": attempts[-1]["change"] if attempts else "",
        "nsspice_wall_s": j["nsspice"]["wall_seconds"],
        "ngspice_wall_s": ng["wall_seconds"],
        "ngspice_used_attempt_wall_s": used["wall_seconds"] if used else None,
        "failures": [a["failure"] for a in attempts if not a["completed"]],
        "verdict": j["verdict"],
    })
    row["ratio_all_attempts"] = row["ngspice_wall_s"] / row["nsspice_wall_s"]
    if used:
        row["ratio_used_attempt"] = used["wall_seconds"] / row["nsspice_wall_s"]
    return row


def num(x):
    """3 significant digits, without an exponent below 1e5."""
    return f"{x:.0f}" if x >= 1000 else f"{x:.3g}"


def table(rows):
    lines = ["| netlist | question | finishes | attempts (last remedy) | nsspice | ngspice, all "
             "attempts (the one used) | ratio all (used) | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        name = pathlib.Path(r["netlist"]).name + (" (ladder case)" if r["kind"] != "example" else "")
        if "error" in r:
            lines.append(f"| {name} | | exit {r['exit_code']}: {' '.join(r['error'])} "
                         "| | | | | |")
            continue
        finished = "yes" if r["finished"] else f"**no**: stopped at {r['t_end']:.3g} s"
        remedy = f" ({r['last_change']})" if r["attempts"] > 1 and r["last_change"] else ""
        used = r.get("ngspice_used_attempt_wall_s")
        lines.append(
            f"| {name} | {r['question']} | {finished} | {r['attempts']}{remedy} | "
            f"{r['nsspice_wall_s']:.3g} s | {r['ngspice_wall_s']:.3g} s ({used:.3g} s) | "
            f"{num(r['ratio_all_attempts'])} ({num(r.get('ratio_used_attempt', 0))}) | "
            f"{r['verdict']} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per ngspice attempt")
    ap.add_argument("--stall", type=float, default=20, help="compare's --stall")
    ap.add_argument("--only", default="", help="comma-separated netlist stems")
    ap.add_argument("--render", action="store_true",
                    help="only rewrite the table from bench/results/compare_ladder.json")
    args = ap.parse_args()
    if args.render:
        result = json.loads((ROOT / "bench" / "results" / "compare_ladder.json").read_text())
        write_results("compare_ladder", result, table(result["cases"]))
        return
    nsspice = (ROOT / args.build / "nsspice").resolve()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="nsspice_compare_ladder_"))
    only = set(filter(None, args.only.split(",")))
    rows = []
    for kind, path in cases():
        if only and path.stem not in only:
            continue
        row = run_case(nsspice, kind, path, tmp, args.timeout, args.stall)
        print(f"{path.name}: exit {row['exit_code']}, {row.get('attempts', '?')} attempt(s), "
              f"{row.get('verdict', row.get('error'))}", file=sys.stderr)
        rows.append(row)
    result = {"timeout_s": args.timeout, "stall_s": args.stall, "cases": rows}
    write_results("compare_ladder", result, table(rows))


if __name__ == "__main__":
    main()
