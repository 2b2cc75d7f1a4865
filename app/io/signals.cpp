#include "app/io/signals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

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
    DerivedColumn d{w, -1, -1};
    if (!column(w.substr(2, comma - 2), d.plus) ||
        !column(w.substr(comma + 1, w.size() - comma - 2), d.minus))
      continue;
    if (std::none_of(out.begin(), out.end(), [&](const auto& o) { return o.name == w; }))
      out.push_back(d);
  }
  return out;
}

void DerivedSink::row(double t, std::span<const double> values) {
  buffer_.assign(values.begin(), values.end());
  for (const auto& c : columns_) buffer_.push_back(c.value(values));
  out_.row(t, buffer_);
}

void add_columns(Waveforms& w, const std::vector<DerivedColumn>& columns) {
  std::vector<double> row(w.names.size());
  std::vector<std::vector<double>> extra(columns.size());
  for (size_t i = 0; i < w.points(); ++i) {
    for (size_t k = 0; k < row.size(); ++k) row[k] = w.columns[k][i];
    for (size_t c = 0; c < columns.size(); ++c) extra[c].push_back(columns[c].value(row));
  }
  for (size_t c = 0; c < columns.size(); ++c) {
    w.names.push_back(columns[c].name);
    w.columns.push_back(std::move(extra[c]));
  }
}

}  // namespace nsspice::app
