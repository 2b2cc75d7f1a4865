// Generators of the LCP test problems (see lcp_problems.hpp).
#include "lcp_problems.hpp"

#include <charconv>
#include <cmath>
#include <numbers>
#include <optional>
#include <random>

namespace nsspice::solvers::testing {
namespace {

using Triplets = std::vector<Eigen::Triplet<double, int>>;

std::string fmt_double(double v) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  return std::string(buf, res.ptr);
}

// Provenance of a generated problem; h = 0: not a time step (no t, h, theta keys).
Provenance generator_provenance(const std::string& description, double h) {
  Provenance p{{"netlist", "none"}, {"description", description}};
  if (h > 0) {
    p.insert(p.end(), {{"step", "1"}, {"t", fmt_double(h)}, {"h", fmt_double(h)}, {"theta", "1"}});
  }
  p.emplace_back("source", "generator tests/solvers/lcp_problems.cpp");
  return p;
}

Eigen::MatrixXd random_normal(int rows, int cols, std::mt19937& gen) {
  std::normal_distribution<double> nd;
  Eigen::MatrixXd a(rows, cols);
  for (auto& v : a.reshaped()) v = nd(gen);
  return a;
}

// q = w* − M z* for a random complementary pair; `degenerate` of the indices get z = w = 0.
LcpProblem with_solution(std::string name, Eigen::MatrixXd m, std::mt19937& gen,
                         double degenerate_fraction) {
  const int n = static_cast<int>(m.rows());
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n), w = Eigen::VectorXd::Zero(n);
  for (int j = 0; j < n; ++j) {
    const double pick = u(gen);
    if (pick < degenerate_fraction) continue;
    if (pick < degenerate_fraction + (1 - degenerate_fraction) / 2) {
      z[j] = std::round(1 + 3 * u(gen));
    } else {
      w[j] = std::round(1 + 3 * u(gen));
    }
  }
  LcpProblem p{std::move(name), std::move(m), {}, z};
  p.q = w - p.M * z;
  return p;
}

}  // namespace

SparseMatrix sparse(int rows, int cols, const std::vector<Eigen::Triplet<double, int>>& t) {
  SparseMatrix m(rows, cols);
  m.setFromTriplets(t.begin(), t.end());
  m.makeCompressed();
  return m;
}


LcpDump diode_bridge_dump(double v_c, double i_l, const std::string& name) {
  constexpr double kC = 1e-6, kL = 1e-2, kR = 1e3, kH = 1e-6;
  MlcpBlocks b;
  b.W = sparse(2, 2, {{0, 0, 1.0}, {0, 1, kH / kC}, {1, 0, -kH / kL}, {1, 1, 1.0}});
  b.B = sparse(2, 4, {{0, 2, -kH / kC}, {0, 3, kH / kC}});
  b.C = sparse(4, 2, {{2, 0, -1.0}, {3, 0, 1.0}});
  b.D = sparse(4, 4,
               {{0, 0, 1 / kR},
                {0, 1, 1 / kR},
                {0, 2, -1.0},
                {1, 0, 1 / kR},
                {1, 1, 1 / kR},
                {1, 3, -1.0},
                {2, 0, 1.0},
                {3, 1, 1.0}});
  b.r = Eigen::Vector2d(v_c, i_l);
  b.d = Eigen::VectorXd::Zero(4);
  LcpDump dump;
  dump.provenance = generator_provenance("Siconos DiodeBridge LCS (README 4.3), " + name, kH);
  dump.provenance.emplace_back("state", "v_C=" + fmt_double(v_c) + " i_L=" + fmt_double(i_l));
  auto lcp = lcp_from_mlcp(b);
  dump.M = lcp->first;
  dump.q = lcp->second;
  dump.mlcp = std::move(b);
  return dump;
}

LcpDump circuit_c_dump(double x2, const std::string& name) {
  LcpDump dump;
  dump.provenance = generator_provenance("AB08 circuit (c) eq. (1.23), " + name, 0);
  dump.provenance.emplace_back("state", "x2=" + fmt_double(x2));
  dump.M = Eigen::MatrixXd::Zero(1, 1);
  dump.q = Eigen::VectorXd::Constant(1, -x2);
  return dump;
}

