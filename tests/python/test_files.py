"""nsspice.read_csv() and read_raw(): the files `nsspice run` writes read back bit for bit (the
C++ readers of `nsspice plot`); a sweep's multi-plot raw file gives one Result per run;
ngspice's own raw file is read with nsspice's names; an AC analysis's raw file gives complex
arrays; a missing file raises ValueError."""
import shutil
import subprocess
import unittest

import numpy as np

import nsspice
from helpers import EXAMPLES, ScratchTest, cli, read_table, same_bits


class Files(ScratchTest):
    def test_csv_and_raw_read_back_exactly(self):
        netlist = EXAMPLES / "rectifier.cir"
        for out in ("r.csv", "r.raw"):
            code, text = cli(["run", netlist, "-o", out, "-q"], self.dir)
            self.assertEqual(code, 0, text)
        table = read_table(self.dir / "r.csv")
        for r in (nsspice.read_csv(self.dir / "r.csv"), nsspice.read_raw(self.dir / "r.raw")):
            self.assertEqual(["time"] + r.names, list(table))
            for name in table:
                self.assertTrue(same_bits(r[name], table[name]), name)
        ran = nsspice.run(str(netlist))
        self.assertTrue(same_bits(ran["v(out)"], table["v(out)"]))

    def test_a_sweeps_raw_file_holds_one_result_per_run(self):
        self.write("s.cir", "s\n.param r=1k\nV1 in 0 PULSE(0 1 0 1n 1n 1 2)\nR1 in out {r}\n"
                            "C1 out 0 1u\n.tran 10u 1m\n.step param r list 500 1k 2k\n.end\n")
        code, text = cli(["run", "s.cir", "-o", "s.raw", "-q"], self.dir)
        self.assertEqual(code, 0, text)
        plots = nsspice.read_raw(self.dir / "s.raw")
        runs = nsspice.sweep(str(self.dir / "s.cir"))
        self.assertEqual(len(plots), 3)
        for p, r in zip(plots, runs):
            self.assertTrue(same_bits(p["v(out)"], r["v(out)"]))
            self.assertTrue(same_bits(p["time"], r["time"]))

    @unittest.skipIf(shutil.which("ngspice") is None, "ngspice is not on PATH")
    def test_ngspice_raw_file(self):
        self.write("ng.cir", "rc\nV1 in 0 PULSE(0 1 0 1n 1n 1 2)\nR1 in out 1k\nC1 out 0 1u\n"
                             ".tran 10u 1m\n.end\n")
        subprocess.run(["ngspice", "-b", "-r", "ng.raw", "ng.cir"], cwd=self.dir,
                       capture_output=True, timeout=60, check=True)
        r = nsspice.read_raw(self.dir / "ng.raw")
        self.assertIn("v(out)", r.names)
        self.assertIn("i(v1)", r.names)
        # v(out) = 1 − exp(−t/RC) at t = 1 ms, RC = 1 ms (ngspice's own accuracy: 1e-3).
        self.assertAlmostEqual(r["v(out)"][-1], 1 - 2.718281828459045 ** -1, delta=1e-3)

    def test_an_ac_raw_file_reads_as_complex_values(self):
        # It raised ValueError ("complex data ... is not supported") on a file nsspice wrote.
        self.write("ac.cir", "rlc\nV1 in 0 DC 0 AC 1\nR1 in a 10\nL1 a b 1m\nC1 b 0 1u\n"
                             ".ac dec 10 100 100k\n.save v(b) i(l1)\n.end\n")
        for out in ("ac.csv", "ac.raw"):
            code, text = cli(["run", "ac.cir", "-o", out, "-q"], self.dir)
            self.assertEqual(code, 0, text)
        table = read_table(self.dir / "ac.csv")
        r = nsspice.read_raw(self.dir / "ac.raw")
        self.assertEqual(r.scale, "frequency")
        self.assertEqual(r.keys(), ["frequency", "v(b)", "i(l1)"])
        self.assertTrue(same_bits(r["frequency"], table["frequency"]))
        for name, db, deg in (("v(b)", "vdb(b)", "vp(b)"), ("i(l1)", "idb(l1)", "ip(l1)")):
            z = r[name]
            self.assertEqual(z.dtype, np.complex128)
            np.testing.assert_allclose(20 * np.log10(np.abs(z)), table[db], rtol=0, atol=1e-12)
            np.testing.assert_allclose(np.degrees(np.angle(z)), table[deg], rtol=0, atol=1e-12)

    def test_missing_files_raise(self):
        with self.assertRaises(ValueError) as e:
            nsspice.read_csv(self.dir / "none.csv")
        self.assertIn("none.csv", str(e.exception))
        with self.assertRaises(ValueError):
            nsspice.read_raw(self.dir / "none.raw")


if __name__ == "__main__":
    unittest.main()
