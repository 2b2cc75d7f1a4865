#!/usr/bin/python3
"""Siconos (Debian python3-siconos) on the DiodeBridgeCapFilter circuit: the peer of
bench/run_bench.py (case capfilter).

Circuit (Siconos example DiodeBridgeCapFilter, reference/siconos README §4.4): the DiodeBridge
LC tank (C = 1 uF, v_C(0) = 10 V, L = 10 mH) feeding, through 4 ideal diodes, a filter
capacitor Cf = 300 nF (v_f(0) = 0) in parallel with R = 1 kOhm. LCS:

    x = [v_C, i_L, v_f],  lambda = [i_DR1, rv_DF2, i_DF1, i_DR2],  w = [rv_DR1, i_DF2, rv_DF1, rv_DR2]
    x' = A x + B lambda,  w = C x + D lambda,  0 <= w _|_ lambda >= 0
    A = diag([[0, -1/C], [1/L, 0]], [[-1/(R Cf)]])
    B = [[0, 0, -1/C, 1/C], [0, 0, 0, 0], [1/Cf, 0, 1/Cf, 0]]
    C = [[0, 0, 1], [0, 0, 0], [-1, 0, 1], [1, 0, 0]]
    D = [[0, -1, 0, 0], [1, 0, 1, -1], [0, -1, 0, 0], [0, 1, 0, 0]]

The example uses two DS (tank, filter) linked by one interaction; here they are one DS with
the block-diagonal A, which is the same discrete map (EulerMoreauOSI's W = I - h theta A is
block diagonal either way). EulerMoreauOSI(theta) + TimeStepping + LCP (Lemke). Prints one
JSON line with the integration-loop wall time (start-up excluded) and writes t, v_C, i_L, v_f.
Usage: siconos_capfilter.py H T THETA OUT.csv
"""
import json
import sys
import time

import numpy as np
import siconos.kernel as sk
import siconos.numerics as sn


def main():
    h, t_end, theta, out = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    cap, ind, res, cf = 1e-6, 1e-2, 1e3, 3e-7
    a = np.array([[0, -1 / cap, 0], [1 / ind, 0, 0], [0, 0, -1 / (res * cf)]])
    b = np.array([[0, 0, -1 / cap, 1 / cap], [0, 0, 0, 0], [1 / cf, 0, 1 / cf, 0]])
    c = np.array([[0, 0, 1], [0, 0, 0], [-1, 0, 1], [1, 0, 0]], dtype=float)
    d = np.array([[0, -1, 0, 0], [1, 0, 1, -1], [0, -1, 0, 0], [0, 1, 0, 0]], dtype=float)
    nsds = sk.NonSmoothDynamicalSystem(0.0, t_end)
    ds = sk.FirstOrderLinearDS(np.array([10.0, 0.0, 0.0]), a)
    nsds.insertDynamicalSystem(ds)
    rel = sk.FirstOrderLinearTIR(c, b)
    rel.setDPtr(d)
    inter = sk.Interaction(sk.ComplementarityConditionNSL(4), rel)
    nsds.link(inter, ds)
    ts = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, h), sk.EulerMoreauOSI(theta),
                         sk.LCP(sn.SICONOS_LCP_LEMKE))
    steps = int(round(t_end / h))
    data = np.empty((steps + 1, 4))
    data[0] = (0.0, 10.0, 0.0, 0.0)
    x = ds.x()
    start = time.perf_counter()
    for k in range(1, steps + 1):
        ts.computeOneStep()
        data[k] = (ts.nextTime(), x[0], x[1], x[2])
        ts.nextStep()
    loop = time.perf_counter() - start
    np.savetxt(out, data, delimiter=",", header="time,v(n1),i(l1),v(nl,nr)", comments="",
               fmt="%.17g")
    print(json.dumps({"loop_s": loop, "steps": steps, "vC_end": data[-1, 1]}))


if __name__ == "__main__":
    main()
