// Lemke's method with lexicographic minimum ratio test. Equations: see lemke.hpp
//   T = B^-1 [ I  -M  -e | q ],  lexmin_i { ([B^-1 q]_i, [B^-1]_i.) / a_i : a_i > 0 }.
// References: Acary & Brogliato 2008 (AB08) ch. 12; Cottle, Pang, Stone 1992 sec. 4.4, 4.9.
#include "solvers/lcp/lemke.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "solvers/lcp/lcp_support.hpp"

namespace nsspice::solvers {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kPivotCap = 1'000'000;
constexpr double kZeroTolFactor = 16.0;
constexpr double kAcceptFactor = 1e3;

// Variable numbering: w_j -> j, z_j -> n + j, z0 -> 2n. Tableau column of the right-hand
// side: 2n + 1. Columns 0..n-1 (the w columns) hold B^-1.
struct Tableau {
  int n = 0;
  Eigen::MatrixXd t;
  std::vector<int> basis;  // basis[row] = basic variable of that row

  int z0() const { return 2 * n; }
  int rhs() const { return 2 * n + 1; }
};

Tableau make_tableau(const Eigen::MatrixXd& m, const Eigen::VectorXd& q) {
  Tableau tab;
  tab.n = static_cast<int>(q.size());
  const int n = tab.n;
  tab.t.setZero(n, 2 * n + 2);
  tab.t.leftCols(n).setIdentity();
  tab.t.middleCols(n, n) = -m;
  tab.t.col(2 * n).setConstant(-1.0);
  tab.t.col(2 * n + 1) = q;
  tab.basis.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) tab.basis[static_cast<std::size_t>(i)] = i;
  return tab;
}

// Complement of a variable (w_j <-> z_j); -1 for z0.
int complement(int var, int n) {
  if (var < n) return var + n;
  if (var < 2 * n) return var - n;
  return -1;
}

// First leaving row for z0: lexmin_i (q_i, e_i^T) = most negative q_i, ties -> largest i.
int initial_row(const Eigen::VectorXd& q) {
  int best = 0;
  for (int i = 1; i < static_cast<int>(q.size()); ++i) {
    if (q[i] <= q[best]) best = i;
  }
  return best;
}

// Keeps the candidates whose ratio t(i, col) / a_i is minimal within the tie tolerance.
void keep_minimal(const Tableau& tab, const Eigen::VectorXd& a, int col, double tie_tol,
                  std::vector<int>& rows) {
  double r_min = std::numeric_limits<double>::infinity();
  double r_abs = 0;
  for (const int i : rows) {
    const double r = tab.t(i, col) / a[i];
    r_min = std::min(r_min, r);
    r_abs = std::max(r_abs, std::abs(r));
  }
  const double limit = r_min + tie_tol * r_abs;
  std::erase_if(rows, [&](int i) { return tab.t(i, col) / a[i] > limit; });
}

enum class RatioOutcome { kRow, kRay, kNumericalFailure };
struct RatioResult {
  RatioOutcome outcome = RatioOutcome::kRay;
  int row = -1;
};

// Lexicographic minimum ratio test for the entering column `col`.
RatioResult ratio_test(const Tableau& tab, int col, double zero_tol) {
  const Eigen::VectorXd a = tab.t.col(col);
  if (!a.allFinite() || !tab.t.col(tab.rhs()).allFinite()) {
    return {RatioOutcome::kNumericalFailure, -1};
  }
  const double threshold = zero_tol * a.cwiseAbs().maxCoeff();
  std::vector<int> rows;
  for (int i = 0; i < tab.n; ++i) {
    if (a[i] > threshold && a[i] > 0) rows.push_back(i);
  }
  if (rows.empty()) return {RatioOutcome::kRay, -1};
  keep_minimal(tab, a, tab.rhs(), zero_tol, rows);
  for (const int i : rows) {
    if (tab.basis[static_cast<std::size_t>(i)] == tab.z0()) return {RatioOutcome::kRow, i};
  }
  for (int k = 0; k < tab.n && rows.size() > 1; ++k) keep_minimal(tab, a, k, zero_tol, rows);
  // Exact arithmetic leaves one row (B^-1 is nonsingular); otherwise take the largest pivot.
  const int row =
      *std::max_element(rows.begin(), rows.end(), [&](int i, int j) { return a[i] < a[j]; });
  return {RatioOutcome::kRow, row};
}

// Gauss-Jordan pivot on t(row, col); the entering variable becomes basic in `row`.
bool pivot(Tableau& tab, int row, int col) {
  const double p = tab.t(row, col);
  if (!std::isfinite(p) || p == 0.0) return false;
  const Eigen::RowVectorXd pivot_row = tab.t.row(row) / p;
  Eigen::VectorXd factors = tab.t.col(col);
  factors[row] = 0.0;
  tab.t.noalias() -= factors * pivot_row;
  tab.t.row(row) = pivot_row;
  tab.t.col(col).setZero();
  tab.t(row, col) = 1.0;
  tab.basis[static_cast<std::size_t>(row)] = col;
  return true;
}

