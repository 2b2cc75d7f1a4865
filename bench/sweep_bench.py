"""Monte Carlo of the buck converter (issue 22, "Benchmark"): nsspice --runs N on 1 and 2 threads
and on 1, 2 and 4 MPI ranks (4 oversubscribed on this 2-core machine), against ngspice running
the same Monte Carlo in its own .control loop; memory per concurrent run.

The circuit is examples/buck.cir (2 ms from zero, 100 kHz PWM) with toleranced parts:
  L1 = agauss(100u, 10u, 1), C1 = agauss(10u, 1u, 1), R1 = unif(10, 0.05)
and two measurements: the output average over the last 0.5 ms and its peak-to-peak ripple over
the last 0.1 ms (which depends on L and C). nsspice steps with the .tran step, 10 ns, as a fixed
step (--step 10n, whatever the default stepping) and writes each run's v(out) on a 10 us grid
(200 rows per run; --grid) so the files stay small. ngspice runs the regularized buck of
bench_peers (switch RON = 1 uOhm / ROFF = 1 TOhm, diode N = 1e-4) with RELTOL = 1e-4, drawing the
same distributions with its sgauss/sunif in a .control loop (`alter` then `tran`, one `meas` per
run), fewer runs (it is slow), its per-run time (process start included) compared.

The machine is shared: other work changes the speed between one configuration and the next.
So the N runs are made in --batches batches (seeds 1, 2, ...) and every batch runs every
configuration one after the other (ngspice included, with --ng-runs / --batches runs): each
configuration sees the same mix of load. Totals are summed over the batches; the table also
gives the median over the batches of each speed-up, and the load average before and after.

Reports:
  * wall time for N runs at --jobs 1 and --jobs 2, the speed-up (goal >= 1.8x on 2 cores), and
    whether the measurement tables are identical, batch for batch;
  * the same on each of --mpi-ranks MPI rank counts (mpirun --oversubscribe; skipped when mpirun
    or nsspice's MPI build is missing), the speed-up over 1 rank, identical tables, the peak RSS
    of each rank;
  * ngspice's per-run time over nsspice's (2 jobs) (goal >= 20x), and over nsspice's at 1 job
    (per core: ngspice's loop runs on one core);
  * memory per concurrent run: (peak RSS at --jobs 8 - peak RSS at --jobs 1) / 7, 40 runs each
    (the process's fixed part cancels).
Python 3 standard library; writes bench/results/sweep_mc.{json,md}.

  python3 bench/sweep_bench.py --build build [--runs 1000] [--batches 10] [--ng-runs 20]
                                             [--mpi-ranks 1,2,4]
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

RUN_ARGS = ["-o", "mc.csv", "--step", "10n", "--grid", "10u", "--save", "v(out)", "-q"]
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_btl_vader_single_copy_mechanism": "none"}


def meas_column(path, name):
    lines = path.read_text().splitlines()
    k = lines[0].split(",").index(name)
    return [float(line.split(",")[k]) for line in lines[1:] if line.split(",")[k]]


def measured(out):
    """The batch's table and its two columns; the runs' files are removed."""
    text = (out / "mc.meas.csv").read_text()
    for f in out.glob("mc.run*.csv"):
        f.unlink()
    return text, meas_column(out / "mc.meas.csv", "vavg"), meas_column(out / "mc.meas.csv", "vpp")


def threads(exe, out, runs, jobs, seed):
    """(wall, peak RSS, [peak RSS], table) of `runs` runs on `jobs` threads."""
    out.mkdir(exist_ok=True)
    wall, rss, _ = bench_peers.timed_rss(
        [exe, "run", "../mc.cir", *RUN_ARGS, "--runs", runs, "--seed", seed, "--jobs", jobs],
        cwd=out)
    return wall, rss, [rss], measured(out)


def mpi(exe, out, runs, ranks, seed):
    """The same on `ranks` MPI ranks; None when MPI is not available."""
    if shutil.which("mpirun") is None:
        return None
    out.mkdir(exist_ok=True)
    # Each rank's peak RSS into a file of its own (mpirun may drop a rank's last output line).
    run = shlex.join([str(exe), "run", "../mc.cir", *map(str, RUN_ARGS), "--runs", str(runs),
                      "--seed", str(seed), "--mpi"])
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
    return wall, max(rank_rss), rank_rss, measured(out)


def ngspice(tmp, runs):
    (tmp / "ng.cir").write_text(NGSPICE_NETLIST.format(runs=runs))
    wall, rss, text = bench_peers.timed_rss(["ngspice", "-b", "ng.cir"], cwd=tmp, check=False)
    m = re.search(r"mean\(vavg\)\s*=\s*([-+0-9.eE]+)", text)
    mp = re.search(r"mean\(vpp\)\s*=\s*([-+0-9.eE]+)", text)
    return wall, rss, "VAVG_DONE" in text, float(m.group(1)) if m else None, \
        float(mp.group(1)) if mp else None


def row(name, r):
    return (f"| {name} | {r['wall_s']:.1f} | {1e3 * r['per_run_s']:.1f} | "
            f"{(r['peak_rss_kb'] or 0) / 1024:.0f} | {r['vavg_mean']:.4f} | "
            f"{1e3 * r['vpp_mean']:.2f} | {1e3 * r['vpp_sd']:.2f} |\n")


def table(a, res, keys):
    ng, sp = res["ngspice"], res["speedups"]
    ng_ripple = f"{1e3 * ng['vpp_mean']:.2f}" if ng["vpp_mean"] is not None else "n/a"
    text = (f"# Monte Carlo of the buck converter ({a.runs} runs in {a.batches} batches; ngspice "
            f"{ng['runs']} runs)\n\nload average of the machine (2 cores, shared): "
            f"{res['load_average_before']:.1f} before, {res['load_average_after']:.1f} after\n\n"
            "| tool | wall [s] | per run [ms] | peak RSS [MB] | mean v_avg [V] | mean ripple [mV] "
            "| sd ripple [mV] |\n|---|---|---|---|---|---|---|\n")
    for key in keys:
        text += row(res[key]["label"], res[key])
    text += (f"| ngspice .control loop | {ng['wall_s']:.1f} ({ng['runs']} runs) | "
             f"{1e3 * ng['per_run_s']:.1f} | {(ng['peak_rss_kb'] or 0) / 1024:.0f} | "
             f"{ng['vavg_mean'] if ng['vavg_mean'] is not None else 'n/a'} | {ng_ripple} | |\n\n")
    text += (f"speed-up 1 -> 2 jobs: {sp['jobs2']['total']:.2f}x over the totals, "
             f"{sp['jobs2']['median_batch']:.2f}x median of the batches (goal >= 1.8x)\n\n")
    mpi_keys = [k for k in keys if k.startswith("nsspice_mpi")]
    for k in mpi_keys[1:]:
        ranks = int(k[len("nsspice_mpi"):])
        rss = ", ".join(f"{x / 1024:.0f}" for x in res[k]["rank_rss_kb"])
        text += (f"speed-up {mpi_keys[0][len('nsspice_mpi'):]} -> {ranks} MPI ranks"
                 f"{' (oversubscribed on 2 cores)' if ranks > 2 else ''}: {sp[k]['total']:.2f}x "
                 f"over the totals, {sp[k]['median_batch']:.2f}x median of the batches; peak RSS "
                 f"per rank [MB]: {rss}\n\n")
    if not mpi_keys:
        text += "MPI: not measured (no mpirun, or nsspice built without MPI)\n\n"
    text += (f"every configuration's measurement table equals --jobs 1's, batch for batch: "
             f"{res['tables_identical']}\n\n"
             f"ngspice per run / nsspice per run (2 jobs): "
             f"{res['ngspice_per_run_over_nsspice']:.1f}x (goal >= 20x; nsspice on 2 cores, "
             f"ngspice on 1); per core (nsspice --jobs 1): "
             f"{res['ngspice_per_run_over_nsspice_jobs1']:.1f}x\n\n"
             f"memory per concurrent run: {res['kb_per_concurrent_run']:.0f} kB (peak RSS "
             f"{res['rss_jobs1_kb'] / 1024:.1f} MB at --jobs 1, {res['rss_jobs8_kb'] / 1024:.1f} "
             f"MB at --jobs 8)\n")
    return text


def configurations(a):
    """(key, label, function(out, runs, seed)) of every nsspice configuration."""
    exe = (ROOT / a.build / "nsspice").resolve()
    out = [("nsspice_jobs1", "nsspice --jobs 1", lambda d, n, s: threads(exe, d, n, 1, s)),
           ("nsspice_jobs2", "nsspice --jobs 2", lambda d, n, s: threads(exe, d, n, 2, s))]
    for r in (int(x) for x in a.mpi_ranks.split(",")):
        out.append((f"nsspice_mpi{r}", f"nsspice --mpi, {r} rank{'s' if r > 1 else ''}",
                    lambda d, n, s, r=r: mpi(exe, d, n, r, s)))
    return out


def run_batches(a, tmp, res):
    configs = configurations(a)
    per_batch = a.runs // a.batches
    acc = {key: {"walls": [], "rss": [], "rank_rss": [], "vavg": [], "vpp": []}
           for key, _, _ in configs}
    ng = {"walls": [], "rss": [], "completed": True, "vavg": [], "vpp": []}
    same = True
    for b in range(a.batches):
        tables = {}
        for key, _, fn in configs:
            got = fn(tmp / f"{key}", per_batch, b + 1)
            if got is None:
                acc[key] = None
                continue
            if acc[key] is None:
                continue
            wall, rss, rank_rss, (table_text, v, pp) = got
            tables[key] = table_text
            for field, value in (("walls", wall), ("rss", rss), ("rank_rss", rank_rss)):
                acc[key][field].append(value)
            acc[key]["vavg"] += v
            acc[key]["vpp"] += pp
        same = same and all(t == tables["nsspice_jobs1"] for t in tables.values())
        wall, rss, done, va, vp = ngspice(tmp, a.ng_runs // a.batches)
        ng["walls"].append(wall)
        ng["rss"].append(rss)
        ng["completed"] = ng["completed"] and done
        ng["vavg"] += [va] if va is not None else []
        ng["vpp"] += [vp] if vp is not None else []
    res["tables_identical"] = same
    for key, label, _ in configs:
        r = acc[key]
        if r is None:
            continue
        res[key] = {"label": label, "wall_s": sum(r["walls"]), "batch_walls_s": r["walls"],
                    "per_run_s": sum(r["walls"]) / (per_batch * a.batches),
                    "peak_rss_kb": max(r["rss"]), "rank_rss_kb": r["rank_rss"][-1],
                    "vavg_mean": statistics.mean(r["vavg"]), "vpp_mean": statistics.mean(r["vpp"]),
                    "vpp_sd": statistics.stdev(r["vpp"]), "runs_ok": len(r["vavg"])}
    n_ng = (a.ng_runs // a.batches) * a.batches
    res["ngspice"] = {"wall_s": sum(ng["walls"]), "per_run_s": sum(ng["walls"]) / n_ng,
                      "runs": n_ng, "peak_rss_kb": max(ng["rss"]), "completed": ng["completed"],
                      "vavg_mean": statistics.mean(ng["vavg"]) if ng["vavg"] else None,
                      "vpp_mean": statistics.mean(ng["vpp"]) if ng["vpp"] else None}
    return [key for key, _, _ in configs if res.get(key)]


def speedups(res, keys):
    """Total-wall speed-ups and the median of the batches' ratios, each against its reference."""
    def pair(ref, key):
        a, b = res[ref], res[key]
        ratios = [x / y for x, y in zip(a["batch_walls_s"], b["batch_walls_s"])]
        return {"total": a["wall_s"] / b["wall_s"], "median_batch": statistics.median(ratios)}
    out = {"jobs2": pair("nsspice_jobs1", "nsspice_jobs2")}
    mpi_keys = [k for k in keys if k.startswith("nsspice_mpi")]
    for k in mpi_keys[1:]:
        out[k] = pair(mpi_keys[0], k)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--batches", type=int, default=10)
    ap.add_argument("--ng-runs", type=int, default=20)
    ap.add_argument("--mpi-ranks", default="1,2,4",
                    help="MPI rank counts, comma separated (the first is the reference)")
    a = ap.parse_args()
    res = {"runs": a.runs, "batches": a.batches, "load_average_before": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "mc.cir").write_text(NSSPICE_NETLIST)
        keys = run_batches(a, tmp, res)
        res["speedups"] = speedups(res, keys)
        res["ngspice_per_run_over_nsspice"] = (res["ngspice"]["per_run_s"] /
                                               res["nsspice_jobs2"]["per_run_s"])
        res["ngspice_per_run_over_nsspice_jobs1"] = (res["ngspice"]["per_run_s"] /
                                                     res["nsspice_jobs1"]["per_run_s"])
        exe = (ROOT / a.build / "nsspice").resolve()
        memory = {jobs: threads(exe, tmp / f"mem{jobs}", 40, jobs, 1)[1] for jobs in (1, 8)}
        res["rss_jobs1_kb"], res["rss_jobs8_kb"] = memory[1], memory[8]
        res["kb_per_concurrent_run"] = (memory[8] - memory[1]) / 7
    res["load_average_after"] = os.getloadavg()[0]
    bench_peers.write_results("sweep_mc", res, table(a, res, keys))


if __name__ == "__main__":
    main()
