// Self-describing text dumps of a step's complementarity problem (format: docs/solvers.md §5).
//
//   LCP form:   z ≥ 0,  w = M z + q ≥ 0,  zᵀw = 0
//   MLCP form:  W x − B λ = r,  w = C x + D λ + d,  0 ≤ w ⊥ λ ≥ 0
//   link (W nonsingular):  M = D + C W⁻¹ B,  q = d + C W⁻¹ r     (docs/theory.md §6)
//
// File: first line "# nsspice-mlcp 1"; then, in any order, blank lines, comments ("#..."),
// provenance lines "key=value" (netlist, step, t, h, theta, source, ... — free keys), and
// blocks. A block starts with "NAME ROWS COLS dense" followed by ROWS lines of COLS numbers,
// or "NAME ROWS COLS sparse NNZ" followed by NNZ lines "i j value" (0-based), or, for a
// vector, "NAME SIZE" followed by SIZE lines of one number. Names: M, q (LCP form) and
// W, B, C, D, r, d (MLCP form). A file holds the LCP form, the MLCP form, or both; with the
// MLCP form only, read_lcp_dump forms M and q by a sparse LU of W (error if singular).
// Numbers are written in their shortest round-trip form, so a dump reproduces the data exactly.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "solvers/mlcs.hpp"

namespace nsspice::solvers {

using Provenance = std::vector<std::pair<std::string, std::string>>;

struct MlcpBlocks {
  SparseMatrix W, B, C, D;
  Eigen::VectorXd r, d;
};

struct LcpDump {
  Provenance provenance;  // in file order
  Eigen::MatrixXd M;
  Eigen::VectorXd q;
  std::optional<MlcpBlocks> mlcp;
  bool lcp_from_blocks = false;  // M, q were not in the file but formed from the blocks

  // Value of a provenance key, or "" if absent.
  std::string value(const std::string& key) const;
};

// M = D + C W⁻¹ B, q = d + C W⁻¹ r; nullopt (and *error) if sizes disagree or W is singular.
std::optional<std::pair<Eigen::MatrixXd, Eigen::VectorXd>> lcp_from_mlcp(
    const MlcpBlocks& blocks, std::string* error = nullptr);

// Writes the LCP form. Returns false (and *error) if the file cannot be written, the sizes
// disagree, or a provenance key/value is not a single line with key [A-Za-z_][A-Za-z0-9_.]*.
bool write_lcp_dump(const std::string& path, const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                    const Provenance& provenance, std::string* error = nullptr);

// Writes a whole dump: the MLCP blocks if present (sparse) and the LCP form if `with_lcp`
// (dense M; leave it out for large problems, the reader forms it from the blocks).
bool write_lcp_dump(const std::string& path, const LcpDump& dump, bool with_lcp,
                    std::string* error = nullptr);

// Reads a dump. On failure returns nullopt and sets *error to "path:line: what is wrong".
std::optional<LcpDump> read_lcp_dump(const std::string& path, std::string* error = nullptr);

}  // namespace nsspice::solvers