double default_accept(const Eigen::MatrixXd& m, const Eigen::VectorXd& q,
                      const Eigen::VectorXd& z) {
  const double m_inf = m.cwiseAbs().rowwise().sum().maxCoeff();
  const double z_inf = z.size() ? z.cwiseAbs().maxCoeff() : 0.0;
  const double q_inf = q.size() ? q.cwiseAbs().maxCoeff() : 0.0;
  const double scale = std::max({q_inf, m_inf * z_inf, z_inf, std::numeric_limits<double>::min()});
  return kAcceptFactor * static_cast<double>(q.size() + 1) * kEps * scale;
}

// Candidate solution from the tableau, projected onto z >= 0.
Eigen::VectorXd tableau_solution(const Tableau& tab) {
  Eigen::VectorXd z = Eigen::VectorXd::Zero(tab.n);
  for (int i = 0; i < tab.n; ++i) {
    const int var = tab.basis[static_cast<std::size_t>(i)];
    if (var >= tab.n && var < 2 * tab.n) z[var - tab.n] = std::max(0.0, tab.t(i, tab.rhs()));
  }
  return z;
}

// Candidate solution from a direct solve M_ZZ z_Z = -q_Z on the basic z indices.
Eigen::VectorXd basis_solution(const Eigen::MatrixXd& m, const Eigen::VectorXd& q,
                               const std::vector<char>& z_basic) {
  std::vector<int> idx;
  for (int j = 0; j < static_cast<int>(z_basic.size()); ++j) {
    if (z_basic[static_cast<std::size_t>(j)]) idx.push_back(j);
  }
  Eigen::VectorXd z = Eigen::VectorXd::Zero(q.size());
  if (idx.empty()) return z;
  const Eigen::MatrixXd m_zz = m(idx, idx);
  const Eigen::VectorXd z_z = m_zz.partialPivLu().solve(-q(idx));
  if (!z_z.allFinite()) return z;
  z(idx) = z_z.cwiseMax(0.0);
  return z;
}

// Fills z, w, z_basic, residual and the final status (for a terminated pivot sequence).
void extract_solution(const Tableau& tab, const Eigen::MatrixXd& m, const Eigen::VectorXd& q,
                      double accept, LcpStatus terminal, LcpResult& result) {
  result.z_basic.assign(static_cast<std::size_t>(tab.n), 0);
  for (const int var : tab.basis) {
    if (var >= tab.n && var < 2 * tab.n) result.z_basic[static_cast<std::size_t>(var - tab.n)] = 1;
  }
  result.z = tableau_solution(tab);
  result.w = m * result.z + q;
  result.residual = lcp_residual(result.z, result.w);
  if (terminal == LcpStatus::kSolved) {
    Eigen::VectorXd z2 = basis_solution(m, q, result.z_basic);
    Eigen::VectorXd w2 = m * z2 + q;
    const double r2 = lcp_residual(z2, w2);
    if (r2 < result.residual) {
      result.z = std::move(z2);
      result.w = std::move(w2);
      result.residual = r2;
    }
    const double limit = accept > 0 ? accept : default_accept(m, q, result.z);
    if (!(result.residual <= limit)) terminal = LcpStatus::kInaccurate;
  }
  result.status = terminal;
}

// Runs the complementary pivot sequence after the initial z0 pivot; returns the terminal
// status (kSolved when z0 left the basis).
LcpStatus pivot_loop(Tableau& tab, int leaving, int max_pivots, double zero_tol, int& pivots) {
  while (true) {
    const int entering = complement(leaving, tab.n);
    if (entering < 0) return LcpStatus::kSolved;
    if (pivots >= max_pivots) return LcpStatus::kNoConvergence;
    const RatioResult rr = ratio_test(tab, entering, zero_tol);
    if (rr.outcome == RatioOutcome::kNumericalFailure) return LcpStatus::kNumericalFailure;
    if (rr.outcome == RatioOutcome::kRay) return LcpStatus::kInfeasible;
    leaving = tab.basis[static_cast<std::size_t>(rr.row)];
    if (!pivot(tab, rr.row, entering)) return LcpStatus::kNumericalFailure;
    ++pivots;
  }
}

}  // namespace

std::string LemkeOptions::validate() const {
  return validate_pivoting_options(max_pivots, zero_tol, accept_residual);
}

LcpResult solve_lemke(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                      const LemkeOptions& options) {
  LcpResult result;
  const Eigen::Index n = q.size();
  if (auto rejected = reject_input(options.validate(), M, q)) return *rejected;
  if (n == 0 || q.minCoeff() >= 0) {
    result.status = LcpStatus::kSolved;
    result.z = Eigen::VectorXd::Zero(n);
    result.w = q;
    result.z_basic.assign(static_cast<std::size_t>(n), 0);
    return result;
  }
  const double nn = static_cast<double>(n + 1);
  const int max_pivots = options.max_pivots > 0
                             ? options.max_pivots
                             : static_cast<int>(std::min(50.0 * nn * nn, double{kPivotCap}));
  const double zero_tol = options.zero_tol > 0 ? options.zero_tol : kZeroTolFactor * nn * kEps;

  Tableau tab = make_tableau(M, q);
  const int r0 = initial_row(q);
  LcpStatus terminal = LcpStatus::kNumericalFailure;
  if (pivot(tab, r0, tab.z0())) {
    result.pivots = 1;
    terminal = pivot_loop(tab, r0, max_pivots, zero_tol, result.pivots);
  }
  extract_solution(tab, M, q, options.accept_residual, terminal, result);
  return result;
}

}  // namespace nsspice::solvers
