// Names the causes of a singular matrix (circuit/explain.hpp).
#include "circuit/explain.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

namespace nsspice::circuit {
namespace {

constexpr std::size_t kMaxListed = 12;  // names listed before "... and N more"

std::string unknown_name(const Assembled& a, int k) {
  if (k >= 0 && k < static_cast<int>(a.unknown_names.size()))
    return a.unknown_names[static_cast<std::size_t>(k)];
  const int j = k - static_cast<int>(a.unknown_names.size());
  if (j >= 0 && j < static_cast<int>(a.pair_names.size()))
    return fmt::format("lambda({})", a.pair_names[static_cast<std::size_t>(j)]);
  return fmt::format("unknown {}", k);
}

// Row k of E, G: KCL of node k (k < node_count), else the branch equation of a device.
std::string row_name(const Assembled& a, int k) {
  const std::string name = unknown_name(a, k);
  if (k >= 0 && k < static_cast<int>(a.unknown_names.size()) && name.size() > 3) {
    const std::string inner = name.substr(2, name.size() - 3);
    return (k < a.node_count ? "KCL at " : "branch equation of ") + inner;
  }
  const int j = k - static_cast<int>(a.unknown_names.size());
  if (j >= 0 && j < static_cast<int>(a.pair_names.size()))
    return fmt::format("complementarity row of {}", a.pair_names[static_cast<std::size_t>(j)]);
  return fmt::format("row {}", k);
}

std::set<int> devices_of(const Assembled& a, const std::vector<int>& unknowns) {
  std::set<int> devices;
  for (int k : unknowns) {
    if (k >= 0 && k < static_cast<int>(a.unknown_devices.size())) {
      for (int d : a.unknown_devices[static_cast<std::size_t>(k)]) devices.insert(d);
    }
    const int j = k - static_cast<int>(a.unknown_names.size());
    if (j >= 0 && j < static_cast<int>(a.pair_device.size()))
      devices.insert(a.pair_device[static_cast<std::size_t>(j)]);
  }
  return devices;
}

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kMaxListed; ++i)
    out += (i > 0 ? ", " : "") + names[i];
  if (names.size() > kMaxListed) out += fmt::format(" and {} more", names.size() - kMaxListed);
  return out;
}

std::string device_list(const Assembled& a, const std::set<int>& devices) {
  std::vector<std::string> names;
  for (int d : devices) {
    names.push_back(d >= 0 && d < static_cast<int>(a.device_names.size())
                        ? a.device_names[static_cast<std::size_t>(d)]
                        : fmt::format("device {}", d));
  }
  return listed(names);
}

std::string unknown_list(const Assembled& a, const std::vector<int>& unknowns, bool rows) {
  std::vector<std::string> names;
  for (int k : unknowns) names.push_back(rows ? row_name(a, k) : unknown_name(a, k));
  return listed(names);
}

// "v(a), v(b) (devices: c1, r2)" (rows: "KCL at a, branch equation of v1 (devices: ...)").
std::string part(const Assembled& a, const std::vector<int>& unknowns, bool rows = false) {
  if (unknowns.empty()) return "";
  const std::set<int> devices = devices_of(a, unknowns);
  return fmt::format("{}{}", unknown_list(a, unknowns, rows),
                     devices.empty() ? "" : " (devices: " + device_list(a, devices) + ")");
}

std::string overflow(const Assembled& a, const solvers::SingularBlock& block,
                     const solvers::SparseMatrix& m, const Eigen::Ref<const Eigen::VectorXd>& rhs) {
  std::vector<std::string> entries;
  std::vector<int> touched;
  for (int c = 0; c < m.outerSize(); ++c) {
    for (solvers::SparseMatrix::InnerIterator it(m, c); it; ++it) {
      if (std::fabs(it.value()) <= solvers::kOverflowMagnitude) continue;
      entries.push_back(fmt::format("matrix[{}, {}] = {:g}", row_name(a, it.row()),
                                    unknown_name(a, c), it.value()));
      touched.push_back(static_cast<int>(it.row()));
      touched.push_back(c);
    }
  }
  for (Eigen::Index r = 0; r < rhs.size(); ++r) {
    if (std::fabs(rhs[r]) <= solvers::kOverflowMagnitude) continue;
    entries.push_back(
        fmt::format("right-hand side[{}] = {:g}", row_name(a, static_cast<int>(r)), rhs[r]));
    touched.push_back(static_cast<int>(r));
  }
  if (entries.empty()) touched = block.rows;
  const std::set<int> devices = devices_of(a, touched);
  return fmt::format(
      "overflow: values beyond the range double precision can solve with (|x| > {:g}): {}{}; "
      "the matrix is not singular, its values are out of range",
      solvers::kOverflowMagnitude, listed(entries),
      devices.empty() ? "" : " (devices: " + device_list(a, devices) + ")");
}

}  // namespace

