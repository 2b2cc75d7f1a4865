#include "app/compare/compare_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "app/io/signals.hpp"

namespace nsspice::app {
namespace {

using Out = std::back_insert_iterator<std::string>;

std::string events_text(const SignalDiff& d) {
  if (!d.switching) return "";
  return fmt::format("{}/{}", d.ref_events.size(), d.other_events.size());
}

std::string percent(double fraction) { return fmt::format("{:.2g} %", 100 * fraction); }

// "2.5×", "23×", "2300×".
std::string times(double ratio) {
  return ratio < 10 ? fmt::format("{:.2g}×", ratio) : fmt::format("{:.0f}×", ratio);
}

// Within this (relative to the signal's size) the verdict says "agree".
constexpr double kAgree = 0.05;

const char* agree(double rel) { return rel <= kAgree ? "agree within" : "differ by"; }

// The largest of some relative differences, and what it is of.
struct Worst {
  double value = -1;
  std::string what;
  void take(double v, const std::string& of) {
    if (v > value) value = v, what = of;
  }
};

std::string run_line(const PeerRun& p) {
  std::string s = p.wall_seconds > 0 ? fmt::format("{} wall, ", eng(p.wall_seconds, "s")) : "";
  s += fmt::format("{} points", p.points);
  if (p.failed)
    return s + (p.points > 0 ? fmt::format("; FAILED at t = {}: {}", eng(p.t_end, "s"), p.failure)
                             : "; FAILED: " + p.failure);
  s += ", completed";
  if (p.attempts.size() > 1) s += fmt::format(" at attempt {}", p.attempts[p.used_attempt].number);
  return s;
}

std::string attempt_line(const Attempt& a) {
  const std::string what =
      a.change.empty() ? fmt::format("{}, TMAX {}", a.options, eng(a.tmax, "s")) : "+ " + a.change;
  const std::string outcome = a.completed ? std::string("completed")
                              : a.t_end > 0
                                  ? fmt::format("stopped at {}: {}", eng(a.t_end, "s"), a.failure)
                                  : a.failure;
  return fmt::format("{}: {} ({}; {})", what, outcome, eng(a.wall_seconds, "s"), a.files);
}

// The question, and what each side runs.
void question_lines(Out o, const CompareResult& r) {
  const int number = r.question == Question::kUserModels    ? 1
                     : r.question == Question::kRegularized ? 2
                                                            : 0;
  fmt::format_to(o, "  {:<10} {}{}\n", "question", number ? fmt::format("{}: ", number) : "",
                 question_text(r.question));
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (r.question == Question::kUserModels)
    fmt::format_to(o, "  {:<10} ngspice runs the netlist's own SPICE models unchanged: {}\n", "",
                   list(r.user_cards));
  if ((r.question == Question::kUserModels || r.question == Question::kRegularized) &&
      !r.regularized.empty())
    fmt::format_to(o, "  {:<10} regularized for SPICE: {} (diode {}; switch {})\n", "",
                   list(r.regularized), r.diode_model, r.switch_model);
  if (r.idealized)
    fmt::format_to(o, "  {:<10} nsspice runs the SPICE diodes ideal (.options idealize)\n", "");
  if (r.question == Question::kFile) fmt::format_to(o, "  {:<10} {}\n", "file", r.against);
}

void window_lines(Out o, const CompareResult& r) {
  if (!r.has_window()) {
    fmt::format_to(o, "  {:<10} none: the runs share no time after the start-up ({} skipped)\n",
                   "window", eng(r.startup, "s"));
    return;
  }
  fmt::format_to(o, "  {:<10} t = {} .. {} (start-up {} skipped: {}); time base: {}, {} points\n",
                 "window", eng(r.t_from, "s"), eng(r.t_to, "s"), eng(r.startup, "s"), r.startup_how,
                 r.time_base, r.grid.size());
  if (r.peer.failed)
    fmt::format_to(o,
                   "  {:<10} the errors cover t = {} .. {} ONLY: {} stopped at {} ({} of the "
                   "run)\n",
                   "", eng(r.t_from, "s"), eng(r.t_to, "s"), r.peer_label, eng(r.peer.t_end, "s"),
                   percent((r.peer.t_end - r.t_start) / (r.t_stop - r.t_start)));
}

void diff_table(Out o, const CompareResult& r) {
  fmt::format_to(o, "\n  {:<12} {:>11} {:>11} {:>11} {:>9}  {:>9} {:>11} {:>11}\n", "signal",
                 "max|err|", "at t", "rms err", "rel err", "switches", "max offset", "mean offset");
  for (const auto& d : r.diffs) {
    const std::string unit = unit_of(signal_kind(d.name));
    fmt::format_to(o, "  {:<12} {:>11} {:>11} {:>11} {:>9.2e}  {:>9} {:>11} {:>11}\n", d.name,
                   eng(d.max_abs, unit), eng(d.t_max, "s"), eng(d.rms, unit), d.rel, events_text(d),
                   d.switching && !d.offsets.empty() ? eng(d.max_offset, "s") : "",
                   d.switching && !d.offsets.empty() ? eng(d.mean_offset, "s") : "");
  }
  fmt::format_to(o,
                 "  (err = {1} − {0} on the time base; rel err = max|err| / max|{0}|; switches: "
                 "crossings of |i| through the threshold, {0}/{1}; offset = {1} − {0})\n",
                 r.ref_label, r.peer_label);
}

void steady_table(Out o, const CompareResult& r) {
  if (r.steady_metrics.empty()) return;
  fmt::format_to(o, "\n  steady state: {}, t = {} .. {}\n", r.steady.how, eng(r.steady.from, "s"),
                 eng(r.steady.to, "s"));
  fmt::format_to(o, "  {:<12} {:>11} {:>11} {:>8}  {:>11} {:>11} {:>8}\n", "signal",
                 "avg " + r.ref_label.substr(0, 7), "avg " + r.peer_label.substr(0, 7), "Δavg",
                 "pp " + r.ref_label.substr(0, 8), "pp " + r.peer_label.substr(0, 8), "Δpp");
  for (const auto& m : r.steady_metrics) {
    const std::string unit = unit_of(signal_kind(m.name));
    fmt::format_to(o, "  {:<12} {:>11} {:>11} {:>8}  {:>11} {:>11} {:>8}\n", m.name,
                   eng(m.avg_ref, unit), eng(m.avg_other, unit), percent(m.rel_avg()),
                   eng(m.pp_ref, unit), eng(m.pp_other, unit), percent(m.rel_pp()));
  }
  fmt::format_to(o,
                 "  (Δ = |{1} − {0}| / max|{0}| over the window; avg: time average; pp: max − "
                 "min, the ripple)\n",
                 r.ref_label, r.peer_label);
}

void measure_table(Out o, const CompareResult& r) {
  if (r.meas_nsspice.empty()) return;
  fmt::format_to(o, "\n  {:<18} {:>14} {:>14} {:>14}\n", "measurement", r.ref_label, r.peer_label,
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

void sweep_table(Out o, const CompareResult& r) {
  if (r.sweep.empty()) return;
  fmt::format_to(o, "\n  ideality sweep: max|err| per signal as the SPICE diode gets more ideal\n");
  fmt::format_to(o, "  {:>6} {:>10} {:>8}", "N", "ngspice", "points");
  for (const auto& d : r.sweep.front().diffs) fmt::format_to(o, " {:>11}", d.name);
  fmt::format_to(o, "  status\n");
  for (const auto& row : r.sweep) {
    fmt::format_to(o, "  {:>6g} {:>10} {:>8}", row.n, eng(row.ngspice.wall_seconds, "s"),
                   row.ngspice.points);
    for (const auto& d : row.diffs)
      fmt::format_to(o, " {:>11}", eng(d.max_abs, unit_of(signal_kind(d.name))));
    const size_t tries = row.ngspice.attempts.size();
    const std::string after = tries > 1 ? fmt::format(" (attempt {})", tries) : "";
    if (row.ngspice.failed)
      fmt::format_to(o, "  FAILED at t = {}{}: {} (errors up to there)\n",
                     eng(row.ngspice.t_end, "s"), after, row.ngspice.failure);
    else
      fmt::format_to(o, "  ok{}\n", after);
  }
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

std::string stopped_text(const PeerRun& p) {
  return p.points > 0 ? fmt::format("it stopped at t = {}", eng(p.t_end, "s"))
                      : std::string("it wrote no point");
}

std::string question_text(Question q) {
  switch (q) {
    case Question::kUserModels:
      return "how far is the ideal/PWL result from your own SPICE models?";
    case Question::kRegularized:
      return "does regularized SPICE converge to the ideal answer?";
    case Question::kFile:
      return "how far is nsspice from a waveform produced elsewhere?";
    case Question::kMethods:
      return "do nsspice's θ-scheme and its event mode agree on this netlist?";
  }
  return {};
}

std::string verdict_line(const CompareResult& r) {
  const std::string peer = r.question == Question::kFile      ? "the file"
                           : r.question == Question::kMethods ? r.peer_label
                                                              : std::string("SPICE");
  if (r.peer.failed) {
    std::string s = fmt::format("{} FAILED: {} did not reach TSTOP = {} ({}", peer, r.peer_label,
                                eng(r.t_stop, "s"), stopped_text(r.peer));
    if (r.peer.attempts.size() > 1)
      s += fmt::format(" in the best of {} attempts", r.peer.attempts.size());
    s += ")";
    return s + (r.has_window() ? "; the errors cover the common interval only"
                               : "; nothing to compare");
  }
  if (r.nsspice.failed)
    return fmt::format("{} FAILED at t = {}: the errors cover the common interval only",
                       r.ref_label, eng(r.nsspice.t_end, "s"));
  // Averages first (the operating point a designer checks), then the ripples; over the whole
  // window (a constant steady state) or without a steady state, the largest relative max|err|.
  // A user's measurement that differs more heads the verdict instead.
  Worst head, pp;
  const bool steady = !r.steady_metrics.empty() && !r.steady.whole;
  for (const auto& m : r.steady_metrics) {
    if (steady) head.take(m.rel_avg(), m.name + " avg"), pp.take(m.rel_pp(), m.name);
  }
  for (const auto& d : r.diffs) {
    const bool judged = std::any_of(r.steady_metrics.begin(), r.steady_metrics.end(),
                                    [&](const SteadyMetrics& m) { return m.name == d.name; });
    if (!steady && (r.steady_metrics.empty() || judged))
      head.take(d.rel, d.name + (r.steady.whole ? " max|err|, whole window" : " max|err|"));
  }
  std::string failed_once;
  for (size_t i = 0; i < r.meas_rel.size(); ++i) {
    if (r.meas_rel[i]) head.take(*r.meas_rel[i], "measurement " + r.meas_nsspice[i].name);
    if (r.meas_nsspice[i].value.has_value() != r.meas_ngspice[i].value.has_value())
      failed_once += fmt::format("; measurement {} failed in {}", r.meas_nsspice[i].name,
                                 r.meas_nsspice[i].value ? r.peer_label : r.ref_label);
  }
  std::string s =
      head.value < 0 ? std::string("no signal in common")
                     : fmt::format("{} {} ({})", agree(head.value), percent(head.value), head.what);
  if (pp.value >= 0)
    s += pp.value <= kAgree
             ? fmt::format(", ripples within {} ({})", percent(pp.value), pp.what)
             : fmt::format("; ripples differ by {} ({})", percent(pp.value), pp.what);
  s += failed_once;
  if (r.peer.wall_seconds > 0 && r.nsspice.wall_seconds > 0) {
    const double ratio = r.peer.wall_seconds / r.nsspice.wall_seconds;
    s += fmt::format(", {} {} {}", peer, times(ratio >= 1 ? ratio : 1 / ratio),
                     ratio >= 1 ? "slower" : "faster");
  }
  return s;
}

std::string format_compare(const CompareResult& r) {
  std::string out;
  auto o = std::back_inserter(out);
  fmt::format_to(o, "compare: {} ({})\n", r.netlist, r.title);
  if (r.peer.failed)  // first: the comparison below is partial, or absent
    fmt::format_to(o, "  {:<10} {} did not reach TSTOP = {}: {}{}: {}\n", "FAILED", r.peer_label,
                   eng(r.t_stop, "s"), stopped_text(r.peer),
                   r.peer.attempts.size() > 1
                       ? fmt::format(" (the furthest of {} attempts)", r.peer.attempts.size())
                       : "",
                   r.peer.failure);
  question_lines(o, r);
  fmt::format_to(o, "  {:<10} {} (in-process; {}, theta = {})\n", r.ref_label, run_line(r.nsspice),
                 r.step_rule, r.theta);
  fmt::format_to(o, "  {:<10} {}{}\n", r.peer_label, run_line(r.peer),
                 r.question == Question::kFile      ? ""
                 : r.question == Question::kMethods ? " (in-process)"
                                                    : " (the process)");
  for (const auto& a : r.peer.attempts)
    if (r.peer.attempts.size() > 1)
      fmt::format_to(o, "  {:<10} {}\n", fmt::format("attempt {}", a.number), attempt_line(a));
  if (!r.peer.ladder_ended.empty())
    fmt::format_to(o, "  {:<10} {}\n", "ladder", r.peer.ladder_ended);
  if (r.nsspice.wall_seconds > 0 && r.peer.wall_seconds > 0) {
    fmt::format_to(o, "  {:<10} {} / {} wall time = {:.3g}", "ratio", r.peer_label, r.ref_label,
                   r.peer.wall_seconds / r.nsspice.wall_seconds);
    if (r.peer.attempts.size() > 1)
      fmt::format_to(o, " (all {} attempts; the one used alone: {:.3g})", r.peer.attempts.size(),
                     r.peer.attempts[r.peer.used_attempt].wall_seconds / r.nsspice.wall_seconds);
    out += "\n";
  }
  window_lines(o, r);
  for (size_t i = 0; i < r.peer.problems.size() && i < 8; ++i)
    fmt::format_to(o, "  {:<10} {}\n", i ? "" : r.peer_label + " says", r.peer.problems[i]);
  if (r.peer.problems.size() > 8)
    fmt::format_to(o, "  {:<10} ... {} more lines in the log\n", "", r.peer.problems.size() - 8);
  for (const auto& n : r.notes) fmt::format_to(o, "  {:<10} {}\n", "note", n);
  if (r.has_window()) diff_table(o, r);
  steady_table(o, r);
  measure_table(o, r);
  sweep_table(o, r);
  if (!r.files.empty()) {
    out += "\n  files:";
    for (const auto& f : r.files) out += " " + f;
    out += "\n";
  }
  fmt::format_to(o, "\n  verdict: {}\n", r.verdict);
  return out;
}

}  // namespace nsspice::app
