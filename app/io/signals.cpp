#include "app/io/signals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "netlist/suggest.hpp"

namespace nsspice::app {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split_signals(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      if (!cur.empty()) out.push_back(lower(cur));
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(lower(cur));
  return out;
}

SignalKind signal_kind(std::string_view name) {
  if (name.size() > 2 && name[1] == '(') {
    if (name[0] == 'v' || name[0] == 'V') return SignalKind::kVoltage;
    if (name[0] == 'i' || name[0] == 'I') return SignalKind::kCurrent;
  }
  return SignalKind::kOther;
}

const char* raw_type(SignalKind kind) {
  switch (kind) {
    case SignalKind::kVoltage:
      return "voltage";
    case SignalKind::kCurrent:
      return "current";
    case SignalKind::kOther:
      break;
  }
  return "unknown";
}

const char* unit_of(SignalKind kind) {
  switch (kind) {
    case SignalKind::kVoltage:
      return "V";
    case SignalKind::kCurrent:
      return "A";
    case SignalKind::kOther:
      break;
  }
  return "";
}

std::optional<std::vector<size_t>> select_signals(const std::vector<std::string>& wanted,
                                                  const std::vector<std::string>& names,
                                                  std::string_view option, std::string& error) {
  std::vector<size_t> idx;
  for (const auto& name : wanted) {
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      error = fmt::format("unknown signal '{}' in {}{}", name, option,
                          netlist::did_you_mean(name, names));
      return std::nullopt;
    }
    idx.push_back(static_cast<size_t>(it - names.begin()));
  }
  return idx;
}

}  // namespace nsspice::app

namespace nsspice::app {

std::vector<size_t> DerivedColumn::inputs() const {
  std::vector<size_t> out;
  for (const auto* list : {&terms, &rates, &factor})
    for (const auto& [column, coef] : *list)
      if (column >= 0) out.push_back(static_cast<size_t>(column));
  return out;
}

std::vector<DerivedColumn> differential_columns(const std::vector<std::string>& wanted,
                                                const std::vector<std::string>& names) {
  std::vector<DerivedColumn> out;
  auto column = [&](const std::string& node, long& index) {
    if (node == "0" || node == "gnd") {
      index = -1;
      return true;
    }
    auto it = std::find(names.begin(), names.end(), "v(" + node + ")");
    if (it == names.end()) return false;
    index = static_cast<long>(it - names.begin());
    return true;
  };
  for (const auto& w : wanted) {
    if (std::find(names.begin(), names.end(), w) != names.end()) continue;
    if (w.size() < 6 || w.rfind("v(", 0) != 0 || w.back() != ')') continue;
    const auto comma = w.find(',');
    if (comma == std::string::npos) continue;
    long plus = -1, minus = -1;
    if (!column(w.substr(2, comma - 2), plus) ||
        !column(w.substr(comma + 1, w.size() - comma - 2), minus))
      continue;
    if (std::none_of(out.begin(), out.end(), [&](const auto& o) { return o.name == w; }))
      out.push_back(DerivedColumn{w, {{plus, 1.0}, {minus, -1.0}}, {}, {}, {}});
  }
  return out;
}

DerivedEvaluator::DerivedEvaluator(std::vector<DerivedColumn> columns)
    : columns_(std::move(columns)) {
  size_t n_rates = 0;
  for (const auto& c : columns_) n_rates += c.rates.size();
  last_rate_.assign(n_rates, std::numeric_limits<double>::quiet_NaN());
  has_rates_ = n_rates > 0;
}

void DerivedEvaluator::append(double t, std::span<const double> now, double t0,
                              std::span<const double> before, double t1,
                              std::span<const double> after, std::vector<double>& out) {
  auto at = [](std::span<const double> row, long k) {
    return k >= 0 ? row[static_cast<size_t>(k)] : 0.0;
  };
  size_t r = 0;
  for (const auto& c : columns_) {
    double value = c.wave ? circuit::waveform_value(*c.wave, t) : 0.0;
    for (const auto& [k, coef] : c.terms) value += coef * at(now, k);
    for (const auto& [k, coef] : c.rates) {
      if (t1 > t0) last_rate_[r] = (at(after, k) - at(before, k)) / (t1 - t0);
      value += coef * last_rate_[r++];
    }
    if (!c.factor.empty()) {
      double f = 0;
      for (const auto& [k, coef] : c.factor) f += coef * at(now, k);
      value *= f;
    }
    out.push_back(value);
  }
}

void DerivedSink::row(double t, std::span<const double> values) {
  const long n = rows_++;
  if (eval_.has_rates() && n == 0) {  // the first row's rates need the second row
    previous_.assign(values.begin(), values.end());
    t_previous_ = t;
    return;
  }
  if (eval_.has_rates() && n == 1) {
    buffer_.assign(previous_.begin(), previous_.end());
    eval_.append(t_previous_, previous_, t_previous_, previous_, t, values, buffer_);
    out_.row(t_previous_, buffer_);
  }
  buffer_.assign(values.begin(), values.end());
  eval_.append(t, values, t_previous_, previous_, t, values, buffer_);
  out_.row(t, buffer_);
  if (eval_.has_rates()) {
    previous_.assign(values.begin(), values.end());
    t_previous_ = t;
  }
}

void DerivedSink::finish() {
  if (eval_.has_rates() && rows_ == 1) {  // a single row: no rate to be had (NaN)
    buffer_.assign(previous_.begin(), previous_.end());
    eval_.append(t_previous_, previous_, t_previous_, previous_, t_previous_, previous_, buffer_);
    out_.row(t_previous_, buffer_);
    rows_ = 2;
  }
  out_.finish();
}

void add_columns(Waveforms& w, const std::vector<DerivedColumn>& columns) {
  DerivedEvaluator eval(columns);
  const size_t n = w.points();
  std::vector<double> now(w.names.size()), before(now.size()), after(now.size()), values;
  std::vector<std::vector<double>> extra(columns.size());
  auto read = [&](size_t i, std::vector<double>& row) {
    for (size_t k = 0; k < row.size(); ++k) row[k] = w.columns[k][i];
  };
  for (size_t i = 0; i < n; ++i) {
    const size_t i0 = i == 0 ? 0 : i - 1, i1 = i == 0 ? std::min<size_t>(1, n - 1) : i;
    read(i, now);
    read(i0, before);
    read(i1, after);
    values.clear();
    eval.append(w.time[i], now, w.time[i0], before, w.time[i1], after, values);
    for (size_t c = 0; c < columns.size(); ++c) extra[c].push_back(values[c]);
  }
  for (size_t c = 0; c < columns.size(); ++c) {
    w.names.push_back(columns[c].name);
    w.columns.push_back(std::move(extra[c]));
  }
}

}  // namespace nsspice::app
