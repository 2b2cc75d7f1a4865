"""nsspice from Python: simulate netlists, sweep them, read their files (docs/python.md).

    import nsspice
    r = nsspice.run("examples/buck.cir", save=["v(out)", "i(l1)"])
    r["time"], r["v(out)"]        # NumPy arrays (float64), as `nsspice run` writes them
    r.meas, r.report              # .meas/meas= results; run statistics (r.report["text"])
    runs = nsspice.sweep("mc.cir", runs=100, seed=1)   # one Result per run
    nsspice.read_raw("out.raw"), nsspice.read_csv("out.csv")

The simulation is nsspice's own library (the code behind `nsspice run`), called in-process:
the GIL is released while it runs, so Python threads simulate in parallel, and Ctrl-C stops
the runs after their current row (KeyboardInterrupt).
"""

import numbers as _numbers
import os as _os
import re as _re
import warnings as _warnings

from . import _nsspice

__all__ = ["run", "sweep", "read_raw", "read_csv", "Result", "NetlistError", "SimulationError",
           "NetlistWarning"]


class NetlistError(Exception):
    """The netlist (or a run's netlist in a sweep) has errors.

    str(e) and e.diagnostics hold every diagnostic as `nsspice run` prints it
    ("file:line:col: error: ..." with the source line and a caret); e.messages the
    "file:line:col: error: ..." lines alone."""

    def __init__(self, diagnostics):
        super().__init__(diagnostics.rstrip("\n"))
        self.diagnostics = diagnostics
        self.messages = [line for line in diagnostics.splitlines()
                         if ": error: " in line or line.startswith("nsspice: error:")]


