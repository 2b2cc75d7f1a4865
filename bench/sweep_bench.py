"""Monte Carlo of the buck converter (issue 22, "Benchmark"): nsspice --runs N with 1 and 2
jobs against ngspice running the same Monte Carlo in its own .control loop.

The circuit is examples/buck.cir (2 ms from zero, 100 kHz PWM) with toleranced parts:
  L1 = agauss(100u, 10u, 1), C1 = agauss(10u, 1u, 1), R1 = unif(10, 0.05)
and two measurements: the output average over the last 0.5 ms and its peak-to-peak ripple over
the last 0.1 ms (which depends on L and C). nsspice writes each run's v(out)
on a 10 us grid (200 rows per run; --grid) so the files stay small. ngspice runs the regularized
buck of bench/event_bench.py (switch RON = 1 uOhm / ROFF = 1 TOhm, diode N = 1e-4) with
RELTOL = 1e-4, drawing the same distributions with its sgauss/sunif in a .control loop (`alter`
then `tran`, one `meas` per run); it runs --ng-runs trials (fewer: it is slow) and its per-run
time is scaled to N runs; the table says so.

Reports: wall time for N runs at --jobs 1 and --jobs 2 and the speed-up (goal >= 1.8x on 2
cores), per-run time, peak RSS of the process, the mean and standard deviation of the measured
average for both tools, and the ratio of ngspice's per-run time to nsspice's (goal >= 20x).
Python 3 standard library; writes bench/results/sweep_mc.{json,md}.

  python3 bench/sweep_bench.py --build build [--runs 200] [--ng-runs 10]
"""
import argparse
import json
import pathlib
import re
import statistics
import tempfile

import bench_peers  # noqa: E402  (the directory of this script is on sys.path)

ROOT = pathlib.Path(__file__).resolve().parent.parent

NSSPICE_NETLIST = """buck converter, Monte Carlo over L, C and the load
.param lv=agauss(100u, 10u, 1) cv=agauss(10u, 1u, 1) rv=unif(10, 0.05)
Vin  in   0 DC 10
Vpwm ctrl 0 PULSE(0 1 0 10n 10n 4.99u 10u)
S1   in sw ctrl 0 SWIDEAL
D1   0  sw DIDEAL
L1   sw out {lv} IC=0
C1   out 0 {cv} IC=0
R1   out 0 {rv}
.model SWIDEAL SW(VT=0.5)
.model DIDEAL D
.tran 10n 2m UIC
.meas tran vavg avg v(out) from=1.5m to=2m
.meas tran vpp pp v(out) from=1.9m to=2m
.end
"""

NGSPICE_NETLIST = ("""buck converter, Monte Carlo over L, C and the load (regularized devices)
""" + bench_peers.REGULARIZED_BUCK.replace("{", "{{").replace("}", "}}") + """.tran 10n 2m uic
.options RELTOL=1e-4
.control
set noaskquit
let runs = {runs}
let k = 0
let vavg = unitvec(runs)
let vpp = unitvec(runs)
while k < runs
  alter l1 = 100u + 10u * sgauss(0)
  alter c1 = 10u + 1u * sgauss(0)
  alter r1 = 10 * (1 + 0.05 * sunif(0))
  tran 10n 2m uic
  meas tran va avg v(out) from=1.5m to=2m
  meas tran vp pp v(out) from=1.9m to=2m
  let vavg[k] = va
  let vpp[k] = vp
  destroy
  let k = k + 1
end
print mean(vavg)
print mean(vpp)
echo "VAVG_DONE"
.endc
.end
""")


