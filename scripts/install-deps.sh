#!/usr/bin/env bash
# Installs the Debian packages nsspice needs, only those missing (idempotent, non-interactive).
#   scripts/install-deps.sh          build + test + demo dependencies
#   scripts/install-deps.sh --peers  also the peers for benchmarks (ngspice, python3-siconos)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(
  build-essential cmake pkg-config
  libboost-dev          # Boost.Spirit X3: the netlist grammar (header-only)
  libeigen3-dev         # dense/sparse matrices
  libsuitesparse-dev    # KLU sparse LU
  libmetis-dev          # nested-dissection orderings of large matrices (faster solves)
  libfmt-dev            # formatting
  libcli11-dev          # command line
  libgtest-dev          # tests
  gnuplot-nox           # plots (pngcairo/pdfcairo/svg terminals)
  libgnuplot-iostream-dev libboost-iostreams-dev libboost-filesystem-dev  # C++ pipe to gnuplot
  ngspice               # the regularized-SPICE peer (tests that load our output, benchmarks)
  nlohmann-json3-dev    # JSON (the viewer's data, --meas-json), header-only
  chromium              # headless browser: the waveform viewer's test (skipped without it)
  libopenmpi-dev openmpi-bin  # sweeps over MPI ranks (nsspice run --mpi, mpirun)
  pybind11-dev python3-dev python3-numpy  # the Python module (build/python/nsspice)
  python3-matplotlib    # the Python walk-through (docs/python.md) that the tests run
)
if [[ "${1:-}" == "--peers" ]]; then
  packages+=(python3-siconos hyperfine time)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
