"""Monte Carlo of the buck converter (issue 22, "Benchmark"): nsspice --runs N on 1 and 2 threads
and on 1 and 4 MPI ranks (oversubscribed on this 2-core machine), against ngspice running the
same Monte Carlo in its own .control loop; memory per concurrent run.

The circuit is examples/buck.cir (2 ms from zero, 100 kHz PWM) with toleranced parts:
  L1 = agauss(100u, 10u, 1), C1 = agauss(10u, 1u, 1), R1 = unif(10, 0.05)
and two measurements: the output average over the last 0.5 ms and its peak-to-peak ripple over
the last 0.1 ms (which depends on L and C). nsspice steps with the .tran step, 10 ns, as a fixed
step (--step 10n, whatever the default stepping) and writes each run's v(out) on a 10 us grid
(200 rows per run; --grid) so the files stay small. ngspice runs the regularized buck of
bench_peers (switch RON = 1 uOhm / ROFF = 1 TOhm, diode N = 1e-4) with RELTOL = 1e-4, drawing the
same distributions with its sgauss/sunif in a .control loop (`alter` then `tran`, one `meas` per
run); it runs --ng-runs trials (fewer: it is slow) and its per-run time is scaled; the table
says so.

Reports:
  * wall time for N runs at --jobs 1 and --jobs 2, the speed-up (goal >= 1.8x on 2 cores), and
    whether the two measurement tables are identical;
  * wall time for N runs on each of --mpi-ranks MPI rank counts (mpirun --oversubscribe;
    skipped when mpirun or nsspice's MPI build is missing), the speed-up over 1 rank, identical
    tables, the peak RSS of each rank;
  * ngspice's per-run time over nsspice's (2 jobs) (goal >= 20x);
  * memory per concurrent run: (peak RSS at --jobs 8 - peak RSS at --jobs 1) / 7, 40 runs each
    (the process's fixed part cancels);
  * the load average of the machine before the runs (other work distorts the times).
Python 3 standard library; writes bench/results/sweep_mc.{json,md}.

  python3 bench/sweep_bench.py --build build [--runs 1000] [--ng-runs 10] [--mpi-ranks 1,2,4]
"""
import argparse
import os
import pathlib
import re
import shlex
import shutil
import statistics
import subprocess
import tempfile
import time

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

RUN_ARGS = ["-o", "mc.csv", "--step", "10n", "--grid", "10u", "--save", "v(out)", "--seed", 1,
            "-q"]
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_btl_vader_single_copy_mechanism": "none"}


def meas_column(path, name):
    lines = path.read_text().splitlines()
    k = lines[0].split(",").index(name)
    return [float(line.split(",")[k]) for line in lines[1:] if line.split(",")[k]]


def summary(out, wall, rss, runs):
    v, pp = meas_column(out / "mc.meas.csv", "vavg"), meas_column(out / "mc.meas.csv", "vpp")
    for f in out.glob("mc.run*.csv"):
        f.unlink()
    return {"wall_s": wall, "per_run_s": wall / runs, "peak_rss_kb": rss,
            "vavg_mean": statistics.mean(v), "vavg_sd": statistics.stdev(v),
            "vpp_mean": statistics.mean(pp), "vpp_sd": statistics.stdev(pp), "runs_ok": len(v)}


def threads(exe, tmp, runs, jobs, name):
    out = tmp / name
    out.mkdir()
    wall, rss, _ = bench_peers.timed_rss(
        [exe, "run", "../mc.cir", *RUN_ARGS, "--runs", runs, "--jobs", jobs], cwd=out)
    return summary(out, wall, rss, runs)


def mpi(exe, tmp, runs, ranks):
    """N runs on `ranks` MPI ranks; None when MPI is not available."""
    if shutil.which("mpirun") is None:
        return None
    out = tmp / f"mpi{ranks}"
    out.mkdir()
    # Each rank's peak RSS into a file of its own (mpirun may drop a rank's last output line).
    run = shlex.join([str(exe), "run", "../mc.cir", *map(str, RUN_ARGS), "--runs", str(runs),
                      "--mpi"])
    cmd = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-n", str(ranks), "sh", "-c",
           f"exec /usr/bin/time -f %M -o rss.$OMPI_COMM_WORLD_RANK {run}"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=out, capture_output=True, text=True,
                          env={**os.environ, **MPI_ENV})
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        if "built without MPI" in proc.stderr:
            return None
        raise SystemExit(f"mpirun failed:\n{proc.stdout}\n{proc.stderr[-2000:]}")
    rank_rss = [int((out / f"rss.{r}").read_text().split()[-1]) for r in range(ranks)]
    result = summary(out, wall, max(rank_rss), runs)
    result["rank_rss_kb"] = rank_rss
    return result


def ngspice(tmp, runs):
    (tmp / "ng.cir").write_text(NGSPICE_NETLIST.format(runs=runs))
    wall, rss, text = bench_peers.timed_rss(["ngspice", "-b", "ng.cir"], cwd=tmp, check=False)
    m = re.search(r"mean\(vavg\)\s*=\s*([-+0-9.eE]+)", text)
    mp = re.search(r"mean\(vpp\)\s*=\s*([-+0-9.eE]+)", text)
    return {"wall_s": wall, "per_run_s": wall / runs, "peak_rss_kb": rss,
            "completed": "VAVG_DONE" in text, "vavg_mean": float(m.group(1)) if m else None,
            "vpp_mean": float(mp.group(1)) if mp else None}


