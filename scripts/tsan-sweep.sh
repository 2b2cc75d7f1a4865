#!/usr/bin/env bash
# Runs sweeps on several threads under ThreadSanitizer (docs/sweeps.md, "Threads"): builds
# nsspice with -DNSSPICE_TSAN=ON in BUILD (default build-tsan; no tests, no MPI, no Python) and
# runs, with --jobs 2 (4 with JOBS=4):
#   1. a Monte Carlo of the buck converter (distribution functions and PSpice's DEV/LOT) into a
#      multi-plot raw file, with --plot (the overlay and histograms read the runs' files);
#   2. a three-dimensional .step sweep (param, source, model parameter) with a failing run, into
#      per-run CSV files;
#   3. run 5 alone (--run 5) of the Monte Carlo;
#   4. a Monte Carlo interrupted by SIGINT while runs are under way.
# Exit status: 0 when ThreadSanitizer reported nothing, 1 when it reported (its reports are on
# stderr and in $work/tsan.*), 2 when a step could not run. Not part of CI: the build takes
# ~15 minutes on 2 cores and the runs are ~10x slower than in Release.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/${BUILD:-build-tsan}"
jobs=${JOBS:-2}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNSSPICE_TSAN=ON \
  -DNSSPICE_TESTS=OFF -DNSSPICE_MPI=OFF -DNSSPICE_PYTHON=OFF >/dev/null || exit 2
cmake --build "$build" -j"${BUILD_JOBS:-2}" --target nsspice >/dev/null || exit 2
bin="$build/nsspice"
work=$(mktemp -d)
echo "tsan-sweep: work directory $work"
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 log_path=$work/tsan"

cat >"$work/buck.cir" <<'NET'
buck converter, Monte Carlo over L, C, the load and the diode
.param lv=agauss(100u, 10u, 1) cv=agauss(10u, 1u, 1) rv=unif(10, 0.05)
Vin  in   0 DC 10
Vpwm ctrl 0 PULSE(0 1 0 10n 10n 4.99u 10u)
S1   in sw ctrl 0 SWIDEAL
D1   0  sw DM
L1   sw out {lv} IC=0
C1   out 0 {cv} IC=0
R1   out 0 {rv}
.model SWIDEAL SW(VT=0.5)
.model DM D(VF=0.7 DEV 5% LOT 10%)
.tran 10n 200u
.meas tran vavg avg v(out) from=100u to=200u
.end
NET
cat >"$work/step.cir" <<'NET'
rectifier, three nested steps, run 2 fails (R = 0)
.param rl=100
V1 in 0 SIN(0 {5} 1k)
D1 in out DM
R1 out 0 {rl}
C1 out 0 10u
.model DM D(VF=0.7)
.tran 1u 2m
.step param rl list 100 0 200
.step DM(VF) list 0.3 0.7
.step lin param unused 1 2 1
.meas tran vmax max v(out)
.end
NET
status=0
step() {  # name, expected exit codes, command...
  local name=$1 codes=$2
  shift 2
  (cd "$work" && "$@") >"$work/$name.out" 2>&1
  local rc=$?
  if [[ " $codes " != *" $rc "* ]]; then
    echo "tsan-sweep: $name: exit $rc (expected $codes)"
    status=2
  else
    echo "tsan-sweep: $name: exit $rc"
  fi
}
step montecarlo "0" "$bin" run buck.cir -o mc.raw --runs 16 --seed 3 --jobs "$jobs" -q \
  --save 'v(out)' --grid 1u --plot mc.png
step sweep "2" "$bin" run step.cir -o st.csv --jobs "$jobs" -q
step run5 "0" "$bin" run buck.cir -o one.csv --runs 16 --seed 3 --run 5 --jobs "$jobs" -q \
  --save 'v(out)' --grid 1u
step interrupt "130" timeout --preserve-status -s INT 3 "$bin" run buck.cir -o int.csv \
  --runs 400 --jobs "$jobs" -q --save 'v(out)' --grid 1u
if ls "$work"/tsan.* >/dev/null 2>&1; then
  echo "tsan-sweep: ThreadSanitizer reported:"
  cat "$work"/tsan.*
  exit 1
fi
echo "tsan-sweep: ThreadSanitizer reported nothing"
exit "$status"
