#include "app/compare/compare_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "app/io/signals.hpp"
#include "app/plot/plot_gnuplot.hpp"
#include "app/plot/plot_layout.hpp"

namespace nsspice::app {
namespace {

std::string events_text(const SignalDiff& d) {
  if (!d.switching) return "";
  return fmt::format("{}/{}", d.ref_events.size(), d.other_events.size());
}

std::string peer_line(const PeerRun& p) {
  std::string s = fmt::format("{} wall, {} points", eng(p.wall_seconds, "s"), p.points);
  if (p.failed)
    s += fmt::format("; FAILED at t = {}: {}", eng(p.t_end, "s"), p.failure);
  else
    s += ", completed";
  return s;
}

using Json = nlohmann::ordered_json;

Json number(double v) { return std::isfinite(v) ? Json(v) : Json(); }

Json number_list(const std::vector<double>& v) {
  Json out = Json::array();
  for (double x : v) out.push_back(number(x));
  return out;
}

Json json_peer(const PeerRun& p) {
  return {{"wall_seconds", number(p.wall_seconds)},
          {"points", p.points},
          {"failed", p.failed},
          {"t_end", number(p.t_end)},
          {"failure", p.failure},
          {"problems", p.problems}};
}

Json json_diff(const SignalDiff& d) {
  Json s = {{"name", d.name},       {"max_abs", number(d.max_abs)}, {"t_max", number(d.t_max)},
            {"rms", number(d.rms)}, {"rel", number(d.rel)},         {"scale", number(d.scale)}};
  if (d.switching) {
    std::vector<double> a, b;
    for (const auto& e : d.ref_events) a.push_back(e.t);
    for (const auto& e : d.other_events) b.push_back(e.t);
    s["switching"] = {{"threshold", number(d.threshold)},   {"nsspice", number_list(a)},
                      {"ngspice", number_list(b)},          {"offsets", number_list(d.offsets)},
                      {"max_offset", number(d.max_offset)}, {"mean_offset", number(d.mean_offset)}};
  }
  return s;
}

}  // namespace

std::string eng(double v, const std::string& unit) {
  if (!std::isfinite(v)) return fmt::format("{} {}", v, unit);
  if (v == 0) return "0 " + unit;
  static constexpr const char* kPrefix[] = {"f", "p", "n", "µ", "m", "", "k", "M", "G"};
  int e3 = static_cast<int>(std::floor(std::log10(std::abs(v)) / 3));
  e3 = std::clamp(e3, -5, 3);
  const double m = v / std::pow(1000.0, e3);
  return fmt::format("{:.3g} {}{}", m, kPrefix[e3 + 5], unit);
}

std::string format_compare(const CompareResult& r) {
  std::string out;
  auto o = std::back_inserter(out);
  fmt::format_to(o, "compare: {} ({})\n", r.netlist, r.title);
  fmt::format_to(o, "  {:<10} diode {}; switch {}; .options {}\n", "SPICE", r.diode_model,
                 r.switch_model, r.options);
  fmt::format_to(o, "  {:<10} {} (in-process; h = {}, theta = {})\n", "nsspice",
                 peer_line(r.nsspice), eng(r.h, "s"), r.theta);
  fmt::format_to(o, "  {:<10} {} (the process)\n", "ngspice", peer_line(r.ngspice));
  if (r.nsspice.wall_seconds > 0)
    fmt::format_to(o, "  {:<10} ngspice / nsspice wall time = {:.3g}\n", "ratio",
                   r.ngspice.wall_seconds / r.nsspice.wall_seconds);
  if (!r.grid.empty())
    fmt::format_to(o, "  {:<10} {} points, t = {} .. {}\n", "grid", r.grid.size(),
                   eng(r.grid.front(), "s"), eng(r.grid.back(), "s"));
  for (size_t i = 0; i < r.ngspice.problems.size() && i < 8; ++i)
    fmt::format_to(o, "  {:<10} {}\n", i ? "" : "ngspice says", r.ngspice.problems[i]);
  if (r.ngspice.problems.size() > 8)
    fmt::format_to(o, "  {:<10} ... {} more lines in the log\n", "", r.ngspice.problems.size() - 8);
  for (const auto& n : r.notes) fmt::format_to(o, "  {:<10} {}\n", "note", n);
  fmt::format_to(o, "\n  {:<12} {:>11} {:>11} {:>11} {:>9}  {:>9} {:>11} {:>11}\n", "signal",
                 "max|err|", "at t", "rms err", "rel err", "switches", "max offset", "mean offset");
  for (const auto& d : r.diffs) {
    const std::string unit = unit_of(signal_kind(d.name));
    fmt::format_to(o, "  {:<12} {:>11} {:>11} {:>11} {:>9.2e}  {:>9} {:>11} {:>11}\n", d.name,
                   eng(d.max_abs, unit), eng(d.t_max, "s"), eng(d.rms, unit), d.rel, events_text(d),
                   d.switching && !d.offsets.empty() ? eng(d.max_offset, "s") : "",
                   d.switching && !d.offsets.empty() ? eng(d.mean_offset, "s") : "");
  }
  out +=
      "  (err = ngspice − nsspice on the grid; rel err = max|err| / max|nsspice|; switches: "
      "crossings of |i| through the threshold, nsspice/ngspice; offset = ngspice − nsspice)\n";
  if (!r.meas_nsspice.empty()) {
    fmt::format_to(o, "\n  {:<18} {:>14} {:>14} {:>14}\n", "measurement", "nsspice", "ngspice",
                   "difference");
    for (size_t i = 0; i < r.meas_nsspice.size(); ++i) {
      const auto& a = r.meas_nsspice[i];
      const auto& b = r.meas_ngspice[i];
      auto val = [&](const MeasureResult& m) {
        return m.value ? eng(*m.value, m.unit) : std::string("failed");
      };
      fmt::format_to(o, "  {:<18} {:>14} {:>14} {:>14}   ({})\n", a.name, val(a), val(b),
                     a.value && b.value ? eng(*b.value - *a.value, a.unit) : "", a.text);
    }
  }
  if (!r.sweep.empty()) {
    out += "\n  ideality sweep: max|err| per signal as the SPICE diode gets more ideal\n";
    fmt::format_to(o, "  {:>6} {:>10} {:>8}", "N", "ngspice", "points");
    for (const auto& d : r.sweep.front().diffs) fmt::format_to(o, " {:>11}", d.name);
    out += "  status\n";
    for (const auto& row : r.sweep) {
      fmt::format_to(o, "  {:>6g} {:>10} {:>8}", row.n, eng(row.ngspice.wall_seconds, "s"),
                     row.ngspice.points);
      for (const auto& d : row.diffs)
        fmt::format_to(o, " {:>11}", eng(d.max_abs, unit_of(signal_kind(d.name))));
      out += row.ngspice.failed ? fmt::format("  failed at t = {}: {}\n",
                                              eng(row.ngspice.t_end, "s"), row.ngspice.failure)
                                : std::string("  ok\n");
    }
  }
  if (!r.files.empty()) {
    out += "\n  files:";
    for (const auto& f : r.files) out += " " + f;
    out += "\n";
  }
  return out;
}

std::string compare_json(const CompareResult& r) {
  Json j = {{"netlist", r.netlist},
            {"title", r.title},
            {"diode_model", r.diode_model},
            {"switch_model", r.switch_model},
            {"options", r.options},
            {"h", number(r.h)},
            {"theta", number(r.theta)},
            {"nsspice", json_peer(r.nsspice)},
            {"ngspice", json_peer(r.ngspice)},
            {"grid_points", r.grid.size()}};
  j["signals"] = Json::array();
  for (const auto& d : r.diffs) j["signals"].push_back(json_diff(d));
  j["measurements"] = {{"nsspice", measures_json_value(r.meas_nsspice)},
                       {"ngspice", measures_json_value(r.meas_ngspice)}};
  j["sweep"] = Json::array();
  for (const auto& row : r.sweep) {
    Json signals = Json::array();
    for (const auto& d : row.diffs)
      signals.push_back({{"name", d.name}, {"max_abs", number(d.max_abs)}, {"rms", number(d.rms)}});
    j["sweep"].push_back({{"n", number(row.n)},
                          {"diode_model", row.diode_model},
                          {"ngspice", json_peer(row.ngspice)},
                          {"signals", std::move(signals)}});
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string write_compare_plot(const CompareResult& r, const Waveforms& ns, const Waveforms& ng,
                               const std::vector<std::string>& signals, const std::string& path,
                               std::optional<double> t_from, std::optional<double> t_to) {
  PlotRequest rq;
  rq.title = fmt::format("{}\nnsspice (ideal devices, solid) vs ngspice (diode {}, dashed)",
                         r.title, r.diode_model);
  rq.output = path;
  rq.t_from = t_from;
  rq.t_to = t_to;
  PlotPanel overlay[2], diff[2];
  diff[0].ylabel = diff[1].ylabel = "ngspice − nsspice";
  diff[0].unit = overlay[0].unit = "V";
  diff[1].unit = overlay[1].unit = "A";
  int color = 0;
  for (const auto& name : signals) {
    const auto a = ns.index(name), b = ng.index(name);
    const auto it = std::find_if(r.diffs.begin(), r.diffs.end(),
                                 [&](const SignalDiff& d) { return d.name == name; });
    if (!a || !b || it == r.diffs.end()) continue;
    const int p = signal_kind(name) == SignalKind::kCurrent ? 1 : 0;
    overlay[p].series.push_back({name + " nsspice", ns.time, ns.columns[*a], false, color});
    overlay[p].series.push_back({name + " ngspice", ng.time, ng.columns[*b], true, color});
    diff[p].series.push_back({"Δ" + name, r.grid, it->diff, false, color});
    ++color;
  }
  overlay[0].ylabel = "voltage";
  overlay[1].ylabel = "current";
  for (auto* panels : {overlay, diff})
    for (int p = 0; p < 2; ++p)
      if (!panels[p].series.empty()) rq.panels.push_back(panels[p]);
  // Order: overlays first, then the differences; a zoom column on the last switching periods.
  add_switching_zoom(rq, 5, false);
  return write_plot(rq);
}

std::string write_sweep_plot(const CompareResult& r, const std::vector<std::string>& signals,
                             const std::string& path) {
  PlotRequest rq;
  rq.title = fmt::format("{}\nmax |ngspice − nsspice| against the SPICE diode's N", r.title);
  rq.output = path;
  rq.xlabel = "diode emission coefficient N (IS fixed; smaller = more ideal)";
  rq.log_x = true;
  PlotPanel v, i;
  v.log_y = i.log_y = true;
  v.ylabel = i.ylabel = "max |error|";
  v.unit = "V";
  i.unit = "A";
  int color = 0;
  for (const auto& name : signals) {
    PlotSeries s{name, {}, {}, false, color++, true};
    for (const auto& row : r.sweep)
      for (const auto& d : row.diffs)
        if (d.name == name && d.max_abs > 0) {
          s.t.push_back(row.n);
          s.y.push_back(d.max_abs);
        }
    if (s.t.empty()) continue;
    (signal_kind(name) == SignalKind::kCurrent ? i : v).series.push_back(std::move(s));
  }
  for (auto* p : {&v, &i})
    if (!p->series.empty()) rq.panels.push_back(*p);
  return write_plot(rq);
}

}  // namespace nsspice::app
