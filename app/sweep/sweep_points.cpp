// The runs of a sweep and of a Monte Carlo analysis (sweep_points.hpp states the rules).
#include "app/sweep/sweep_points.hpp"

#include <fmt/format.h>

#include <cmath>

#include "netlist/units.hpp"

namespace nsspice::app {
namespace {

using Scale = netlist::StepCard::Scale;
using Target = netlist::StepCard::Target;

// start + k·incr up to stop (inclusive within 1e-9·|incr|).
std::optional<std::vector<double>> linear(double start, double stop, double incr,
                                          std::string& error) {
  if (!(incr != 0) || !std::isfinite(incr) || (stop - start) * incr < 0) {
    error = fmt::format("the increment {:g} does not lead from {:g} to {:g}", incr, start, stop);
    return std::nullopt;
  }
  const double count = std::floor((stop - start) / incr + 1e-9) + 1;
  if (!(count <= static_cast<double>(kMaxRuns))) {
    error = fmt::format("{:g} to {:g} by {:g} is {:.0f} points (at most {})", start, stop, incr,
                        count, kMaxRuns);
    return std::nullopt;
  }
  std::vector<double> out;
  for (std::size_t k = 0; k < static_cast<std::size_t>(count); ++k)
    out.push_back(start + static_cast<double>(k) * incr);
  return out;
}

// start·base^(k/n) up to stop.
std::optional<std::vector<double>> logarithmic(double start, double stop, double n, double base,
                                               std::string& error) {
  if (!(start > 0) || !(stop >= start) || !(n >= 1) || n != std::floor(n)) {
    error = fmt::format(
        "a logarithmic sweep needs 0 < start ≤ stop and a whole number of points "
        "≥ 1 (got {:g} {:g} {:g})",
        start, stop, n);
    return std::nullopt;
  }
  const double count = std::floor(n * std::log(stop / start) / std::log(base) + 1e-9) + 1;
  if (!(count <= static_cast<double>(kMaxRuns))) {
    error = fmt::format("{:g} to {:g} is {:.0f} points (at most {})", start, stop, count, kMaxRuns);
    return std::nullopt;
  }
  std::vector<double> out;
  for (std::size_t k = 0; k < static_cast<std::size_t>(count); ++k)
    out.push_back(start * std::pow(base, static_cast<double>(k) / n));
  return out;
}

// SplitMix64: a well-mixed 64-bit value from a 64-bit one.
std::uint64_t split_mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::optional<SweepDimension> dimension_of(const netlist::StepCard& card, std::string& error) {
  SweepDimension d;
  d.target = card.target;
  d.name = card.name.lower;
  d.label = card.name.lower;
  if (card.model_param) {
    d.model_param = card.model_param->lower;
    d.label = fmt::format("{}({})", d.name, d.model_param);
  }
  std::vector<double> v;
  for (const auto& x : card.values) v.push_back(x.value);
  std::optional<std::vector<double>> values;
  switch (card.scale) {
    case Scale::kList:
      values = v;
      break;
    case Scale::kLin:
      values = linear(v[0], v[1], v[2], error);
      break;
    case Scale::kDec:
      values = logarithmic(v[0], v[1], v[2], 10.0, error);
      break;
    case Scale::kOct:
      values = logarithmic(v[0], v[1], v[2], 2.0, error);
      break;
  }
  if (!values) {
    error = fmt::format(".step {}: {}", d.label, error);
    return std::nullopt;
  }
  d.values = std::move(*values);
  return d;
}

std::optional<SweepDimension> dimension_of(const std::string& option, std::string& error) {
  const auto eq = option.find('=');
  SweepDimension d;
  if (eq == std::string::npos || eq == 0) {
    error = fmt::format("--step-param '{}': expected NAME=v1,v2,... (e.g. rload=10,20,50)", option);
    return std::nullopt;
  }
  for (char c : option.substr(0, eq))
    d.name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  d.label = d.name;
  std::string rest = option.substr(eq + 1);
  std::size_t from = 0;
  while (from <= rest.size()) {
    std::size_t comma = rest.find(',', from);
    if (comma == std::string::npos) comma = rest.size();
    const std::string text = rest.substr(from, comma - from);
    const auto v = netlist::parse_spice_number(text);
    if (!v) {
      error = fmt::format("--step-param {}: '{}' is not a number", d.name, text);
      return std::nullopt;
    }
    d.values.push_back(*v);
    from = comma + 1;
  }
  return d;
}

std::optional<std::pair<std::size_t, std::size_t>> parse_run_range(const std::string& text,
                                                                   std::string& error) {
  auto whole = [](const std::string& s) -> std::optional<std::size_t> {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    const std::size_t v = std::stoul(s);
    return v >= 1 ? std::optional<std::size_t>(v) : std::nullopt;
  };
  const auto colon = text.find(':');
  const auto a = whole(text.substr(0, colon));
  const auto b = colon == std::string::npos ? a : whole(text.substr(colon + 1));
  if (!a || !b || *b < *a) {
    error = fmt::format(
        "'{}': expected a run number K or a range A:B of them (1 ≤ A ≤ B), e.g. 437 or 10:20",
        text);
    return std::nullopt;
  }
  return std::make_pair(*a, *b);
}

std::optional<std::vector<SweepRun>> sweep_runs(const std::vector<SweepDimension>& dims,
                                                std::size_t trials, std::string& error) {
  if (dims.size() > kMaxDimensions) {
    error = fmt::format("{} sweep dimensions (.step cards and --step-param): at most {} nest",
                        dims.size(), kMaxDimensions);
    return std::nullopt;
  }
  double total = static_cast<double>(std::max<std::size_t>(trials, 1));
  for (const auto& d : dims) total *= static_cast<double>(d.values.size());
  if (!(total <= static_cast<double>(kMaxRuns))) {
    error = fmt::format("the sweep has {:.0f} runs (at most {})", total, kMaxRuns);
    return std::nullopt;
  }
  std::vector<SweepRun> runs;
  std::vector<std::size_t> at(dims.size(), 0);
  const std::size_t n = static_cast<std::size_t>(total);
  for (std::size_t k = 0; k < n; ++k) {
    SweepRun r;
    r.index = k;
    r.trial = k % std::max<std::size_t>(trials, 1);
    std::size_t point = k / std::max<std::size_t>(trials, 1);
    for (std::size_t j = dims.size(); j-- > 0;) {  // the last dimension varies fastest
      at[j] = point % dims[j].values.size();
      point /= dims[j].values.size();
    }
    for (std::size_t j = 0; j < dims.size(); ++j) r.values.push_back(dims[j].values[at[j]]);
    runs.push_back(std::move(r));
  }
  return runs;
}

RunRandom::RunRandom(std::uint64_t seed, std::size_t trial)
    : engine_(split_mix(split_mix(seed) ^ split_mix(0x5eed0000ULL + trial))) {}

double RunRandom::operator()(bool normal) { return normal ? normal_(engine_) : uniform_(engine_); }

}  // namespace nsspice::app
