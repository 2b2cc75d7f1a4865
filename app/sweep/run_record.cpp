// The bytes of a RunRecord (run_record.hpp states the layout).
#include "app/sweep/run_record.hpp"

#include <cstdint>
#include <cstring>

namespace nsspice::app {
namespace {

class Writer {
 public:
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void str(const std::string& s) {
    u64(s.size());
    out_ += s;
  }
  void opt(const std::optional<double>& v) {
    u64(v ? 1 : 0);
    f64(v.value_or(0));
  }
  std::string take() { return std::move(out_); }

 private:
  void raw(const void* p, std::size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool u64(std::uint64_t& v) { return raw(&v, sizeof v); }
  bool f64(double& v) { return raw(&v, sizeof v); }
  bool str(std::string& s) {
    std::uint64_t n = 0;
    if (!u64(n) || n > in_.size() - at_) return false;
    s.assign(in_.substr(at_, n));
    at_ += n;
    return true;
  }
  bool opt(std::optional<double>& v) {
    std::uint64_t has = 0;
    double x = 0;
    if (!u64(has) || !f64(x) || has > 1) return false;
    v = has ? std::optional<double>(x) : std::nullopt;
    return true;
  }
  // A count of items each at least `min_bytes` long (a corrupt count cannot allocate much).
  bool count(std::uint64_t& n, std::size_t min_bytes) {
    return u64(n) && n <= (in_.size() - at_) / min_bytes;
  }
  bool done() const { return at_ == in_.size(); }

 private:
  bool raw(void* p, std::size_t n) {
    if (in_.size() - at_ < n) return false;
    std::memcpy(p, in_.data() + at_, n);
    at_ += n;
    return true;
  }
  std::string_view in_;
  std::size_t at_ = 0;
};

void put(Writer& w, const MeasureResult& m) {
  w.str(m.name);
  w.str(m.text);
  w.opt(m.value);
  w.opt(m.at);
  w.str(m.unit);
  w.str(m.failure);
}

bool get(Reader& r, MeasureResult& m) {
  return r.str(m.name) && r.str(m.text) && r.opt(m.value) && r.opt(m.at) && r.str(m.unit) &&
         r.str(m.failure);
}

}  // namespace

std::string encode(const RunRecord& record) {
  Writer w;
  w.u64(record.ran ? 1 : 0);
  w.u64(static_cast<std::uint64_t>(static_cast<std::int64_t>(record.code)));
  w.str(record.message);
  w.str(record.diagnostics);
  w.u64(record.measures.size());
  for (const auto& m : record.measures) put(w, m);
  w.u64(record.warnings.size());
  for (const auto& s : record.warnings) w.str(s);
  w.u64(record.drawn.size());
  for (const auto& [name, value] : record.drawn) {
    w.str(name);
    w.f64(value);
  }
  w.u64(static_cast<std::uint64_t>(static_cast<std::int64_t>(record.rows)));
  w.f64(record.t_end);
  w.u64(record.rows_hash);
  w.u64(static_cast<std::uint64_t>(record.assembly));
  w.u64(record.shared_analysis ? 1 : 0);
  w.u64(static_cast<std::uint64_t>(record.flatten));
  w.str(record.rebuilt_because);
  return w.take();
}

std::optional<RunRecord> decode(std::string_view bytes) {
  Reader r(bytes);
  RunRecord out;
  std::uint64_t ran = 0, code = 0, n = 0, rows = 0, assembly = 0, shared = 0, flatten = 0;
  if (!r.u64(ran) || ran > 1 || !r.u64(code) || !r.str(out.message) || !r.str(out.diagnostics))
    return std::nullopt;
  out.ran = ran == 1;
  out.code = static_cast<int>(static_cast<std::int64_t>(code));
  constexpr std::size_t kMinMeasure = 6 * 8;
  if (!r.count(n, kMinMeasure)) return std::nullopt;
  out.measures.resize(n);
  for (auto& m : out.measures)
    if (!get(r, m)) return std::nullopt;
  if (!r.count(n, 8)) return std::nullopt;
  out.warnings.resize(n);
  for (auto& s : out.warnings)
    if (!r.str(s)) return std::nullopt;
  if (!r.count(n, 2 * 8)) return std::nullopt;
  out.drawn.resize(n);
  for (auto& [name, value] : out.drawn)
    if (!r.str(name) || !r.f64(value)) return std::nullopt;
  if (!r.u64(rows) || !r.f64(out.t_end) || !r.u64(out.rows_hash) || !r.u64(assembly) ||
      assembly > 2 || !r.u64(shared) || shared > 1 || !r.u64(flatten) || flatten > 2 ||
      !r.str(out.rebuilt_because) || !r.done())
    return std::nullopt;
  out.rows = static_cast<long>(static_cast<std::int64_t>(rows));
  out.assembly = static_cast<int>(assembly);
  out.shared_analysis = shared == 1;
  out.flatten = static_cast<int>(flatten);
  return out;
}

}  // namespace nsspice::app
