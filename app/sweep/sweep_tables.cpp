// The tables of a sweep (sweep_tables.hpp states what they hold).
#include "app/sweep/sweep_tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "netlist/units.hpp"

namespace nsspice::app {
namespace {

struct Moments {
  double mean = NAN, sd = NAN, min = NAN, max = NAN;
};

Moments moments(const std::vector<double>& v) {
  Moments m;
  if (v.empty()) return m;
  double sum = 0;
  for (double x : v) sum += x;
  m.mean = sum / static_cast<double>(v.size());
  double var = 0;
  for (double x : v) var += (x - m.mean) * (x - m.mean);
  if (v.size() > 1) m.sd = std::sqrt(var / static_cast<double>(v.size() - 1));
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  m.min = *lo;
  m.max = *hi;
  return m;
}

}  // namespace

std::optional<Spec> parse_spec(const std::string& text, std::string& error) {
  std::istringstream in(text);
  std::string name, lo, hi, extra;
  in >> name >> lo >> hi;
  const auto a = netlist::parse_spice_number(lo), b = netlist::parse_spice_number(hi);
  if (name.empty() || !a || !b || (in >> extra) || !(*a <= *b)) {
    error = fmt::format(
        "--spec '{}': expected 'MEASUREMENT LO HI' with LO ≤ HI, e.g. 'vavg 4.9 5.1'", text);
    return std::nullopt;
  }
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return Spec{name, *a, *b};
}

const char* run_status(const RunRecord& r) {
  constexpr int kStopped = 2;  // the simulation stopped (docs/output.md)
  if (!r.ran) return "not run";
  if (r.code == 0) return "ok";
  if (r.code == kStopped) return "stopped";
  return r.code > 128 ? "interrupted" : "failed";
}

std::vector<std::string> measure_names(const std::vector<RunRecord>& records) {
  std::vector<std::string> names;
  for (const auto& r : records)
    for (const auto& m : r.measures)
      if (std::find(names.begin(), names.end(), m.name) == names.end()) names.push_back(m.name);
  return names;
}

std::vector<double> measure_values(const std::vector<RunRecord>& records, const std::string& name) {
  std::vector<double> v;
  for (const auto& r : records)
    for (const auto& m : r.measures)
      if (m.name == name && m.value && r.ran && r.code == 0) v.push_back(*m.value);
  return v;
}

std::vector<std::string> drawn_names(const std::vector<RunRecord>& records) {
  std::vector<std::string> names;
  std::unordered_set<std::string_view> seen;  // (a linear search was quadratic in the draws)
  for (const auto& r : records)
    for (const auto& [name, value] : r.drawn)
      if (seen.insert(name).second) names.push_back(name);
  return names;
}

std::string meas_csv(const std::vector<SweepDimension>& dims, const std::vector<SweepRun>& runs,
                     const std::vector<RunRecord>& records, bool monte_carlo) {
  const auto names = measure_names(records);
  const auto drawn = drawn_names(records);
  std::unordered_map<std::string_view, std::size_t> column;  // drawn name → its column
  for (std::size_t j = 0; j < drawn.size(); ++j) column.emplace(drawn[j], j);
  std::vector<const double*> row(drawn.size());
  std::string out = "run";
  auto to = std::back_inserter(out);
  if (monte_carlo) out += ",trial";
  for (const auto& d : dims) fmt::format_to(to, ",{}", d.label);
  for (const auto& d : drawn) fmt::format_to(to, ",{}", d);
  out += ",status";
  for (const auto& m : names) fmt::format_to(to, ",{}", m);
  out += '\n';
  for (std::size_t k = 0; k < runs.size(); ++k) {
    fmt::format_to(to, "{}", runs[k].index + 1);
    if (monte_carlo) fmt::format_to(to, ",{}", runs[k].trial + 1);
    for (double v : runs[k].values) fmt::format_to(to, ",{}", v);  // shortest exact form
    std::fill(row.begin(), row.end(), nullptr);  // empty when the run failed before drawing it
    for (const auto& [n, v] : records[k].drawn)
      if (const double*& cell = row[column.at(n)]; cell == nullptr) cell = &v;  // the first
    for (const double* v : row) {
      out += ',';
      if (v != nullptr) fmt::format_to(to, "{}", *v);
    }
    fmt::format_to(to, ",{}", run_status(records[k]));
    for (const auto& name : names) {
      out += ',';
      for (const auto& m : records[k].measures)
        if (m.name == name && m.value) fmt::format_to(to, "{}", *m.value);
    }
    out += '\n';
  }
  return out;
}

std::string summary_table(const std::vector<RunRecord>& records, const std::vector<Spec>& specs) {
  const auto names = measure_names(records);
  if (names.empty()) return {};
  std::string text = fmt::format("  {:<16} {:>6} {:>13} {:>13} {:>13} {:>13} {:>9}\n",
                                 "measurement", "runs", "mean", "std dev", "min", "max", "yield");
  for (const auto& name : names) {
    const std::vector<double> v = measure_values(records, name);
    const Moments m = moments(v);
    std::string yield = "-";
    for (const auto& s : specs) {
      if (s.name != name) continue;
      const auto in =
          std::count_if(v.begin(), v.end(), [&](double x) { return x >= s.lo && x <= s.hi; });
      yield = fmt::format("{:.1f} %",
                          100.0 * static_cast<double>(in) / static_cast<double>(records.size()));
    }
    text += fmt::format("  {:<16} {:>6} {:>13.6g} {:>13.6g} {:>13.6g} {:>13.6g} {:>9}\n", name,
                        v.size(), m.mean, m.sd, m.min, m.max, yield);
  }
  // Why a measurement has no value in runs that completed (a crossing never met, a window
  // outside the rows): the count and the first reason, not only a smaller n (or nan).
  for (const auto& name : names) {
    std::size_t failed = 0, completed = 0;
    const std::string* why = nullptr;
    for (const auto& r : records) {
      if (!r.ran || r.code != 0) continue;
      ++completed;
      for (const auto& m : r.measures)
        if (m.name == name && !m.value) {
          ++failed;
          if (why == nullptr) why = &m.failure;
        }
    }
    if (failed > 0)
      text += fmt::format("  {} failed in {} of the {} runs that completed: {}\n", name, failed,
                          completed, why != nullptr ? *why : std::string());
  }
  return text;
}

std::vector<std::string> no_effect_warnings(const std::vector<SweepDimension>& dims,
                                            const std::vector<SweepRun>& runs,
                                            const std::vector<RunRecord>& records) {
  std::vector<std::string> out;
  for (std::size_t j = 0; j < dims.size(); ++j) {
    // (trial, the other dimensions' values) → the first completed run of the group.
    std::map<std::pair<std::size_t, std::vector<double>>, std::size_t> first;
    std::optional<std::pair<std::size_t, std::size_t>> same;  // two runs that agree
    bool changed = false;
    for (std::size_t k = 0; k < runs.size() && !changed; ++k) {
      if (!records[k].ran || records[k].code != 0) continue;
      std::vector<double> others = runs[k].values;
      others.erase(others.begin() + static_cast<std::ptrdiff_t>(j));
      const auto [it, fresh] = first.try_emplace({runs[k].trial, std::move(others)}, k);
      if (fresh || runs[it->second].values[j] == runs[k].values[j]) continue;
      if (records[it->second].rows_hash != records[k].rows_hash)
        changed = true;
      else if (!same)
        same = std::make_pair(it->second, k);
    }
    if (changed || !same) continue;
    const auto [a, b] = *same;
    out.push_back(fmt::format(
        ".step {0}: the runs that differ only in {0} have the same waveforms, bit for bit (runs "
        "{1} and {2}: {0}={3:g} and {0}={4:g}): stepping it changes nothing in this simulation "
        "(a source's DC value under SIN(...) or PULSE(...), a parameter nothing uses, ...)",
        dims[j].label, runs[a].index + 1, runs[b].index + 1, runs[a].values[j], runs[b].values[j]));
  }
  return out;
}

std::optional<Histogram> histogram(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  const auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  const double lo = *lo_it, hi = *hi_it;
  if (!(hi > lo) || !std::isfinite(hi - lo)) return std::nullopt;
  const double n = static_cast<double>(values.size());
  const auto k = static_cast<std::size_t>(std::clamp(std::ceil(2 * std::cbrt(n)), 5.0, 50.0));
  Histogram h;
  h.counts.assign(k, 0);
  for (std::size_t i = 0; i <= k; ++i)
    h.edges.push_back(i == k ? hi
                             : lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(k));
  for (double x : values) {
    const auto bin = static_cast<std::size_t>((x - lo) / (hi - lo) * static_cast<double>(k));
    ++h.counts[std::min(bin, k - 1)];
  }
  return h;
}

}  // namespace nsspice::app