def meas_column(path, name):
    lines = path.read_text().splitlines()
    k = lines[0].split(",").index(name)
    return [float(l.split(",")[k]) for l in lines[1:] if l.split(",")[k]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--ng-runs", type=int, default=10)
    a = ap.parse_args()
    exe = (ROOT / a.build / "nsspice").resolve()
    result = {"runs": a.runs, "ngspice_runs": a.ng_runs}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "mc.cir").write_text(NSSPICE_NETLIST)
        for jobs in (1, 2):
            out = tmp / f"j{jobs}"
            out.mkdir()
            wall, rss, _ = bench_peers.timed_rss(
                [exe, "run", "../mc.cir", "-o", "mc.csv", "--grid", "10u", "--save", "v(out)",
                 "--runs", a.runs, "--seed", 1, "--jobs", jobs, "-q"], cwd=out)
            v = meas_column(out / "mc.meas.csv", "vavg")
            pp = meas_column(out / "mc.meas.csv", "vpp")
            result[f"nsspice_jobs{jobs}"] = {"wall_s": wall, "per_run_s": wall / a.runs,
                                              "peak_rss_kb": rss, "vavg_mean": statistics.mean(v),
                                              "vavg_sd": statistics.stdev(v),
                                              "vpp_mean": statistics.mean(pp),
                                              "vpp_sd": statistics.stdev(pp), "runs_ok": len(v)}
            for f in out.glob("mc.run*.csv"):
                f.unlink()
        same = (tmp / "j1" / "mc.meas.csv").read_text() == (tmp / "j2" / "mc.meas.csv").read_text()
        result["jobs1_equals_jobs2"] = same
        result["speedup_1_to_2_jobs"] = (result["nsspice_jobs1"]["wall_s"] /
                                         result["nsspice_jobs2"]["wall_s"])
        (tmp / "ng.cir").write_text(NGSPICE_NETLIST.format(runs=a.ng_runs))
        wall, rss, text = bench_peers.timed_rss(["ngspice", "-b", "ng.cir"], cwd=tmp, check=False)
        ok = "VAVG_DONE" in text
        m = re.search(r"mean\(vavg\)\s*=\s*([-+0-9.eE]+)", text)
        mp = re.search(r"mean\(vpp\)\s*=\s*([-+0-9.eE]+)", text)
        result["ngspice"] = {"wall_s": wall, "per_run_s": wall / a.ng_runs, "peak_rss_kb": rss,
                             "completed": ok, "vavg_mean": float(m.group(1)) if m else None,
                             "vpp_mean": float(mp.group(1)) if mp else None}
        result["ngspice_per_run_over_nsspice"] = (result["ngspice"]["per_run_s"] /
                                                  result["nsspice_jobs2"]["per_run_s"])
    n1, n2, ng = result["nsspice_jobs1"], result["nsspice_jobs2"], result["ngspice"]
    ng_ripple = f"{1e3 * ng['vpp_mean']:.2f}" if ng["vpp_mean"] is not None else "n/a"
    table = (
        f"# Monte Carlo of the buck converter ({a.runs} runs; ngspice {a.ng_runs} runs, scaled)\n\n"
        "| tool | wall [s] | per run [ms] | peak RSS [MB] | mean v_avg [V] | mean ripple [mV] "
        "| sd ripple [mV] |\n"
        "|---|---|---|---|---|---|---|\n"
        f"| nsspice --jobs 1 | {n1['wall_s']:.2f} | {1e3 * n1['per_run_s']:.1f} | "
        f"{(n1['peak_rss_kb'] or 0) / 1024:.0f} | {n1['vavg_mean']:.4f} | "
        f"{1e3 * n1['vpp_mean']:.2f} | {1e3 * n1['vpp_sd']:.2f} |\n"
        f"| nsspice --jobs 2 | {n2['wall_s']:.2f} | {1e3 * n2['per_run_s']:.1f} | "
        f"{(n2['peak_rss_kb'] or 0) / 1024:.0f} | {n2['vavg_mean']:.4f} | "
        f"{1e3 * n2['vpp_mean']:.2f} | {1e3 * n2['vpp_sd']:.2f} |\n"
        f"| ngspice .control loop | {ng['wall_s']:.2f} ({a.ng_runs} runs) | "
        f"{1e3 * ng['per_run_s']:.1f} | {(ng['peak_rss_kb'] or 0) / 1024:.0f} | "
        f"{ng['vavg_mean'] if ng['vavg_mean'] is not None else 'n/a'} | "
        f"{ng_ripple} | |\n\n"
        f"speed-up 1 -> 2 jobs: {result['speedup_1_to_2_jobs']:.2f}x (goal >= 1.8x); "
        f"jobs 1 and 2 give identical measurements: {same}; "
        f"ngspice per run / nsspice per run (2 jobs): "
        f"{result['ngspice_per_run_over_nsspice']:.1f}x (goal >= 20x)\n")
    out_dir = ROOT / "bench" / "results"
    out_dir.mkdir(exist_ok=True)
    (out_dir / "sweep_mc.json").write_text(json.dumps(result, indent=2) + "\n")
    (out_dir / "sweep_mc.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
