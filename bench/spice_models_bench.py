"""SPICE diode models through the PWL conversion (issue 18) against ngspice, same netlist.

For each examples/spice_*.cir (a 1N4007 rectifier, a 1N4148 clamp, a Zener clipper, a Schottky
charge pump, a boost with a power Schottky, a buck with a level-1 NMOS), both simulators run the same file, its own .meas cards
giving the key figures:
  * wall time of the whole process (median of --reps runs after a warm-up) and the ratio
    ngspice / nsspice;
  * each key figure of both, and their relative difference, at the default .options pwltol
    (10 mV) and at pwltol = 2 mV (the convergence of the PWL model to the SPICE one);
  * nsspice's segment count (from the run report).
Then the per-step cost of the PWL diode against the ideal one (--ideal) on the rectifier run
for 1 s at h = 2 us (500k steps): µs/step of the stepping alone (run report), median of --reps.

Results: bench/results/spice_models.{json,md}. Usage:
  python3 bench/spice_models_bench.py [--build build] [--reps 3]
Python 3 standard library; needs ngspice on PATH. About 30 s.
"""
import argparse
import json
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_peers import ROOT, counters, write_results  # noqa: E402

CASES = ["spice_rectifier_1n4007.cir", "spice_clamp_1n4148.cir", "spice_zener_clipper.cir",
         "spice_charge_pump_schottky.cir", "spice_boost_schottky.cir", "spice_mosfet_buck.cir"]
MEAS = re.compile(r"^\s*(v[a-z]+)\s*=\s*([-+0-9.eE]+)", re.M)


def run(cmd, cwd):
    start = time.perf_counter()
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd,
                          check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{proc.stdout}\n{proc.stderr[-2000:]}")
    return wall, proc.stdout + proc.stderr


def with_tol(src, dst, tol):
    text = src.read_text()
    if tol:
        text = text.replace("\n.tran", f"\n.options pwltol={tol}\n.tran", 1)
    dst.write_text(text)
    return dst


def case(name, nsspice, tmp, reps):
    src = ROOT / "examples" / name
    ns_cmd = [nsspice, "run", with_tol(src, tmp / name, None), "-o", tmp / "out.csv",
              "--no-progress"]
    ng_cmd = ["ngspice", "-b", src]
    run(ns_cmd, tmp), run(ng_cmd, tmp)  # warm-up
    ns_wall, ng_wall = [], []
    for _ in range(reps):
        wall, ns_out = run(ns_cmd, tmp)
        ns_wall.append(wall)
        wall, ng_out = run(ng_cmd, tmp)
        ng_wall.append(wall)
    fine = with_tol(src, tmp / ("fine_" + name), 0.002)
    _, fine_out = run([nsspice, "run", fine, "-o", tmp / "out.csv", "--no-progress"], tmp)
    ng, ns, ns_fine = (dict((k, float(v)) for k, v in MEAS.findall(t))
                       for t in (ng_out, ns_out, fine_out))
    segments = re.findall(r"^  (\S+): (?:level-1 \S+ square law, )?(\d+) segments?", ns_out,
                          re.M)
    figures = {k: {"ngspice": ref, "nsspice": ns[k], "rel_diff": (ns[k] - ref) / abs(ref),
                   "nsspice_pwltol_2mV": ns_fine[k],
                   "rel_diff_pwltol_2mV": (ns_fine[k] - ref) / abs(ref)}
               for k, ref in ng.items()}
    return {"netlist": f"examples/{name}", "nsspice_wall_s": statistics.median(ns_wall),
            "ngspice_wall_s": statistics.median(ng_wall),
            "ratio_ngspice_over_nsspice": statistics.median(ng_wall) / statistics.median(ns_wall),
            "segments": {m: int(k) for m, k in segments}, "figures": figures,
            "nsspice_counters": counters(ns_out)}


def per_step(nsspice, tmp, reps):
    src = (ROOT / "examples" / "spice_rectifier_1n4007.cir").read_text()
    long = tmp / "rect_long.cir"
    long.write_text(re.sub(r"^\.tran .*$", ".tran 2u 1", src, flags=re.M))
    out = {}
    for label, flag in (("pwl", []), ("ideal", ["--ideal"])):
        us, c = [], None
        for _ in range(reps):
            _, text = run([nsspice, "run", long, "-o", tmp / "long.csv", "--save", "v(out)",
                           "--no-progress", *flag], tmp)
            c = counters(text)
            us.append(c["us_per_step_stepping"])
        out[label] = {"us_per_step_stepping": statistics.median(us), "counters": c,
                      "pairs_note": "PWL: forward segments + 1 breakdown pair; ideal: 2 pairs"}
    out["ratio_pwl_over_ideal"] = out["pwl"]["us_per_step_stepping"] / \
        out["ideal"]["us_per_step_stepping"]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    if shutil.which("ngspice") is None:
        sys.exit("ngspice is not on PATH")
    nsspice = (ROOT / args.build / "nsspice").resolve()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="nsspice_models_bench_"))
    try:
        cases = [case(name, nsspice, tmp, args.reps) for name in CASES]
        step = per_step(nsspice, tmp, args.reps)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows = []
    for c in cases:
        for k, f in c["figures"].items():
            segs = ", ".join(f"{m} {n}" for m, n in c["segments"].items())
            rows.append(f"| {c['netlist']} | {segs} | {k} | "
                        f"{f['ngspice']:.5g} | {f['nsspice']:.5g} | {100 * f['rel_diff']:+.3f} % | "
                        f"{100 * f['rel_diff_pwltol_2mV']:+.3f} % | {c['nsspice_wall_s']:.3f} s | "
                        f"{c['ngspice_wall_s']:.3f} s | "
                        f"**{c['ratio_ngspice_over_nsspice']:.1f}x** |")
    table = ("| netlist | segments (forward / square law) | figure | ngspice | "
             "nsspice (pwltol 10 mV) | diff | diff at pwltol 2 mV | nsspice wall | ngspice wall | "
             "ngspice / nsspice |\n"
             "|---|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n\n"
             f"Per step, rectifier 1 s at h = 2 us (stepping alone, median of {args.reps}): PWL "
             f"{step['pwl']['us_per_step_stepping']:.2f} us/step, ideal diode "
             f"{step['ideal']['us_per_step_stepping']:.2f} us/step, ratio "
             f"{step['ratio_pwl_over_ideal']:.2f}; PWL mode changes "
             f"{step['pwl']['counters']['mode_changes']}, LCP solves with pivoting "
             f"{step['pwl']['counters']['lcp_solves_with_pivoting']}, factorizations "
             f"{step['pwl']['counters']['factorizations']}.\n")
    write_results("spice_models", {"cases": cases, "per_step": step, "reps": args.reps}, table)


if __name__ == "__main__":
    main()
