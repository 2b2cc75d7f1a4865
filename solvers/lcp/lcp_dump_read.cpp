// Problem dumps: the reader (format: lcp_dump.hpp, docs/solvers.md §5). Every error names
// the file and line. With only the MLCP form, M = D + C W⁻¹ B and q = d + C W⁻¹ r are formed.
// Reference: docs/theory.md §6.
#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "solvers/lcp/lcp_dump.hpp"

namespace nsspice::solvers {
namespace {

constexpr std::string_view kMagic = "# nsspice-mlcp 1";
constexpr std::string_view kMatrixNames = "MWBCD";
constexpr std::string_view kVectorNames = "qrd";
constexpr long kMaxDimension = 100'000'000;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> split(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

bool to_double(const std::string& t, double& v) {
  const char* end = t.data() + t.size();
  const auto [p, ec] = std::from_chars(t.data(), end, v);
  return ec == std::errc() && p == end;
}

bool to_long(const std::string& t, long& v) {
  const char* end = t.data() + t.size();
  const auto [p, ec] = std::from_chars(t.data(), end, v);
  return ec == std::errc() && p == end && v >= 0 && v <= kMaxDimension;
}

class Reader {
 public:
  Reader(std::istream& in, std::string path) : in_(in), path_(std::move(path)) {}

  std::optional<LcpDump> read();
  const std::string& error() const { return error_; }

 private:
  std::istream& in_;
  std::string path_, error_;
  long line_no_ = 0;
  LcpDump dump_;
  std::map<char, Eigen::MatrixXd> dense_;
  std::map<char, SparseMatrix> sparse_;
  std::map<char, Eigen::VectorXd> vectors_;

  bool fail(const std::string& what) {
    error_ = fmt::format("{}:{}: {}", path_, line_no_, what);
    return false;
  }
  // Next line that is neither blank nor a comment; false at end of file.
  bool next(std::string& line) {
    while (std::getline(in_, line)) {
      ++line_no_;
      line = trim(line);
      if (!line.empty() && line[0] != '#') return true;
    }
    return false;
  }
  bool numbers(std::size_t count, std::vector<double>& out, const std::string& what);
  bool block(const std::vector<std::string>& head);
  bool dense_block(char name, long rows, long cols);
  bool sparse_block(char name, long rows, long cols, long nnz);
  bool vector_block(char name, long size);
  bool finish();
};

bool Reader::numbers(std::size_t count, std::vector<double>& out, const std::string& what) {
  std::string line;
  if (!next(line)) return fail(fmt::format("unexpected end of file in {}", what));
  const auto tokens = split(line);
  if (tokens.size() != count) {
    return fail(fmt::format("{}: expected {} numbers, found {}", what, count, tokens.size()));
  }
  out.resize(count);
  for (std::size_t k = 0; k < count; ++k) {
    if (!to_double(tokens[k], out[k]))
      return fail(fmt::format("{}: bad number '{}'", what, tokens[k]));
  }
  return true;
}

bool Reader::dense_block(char name, long rows, long cols) {
  Eigen::MatrixXd m(rows, cols);
  std::vector<double> row;
  for (long i = 0; i < rows; ++i) {
    if (!numbers(static_cast<std::size_t>(cols), row, fmt::format("{} row {}", name, i)))
      return false;
    for (long j = 0; j < cols; ++j) m(i, j) = row[static_cast<std::size_t>(j)];
  }
  if (name == 'M') {
    dense_[name] = std::move(m);
  } else {
    sparse_[name] = m.sparseView(0.0, 0.0);
  }
  return true;
}

bool Reader::sparse_block(char name, long rows, long cols, long nnz) {
  std::vector<Eigen::Triplet<double, int>> triplets;
  std::vector<double> t;
  for (long k = 0; k < nnz; ++k) {
    if (!numbers(3, t, fmt::format("{} entry {}", name, k))) return false;
    const double i = t[0], j = t[1];
    if (i != static_cast<long>(i) || j != static_cast<long>(j) || i < 0 || j < 0 || i >= rows ||
        j >= cols) {
      return fail(
          fmt::format("{} entry {}: index ({}, {}) outside {}x{}", name, k, i, j, rows, cols));
    }
    triplets.emplace_back(static_cast<int>(i), static_cast<int>(j), t[2]);
  }
  SparseMatrix m(rows, cols);
  m.setFromTriplets(triplets.begin(), triplets.end());
  m.makeCompressed();
  if (name == 'M') {
    dense_[name] = Eigen::MatrixXd(m);
  } else {
    sparse_[name] = std::move(m);
  }
  return true;
}

bool Reader::vector_block(char name, long size) {
  Eigen::VectorXd v(size);
  std::vector<double> x;
  for (long i = 0; i < size; ++i) {
    if (!numbers(1, x, fmt::format("{} entry {}", name, i))) return false;
    v[i] = x[0];
  }
  vectors_[name] = std::move(v);
  return true;
}

bool Reader::block(const std::vector<std::string>& head) {
  const std::string& name = head[0];
  const bool is_matrix = name.size() == 1 && kMatrixNames.find(name[0]) != std::string_view::npos;
  const bool is_vector = name.size() == 1 && kVectorNames.find(name[0]) != std::string_view::npos;
  if (!is_matrix && !is_vector) {
    return fail(fmt::format("unknown block '{}' (expected M, q, W, B, C, D, r or d)", name));
  }
  const char c = name[0];
  if (dense_.count(c) || sparse_.count(c) || vectors_.count(c)) {
    return fail(fmt::format("block {} appears twice", name));
  }
  long rows = 0, cols = 0, nnz = 0;
  if (is_vector) {
    if (head.size() != 2 || !to_long(head[1], rows))
      return fail(fmt::format("expected '{} SIZE'", name));
    return vector_block(c, rows);
  }
  if (head.size() >= 4 && to_long(head[1], rows) && to_long(head[2], cols)) {
    if (head[3] == "dense" && head.size() == 4) return dense_block(c, rows, cols);
    if (head[3] == "sparse" && head.size() == 5 && to_long(head[4], nnz)) {
      return sparse_block(c, rows, cols, nnz);
    }
  }
  return fail(
      fmt::format("expected '{} ROWS COLS dense' or '{} ROWS COLS sparse NNZ'", name, name));
}

bool Reader::finish() {
  const bool has_m = dense_.count('M') > 0, has_q = vectors_.count('q') > 0;
  if (has_m != has_q) return fail("the LCP form needs both M and q");
  std::string missing;
  int found = 0;
  for (const char c : std::string_view("WBCDrd")) {
    const bool have =
        std::islower(static_cast<unsigned char>(c)) ? vectors_.count(c) > 0 : sparse_.count(c) > 0;
    found += have ? 1 : 0;
    if (!have) missing += fmt::format("{}{}", missing.empty() ? "" : " ", c);
  }
  const bool has_mlcp = found == 6;
  if (found > 0 && !has_mlcp) {
    return fail(fmt::format("the MLCP form is incomplete (missing: {})", missing));
  }
  if (!has_m && !has_mlcp) return fail("no problem in the file (need M and q, or W B C D r d)");
  if (has_mlcp) {
    dump_.mlcp = MlcpBlocks{sparse_['W'], sparse_['B'],  sparse_['C'],
                            sparse_['D'], vectors_['r'], vectors_['d']};
  }
  if (has_m) {
    dump_.M = std::move(dense_['M']);
    dump_.q = std::move(vectors_['q']);
    if (dump_.M.rows() != dump_.q.size() || dump_.M.cols() != dump_.q.size()) {
      return fail(fmt::format("M is {}x{} but q has size {}", dump_.M.rows(), dump_.M.cols(),
                              dump_.q.size()));
    }
    return true;
  }
  std::string why;
  auto lcp = lcp_from_mlcp(*dump_.mlcp, &why);
  if (!lcp) return fail(why);
  dump_.M = std::move(lcp->first);
  dump_.q = std::move(lcp->second);
  dump_.lcp_from_blocks = true;
  return true;
}

std::optional<LcpDump> Reader::read() {
  std::string line;
  if (!std::getline(in_, line) || trim(line) != kMagic) {
    line_no_ = 1;
    fail(fmt::format("not an nsspice problem dump (first line must be '{}')", kMagic));
    return std::nullopt;
  }
  line_no_ = 1;
  while (next(line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) {
      dump_.provenance.emplace_back(trim(line.substr(0, eq)), trim(line.substr(eq + 1)));
      continue;
    }
    if (!block(split(line))) return std::nullopt;
  }
  if (!finish()) return std::nullopt;
  return std::move(dump_);
}

}  // namespace

std::optional<LcpDump> read_lcp_dump(const std::string& path, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    if (error) *error = fmt::format("{}: cannot open", path);
    return std::nullopt;
  }
  Reader reader(in, path);
  auto dump = reader.read();
  if (!dump && error) *error = reader.error();
  return dump;
}

}  // namespace nsspice::solvers