class SimulationError(RuntimeError):
    """A single run stopped before its end (what `nsspice run` reports with exit code 2);
    e.result holds the rows computed up to there."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result


class NetlistWarning(UserWarning):
    """A netlist warning (an approximation nsspice made, a parameter it ignores, ...)."""


class Result:
    """One run: its signals (NumPy arrays by name), measurements and report.

    r["time"], r["v(out)"]  arrays (names are lower case: "v(out)", "i(l1)")
    r.names                 the signals besides time, in file order
    r.scale                 the first variable's name: "time"; in files of other analyses
                            "frequency" (AC: the signals are complex arrays) or a DC sweep's
                            scale ("v(v-sweep)"); r[r.scale] and r["time"] are that variable
    r.meas                  {name: value or None}
    r.report                run statistics (steps, LCP solves, pivots, factorizations, ...);
                            r.report["text"] is the report `nsspice run` prints
    r.run, r.values, r.trial  a sweep's run number (from 1), its swept values and Monte Carlo
                            draws ({name: value}, the .meas.csv columns), Monte Carlo trial
    r.status                "ok", "stopped", "failed" (its netlist), "interrupted"
    r.message, r.diagnostics  why a run failed, its netlist's diagnostics
    """

    def __init__(self, data):
        self.title = data.get("title", "")
        self.names = list(data.get("names", []))
        self.scale = data.get("scale", "time")
        self.time = data.get("time")
        self._columns = dict(zip(self.names, data.get("columns", [])))
        self.meas = dict(data.get("meas", {}))
        self.report = dict(data.get("report", {}))
        self.values = dict(data.get("values", {}))
        self.trial = data.get("trial")
        self.run = data.get("run", 1)
        self.status = self.report.get("status", "ok")
        self.message = self.report.get("message", "")
        self.diagnostics = data.get("diagnostics", "")

    def __getitem__(self, name):
        key = name.lower()
        if key in ("time", self.scale):
            return self.time
        try:
            return self._columns[key]
        except KeyError:
            raise KeyError(f"no signal {name!r} in this result (signals: {self.scale}, "
                           f"{', '.join(self.names)})") from None

    def __contains__(self, name):
        return name.lower() in ("time", self.scale) or name.lower() in self._columns

    def keys(self):
        return [self.scale] + self.names

    def __repr__(self):
        where = "".join(f" {k}={v:g}" for k, v in self.values.items())
        trial = f" trial {self.trial}" if self.trial else ""
        rows = 0 if self.time is None else len(self.time)
        return (f"<nsspice.Result run {self.run}{where}{trial}: {self.status}, {rows} rows, "
                f"signals {', '.join(self.names)}>")


_OPTIONS = {
    "step": "time step [s] (--step; overrides .tran)",
    "theta": "theta of the scheme, 0.5 .. 1 (--theta)",
    "method": "'theta' or 'event' (--method)",
    "evrtol": "event-driven tolerance (--evrtol)",
    "grid": "resample the rows on a uniform step [s] (--grid)",
    "save": "the signals kept: a list or a comma-separated string (--save)",
    "meas": "measurements: a list of 'avg v(out) from=1m to=2m'-like texts (--meas)",
    "lcp_solver": "LCP method (--lcp-solver)",
    "ideal": "SPICE diodes as the ideal diode (--ideal)",
    "max_rows": "the most rows a run may produce (--max-rows)",
    "params": "{name: value}: .param values of the run (every run of a sweep)",
    "step_param": "sweep dimensions: {name: [values]} or ['name=v1,v2'] (--step-param)",
    "runs": "Monte Carlo runs (of each sweep point) (--runs)",
    "seed": "Monte Carlo seed (--seed)",
    "jobs": "runs at a time (--jobs; default: every core)",
    "run": "only run K, or runs (A, B) (from 1), as in the whole sweep (--run)",
}


def _options(options):
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        known = "\n".join(f"  {k}: {v}" for k, v in _OPTIONS.items())
        raise TypeError(f"unknown option(s) {', '.join(unknown)}; the options are:\n{known}")
    o = {k: v for k, v in options.items() if v is not None}
    if isinstance(o.get("save"), (list, tuple)):
        o["save"] = ",".join(o["save"])
    if isinstance(o.get("meas"), str):
        o["meas"] = [o["meas"]]
    step = o.get("step_param")
    if isinstance(step, dict):
        o["step_param"] = [f"{k}={','.join(repr(float(x)) for x in v)}" for k, v in step.items()]
    elif isinstance(step, str):
        o["step_param"] = [step]
    for key, lo, hi in (("runs", 1, 1_000_000), ("jobs", 1, 4096)):
        if key in o and not (isinstance(o[key], _numbers.Integral) and lo <= o[key] <= hi):
            raise ValueError(f"{key}={o[key]!r}: expected a whole number in {lo} .. {hi}")
        if key in o:
            o[key] = int(o[key])
    if "run" in o:
        k = o["run"]
        o["run"] = (f"{k[0]}:{k[1]}" if isinstance(k, (tuple, list)) and len(k) == 2
                    else str(k))
    if "params" in o:
        o["params"] = {str(k).lower(): float(v) for k, v in o["params"].items()}
    for key in ("meas", "step_param"):
        if key in o:
            o[key] = [str(x) for x in o[key]]
    return o


def _source(netlist):
    """(text or path, is_text): a string with a newline is the netlist itself."""
    if isinstance(netlist, _os.PathLike):
        return _os.fspath(netlist), False
    if not isinstance(netlist, str):
        raise TypeError("netlist: a path or the netlist's text")
    return netlist, "\n" in netlist


def _need_numpy():
    try:
        import numpy  # noqa: F401
    except ImportError as e:
        raise ImportError("nsspice returns NumPy arrays: install NumPy for this interpreter "
                          "(Debian: apt-get install python3-numpy, for /usr/bin/python3)") from e


def _simulate(netlist, sweep, options):
    _need_numpy()
    source, is_text = _source(netlist)
    out = _nsspice.simulate(source, is_text, sweep, _options(options))
    if "error" in out:
        if out["netlist_error"]:
            raise NetlistError(out["error"])
        raise ValueError(out["error"].rstrip("\n"))
    if out["warnings"]:
        _warnings.warn(out["warnings"].rstrip("\n"), NetlistWarning, stacklevel=3)
    results = [Result(r) for r in out["runs"]]
    for r in results:
        for w in r.report.get("warnings", []):
            _warnings.warn(w, NetlistWarning, stacklevel=3)
    return out["sweep"], results


def run(netlist, **options):
    """Simulates the netlist's .tran (a path, or the netlist's text when it holds a newline).

    Returns a Result; a netlist with .step cards, or step_param= or runs=, returns a list of
    Results as sweep() does. Raises NetlistError for a netlist with errors, ValueError for a
    bad option, SimulationError when the run stops early (its rows in e.result)."""
    is_sweep, results = _simulate(netlist, False, options)
    if is_sweep:
        _warn_failed(results)
        return results
    r = results[0]
    if r.status != "ok":
        raise SimulationError(r.message, r)
    return r


def sweep(netlist, **options):
    """The runs of the netlist's .step cards and of step_param= (dimensions nest, the first
    outermost), each repeated runs= times for Monte Carlo: a list of Results in run order,
    computed on jobs= threads. A run that fails does not stop the others: its Result says
    so (status, message, diagnostics), and a warning names the failed runs."""
    _, results = _simulate(netlist, True, options)
    _warn_failed(results)
    return results


def _warn_failed(results):
    failed = [r.run for r in results if r.status != "ok"]
    if failed:
        _warnings.warn(f"{len(failed)} of {len(results)} runs did not complete: runs "
                       f"{', '.join(map(str, failed[:20]))}{' ...' if len(failed) > 20 else ''}",
                       RuntimeWarning, stacklevel=3)


def read_raw(path):
    """A SPICE raw file (nsspice's or ngspice's): a Result, or a list of Results (one per plot)
    for a multi-plot file such as a sweep writes; a sweep's plot has the run number of its
    title ("... [run 3: rl=100]") in r.run (a run that failed has no plot). An AC analysis's
    file gives complex arrays over r["frequency"]; a DC sweep's every point over its scale
    (r.scale). A stepped LTspice run gives its first run with a warning that counts the rest."""
    _need_numpy()
    data = _nsspice.read_file(_os.fspath(path), True)
    for d in data:
        if d.get("note"):
            _warnings.warn(f"{_os.fspath(path)}: {d['note']}", stacklevel=2)
    plots = [Result(d) for d in data]
    for r in plots:  # a sweep's plot: "<title> [run K: values]" (a failed run has no plot)
        m = _re.search(r"\[run (\d+)[]:]", r.title)
        if m:
            r.run = int(m.group(1))
    return plots[0] if len(plots) == 1 else plots


def read_csv(path):
    """A CSV of waveforms as `nsspice run` writes it (header time,<signal>,...): a Result."""
    _need_numpy()
    return Result(_nsspice.read_file(_os.fspath(path), False)[0])
