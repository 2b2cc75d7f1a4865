// compare.json and the plots of compare_report.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "app/compare/compare_report.hpp"
#include "app/io/signals.hpp"
#include "app/plot/plot_gnuplot.hpp"
#include "app/plot/plot_layout.hpp"

namespace nsspice::app {
namespace {

using Json = nlohmann::ordered_json;

Json number(double v) { return std::isfinite(v) ? Json(v) : Json(); }

Json number_list(const std::vector<double>& v) {
  Json out = Json::array();
  for (double x : v) out.push_back(number(x));
  return out;
}

Json json_attempt(const Attempt& a) {
  return {{"attempt", a.number},
          {"change", a.change},
          {"options", a.options},
          {"tmax", number(a.tmax)},
          {"wall_seconds", number(a.wall_seconds)},
          {"completed", a.completed},
          {"t_end", number(a.t_end)},
          {"failure", a.failure},
          {"files", a.files}};
}

Json json_peer(const PeerRun& p) {
  Json j = {{"wall_seconds", number(p.wall_seconds)},
            {"points", p.points},
            {"failed", p.failed},
            {"t_end", number(p.t_end)},
            {"failure", p.failure},
            {"problems", p.problems}};
  if (!p.attempts.empty()) {
    j["attempts"] = Json::array();
    for (const auto& a : p.attempts) j["attempts"].push_back(json_attempt(a));
    j["used_attempt"] = p.attempts[p.used_attempt].number;
    j["ladder_ended"] = p.ladder_ended;
  }
  return j;
}

Json json_diff(const SignalDiff& d) {
  Json s = {{"name", d.name},       {"max_abs", number(d.max_abs)}, {"t_max", number(d.t_max)},
            {"rms", number(d.rms)}, {"rel", number(d.rel)},         {"scale", number(d.scale)}};
  if (d.switching) {
    std::vector<double> a, b;
    for (const auto& e : d.ref_events) a.push_back(e.t);
    for (const auto& e : d.other_events) b.push_back(e.t);
    s["switching"] = {{"threshold", number(d.threshold)},
                      {"reference", number_list(a)},
                      {"peer", number_list(b)},
                      {"paired", d.offsets.size()},
                      {"offsets", number_list(d.offsets)},
                      {"max_offset", number(d.max_offset)},
                      {"mean_offset", number(d.mean_offset)}};
  }
  return s;
}

Json json_steady(const CompareResult& r) {
  Json rows = Json::array();
  for (const auto& m : r.steady_metrics)
    rows.push_back({{"name", m.name},
                    {"avg_reference", number(m.avg_ref)},
                    {"avg_peer", number(m.avg_other)},
                    {"pp_reference", number(m.pp_ref)},
                    {"pp_peer", number(m.pp_other)},
                    {"scale", number(m.scale)},
                    {"rel_avg", number(m.rel_avg())},
                    {"rel_pp", number(m.rel_pp())}});
  return {{"from", number(r.steady.from)}, {"to", number(r.steady.to)},
          {"periods", r.steady.periods},   {"period", number(r.steady.period)},
          {"how", r.steady.how},           {"signals", std::move(rows)}};
}

const char* question_key(Question q) {
  switch (q) {
    case Question::kUserModels:
      return "user_models";
    case Question::kRegularized:
      return "regularized";
    case Question::kFile:
      return "file";
    case Question::kMethods:
      return "methods";
  }
  return "";
}

}  // namespace

std::string compare_json(const CompareResult& r) {
  Json j = {{"netlist", r.netlist},
            {"title", r.title},
            {"question", question_key(r.question)},
            {"question_text", question_text(r.question)},
            {"reference", r.ref_label},
            {"peer", r.peer_label},
            {"user_models", r.user_cards},
            {"regularized", r.regularized},
            {"idealized", r.idealized},
            {"diode_model", r.diode_model},
            {"switch_model", r.switch_model},
            {"options", r.options},
            {"against", r.against},
            {"h", number(r.h)},
            {"theta", number(r.theta)},
            {"step_rule", r.step_rule},
            {"t_stop", number(r.t_stop)},
            {"nsspice", json_peer(r.nsspice)},
            {"ngspice", json_peer(r.peer)},
            {"window",
             {{"from", number(r.t_from)},
              {"to", number(r.t_to)},
              {"startup", number(r.startup)},
              {"startup_how", r.startup_how},
              {"time_base", r.time_base},
              {"common_interval_only", r.peer.failed}}},
            {"grid_points", r.grid.size()}};
  j["signals"] = Json::array();
  for (const auto& d : r.diffs) j["signals"].push_back(json_diff(d));
  j["steady_state"] = json_steady(r);
  Json rel = Json::array();
  for (const auto& d : r.meas_rel) rel.push_back(d ? number(*d) : Json());
  j["measurements"] = {{"nsspice", measures_json_value(r.meas_nsspice)},
                       {"ngspice", measures_json_value(r.meas_ngspice)},
                       {"relative_difference", std::move(rel)}};
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
  j["unmatched_peer_signals"] = r.unmatched_peer;
  j["notes"] = r.notes;
  j["verdict"] = r.verdict;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string write_compare_plot(const CompareResult& r, const Waveforms& ns, const Waveforms& ng,
                               const std::vector<std::string>& signals, const std::string& path,
                               std::optional<double> t_from, std::optional<double> t_to) {
  PlotRequest rq;
  rq.title = r.question == Question::kMethods
                 ? fmt::format("{}\n{} (solid) vs {} (dashed)", r.title, r.ref_label, r.peer_label)
             : r.question == Question::kFile
                 ? fmt::format("{}\nnsspice (solid) vs {} (dashed)", r.title, r.against)
                 : fmt::format("{}\nnsspice (solid) vs ngspice ({}, dashed)", r.title,
                               r.question == Question::kUserModels ? "your SPICE models"
                                                                   : "diode " + r.diode_model);
  rq.output = path;
  rq.t_from = t_from;
  rq.t_to = t_to;
  PlotPanel overlay[2], diff[2];
  diff[0].ylabel = diff[1].ylabel = r.peer_label + " − " + r.ref_label;
  diff[0].unit = overlay[0].unit = "V";
  diff[1].unit = overlay[1].unit = "A";
  int color = 0;
  for (const auto& name : signals) {
    const auto a = ns.index(name), b = ng.index(name);
    const auto it = std::find_if(r.diffs.begin(), r.diffs.end(),
                                 [&](const SignalDiff& d) { return d.name == name; });
    if (!a || !b) continue;
    const int p = signal_kind(name) == SignalKind::kCurrent ? 1 : 0;
    overlay[p].series.push_back({name + " " + r.ref_label, ns.time, ns.columns[*a], false, color});
    overlay[p].series.push_back({name + " " + r.peer_label, ng.time, ng.columns[*b], true, color});
    if (it != r.diffs.end()) diff[p].series.push_back({"Δ" + name, r.grid, it->diff, false, color});
    ++color;
  }
  overlay[0].ylabel = "voltage";
  overlay[1].ylabel = "current";
  // Where the peer stopped: a vertical marker across every overlay panel, and a note.
  if (r.peer.failed) {
    rq.note = fmt::format("{} stopped at t = {} (did not reach TSTOP = {}): its traces end there",
                          r.peer_label, eng(r.peer.t_end, "s"), eng(r.t_stop, "s"));
    for (auto& panel : overlay) {
      double lo = INFINITY, hi = -INFINITY;
      for (const auto& s : panel.series)
        for (double y : s.y)
          if (std::isfinite(y)) lo = std::min(lo, y), hi = std::max(hi, y);
      if (!(hi >= lo)) continue;
      panel.series.push_back({fmt::format("{} stopped", r.peer_label),
                              {r.peer.t_end, r.peer.t_end},
                              {lo, hi},
                              false,
                              color});
    }
  }
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
  std::string failed_n;
  for (const auto& row : r.sweep)
    if (row.ngspice.failed) failed_n += fmt::format("{}{:g}", failed_n.empty() ? "" : ", ", row.n);
  for (const auto& name : signals) {
    // Completed runs joined by a line; a failed run is its own marked point, never on the line.
    PlotSeries ok{name, {}, {}, false, color, true};
    PlotSeries failed{name + " FAILED (partial)", {}, {}, false, color, true};
    for (const auto& row : r.sweep)
      for (const auto& d : row.diffs)
        if (d.name == name && d.max_abs > 0) {
          PlotSeries& s = row.ngspice.failed ? failed : ok;
          s.t.push_back(row.n);
          s.y.push_back(d.max_abs);
        }
    ++color;
    PlotPanel& panel = signal_kind(name) == SignalKind::kCurrent ? i : v;
    if (!ok.t.empty()) panel.series.push_back(std::move(ok));
    if (!failed.t.empty()) {
      failed.dashed = true;
      panel.series.push_back(std::move(failed));
    }
  }
  if (!failed_n.empty())
    rq.note = fmt::format(
        "ngspice did not reach TSTOP for N = {}: those points are marked "
        "FAILED and cover only the time it reached",
        failed_n);
  for (auto* p : {&v, &i})
    if (!p->series.empty()) rq.panels.push_back(*p);
  return write_plot(rq);
}

}  // namespace nsspice::app
