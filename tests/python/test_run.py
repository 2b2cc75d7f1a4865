"""nsspice.run(): the arrays are the CSV that `nsspice run` writes, bit for bit (a path or the
netlist's text, with options); measurements and the run report; netlist errors raise
NetlistError carrying the diagnostics (file:line:col, the line, the caret); bad options raise
TypeError/ValueError naming the option; the GIL is released while simulating (two Python
threads simulate at the same time); Ctrl-C stops a run after its current row."""
import json
import os
import signal
import threading
import time
import unittest
import warnings

import nsspice
from helpers import EXAMPLES, ScratchTest, cli, read_table, same_bits

RC = """rc with a diode
V1 in 0 SIN(0 5 1k)
R1 in a 1k
D1 a out DI
C1 out 0 1u
R2 out 0 10k
.model DI D
.tran 10u 3m
.end
"""


class RunEqualsTheCommandLine(ScratchTest):
    def check_equal(self, result, csv):
        table = read_table(csv)
        self.assertEqual(["time"] + result.names, list(table))
        for name in table:
            self.assertTrue(same_bits(result[name], table[name]), name)

    def test_arrays_equal_the_csv(self):
        netlist = EXAMPLES / "rectifier.cir"
        code, out = cli(["run", netlist, "-o", "r.csv", "-q"], self.dir)
        self.assertEqual(code, 0, out)
        r = nsspice.run(str(netlist))
        self.assertGreater(len(r["time"]), 1000)
        self.check_equal(r, self.dir / "r.csv")
        self.assertEqual(r.status, "ok")
        # The same netlist given as text, and as a pathlib.Path.
        self.check_equal(nsspice.run(netlist.read_text()), self.dir / "r.csv")
        self.check_equal(nsspice.run(netlist), self.dir / "r.csv")

    def test_options_reach_the_run(self):
        path = self.write("rc.cir", RC)
        meas = ["avg v(out) from=1m to=3m", "max i(d1)"]
        args = ["run", "rc.cir", "-o", "o.csv", "-q", "--save", "v(out),i(d1)", "--grid", "50u",
                "--step", "1u", "--theta", "0.75", "--meas-json", "m.json"]
        for m in meas:
            args += ["--meas", m]
        code, out = cli(args, self.dir)
        self.assertEqual(code, 0, out)
        r = nsspice.run(str(path), save=["v(out)", "i(d1)"], grid=50e-6, step=1e-6, theta=0.75,
                        meas=meas)
        self.check_equal(r, self.dir / "o.csv")
        expected = json.loads((self.dir / "m.json").read_text())["measurements"]
        self.assertEqual(len(r.meas), len(expected))
        for m in expected:
            self.assertEqual(r.meas[m["name"]], m["value"], m["name"])

    def test_report_holds_the_run_statistics(self):
        r = nsspice.run(RC, step=10e-6)
        rep = r.report
        self.assertEqual(rep["status"], "ok")
        self.assertEqual(rep["method"], "theta")
        self.assertGreaterEqual(rep["steps"], 300)  # 3 ms at 10 µs
        self.assertGreater(rep["mode_changes"], 0)  # the diode conducts and blocks
        self.assertGreater(rep["factorizations"], 0)
        self.assertEqual(rep["rows"], len(r["time"]))
        self.assertAlmostEqual(rep["t_end"], 3e-3, delta=1e-12)
        self.assertLessEqual(rep["started"], rep["finished"])
        self.assertIn("run report (completed)", rep["text"])
        self.assertIn("LCP solves", rep["text"])

    def test_params_override_the_netlist(self):
        text = RC.replace("R2 out 0 10k", ".param rl=10k\nR2 out 0 {rl}")
        a = nsspice.run(text, params={"RL": 1e3}, meas=["avg v(out) from=1m to=3m"])
        b = nsspice.run(RC.replace("10k", "1k"), meas=["avg v(out) from=1m to=3m"])
        self.assertTrue(same_bits(a["v(out)"], b["v(out)"]))


class Errors(ScratchTest):
    def test_netlist_errors_raise_with_their_diagnostics(self):
        bad = "bad\nV1 a 0 1\nR1 a 0 -5\nD1 a 0 NOSUCH\n.tran 1u 1m\n.end\n"
        with self.assertRaises(nsspice.NetlistError) as e:
            nsspice.run(bad)
        text = str(e.exception)
        self.assertIn("<string>:3:8: error: resistor 'r1' must have a positive value", text)
        self.assertIn("R1 a 0 -5\n       ^", text)  # the line and a caret under the value
        self.assertIn("<string>:4:", text)  # every error of the netlist, not just the first
        self.assertEqual(len(e.exception.messages), 2, e.exception.messages)
        path = self.write("bad.cir", bad)
        with self.assertRaises(nsspice.NetlistError) as e:
            nsspice.run(str(path))
        self.assertIn(f"{path}:3:8: error:", str(e.exception))
        with self.assertRaises(nsspice.NetlistError) as e:
            nsspice.run(str(self.dir / "missing.cir"))
        self.assertIn("cannot open netlist", str(e.exception))
        with self.assertRaises(nsspice.NetlistError) as e:
            nsspice.run("no tran\nV1 a 0 1\nR1 a 0 1k\n.end\n")
        self.assertIn("no .tran card", str(e.exception))

    def test_bad_options_name_the_option(self):
        with self.assertRaises(TypeError) as e:
            nsspice.run(RC, tsep=1e-6)
        self.assertIn("tsep", str(e.exception))
        with self.assertRaises(ValueError) as e:
            nsspice.run(RC, theta=2)
        self.assertIn("theta", str(e.exception))
        with self.assertRaises(ValueError) as e:
            nsspice.run(RC, save=["v(nosuch)"])
        self.assertIn("v(nosuch)", str(e.exception))

    def test_warnings_of_the_netlist_are_python_warnings(self):
        text = RC.replace(".model DI D", ".model DI D(IS=1e-14 N=1.8 KF=0)")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            nsspice.run(text)
        self.assertTrue(any(issubclass(w.category, nsspice.NetlistWarning) for w in caught),
                        [str(w.message) for w in caught])


# 2 ms of a 100 kHz buck at 10 ns steps: about 0.1-0.3 s of stepping.
BUCK = (EXAMPLES / "buck.cir").read_text()


class Concurrency(unittest.TestCase):
    def test_two_python_threads_simulate_at_the_same_time(self):
        # With the GIL held during a run the two runs' intervals could not overlap at all.
        results = [None, None]

        def work(i):
            results[i] = nsspice.run(BUCK, save="v(out)").report

        threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        (s0, f0), (s1, f1) = [(r["started"], r["finished"]) for r in results]
        overlap = min(f0, f1) - max(s0, s1)
        self.assertGreater(overlap, 0.5 * min(f0 - s0, f1 - s1),
                           f"runs [{s0:.3f}, {f0:.3f}] and [{s1:.3f}, {f1:.3f}]")

    def test_ctrl_c_stops_the_run(self):
        # 60 ms of the buck: about 3-10 s of stepping; SIGINT after 0.3 s must end it long
        # before (the run stops after its current row and KeyboardInterrupt is raised).
        long_buck = BUCK.replace(".tran 10n 2m UIC", ".tran 10n 60m UIC")
        timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
        start = time.monotonic()
        timer.start()
        with self.assertRaises(KeyboardInterrupt):
            nsspice.run(long_buck, save="v(out)")
        elapsed = time.monotonic() - start
        timer.cancel()
        self.assertLess(elapsed, 2.0)


if __name__ == "__main__":
    unittest.main()
