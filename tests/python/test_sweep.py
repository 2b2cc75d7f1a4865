"""nsspice.sweep() and runs=: one Result per run, in run order, whose arrays are the files of
`nsspice run`'s sweep bit for bit and whose measurements are its .meas.csv; Monte Carlo runs
depend only on (seed, trial), not on jobs=, and hold their drawn values; run= reruns one run; step_param= and params=; a failing run does
not stop the others and is reported."""
import unittest
import warnings

import nsspice
from helpers import ScratchTest, cli, read_table, same_bits

RC = """rc
.param r=1k c=1u
V1 in 0 PULSE(0 1 0 1n 1n 1 2)
R1 in out {r}
C1 out 0 {c}
.tran 10u 2m
.meas tran vend find v(out) at=1m
"""

MC = RC.replace(".param r=1k c=1u", ".param r=agauss(1k, 100, 1) c={mc(1u, 0.1)}")


class SweepEqualsTheCommandLine(ScratchTest):
    def test_step_cards(self):
        self.write("s.cir", RC + ".step param r list 500 2k\n.step param c 1u 2u 1u\n.end\n")
        code, out = cli(["run", "s.cir", "-o", "s.csv", "-q"], self.dir)
        self.assertEqual(code, 0, out)
        runs = nsspice.sweep(str(self.dir / "s.cir"))
        self.assertEqual(len(runs), 4)
        table = read_table(self.dir / "s.meas.csv")
        for k, r in enumerate(runs):
            self.assertEqual(r.run, k + 1)
            self.assertEqual(r.values, {"r": table["r"][k], "c": table["c"][k]})
            self.assertEqual(r.meas["vend"], table["vend"][k])
            csv = read_table(self.dir / f"s.run{k + 1}.csv")
            for name in csv:
                self.assertTrue(same_bits(r[name], csv[name]), f"run {k + 1} {name}")
        # Each run was flattened from the netlist flattened once, restamped on the nominal
        # circuit's pattern and shared its analysis.
        for r in runs:
            self.assertEqual(r.report["flatten"], "template")
            self.assertEqual(r.report["assembly"], "restamped")
            self.assertTrue(r.report["shared_analysis"])
        # run() of a netlist with .step cards is the same sweep.
        again = nsspice.run(str(self.dir / "s.cir"))
        self.assertTrue(all(same_bits(a["v(out)"], b["v(out)"]) for a, b in zip(runs, again)))

    def test_step_param_option(self):
        text = RC + ".end\n"
        self.write("p.cir", text)
        code, out = cli(["run", "p.cir", "-o", "p.csv", "-q", "--step-param", "r=500,1k,3k"],
                        self.dir)
        self.assertEqual(code, 0, out)
        for step in ({"r": [500, 1e3, 3e3]}, ["r=500,1k,3k"]):
            runs = nsspice.sweep(text, step_param=step)
            self.assertEqual([r.values["r"] for r in runs], [500, 1000, 3000])
            for k, r in enumerate(runs):
                csv = read_table(self.dir / f"p.run{k + 1}.csv")
                self.assertTrue(same_bits(r["v(out)"], csv["v(out)"]), f"run {k + 1}")

    def test_monte_carlo_is_the_command_lines_and_independent_of_jobs(self):
        self.write("mc.cir", MC + ".end\n")
        code, out = cli(["run", "mc.cir", "-o", "mc.csv", "-q", "--runs", "6", "--seed", "3"],
                        self.dir)
        self.assertEqual(code, 0, out)
        one = nsspice.sweep(MC, runs=6, seed=3, jobs=1)
        two = nsspice.run(MC, runs=6, seed=3, jobs=2)
        table = read_table(self.dir / "mc.meas.csv")
        self.assertEqual([r.trial for r in one], list(range(1, 7)))
        for k in range(6):
            self.assertEqual(one[k].meas["vend"], table["vend"][k])
            self.assertTrue(same_bits(one[k]["v(out)"], two[k]["v(out)"]), f"run {k + 1}")
            csv = read_table(self.dir / f"mc.run{k + 1}.csv")
            self.assertTrue(same_bits(one[k]["v(out)"], csv["v(out)"]), f"run {k + 1}")
        other = nsspice.sweep(MC, runs=6, seed=4)
        self.assertNotEqual(other[0].meas["vend"], one[0].meas["vend"])
        # The drawn values are the table's columns, bit for bit (here .param r and c).
        for k in range(6):
            self.assertEqual(one[k].values, {"r": table["r"][k], "c": table["c"][k]})
        # run= reruns one run, or a range, with its values and draws.
        alone = nsspice.sweep(MC, runs=6, seed=3, run=4)
        self.assertEqual([r.run for r in alone], [4])
        self.assertEqual(alone[0].values, one[3].values)
        self.assertTrue(same_bits(alone[0]["v(out)"], one[3]["v(out)"]))
        part = nsspice.sweep(MC, runs=6, seed=3, run=(2, 3))
        self.assertEqual([r.run for r in part], [2, 3])
        with self.assertRaisesRegex(ValueError, "run='7x'"):
            nsspice.sweep(MC, runs=6, seed=3, run="7x")
        with self.assertRaisesRegex(ValueError, "--run 7: the sweep has 6 runs"):
            nsspice.sweep(MC, runs=6, seed=3, run=7)

    def test_raw_plots_carry_their_run(self):
        text = RC + ".step param r list 1k 0 2k\n.end\n"
        self.write("f.cir", text)
        code, out = cli(["run", "f.cir", "-o", "f.raw", "-q"], self.dir)
        self.assertEqual(code, 2, out)
        plots = nsspice.read_raw(self.dir / "f.raw")
        self.assertEqual([p.run for p in plots], [1, 3])

    def test_a_failing_run_is_reported_and_the_others_go_on(self):
        text = RC + ".step param r list 1k 0 2k\n.end\n"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            runs = nsspice.sweep(text)
        self.assertEqual([r.status for r in runs], ["ok", "failed", "ok"])
        self.assertIn("<string>:4:11: error: resistor 'r1' must have a positive value",
                      runs[1].diagnostics)
        self.assertEqual(runs[1].message, "the netlist of this run has errors")
        self.assertIsNotNone(runs[2].meas["vend"])
        self.assertTrue(any("1 of 3 runs did not complete: runs 2" in str(w.message)
                            for w in caught), [str(w.message) for w in caught])

    def test_params_apply_to_every_run(self):
        runs = nsspice.sweep(RC + ".end\n", step_param={"r": [1e3]}, params={"c": 2e-6})
        ref = nsspice.run(RC.replace("c=1u", "c=2u") + ".end\n")
        self.assertTrue(same_bits(runs[0]["v(out)"], ref["v(out)"]))

    def test_bad_sweeps_raise(self):
        with self.assertRaises(ValueError) as e:
            nsspice.sweep(RC + ".end\n")
        self.assertIn("nothing to run more than once", str(e.exception))
        with self.assertRaises(ValueError) as e:
            nsspice.sweep(MC, runs=0)
        self.assertIn("runs=0", str(e.exception))
        with self.assertRaises(nsspice.NetlistError) as e:
            nsspice.sweep(RC + ".step param r 1k 2k -1\n.end\n")
        self.assertIn("<string>:8:1: error: .step r: the increment -1", str(e.exception))


if __name__ == "__main__":
    unittest.main()