std::string explain_singular(const Assembled& a, const std::vector<int>& unknowns) {
  return part(a, unknowns);
}

std::string explain_singular(const Assembled& a, const solvers::SingularBlock& block,
                             const solvers::SparseMatrix& matrix,
                             const Eigen::Ref<const Eigen::VectorXd>& rhs) {
  using Kind = solvers::SingularBlock::Kind;
  switch (block.kind) {
    case Kind::kNonsingular:
      return "";
    case Kind::kOverflow:
      return overflow(a, block, matrix, rhs);
    case Kind::kStructural:
    case Kind::kNumerical:
      break;
  }
  std::string out = block.kind == Kind::kStructural
                        ? fmt::format("structurally singular (structural rank {} of {})",
                                      block.structural_rank, matrix.rows())
                        : std::string("numerically singular");
  if (!block.columns.empty()) out += "; unknowns not determined: " + part(a, block.columns);
  if (!block.rows.empty()) out += "; dependent (or empty) equations: " + part(a, block.rows, true);
  return out;
}

std::string explain_singular_matrix(const Assembled& a, const solvers::SparseMatrix& matrix,
                                    const Eigen::Ref<const Eigen::VectorXd>& rhs) {
  return explain_singular(a, solvers::find_singular_block(matrix, rhs), matrix, rhs);
}

solvers::SparseMatrix mode_matrix(const Assembled& a, const solvers::SparseMatrix& w,
                                  const std::vector<char>& mode) {
  const solvers::Mlcs& m = a.mlcs;
  const int n = m.n;
  using Triplet = Eigen::Triplet<double, int>;
  std::vector<Triplet> t;
  t.reserve(static_cast<std::size_t>(w.nonZeros() + m.B.nonZeros() + m.C.nonZeros() +
                                     m.D.nonZeros() + m.C_off.nonZeros() + m.m));
  auto on = [&](Eigen::Index j) { return j < static_cast<Eigen::Index>(mode.size()) && mode[j]; };
  for (int k = 0; k < w.outerSize(); ++k)
    for (solvers::SparseMatrix::InnerIterator it(w, k); it; ++it)
      t.emplace_back(it.row(), it.col(), it.value());
  for (int k = 0; k < m.B.outerSize(); ++k)
    for (solvers::SparseMatrix::InnerIterator it(m.B, k); it; ++it)
      t.emplace_back(it.row(), n + it.col(), -it.value());
  for (int k = 0; k < m.C.outerSize(); ++k)
    for (solvers::SparseMatrix::InnerIterator it(m.C, k); it; ++it)
      if (on(it.row())) t.emplace_back(n + it.row(), it.col(), it.value());
  for (int k = 0; k < m.D.outerSize(); ++k)
    for (solvers::SparseMatrix::InnerIterator it(m.D, k); it; ++it)
      if (on(it.row())) t.emplace_back(n + it.row(), n + it.col(), it.value());
  for (int k = 0; k < m.C_off.outerSize(); ++k)
    for (solvers::SparseMatrix::InnerIterator it(m.C_off, k); it; ++it)
      if (!on(it.row())) t.emplace_back(n + it.row(), it.col(), it.value());
  for (int j = 0; j < m.m; ++j)
    if (!on(j)) t.emplace_back(n + j, n + j, 1.0);
  solvers::SparseMatrix k(n + m.m, n + m.m);
  k.setFromTriplets(t.begin(), t.end());
  k.makeCompressed();
  return k;
}

std::string ModeDiagnosis::with(const std::string& message) const {
  if (text.empty()) return message;
  return overflow ? text : message + ": " + text;
}

ModeDiagnosis explain_mode(const Assembled& a, double delta, const std::vector<char>& mode) {
  solvers::SparseMatrix w = a.mlcs.G;
  if (delta > 0) w += a.mlcs.E / delta;
  const solvers::SparseMatrix k = mode_matrix(a, w, mode);
  const solvers::SingularBlock block = solvers::find_singular_block(k);
  ModeDiagnosis d{
      explain_singular(a, block, k), block.kind == solvers::SingularBlock::Kind::kOverflow, {}};
  std::vector<int> touched = block.columns;
  touched.insert(touched.end(), block.rows.begin(), block.rows.end());
  for (int dev : devices_of(a, touched))
    if (dev >= 0 && dev < static_cast<int>(a.device_names.size()))
      d.devices.push_back(a.device_names[static_cast<std::size_t>(dev)]);
  return d;
}

}  // namespace nsspice::circuit
