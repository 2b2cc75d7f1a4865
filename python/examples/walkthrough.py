"""nsspice from Python, a walk-through (docs/python.md; ctest runs it as Python.walkthrough).

What it shows, on examples/buck.cir (10 V chopped at 100 kHz, duty 0.5, ideal switch and
diode, L = 100 uH, C = 10 uF, 10 ohm load):
  1. one run: the arrays, the measurements and the run report; the output averages
     D*Vin = 5 V and ripples by dV = (Vin - Vout)*D*T^2/(8 L C) = 31.25 mV (checked);
  2. a sweep of the load over 5, 10 and 20 ohm: in continuous conduction (R below
     2L/((1-D)T) = 40 ohm) the average stays at 5 V whatever the load (checked);
  3. a Monte Carlo run over L and C (10 % normal, sigma): the ripple follows 1/(L C); its
     histogram, and the mean ripple against the formula (checked);
  4. files: `nsspice run -o buck.raw` read back equals the in-process run bit for bit.
Every run uses the .tran step (10 ns) as a fixed step (step=10e-9), whatever the default.
Figures go to the current directory: walkthrough_buck.png, walkthrough_sweep.png,
walkthrough_mc.png. Run it from anywhere:
    PYTHONPATH=build/python python3 python/examples/walkthrough.py
"""
# %% Setup: the package and a non-interactive matplotlib backend
import os
import pathlib
import shutil
import subprocess

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import nsspice  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUCK = ROOT / "examples" / "buck.cir"
FIXED = {"step": 10e-9}
STEADY = ["avg v(out) from=1.5m to=2m", "pp v(out) from=1.9m to=2m"]

# %% 1. One run
r = nsspice.run(BUCK, save=["v(out)", "i(l1)"], meas=STEADY, **FIXED)
print(r)  # <nsspice.Result run 1: ok, 200401 rows, signals v(out), i(l1)>
print(r.report["text"])
vavg, vpp = r.meas["avg_v(out)"], r.meas["pp_v(out)"]
print(f"average {vavg:.4f} V, ripple {1e3 * vpp:.2f} mV")
assert abs(vavg - 5.0) < 0.05, vavg
assert abs(vpp - 31.25e-3) < 0.1 * 31.25e-3, vpp

fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(8, 5))
top.plot(1e3 * r["time"], r["v(out)"], lw=0.8)
top.set_ylabel("v(out) [V]")
bottom.plot(1e3 * r["time"], r["i(l1)"], lw=0.8, color="C1")
bottom.set_ylabel("i(l1) [A]")
bottom.set_xlabel("time [ms]")
fig.suptitle(f"buck converter: {r.report['steps']} steps, {r.report['mode_changes']} mode changes")
fig.savefig("walkthrough_buck.png", dpi=100)

# %% 2. A sweep of the load: the netlist's text with R1 = {rl}, swept by step_param
text = BUCK.read_text().replace("R1   out 0 10", ".param rl=10\nR1   out 0 {rl}")
runs = nsspice.sweep(text, step_param={"rl": [5, 10, 20]}, save="v(out)", meas=STEADY, **FIXED)
fig, ax = plt.subplots(figsize=(8, 4))
for run in runs:
    ax.plot(1e3 * run["time"], run["v(out)"], lw=0.8, label=f"R = {run.values['rl']:g} ohm")
    assert abs(run.meas["avg_v(out)"] - 5.0) < 0.1, (run.values, run.meas)
ax.set_xlabel("time [ms]")
ax.set_ylabel("v(out) [V]")
ax.legend()
fig.savefig("walkthrough_sweep.png", dpi=100)

# %% 3. Monte Carlo over L and C: 16 runs, on every core, reproducible by seed
mc = text.replace("L1   sw out 100u", "L1   sw out {agauss(100u, 10u, 1)}").replace(
    "C1   out 0 10u", "C1   out 0 {agauss(10u, 1u, 1)}")
trials = nsspice.sweep(mc, runs=16, seed=1, save="v(out)", grid=1e-6, meas=STEADY, **FIXED)
ripple = np.array([t.meas["pp_v(out)"] for t in trials])
print(f"ripple over {len(trials)} runs: mean {1e3 * ripple.mean():.2f} mV, "
      f"sd {1e3 * ripple.std(ddof=1):.2f} mV")
# E[1/(LC)] for independent normal L, C with 10 % sigma is about 1.01^2 / (L0 C0).
assert abs(ripple.mean() - 31.25e-3 * 1.0201) < 0.15 * 31.25e-3, ripple.mean()
fig, ax = plt.subplots(figsize=(6, 4))
ax.hist(1e3 * ripple, bins=10)
ax.axvline(31.25, color="C3", label="formula at nominal L, C")
ax.set_xlabel("ripple [mV]")
ax.set_ylabel("runs")
ax.legend()
fig.savefig("walkthrough_mc.png", dpi=100)

# %% 4. Files: what `nsspice run` writes, read back
binary = os.environ.get("NSSPICE_BINARY") or shutil.which("nsspice") or str(ROOT / "build" / "nsspice")
subprocess.run([binary, "run", str(BUCK), "-o", "walkthrough_buck.raw", "--step", "10n", "-q"],
               check=True)
raw = nsspice.read_raw("walkthrough_buck.raw")
again = nsspice.run(BUCK, **FIXED)
assert raw.names == again.names
assert all(np.array_equal(raw[n], again[n]) for n in raw.keys())
print(f"walkthrough_buck.raw: {len(raw['time'])} rows of {', '.join(raw.names)}, equal to the run")
