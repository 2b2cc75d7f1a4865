"""SPICE device models through the PWL conversion (issue 18) against ngspice, same netlist.

For each examples/spice_*.cir below (diode circuits, MOSFET and VDMOS bucks, bipolar stages),
both simulators run the same file, its own .meas cards giving the key figures:
  * whole-process wall time (median of --reps runs after a warm-up) of both, and the ratio
    ngspice / nsspice; also the in-process times (nsspice's report "wall time", ngspice's
    "Total analysis time") and their ratio, which leaves out process start-up; and the
    whole processes doing the same output work: `ngspice -b` writes no waveform file while
    nsspice writes every signal to a CSV, so both also run writing every signal to a binary
    raw file (ngspice -b -r, nsspice -o .raw), alternating with the runs above;
  * the process floor: both simulators on a one-resistor deck (median of --reps), and for each
    circuit the ceiling of the ratio, ngspice's wall time over nsspice's floor (the ratio if
    nsspice's parsing, conversion and stepping took no time);
  * nsspice with fixed steps at the .tran TMAX (.options stepping=fixed, as ngspice's TMAX
    bounds its steps) and, once each, with error-controlled steps (.options stepping=adaptive)
    and with error-controlled steps that take the PWL segment changes as kinks (.options
    pwlkinks=smooth: no located instant, no backward-Euler restart), with its key figures;
  * each key figure of both and their relative difference at the default .options pwltol
    (10 mV) and at pwltol = 2 mV;
  * the per-step cost of the SPICE models against the same circuit with ideal diodes (--ideal,
    same fixed steps: the ratio of the stepping times); circuits without diodes have none;
  * with perf on PATH (--perf): the share of the stepping spent in the backward-Euler restarts
    that follow mode changes (perf samples under ThetaStepper::backward_euler over those under
    ThetaStepper::step).
Then the per-step cost of the PWL diode against the ideal one on the rectifier run for 1 s at
h = 2 us (500k steps): us/step of the stepping alone (run report), median of --reps; and with
--callgrind (valgrind on PATH) the same as instructions per step, which do not depend on the
machine's load: callgrind's inclusive count of ThetaStepper::step over the rectifier run for
0.2 s at 2 us (100k steps), PWL and ideal (about a minute).

Results: bench/results/spice_models.{json,md}. Usage:
  python3 bench/spice_models_bench.py [--build build] [--reps 3] [--perf] [--callgrind]
Python 3 standard library; needs ngspice on PATH. A few minutes (the adaptive runs of the
bucks are the slow part).
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
         "spice_charge_pump_schottky.cir", "spice_boost_schottky.cir", "spice_mosfet_buck.cir",
         "spice_vdmos_buck.cir", "spice_bjt_switch.cir", "spice_bjt_amplifier.cir",
         "spice_diode_recovery.cir"]
MEAS = re.compile(r"^\s*([a-z]+)\s*=\s*([-+0-9.eE]+)", re.M)


def run(cmd, cwd):
    start = time.perf_counter()
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, cwd=cwd,
                          check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{proc.stdout}\n{proc.stderr[-2000:]}")
    return wall, proc.stdout + proc.stderr


def variant(src, dst, lines):
    text = src.read_text().replace("\n.tran", "\n" + "".join(lines) + ".tran", 1)
    dst.write_text(text)
    return dst


def grab(pattern, text, cast=float):
    m = re.search(pattern, text)
    return cast(m.group(1)) if m else None


def segments(report):
    return {m: int(k) for m, k in re.findall(
        r"^  (\S+): (?:\S+ \S+ square law, |\S+ Ebers–Moll, B-E junction |\S+ Ebers–Moll, E-B "
        r"junction )?(\d+) segments?", report, re.M)}


def perf_restart_share(cmd, tmp):
    data = tmp / "perf.data"
    subprocess.run(["perf", "record", "-q", "-F", "4000", "--call-graph", "dwarf,16384", "-o",
                    str(data), *map(str, cmd)], capture_output=True, cwd=tmp, check=False)
    rep = subprocess.run(["perf", "report", "-i", str(data), "--children", "--sort", "symbol",
                          "-g", "none", "--stdio"], capture_output=True, text=True,
                         check=False).stdout
    def share(symbol):
        m = re.search(r"^\s+([\d.]+)%\s+[\d.]+%\s+\[\.\] " + re.escape(symbol) + r"\s", rep,
                      re.M)
        return float(m.group(1)) if m else None
    step, restart = share("nsspice::solvers::ThetaStepper::step"), \
        share("nsspice::solvers::ThetaStepper::backward_euler")
    return restart / step if step and restart is not None else None


def case(name, nsspice, tmp, reps, use_perf):
    src = ROOT / "examples" / name
    fixed = variant(src, tmp / name, [".options stepping=fixed\n"])
    ns_cmd = [nsspice, "run", fixed, "-o", tmp / "out.csv", "--no-progress"]
    ng_cmd = ["ngspice", "-b", src]
    ns_raw_cmd = [nsspice, "run", fixed, "-o", tmp / "out.raw", "--no-progress"]
    ng_raw_cmd = ["ngspice", "-b", "-r", tmp / "ng.raw", src]
    run(ns_cmd, tmp), run(ng_cmd, tmp)  # warm-up
    ns_wall, ng_wall, ns_in, ng_in, ns_raw, ng_raw = [], [], [], [], [], []
    for _ in range(reps):
        wall, ns_out = run(ns_cmd, tmp)
        ns_wall.append(wall)
        ns_in.append(grab(r"wall time\s+([\d.]+) s", ns_out))
        wall, ng_out = run(ng_cmd, tmp)
        ng_wall.append(wall)
        ng_in.append(grab(r"Total analysis time \(seconds\) = ([\d.]+)", ng_out))
        ns_raw.append(run(ns_raw_cmd, tmp)[0])
        ng_raw.append(run(ng_raw_cmd, tmp)[0])
    raw_bytes = {"nsspice": (tmp / "out.raw").stat().st_size,
                 "ngspice": (tmp / "ng.raw").stat().st_size}
    fine = variant(src, tmp / ("fine_" + name), [".options stepping=fixed\n",
                                                 ".options pwltol=0.002\n"])
    _, fine_out = run([nsspice, "run", fine, "-o", tmp / "out.csv", "--no-progress"], tmp)
    adaptive = variant(src, tmp / ("adaptive_" + name), [".options stepping=adaptive\n"])
    ad_wall, ad_out = run([nsspice, "run", adaptive, "-o", tmp / "out.csv", "--no-progress"], tmp)
    smooth = variant(src, tmp / ("smooth_" + name), [".options stepping=adaptive\n",
                                                     ".options pwlkinks=smooth\n"])
    sm_wall, sm_out = run([nsspice, "run", smooth, "-o", tmp / "out.csv", "--no-progress"], tmp)
    ng, ns, ns_fine, ns_ad, ns_sm = (dict((k, float(v)) for k, v in MEAS.findall(t))
                                     for t in (ng_out, ns_out, fine_out, ad_out, sm_out))
    figures = {k: {"ngspice": ref, "nsspice": ns[k], "rel_diff": (ns[k] - ref) / abs(ref),
                   "nsspice_pwltol_2mV": ns_fine[k],
                   "rel_diff_pwltol_2mV": (ns_fine[k] - ref) / abs(ref),
                   "nsspice_adaptive": ns_ad.get(k), "nsspice_smooth_kinks": ns_sm.get(k),
                   "rel_diff_smooth_kinks": (ns_sm[k] - ref) / abs(ref) if k in ns_sm else None}
               for k, ref in ng.items()}
    result = {"netlist": f"examples/{name}", "nsspice_wall_s": statistics.median(ns_wall),
              "ngspice_wall_s": statistics.median(ng_wall),
              "ratio_ngspice_over_nsspice": statistics.median(ng_wall) / statistics.median(ns_wall),
              "nsspice_in_process_s": statistics.median(ns_in),
              "ngspice_analysis_s": statistics.median(ng_in),
              "ratio_in_process": statistics.median(ng_in) / statistics.median(ns_in),
              "nsspice_raw_wall_s": statistics.median(ns_raw),
              "ngspice_raw_wall_s": statistics.median(ng_raw),
              "ratio_both_raw": statistics.median(ng_raw) / statistics.median(ns_raw),
              "raw_bytes": raw_bytes,
              "nsspice_adaptive_wall_s": ad_wall,
              "ratio_ngspice_over_nsspice_adaptive": statistics.median(ng_wall) / ad_wall,
              "nsspice_smooth_kinks_wall_s": sm_wall,
              "ratio_ngspice_over_nsspice_smooth_kinks": statistics.median(ng_wall) / sm_wall,
              "nsspice_smooth_kinks_counters": counters(sm_out),
              "segments": segments(ns_out), "figures": figures,
              "nsspice_counters": counters(ns_out), "nsspice_adaptive_counters": counters(ad_out),
              "restarts": grab(r"\((\d+) backward-Euler restarts", ns_out, int)}
    if "device models" in ns_out and re.search(r"^  \S+: \d+ segments", ns_out, re.M):
        _, ideal_out = run(ns_cmd + ["--ideal"], tmp)
        pwl_us = counters(ns_out)["us_per_step_stepping"]
        ideal_us = counters(ideal_out)["us_per_step_stepping"]
        result["per_step_us"] = {"pwl": pwl_us, "ideal": ideal_us, "ratio": pwl_us / ideal_us}
    if use_perf:
        result["restart_share_of_stepping"] = perf_restart_share(ns_cmd, tmp)
    return result


def process_floor(nsspice, tmp, reps):
    """Whole-process wall time of both on a one-resistor deck (median of reps)."""
    deck = tmp / "floor.cir"
    deck.write_text("process floor\nV1 a 0 1\nR1 a 0 1k\n.tran 1u 10u\n.meas tran va max v(a)\n"
                    ".end\n")  # ngspice -b runs nothing without a .meas or .print
    cmds = {"nsspice": [nsspice, "run", deck, "-o", tmp / "floor.csv", "--no-progress"],
            "ngspice": ["ngspice", "-b", deck]}
    walls = {k: [] for k in cmds}
    for cmd in cmds.values():
        run(cmd, tmp)  # warm-up
    for _ in range(reps):
        for k, cmd in cmds.items():
            walls[k].append(run(cmd, tmp)[0])
    return {k: statistics.median(v) for k, v in walls.items()}


def per_step(nsspice, tmp, reps):
    src = (ROOT / "examples" / "spice_rectifier_1n4007.cir").read_text()
    long = tmp / "rect_long.cir"
    long.write_text(re.sub(r"^\.tran .*$", ".options stepping=fixed\n.tran 2u 1", src, flags=re.M))
    out = {}
    for label, flag in (("pwl", []), ("ideal", ["--ideal"])):
        us, c = [], None
        for _ in range(reps):
            _, text = run([nsspice, "run", long, "-o", tmp / "long.csv", "--save", "v(out)",
                           "--no-progress", *flag], tmp)
            c = counters(text)
            us.append(c["us_per_step_stepping"])
        out[label] = {"us_per_step_stepping": statistics.median(us), "counters": c}
    out["ratio_pwl_over_ideal"] = out["pwl"]["us_per_step_stepping"] / \
        out["ideal"]["us_per_step_stepping"]
    return out


def per_step_instructions(nsspice, tmp):
    """Instructions per step of the stepping (callgrind, inclusive ThetaStepper::step)."""
    src = (ROOT / "examples" / "spice_rectifier_1n4007.cir").read_text()
    deck = tmp / "rect_cg.cir"
    deck.write_text(re.sub(r"^\.tran .*$", ".options stepping=fixed\n.tran 2u 0.2", src,
                           flags=re.M))
    out = {}
    for label, flag in (("pwl", []), ("ideal", ["--ideal"])):
        cg = tmp / f"callgrind.{label}.out"
        _, text = run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}", nsspice,
                       "run", deck, "-o", tmp / "cg.csv", "--save", "v(out)", "--no-progress",
                       *flag], tmp)
        steps = counters(text)["steps"]
        annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(cg)],
                                   capture_output=True, text=True, check=True).stdout
        m = re.search(r"^\s*([\d,]+) .*ThetaStepper::step\(\)", annotated, re.M)
        if m is None or not steps:
            sys.exit("--callgrind: no count for ThetaStepper::step() or no step count")
        out[label] = {"instructions_per_step": int(m.group(1).replace(",", "")) / steps,
                      "steps": steps}
    out["ratio_pwl_over_ideal"] = out["pwl"]["instructions_per_step"] / \
        out["ideal"]["instructions_per_step"]
    return out


def rel(value, reference):
    return "–" if value is None else f"{100 * (value - reference) / abs(reference):+.3f} %"


def table(cases, step, floor, reps, instructions=None):
    rows = []
    for c in cases:
        ceiling = c["ngspice_wall_s"] / floor["nsspice"]
        segs = ", ".join(f"{m} {n}" for m, n in c["segments"].items())
        ps = c.get("per_step_us")
        per = f"{ps['ratio']:.2f}" if ps else "–"
        share = c.get("restart_share_of_stepping")
        share = f"{100 * share:.0f} %" if share is not None else "–"
        for k, f in c["figures"].items():
            rows.append(f"| {c['netlist']} | {segs} | {k} | {f['ngspice']:.5g} | "
                        f"{100 * f['rel_diff']:+.3f} % | {100 * f['rel_diff_pwltol_2mV']:+.3f} % | "
                        f"{c['nsspice_wall_s']:.3f} s | {c['ngspice_wall_s']:.3f} s | "
                        f"**{c['ratio_ngspice_over_nsspice']:.1f}x** | "
                        f"{c['ratio_in_process']:.1f}x | {c['ratio_both_raw']:.1f}x | "
                        f"{ceiling:.1f}x | "
                        f"{c['ratio_ngspice_over_nsspice_adaptive']:.2f}x "
                        f"({rel(f.get('nsspice_adaptive'), f['ngspice'])}) | "
                        f"{c['ratio_ngspice_over_nsspice_smooth_kinks']:.2f}x "
                        f"({100 * f['rel_diff_smooth_kinks']:+.3f} %) | {per} | "
                        f"{c['restarts']} | {share} |")
    return ("| netlist | segments | figure | ngspice | nsspice − ngspice (pwltol 10 mV) | "
            "at pwltol 2 mV | nsspice wall | ngspice wall | ngspice / nsspice | same, in process "
            "| same, both write a raw file | ceiling (ngspice wall / nsspice floor) "
            "| same, nsspice adaptive (its − ngspice) | same, adaptive with pwlkinks=smooth (its − ngspice) | "
            "per step PWL / ideal | BE restarts | restarts' share of the stepping |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n" +
            "\n".join(rows) +
            "\n\nnsspice with fixed steps at the .tran TMAX unless said; wall times median of "
            f"{reps}; in process: nsspice's report wall time against ngspice's Total analysis "
            "time; ngspice / nsspice is ngspice -b (no waveform file) against nsspice writing "
            "every signal to a CSV; both write a raw file: ngspice -b -r against nsspice -o "
            ".raw, every signal in a binary raw file on both sides, run alternating with the "
            "others. Process floor (a one-resistor deck, median of "
            f"{reps}): nsspice {1e3 * floor['nsspice']:.1f} ms, ngspice "
            f"{1e3 * floor['ngspice']:.1f} ms; the ceiling is the ratio nsspice would reach if "
            "its parsing, model conversion, stepping and output took no time.\n\n"
            f"Per step, rectifier 1 s at h = 2 us (stepping alone, median of {reps}): PWL "
            f"{step['pwl']['us_per_step_stepping']:.2f} us/step, ideal diode "
            f"{step['ideal']['us_per_step_stepping']:.2f} us/step, ratio "
            f"{step['ratio_pwl_over_ideal']:.2f}; PWL mode changes "
            f"{step['pwl']['counters']['mode_changes']}, LCP solves with pivoting "
            f"{step['pwl']['counters']['lcp_solves_with_pivoting']}, factorizations "
            f"{step['pwl']['counters']['factorizations']}.\n"
            + ("" if instructions is None else
               "\nPer step in instructions (callgrind, inclusive ThetaStepper::step, rectifier "
               f"0.2 s at h = 2 us, {instructions['pwl']['steps']} steps): PWL "
               f"{instructions['pwl']['instructions_per_step']:.0f}, ideal diode "
               f"{instructions['ideal']['instructions_per_step']:.0f}, ratio "
               f"{instructions['ratio_pwl_over_ideal']:.2f}.\n"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--perf", action="store_true", help="restarts' share by perf sampling")
    ap.add_argument("--callgrind", action="store_true",
                    help="per-step instructions of PWL and ideal diode (valgrind)")
    args = ap.parse_args()
    if args.callgrind and shutil.which("valgrind") is None:
        sys.exit("--callgrind: valgrind is not on PATH")
    if shutil.which("ngspice") is None:
        sys.exit("ngspice is not on PATH")
    if args.perf and shutil.which("perf") is None:
        sys.exit("--perf: perf is not on PATH")
    nsspice = (ROOT / args.build / "nsspice").resolve()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="nsspice_models_bench_"))
    try:
        floor = process_floor(nsspice, tmp, args.reps)
        cases = [case(name, nsspice, tmp, args.reps, args.perf) for name in CASES]
        step = per_step(nsspice, tmp, args.reps)
        instructions = per_step_instructions(nsspice, tmp) if args.callgrind else None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    write_results("spice_models", {"cases": cases, "per_step": step, "process_floor_s": floor,
                                   "per_step_instructions": instructions, "reps": args.reps},
                  table(cases, step, floor, args.reps, instructions))


if __name__ == "__main__":
    main()