LcpDump ladder_dump(int sections) {
  constexpr double kR = 1e3, kC = 1e-9, kH = 1e-6, kV = 5.0, kVf = 0.7, kRon = 0.1;
  const int n = sections;
  Triplets w, b, c, d;
  Eigen::VectorXd r(n);
  for (int j = 0; j < n; ++j) {
    const double g_right = j + 1 < n ? 1 / kR : 0.0;
    w.emplace_back(j, j, 1 / kR + g_right + kC / kH);
    if (j + 1 < n) {
      w.emplace_back(j, j + 1, -1 / kR);
      w.emplace_back(j + 1, j, -1 / kR);
    }
    const double x_prev = 0.9 + 0.5 * std::sin(2 * std::numbers::pi * j / 61.0) - 0.6 * j / n;
    r[j] = kC / kH * x_prev + (j == 0 ? kV / kR : 0.0);
    b.emplace_back(j, j, -1.0);  // diode anode = node j, cathode = ground
    c.emplace_back(j, j, -1.0);
    d.emplace_back(j, j, kRon);
  }
  MlcpBlocks blocks{sparse(n, n, w),
                    sparse(n, n, b),
                    sparse(n, n, c),
                    sparse(n, n, d),
                    r,
                    Eigen::VectorXd::Constant(n, kVf)};
  LcpDump dump;
  dump.provenance = generator_provenance(
      "RC ladder with clamp diodes, N=" + std::to_string(n) + " (R=1k C=1n VF=0.7 RON=0.1)", kH);
  auto lcp = lcp_from_mlcp(blocks);
  dump.M = lcp->first;
  dump.q = lcp->second;
  dump.mlcp = std::move(blocks);
  return dump;
}

LcpDump murty_example_dump(int n) {
  LcpDump dump;
  dump.provenance = generator_provenance("Murty's exponential example, n=" + std::to_string(n), 0);
  dump.M = Eigen::MatrixXd::Identity(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) dump.M(i, j) = 2.0;
  dump.q = -Eigen::VectorXd::Ones(n);
  return dump;
}

std::vector<std::pair<std::string, LcpDump>> stored_problems() {
  return {{"diode_bridge_start", diode_bridge_dump(10.0, 0.0, "step from v_C=10 V")},
          {"diode_bridge_zero_crossing", diode_bridge_dump(0.0, 0.01, "near a zero crossing")},
          {"ab08_circuit_c_zero_matrix", circuit_c_dump(0.0, "on the constraint")},
          {"ab08_circuit_c_infeasible", circuit_c_dump(1.0, "x2 > 0")},
          {"ladder_12", ladder_dump(12)},
          {"ladder_1000", ladder_dump(1000)},
          {"murty_exponential_10", murty_example_dump(10)}};
}

LcpProblem random_pd(int n, std::uint32_t seed, bool skew) {
  std::mt19937 gen(seed);
  const Eigen::MatrixXd a = random_normal(n, n, gen);
  Eigen::MatrixXd m = a * a.transpose() / n + 0.5 * Eigen::MatrixXd::Identity(n, n);
  if (skew) {
    const Eigen::MatrixXd k = random_normal(n, n, gen);
    m += (k - k.transpose()) / std::sqrt(static_cast<double>(n));
  }
  return with_solution(skew ? "pd_skew" : "pd_sym", std::move(m), gen, 0.0);
}

LcpProblem random_triangular_p(int n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(1.0, 2.0);
  Eigen::MatrixXd m = 2.0 * random_normal(n, n, gen);
  m = m.triangularView<Eigen::StrictlyUpper>();
  for (int i = 0; i < n; ++i) m(i, i) = u(gen);
  return with_solution("triangular_p", std::move(m), gen, 0.0);
}

LcpProblem random_psd(int n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  const Eigen::MatrixXd a = random_normal(n, std::max(1, n / 2), gen);
  return with_solution("psd", a * a.transpose() / n, gen, 0.0);
}

LcpProblem random_degenerate(int n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> small(-1, 1);
  Eigen::MatrixXd a(n, n);
  for (auto& v : a.reshaped()) v = small(gen);
  Eigen::MatrixXd m = a * a.transpose() + Eigen::MatrixXd::Identity(n, n);
  return with_solution("degenerate", std::move(m), gen, 1.0 / 3.0);
}

LcpProblem random_infeasible(int n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> pos(0.5, 1.5);
  Eigen::VectorXd u(n);
  for (auto& v : u) v = pos(gen);
  Eigen::MatrixXd a = random_normal(n, n, gen);
  a -= (a * u) * u.transpose() / u.squaredNorm();  // rows orthogonal to u: a u = 0
  LcpProblem p{"infeasible", a.transpose() * a / n, random_normal(n, 1, gen), {}};
  p.q -= u * ((u.dot(p.q) + 1.0) / u.squaredNorm());  // uᵀq = −1 < 0
  return p;
}

}  // namespace nsspice::solvers::testing
