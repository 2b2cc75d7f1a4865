#pragma once
// Signal names as the user writes them ("v(out)", "i(d1)"): splitting lists, selecting columns,
// telling voltages from currents.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/io/waveforms.hpp"
#include "circuit/waveform.hpp"

namespace nsspice::app {

std::string lower(std::string s);

// Splits "v(a),i(d1)" at commas outside parentheses; blanks removed, names lower-cased.
std::vector<std::string> split_signals(std::string_view text);

enum class SignalKind { kVoltage, kCurrent, kOther };
// "v(...)" → voltage, "i(...)" → current, anything else → other.
SignalKind signal_kind(std::string_view name);
// "voltage" / "current" / "unknown": the type column of a SPICE raw file.
const char* raw_type(SignalKind kind);
// "V", "A", "".
const char* unit_of(SignalKind kind);

// Indices of `wanted` in `names`. On an unknown name: nullopt and `error` says which one
// (with a did-you-mean suggestion), phrased for the option `option`.
std::optional<std::vector<size_t>> select_signals(const std::vector<std::string>& wanted,
                                                  const std::vector<std::string>& names,
                                                  std::string_view option, std::string& error);

}  // namespace nsspice::app

namespace nsspice::app {

// A signal computed from the others (column indices of a row; −1 stands for ground, 0 V):
//   value = (Σ a_k u_k + Σ c_k Δu_k/Δt + wave(t)) · (factor empty ? 1 : Σ f_k u_k)
// Δu/Δt is the difference quotient between consecutive rows: from the previous row, and for the
// first row from the next one; a repeated time (a jump) keeps the quotient of the step before.
// Examples: v(a,b) = u_a − u_b; i(C1) = C Δ(v(a) − v(b))/Δt; p(R1) = (v(a) − v(b))²/R.
struct DerivedColumn {
  std::string name;
  std::vector<std::pair<long, double>> terms, rates, factor;
  std::optional<circuit::Waveform> wave;
  // The columns it reads.
  std::vector<size_t> inputs() const;
};

// The v(a,b) among `wanted` that `names` lacks but can compute (a, b: nodes, or 0/gnd).
std::vector<DerivedColumn> differential_columns(const std::vector<std::string>& wanted,
                                                const std::vector<std::string>& names);

// Values of derived columns, row after row (it keeps the previous row for the rates).
class DerivedEvaluator {
 public:
  explicit DerivedEvaluator(std::vector<DerivedColumn> columns);
  bool has_rates() const { return has_rates_; }
  // Appends the columns' values at (t, now) to `out`, rates taken between (t0, before) and
  // (t1, after) (for a row after the first: the previous row and this one).
  void append(double t, std::span<const double> now, double t0, std::span<const double> before,
              double t1, std::span<const double> after, std::vector<double>& out);

 private:
  std::vector<DerivedColumn> columns_;
  std::vector<double> last_rate_;  // per column and rate term, for a repeated time
  bool has_rates_ = false;
};

// Appends the derived columns to every row. With rates, the first row waits for the second.
class DerivedSink : public RowSink {
 public:
  DerivedSink(RowSink& out, std::vector<DerivedColumn> columns)
      : out_(out), eval_(std::move(columns)) {}
  void row(double t, std::span<const double> values) override;
  void finish() override;

 private:
  RowSink& out_;
  DerivedEvaluator eval_;
  std::vector<double> buffer_, previous_;
  double t_previous_ = 0;
  long rows_ = 0;
};

// Adds the derived columns to waveforms in memory.
void add_columns(Waveforms& w, const std::vector<DerivedColumn>& columns);

}  // namespace nsspice::app
