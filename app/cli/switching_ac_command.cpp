// switching_ac_command.hpp: the orbit (pss), the response at each frequency (circuit/pss_ac.hpp),
// the file, the Bode plot, the loop gain and its margins, the brute-force check, the report.
#include "app/cli/switching_ac_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <numbers>

#include "app/cli/analysis_command.hpp"
#include "app/cli/run_plan.hpp"
#include "app/io/analysis_writer.hpp"
#include "app/io/output_file.hpp"
#include "app/plot/plot_gnuplot.hpp"
#include "circuit/pss_ac.hpp"
#include "circuit/transient.hpp"

namespace nsspice::app {
namespace {

using Complex = std::complex<double>;

constexpr double kCheckDb = 1.0, kCheckDeg = 10.0;  // the agreement asked of the check
// Signals below this fraction of the check's largest component are not compared (their
// fundamental is not settled relative to their own size).
constexpr double kCheckFloor = 1e-4;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<double> sweep(double f1, double f2, long n, bool linear) {
  std::vector<double> f;
  for (long k = 0; k < n; ++k) {
    const double a = n == 1 ? 0.0 : static_cast<double>(k) / static_cast<double>(n - 1);
    f.push_back(linear ? f1 + (f2 - f1) * a : f1 * std::pow(f2 / f1, a));
  }
  return f;
}

std::string check_frequencies_error(const SwitchingAcCommandOptions& o) {
  if (o.points < 1) return fmt::format("--freq: the point count must be >= 1, got {}", o.points);
  if (!o.linear && !(o.fstart > 0))
    return fmt::format("--freq: a logarithmic sweep needs fstart > 0 Hz, got {:g}", o.fstart);
  if (!(o.fstart >= 0) || !(o.fstop >= o.fstart) || !std::isfinite(o.fstop))
    return fmt::format("--freq: expected 0 <= fstart <= fstop, got {:g} {:g}", o.fstart, o.fstop);
  if (o.check < 0) return fmt::format("--check-transient {}: must be >= 0", o.check);
  if (o.check_amplitude < 0) return "--check-amplitude: must be > 0";
  return {};
}

// The injection source's nodes as unknown indices (−1: ground), for the loop gain.
struct LoopGain {
  bool on = false;
  int plus = -1, minus = -1;
  Complex value(const Eigen::VectorXcd& x) const {
    const auto v = [&](int k) { return k < 0 ? Complex(0) : x[k]; };
    return -v(minus) / v(plus);
  }
};

std::optional<LoopGain> loop_gain_of(const circuit::Circuit& c, const circuit::Assembled& a,
                                     int source, bool on, std::string& error) {
  LoopGain g;
  if (!on) return g;
  const int d = a.source_device[static_cast<size_t>(source)];
  const auto* v =
      d >= 0 ? std::get_if<circuit::VoltageSource>(&c.devices[static_cast<size_t>(d)]) : nullptr;
  if (v == nullptr) {
    error = "--loop-gain: the injection source must be a voltage source in series with the loop";
    return std::nullopt;
  }
  g.on = true;
  g.plus = v->p - 1;
  g.minus = v->n - 1;
  return g;
}

// The file's columns: the chosen signals' phasors, then the loop gain.
struct Phasors {
  const circuit::SignalTable& signals;
  const std::vector<size_t>& columns;
  const LoopGain& loop;
  std::vector<double> re, im;
  std::vector<Complex> operator()(const Eigen::VectorXcd& x, const Eigen::VectorXcd& l) {
    signals.evaluate(x.real(), l.real(), columns, re);
    signals.evaluate(x.imag(), l.imag(), columns, im);
    std::vector<Complex> z(re.size());
    for (size_t k = 0; k < re.size(); ++k) z[k] = {re[k], im[k]};
    if (loop.on) z.push_back(loop.value(x));
    return z;
  }
};

double db(Complex z) { return 20 * std::log10(std::abs(z)); }
double degrees(Complex z) { return std::arg(z) * 180 / std::numbers::pi; }

// Crossover (|T| = 1, the first downward crossing) with the phase margin 180° + ∠T, and the gain
// margin where ∠T crosses −180°: dB and the unwrapped phase interpolated linearly in log f.
std::string margins(const std::vector<double>& f, const std::vector<Complex>& t) {
  std::vector<double> phase;  // unwrapped [deg]
  for (size_t k = 0; k < t.size(); ++k) {
    double p = degrees(t[k]);
    if (k > 0) p -= 360 * std::round((p - phase.back()) / 360);
    phase.push_back(p);
  }
  const auto at = [&](size_t k, double s, const auto& y) {
    return y[k - 1] + s * (y[k] - y[k - 1]);
  };
  const auto log_f = [&](size_t k, double s) {
    return std::exp(std::log(f[k - 1]) + s * (std::log(f[k]) - std::log(f[k - 1])));
  };
  std::string out;
  for (size_t k = 1; k < f.size(); ++k) {
    const double a = db(t[k - 1]), b = db(t[k]);
    if (!(a >= 0 && b < 0)) continue;
    const double s = a / (a - b);
    double pm = 180 + at(k, s, phase);
    pm -= 360 * std::round(pm / 360);
    out += fmt::format("crossover {:.4g} Hz, phase margin {:.1f} deg", log_f(k, s), pm);
    break;
  }
  for (size_t k = 1; k < f.size(); ++k) {
    // The unwrapped phase passes an odd multiple of 180°.
    const double ga = std::floor((phase[k - 1] + 180) / 360),
                 gb = std::floor((phase[k] + 180) / 360);
    if (ga == gb) continue;
    const double target = 360 * std::max(ga, gb) - 180;
    const double s = (phase[k - 1] - target) / (phase[k - 1] - phase[k]);
    const double gain = db(t[k - 1]) + s * (db(t[k]) - db(t[k - 1]));
    out += fmt::format("{}gain margin {:.1f} dB at {:.4g} Hz", out.empty() ? "" : "; ", -gain,
                       log_f(k, s));
    break;
  }
  return out.empty() ? "no crossover in the sweep" : out;
}

// 1e-3 of the source's peak over a period (sampled), at least 1e-3 (V or A).
double default_amplitude(const circuit::Assembled& a, int source, double period) {
  double peak = 0;
  for (int k = 0; k < 200; ++k)
    peak = std::max(peak, std::abs(circuit::waveform_value(a.sources[static_cast<size_t>(source)],
                                                           period * k / 200.0)));
  return 1e-3 * std::max(peak, 1.0);
}

struct CheckOutcome {
  bool agree = true;
  std::string table;
};

// The check's transient against the switching AC at the frequencies it used.
CheckOutcome compare(const std::vector<std::string>& names,
                     const std::vector<circuit::TransientCheckPoint>& points,
                     const std::vector<std::vector<Complex>>& ac, Phasors& phasors) {
  CheckOutcome out;
  out.table = fmt::format("  {:>12} {:<14} {:>10} {:>10} {:>8} {:>9} {:>9} {:>8} {:>8}\n", "f [Hz]",
                          "signal", "ac [dB]", "tran [dB]", "diff", "ac [deg]", "tran [deg]",
                          "diff", "periods");
  for (size_t k = 0; k < points.size(); ++k) {
    const auto tran = phasors(points[k].x, points[k].lambda);
    for (size_t s = 0; s < names.size(); ++s) {
      if (std::abs(ac[k][s]) < kCheckFloor * points[k].scale) continue;
      const double ddb = db(tran[s]) - db(ac[k][s]);
      double ddeg = degrees(tran[s]) - degrees(ac[k][s]);
      ddeg -= 360 * std::round(ddeg / 360);
      const bool ok = std::abs(ddb) <= kCheckDb && std::abs(ddeg) <= kCheckDeg && points[k].settled;
      out.agree = out.agree && ok;
      out.table += fmt::format(
          "  {:>12.9g} {:<14} {:>10.3f} {:>10.3f} {:>8.3f} {:>9.2f} {:>9.2f} {:>8.2f} {:>8}{}\n",
          points[k].f, names[s], db(ac[k][s]), db(tran[s]), ddb, degrees(ac[k][s]),
          degrees(tran[s]), ddeg, points[k].periods,
          points[k].settled ? (ok ? "" : "  MISMATCH") : "  not settled");
    }
  }
  return out;
}

// Everything the command needs once its input is checked.
struct Setup {
  std::unique_ptr<LoadedNetlist> loaded;
  circuit::Assembled a;
  circuit::SignalTable signals;
  RunFiles files;
  std::vector<size_t> columns;
  circuit::PssOptions options;
  std::string inject;  // lower case
  int source = -1;
  LoopGain loop;
  std::vector<std::string> names;  // the file's columns (signals, then the loop gain)
};

// The input checked (false: an error printed, exit 1).
bool set_up(const SwitchingAcCommandOptions& o, Setup& s) {
  const circuit::Circuit& c = s.loaded->circuit;
  s.a = circuit::assemble(c);
  s.signals = circuit::make_signals(c, s.a);
  std::string error = check_frequencies_error(o);
  auto files = error.empty() ? run_files(o.pss.run, *s.loaded, error) : std::nullopt;
  auto columns =
      files ? chosen_signals(o.pss.run, *s.loaded, s.signals.names, error) : std::nullopt;
  auto options = error.empty() ? pss_options(o.pss, error) : std::nullopt;
  s.inject = o.inject;
  std::transform(s.inject.begin(), s.inject.end(), s.inject.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  s.source = circuit::source_index(c, s.a, s.inject);
  if (error.empty() && options->map != circuit::PssMap::kEvent)
    error = "--map theta: the small-signal analysis linearizes the event map (--map event)";
  if (error.empty() && s.source < 0)
    error =
        fmt::format("--inject {}: no independent voltage or current source of that name", o.inject);
  const auto loop =
      error.empty() ? loop_gain_of(c, s.a, s.source, o.loop_gain, error) : std::nullopt;
  if (!error.empty()) {
    print_error(error);
    return false;
  }
  s.files = *files;
  s.columns = std::move(*columns);
  s.options = *options;
  s.loop = *loop;
  for (size_t k : s.columns) s.names.push_back(s.signals.names[k]);
  if (s.loop.on) s.names.push_back("loopgain");
  return true;
}

// The sweep written to the file and drawn; 0 or the exit code.
struct Sweep {
  circuit::SwitchingAcResult result;
  std::vector<double> f;
  std::vector<Complex> loop;  // the loop gain at each f (--loop-gain)
  double wall = 0;
};
int run_sweep(const SwitchingAcCommandOptions& o, const Setup& s, const circuit::PssResult& pss,
              Sweep& out) {
  const circuit::Circuit& c = s.loaded->circuit;
  AnalysisWriter writer(s.files.format);
  if (!writer.open(s.files.output_path, c.title,
                   {"AC Analysis", true, {{"frequency", "frequency"}}, s.names})) {
    print_error(fmt::format("cannot write '{}': {}", s.files.output_path, std::strerror(errno)));
    return kOutputFailed;
  }
  PlotPanel mag{"magnitude [dB]", "", {}, false}, phase{"phase [deg]", "", {}, false};
  for (const auto& n : s.names) {
    mag.series.push_back({ac_column_name(n, "db"), {}, {}});
    phase.series.push_back({ac_column_name(n, "p"), {}, {}});
  }
  Phasors phasors{s.signals, s.columns, s.loop, {}, {}};
  circuit::SwitchingAcOptions ac;
  ac.source = s.source;
  ac.frequencies = sweep(o.fstart, o.fstop, o.points, o.linear);
  const auto start = std::chrono::steady_clock::now();
  out.result =
      circuit::switching_ac(c, s.a, pss, s.options, ac,
                            [&](double f, const Eigen::VectorXcd& x, const Eigen::VectorXcd& l) {
                              const auto z = phasors(x, l);
                              const double scale[1] = {f};
                              writer.row(scale, z);
                              out.f.push_back(f);
                              if (s.loop.on) out.loop.push_back(z.back());
                              for (size_t k = 0; k < z.size(); ++k) {
                                mag.series[k].t.push_back(f);
                                mag.series[k].y.push_back(db(z[k]));
                                phase.series[k].t.push_back(f);
                                phase.series[k].y.push_back(degrees(z[k]));
                              }
                            });
  out.wall = seconds_since(start);
  const bool written = writer.close();
  if (!out.result.ok()) {
    print_error(fmt::format("switching AC analysis stopped: {}", out.result.summary.describe()));
    return pss_exit_code(out.result.summary);
  }
  if (!written) {
    print_error(fmt::format("writing '{}' failed", s.files.output_path));
    return kOutputFailed;
  }
  PlotRequest plot;
  plot.title =
      (c.title.empty() ? o.pss.run.netlist : c.title) +
      fmt::format("\nsmall-signal response to {} about the periodic steady state", s.inject);
  plot.output = s.files.plot_path;
  plot.show = o.pss.run.show;
  plot.xlabel = "frequency [Hz]";
  plot.log_x = true;
  plot.panels = {std::move(mag), std::move(phase)};
  if (plot.output.empty() && !plot.show) return 0;
  if (const std::string why = write_plot(plot); !why.empty()) {
    print_error(fmt::format("plot '{}': {}", plot.output, why));
    return kOutputFailed;
  }
  return 0;
}

void report(const SwitchingAcCommandOptions& o, const Setup& s, const circuit::PssResult& pss,
            double pss_wall, const Sweep& sw) {
  if (o.pss.run.quiet) return;
  const circuit::SwitchingAcResult& r = sw.result;
  print_pss_summary(o.pss, pss, pss_wall);
  fmt::print("switching AC: {} point{} in {:.3g} s (perturbation of {})\n", r.points,
             r.points == 1 ? "" : "s", sw.wall, s.inject);
  fmt::print("  {:<22} {} state-dependent switching instant{}, {} fixed\n", "linearization",
             r.state_events, r.state_events == 1 ? "" : "s", r.time_events);
  fmt::print("  {:<22} {:.2g}\n", "periodicity residual", r.max_residual);
  if (s.loop.on) fmt::print("  {:<22} {}\n", "loop gain", margins(sw.f, sw.loop));
  fmt::print("  {:<22} {} ({})\n", "output", s.files.output_path, format_name(s.files.format));
  if (!s.files.plot_path.empty()) fmt::print("  {:<22} {}\n", "plot", s.files.plot_path);
}

// --check-transient: the brute force at o.check frequencies against the small-signal response
// there; 0 or kSimulationFailed.
int run_check(const SwitchingAcCommandOptions& o, const Setup& s, const circuit::PssResult& pss) {
  const circuit::Circuit& c = s.loaded->circuit;
  circuit::TransientCheckOptions check;
  check.source = s.source;
  check.frequencies = sweep(o.fstart > 0 ? o.fstart : o.fstop / 100, o.fstop, o.check, false);
  check.amplitude = o.check_amplitude > 0 ? o.check_amplitude
                                          : default_amplitude(s.a, s.source, s.options.period);
  const auto start = std::chrono::steady_clock::now();
  const circuit::TransientCheckResult t =
      circuit::check_by_transient(c, s.a, pss, s.options, check);
  const double wall = seconds_since(start);
  if (!t.ok()) {
    print_error("transient check stopped: " + t.summary.describe());
    return pss_exit_code(t.summary);
  }
  if (!o.pss.run.quiet && !t.summary.solved())
    fmt::print(stderr, "nsspice: warning: transient check: {}\n", t.summary.message);
  circuit::SwitchingAcOptions at;
  at.source = s.source;
  for (const auto& p : t.points) at.frequencies.push_back(p.f);
  Phasors phasors{s.signals, s.columns, s.loop, {}, {}};
  std::vector<std::vector<Complex>> values;
  circuit::switching_ac(c, s.a, pss, s.options, at,
                        [&](double, const Eigen::VectorXcd& x, const Eigen::VectorXcd& l) {
                          values.push_back(phasors(x, l));
                        });
  const CheckOutcome cmp = compare(s.names, t.points, values, phasors);
  long periods = 0;
  for (const auto& p : t.points) periods += p.periods;
  if (!o.pss.run.quiet)
    fmt::print("transient check: {} frequenc{} (sine of {:g} on {}), {} periods in {:.3g} s\n{}",
               t.points.size(), t.points.size() == 1 ? "y" : "ies", check.amplitude, s.inject,
               periods, wall, cmp.table);
  if (cmp.agree) return 0;
  print_error(fmt::format(
      "the transient check disagrees with the small-signal analysis by more than {:g} dB or "
      "{:g} deg (or did not settle), see the table",
      kCheckDb, kCheckDeg));
  return kSimulationFailed;
}

}  // namespace

int switching_ac_command(const SwitchingAcCommandOptions& o) {
  Setup s;
  s.loaded = load_netlist(o.pss.run.netlist, false);
  if (!s.loaded) return kBadInput;
  if (!set_up(o, s)) return kBadInput;
  const auto start = std::chrono::steady_clock::now();
  const circuit::PssResult pss = circuit::periodic_steady_state(s.loaded->circuit, s.a, s.options);
  const double pss_wall = seconds_since(start);
  if (!pss.ok()) {
    print_error(pss_failure_text(pss));
    return pss_exit_code(pss.summary);
  }
  Sweep sw;
  const int code = run_sweep(o, s, pss, sw);
  if (code == kSimulationFailed || code == kBadInput) return code;
  report(o, s, pss, pss_wall, sw);
  if (o.check > 0)
    if (const int checked = run_check(o, s, pss); checked != 0) return checked;
  return code;
}

}  // namespace nsspice::app
