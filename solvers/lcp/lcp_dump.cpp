// Problem dumps: writer and reader of the text format in lcp_dump.hpp / docs/solvers.md §5.
//   M = D + C W⁻¹ B,  q = d + C W⁻¹ r  when only the MLCP blocks are stored.
// Reference: docs/theory.md §6 (the per-step MLCP).
#include "solvers/lcp/lcp_dump.hpp"

#include <fmt/format.h>

#include <Eigen/SparseLU>
#include <cctype>
#include <fstream>

namespace nsspice::solvers {
namespace {

constexpr std::string_view kMagic = "# nsspice-mlcp 1";

bool valid_key(const std::string& key) {
  if (key.empty() || !(std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_')) {
    return false;
  }
  for (const char c : key) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  }
  return true;
}

bool single_line(const std::string& s) { return s.find_first_of("\r\n") == std::string::npos; }

// Shortest representation that reads back to the same double.
std::string num(double v) { return fmt::format("{}", v); }

void write_dense(std::ostream& out, const std::string& name, const Eigen::MatrixXd& m) {
  out << fmt::format("{} {} {} dense\n", name, m.rows(), m.cols());
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) out << (j ? " " : "") << num(m(i, j));
    out << '\n';
  }
}

void write_sparse(std::ostream& out, const std::string& name, const SparseMatrix& m) {
  out << fmt::format("{} {} {} sparse {}\n", name, m.rows(), m.cols(), m.nonZeros());
  for (int k = 0; k < m.outerSize(); ++k) {
    for (SparseMatrix::InnerIterator it(m, k); it; ++it) {
      out << fmt::format("{} {} {}\n", it.row(), it.col(), num(it.value()));
    }
  }
}

void write_vector(std::ostream& out, const std::string& name, const Eigen::VectorXd& v) {
  out << fmt::format("{} {}\n", name, v.size());
  for (Eigen::Index i = 0; i < v.size(); ++i) out << num(v[i]) << '\n';
}

bool set_error(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

bool check_provenance(const Provenance& provenance, std::string* error) {
  for (const auto& [key, value] : provenance) {
    if (!valid_key(key) || !single_line(value)) {
      return set_error(error, fmt::format("invalid provenance entry '{}'", key));
    }
  }
  return true;
}

}  // namespace

std::string LcpDump::value(const std::string& key) const {
  for (const auto& [k, v] : provenance) {
    if (k == key) return v;
  }
  return {};
}

std::optional<std::pair<Eigen::MatrixXd, Eigen::VectorXd>> lcp_from_mlcp(const MlcpBlocks& b,
                                                                         std::string* error) {
  const Eigen::Index n = b.W.rows(), m = b.D.rows();
  if (b.W.cols() != n || b.B.rows() != n || b.B.cols() != m || b.C.rows() != m || b.C.cols() != n ||
      b.D.cols() != m || b.r.size() != n || b.d.size() != m) {
    set_error(error, "MLCP block sizes disagree (W n×n, B n×m, C m×n, D m×m, r n, d m)");
    return std::nullopt;
  }
  Eigen::SparseLU<SparseMatrix> lu;
  SparseMatrix w = b.W;
  w.makeCompressed();
  lu.compute(w);
  if (lu.info() != Eigen::Success) {
    set_error(error, "W is singular: the LCP form M = D + C W^-1 B does not exist");
    return std::nullopt;
  }
  const Eigen::MatrixXd winv_b = lu.solve(Eigen::MatrixXd(b.B));
  const Eigen::VectorXd winv_r = lu.solve(b.r);
  Eigen::MatrixXd M = Eigen::MatrixXd(b.D) + b.C * winv_b;
  Eigen::VectorXd q = b.d + b.C * winv_r;
  return std::make_pair(std::move(M), std::move(q));
}

bool write_lcp_dump(const std::string& path, const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                    const Provenance& provenance, std::string* error) {
  LcpDump dump;
  dump.provenance = provenance;
  dump.M = M;
  dump.q = q;
  return write_lcp_dump(path, dump, true, error);
}

bool write_lcp_dump(const std::string& path, const LcpDump& dump, bool with_lcp,
                    std::string* error) {
  if (!check_provenance(dump.provenance, error)) return false;
  if (with_lcp && (dump.M.rows() != dump.q.size() || dump.M.cols() != dump.q.size())) {
    return set_error(error, "M must be n×n and q of size n");
  }
  if (!with_lcp && !dump.mlcp) return set_error(error, "nothing to write");
  if (dump.mlcp) {
    const MlcpBlocks& b = *dump.mlcp;
    if (b.W.rows() != b.W.cols() || b.B.rows() != b.W.rows() || b.C.cols() != b.W.rows() ||
        b.D.rows() != b.D.cols() || b.B.cols() != b.D.rows() || b.C.rows() != b.D.rows() ||
        b.r.size() != b.W.rows() || b.d.size() != b.D.rows()) {
      return set_error(error, "MLCP block sizes disagree");
    }
  }
  std::ofstream out(path);
  if (!out) return set_error(error, fmt::format("{}: cannot open for writing", path));
  out << kMagic << '\n';
  for (const auto& [key, value] : dump.provenance) out << key << '=' << value << '\n';
  if (with_lcp) {
    write_dense(out, "M", dump.M);
    write_vector(out, "q", dump.q);
  }
  if (dump.mlcp) {
    const MlcpBlocks& b = *dump.mlcp;
    write_sparse(out, "W", b.W);
    write_sparse(out, "B", b.B);
    write_sparse(out, "C", b.C);
    write_sparse(out, "D", b.D);
    write_vector(out, "r", b.r);
    write_vector(out, "d", b.d);
  }
  out.flush();
  if (!out) return set_error(error, fmt::format("{}: write failed", path));
  return true;
}

}  // namespace nsspice::solvers