def row(name, r, note=""):
    return (f"| {name} | {r['wall_s']:.2f}{note} | {1e3 * r['per_run_s']:.1f} | "
            f"{(r['peak_rss_kb'] or 0) / 1024:.0f} | {r['vavg_mean']:.4f} | "
            f"{1e3 * r['vpp_mean']:.2f} | {1e3 * r['vpp_sd']:.2f} |\n")


def table(a, res):
    n1, n2, ng = res["nsspice_jobs1"], res["nsspice_jobs2"], res["ngspice"]
    ng_ripple = f"{1e3 * ng['vpp_mean']:.2f}" if ng["vpp_mean"] is not None else "n/a"
    text = (f"# Monte Carlo of the buck converter ({a.runs} runs; ngspice {a.ng_runs} runs, "
            f"scaled)\n\nload average before the runs: {res['load_average']:.1f} (2 cores)\n\n"
            "| tool | wall [s] | per run [ms] | peak RSS [MB] | mean v_avg [V] | mean ripple [mV] "
            "| sd ripple [mV] |\n|---|---|---|---|---|---|---|\n"
            + row("nsspice --jobs 1", n1) + row("nsspice --jobs 2", n2))
    ranks = [r for r in res["mpi_ranks"] if res.get(f"nsspice_mpi{r}")]
    for r in ranks:
        text += row(f"nsspice --mpi, {r} rank{'s' if r > 1 else ''}", res[f"nsspice_mpi{r}"])
    text += (f"| ngspice .control loop | {ng['wall_s']:.2f} ({a.ng_runs} runs) | "
             f"{1e3 * ng['per_run_s']:.1f} | {(ng['peak_rss_kb'] or 0) / 1024:.0f} | "
             f"{ng['vavg_mean'] if ng['vavg_mean'] is not None else 'n/a'} | {ng_ripple} | |\n\n")
    text += (f"speed-up 1 -> 2 jobs: {res['speedup_1_to_2_jobs']:.2f}x (goal >= 1.8x); jobs 1 and "
             f"2 give identical measurements: {res['jobs1_equals_jobs2']}\n\n")
    if ranks:
        for r in ranks[1:]:
            rss = ", ".join(f"{x / 1024:.0f}" for x in res[f"nsspice_mpi{r}"]["rank_rss_kb"])
            text += (f"speed-up 1 -> {r} MPI ranks{' (oversubscribed on 2 cores)' if r > 2 else ''}"
                     f": {res[f'speedup_mpi{r}']:.2f}x; peak RSS per rank [MB]: {rss}\n\n")
        text += f"every MPI table equals the threaded one: {res['mpi_equals_threads']}\n\n"
    else:
        text += "MPI: not measured (no mpirun, or nsspice built without MPI)\n\n"
    text += (f"ngspice per run / nsspice per run (2 jobs): "
             f"{res['ngspice_per_run_over_nsspice']:.1f}x (goal >= 20x)\n\n"
             f"memory per concurrent run: {res['kb_per_concurrent_run']:.0f} kB (peak RSS "
             f"{res['rss_jobs1_kb'] / 1024:.1f} MB at --jobs 1, {res['rss_jobs8_kb'] / 1024:.1f} "
             f"MB at --jobs 8)\n")
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--ng-runs", type=int, default=10)
    ap.add_argument("--mpi-ranks", default="1,2,4",
                    help="MPI rank counts, comma separated (the first is the reference)")
    a = ap.parse_args()
    exe = (ROOT / a.build / "nsspice").resolve()
    res = {"runs": a.runs, "ngspice_runs": a.ng_runs, "load_average": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "mc.cir").write_text(NSSPICE_NETLIST)
        for jobs in (1, 2):
            res[f"nsspice_jobs{jobs}"] = threads(exe, tmp, a.runs, jobs, f"j{jobs}")
        table_j1 = (tmp / "j1" / "mc.meas.csv").read_text()
        res["jobs1_equals_jobs2"] = table_j1 == (tmp / "j2" / "mc.meas.csv").read_text()
        res["speedup_1_to_2_jobs"] = (res["nsspice_jobs1"]["wall_s"] /
                                      res["nsspice_jobs2"]["wall_s"])
        res["mpi_ranks"] = [int(r) for r in a.mpi_ranks.split(",")]
        for ranks in res["mpi_ranks"]:
            res[f"nsspice_mpi{ranks}"] = mpi(exe, tmp, a.runs, ranks)
        done = [r for r in res["mpi_ranks"] if res[f"nsspice_mpi{r}"]]
        for r in done[1:]:
            res[f"speedup_mpi{r}"] = (res[f"nsspice_mpi{done[0]}"]["wall_s"] /
                                      res[f"nsspice_mpi{r}"]["wall_s"])
        res["mpi_equals_threads"] = all(
            (tmp / f"mpi{r}" / "mc.meas.csv").read_text() == table_j1 for r in done)
        memory = {jobs: threads(exe, tmp, 40, jobs, f"mem{jobs}")["peak_rss_kb"]
                  for jobs in (1, 8)}
        res["rss_jobs1_kb"], res["rss_jobs8_kb"] = memory[1], memory[8]
        res["kb_per_concurrent_run"] = (memory[8] - memory[1]) / 7
        res["ngspice"] = ngspice(tmp, a.ng_runs)
        res["ngspice_per_run_over_nsspice"] = (res["ngspice"]["per_run_s"] /
                                               res["nsspice_jobs2"]["per_run_s"])
    bench_peers.write_results("sweep_mc", res, table(a, res))


if __name__ == "__main__":
    main()
