#include "circuit/transient.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "circuit/explain.hpp"
#include "circuit/src/bjt_early_check.hpp"
#include "circuit/src/inductor_cuts.hpp"
#include "circuit/src/initial_point.hpp"
#include "circuit/src/junction_charge_check.hpp"
#include "circuit/src/mos_lambda_check.hpp"
#include "circuit/src/pwl_range_check.hpp"
#include "circuit/src/step_bounds.hpp"
#include "circuit/src/unstable_start.hpp"
#include "circuit/tran_settings.hpp"
#include "solvers/time/decimal_grid.hpp"

namespace nsspice::circuit {
namespace {

// The LCP of the step asked for by TransientOptions::dump_step / dump_time: the step's first
// pivoted LCP, else the first transform whose solution changes the mode, else the first one.
class StepCapture {
 public:
  StepCapture(const TransientOptions& o, solvers::ThetaStepper& stepper, double h)
      : o_(o), stepper_(stepper), h_(h) {
    if (o_.dump_step <= 0 && !o_.dump_time) return;
    stepper_.set_lcp_observer([this](const solvers::StepLcp& lcp, double theta_h) {
      if (!current_ || rank(lcp) <= rank(current_->lcp)) return;
      current_->lcp = lcp;
      current_->theta_h = theta_h;
    });
  }
  void before_step(const std::optional<CapturedLcp>& done) {
    ++step_no_;
    const bool want = (o_.dump_step > 0 || o_.dump_time) && !done &&
                      (step_no_ == o_.dump_step ||
                       (o_.dump_time && stepper_.t() + h_ * (1 - 1e-9) >= *o_.dump_time));
    if (want) {
      current_ = CapturedLcp{};
      current_->step = step_no_;
      current_->t = stepper_.t();
    }
    stepper_.set_lcp_capture(want);
  }
  void after_step(std::optional<CapturedLcp>& out) {
    if (!current_) return;
    current_->t_next = stepper_.t_next();
    if (!current_->lcp.mode.empty()) out = std::move(current_);
    current_.reset();
  }

 private:
  static int rank(const solvers::StepLcp& lcp) {
    if (lcp.mode.empty()) return -1;  // nothing captured yet
    return lcp.pivoted ? 2 : lcp.mode != lcp.base_mode ? 1 : 0;
  }
  const TransientOptions& o_;
  solvers::ThetaStepper& stepper_;
  double h_;
  long step_no_ = 0;
  std::optional<CapturedLcp> current_;
};

}  // namespace

namespace {

double derived_value(const DerivedSignal& d, const Eigen::VectorXd& x,
                     const Eigen::VectorXd& lambda) {
  double v = 0;
  for (const auto& [j, coef] : d.lambda_terms) v += coef * lambda[j];
  for (const auto& [i, coef] : d.x_terms) v += coef * x[i];
  return v;
}

}  // namespace

void SignalTable::evaluate(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                           std::vector<double>& out) const {
  out.resize(names.size());
  const size_t n = static_cast<size_t>(x.size());
  for (size_t i = 0; i < n; ++i) out[i] = x[static_cast<Eigen::Index>(i)];
  for (size_t k = 0; k < derived.size(); ++k) out[n + k] = derived_value(derived[k], x, lambda);
}

void SignalTable::evaluate(const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                           const Eigen::VectorXd& xdot, std::span<const size_t> which,
                           std::vector<double>& out) const {
  out.resize(which.size());
  const size_t n = static_cast<size_t>(x.size()), visible = names.size();
  for (size_t k = 0; k < which.size(); ++k) {
    const size_t s = which[k];
    out[k] = s < n              ? x[static_cast<Eigen::Index>(s)]
             : s < visible      ? derived_value(derived[s - n], x, lambda)
             : xdot.size() == 0 ? 0.0
                                : xdot[rate_unknowns[s - visible]];
  }
}

SignalTable make_signals(const Circuit&, const Assembled& assembled) {
  SignalTable t;
  t.names = assembled.unknown_names;
  t.derived = assembled.derived;
  for (const auto& d : assembled.derived) t.names.push_back(d.name);
  std::vector<char> state(static_cast<size_t>(assembled.mlcs.n), 0);
  const auto& e = assembled.mlcs.E;
  for (int j = 0; j < e.outerSize(); ++j)
    for (solvers::SparseMatrix::InnerIterator it(e, j); it; ++it)
      if (it.value() != 0.0) state[static_cast<size_t>(j)] = 1;
  for (int i = 0; i < assembled.mlcs.n; ++i) {
    if (!state[static_cast<size_t>(i)]) continue;
    t.rate_names.push_back("ddt(" + assembled.unknown_names[static_cast<size_t>(i)] + ")");
    t.rate_unknowns.push_back(i);
  }
  return t;
}

namespace detail {

// Absolute error floors per unknown (docs/theory.md, "Step selection"): VNTOL for node voltages,
// ABSTOL for branch currents, raised to CHGTOL / C (CHGTOL / L) where the unknown carries a
// charge C v (a flux L i): SPICE's tolerance on charges and fluxes.
Eigen::VectorXd error_floors(const Assembled& a, const StepSettings& s) {
  const auto& e = a.mlcs.E;
  Eigen::VectorXd atol(a.mlcs.n);
  for (int i = 0; i < a.mlcs.n; ++i) {
    atol[i] = i < a.node_count ? s.vntol : s.abstol;
    const double c = std::abs(e.coeff(i, i));
    if (c > 0) atol[i] = std::max(atol[i], s.chgtol / c);
  }
  return atol;
}

// The shortest time scale of the sources' smooth content (waveform_step_bound) and its source.
std::pair<double, std::string> source_step_bound(const Circuit& circuit) {
  std::pair<double, std::string> best{std::numeric_limits<double>::infinity(), ""};
  for (const Device& d : circuit.devices) {
    const Waveform* w = nullptr;
    if (const auto* v = std::get_if<VoltageSource>(&d)) w = &v->wave;
    if (const auto* i = std::get_if<CurrentSource>(&d)) w = &i->wave;
    if (w == nullptr) continue;
    const double b = waveform_step_bound(*w);
    if (b < best.first) best = {b, device_name(d)};
  }
  return best;
}

}  // namespace detail

namespace {

using detail::error_floors;
using detail::source_step_bound;

// More steps than this for one run is a source whose content cannot be resolved.
constexpr double kMaxSteps = 1e9;

}  // namespace

namespace {
TransientResult run_transient_unchecked(const Circuit& circuit, const Assembled& assembled,
                                        const TransientOptions& options, const Observer& observer);
}  // namespace

// The run, with the current range of every converted SPICE diode, their junction charges, the
// MOSFETs' LAMBDA factors and the bipolar transistors' Early effect checked on each point.
TransientResult run_transient(const Circuit& circuit, const Assembled& assembled,
                              const TransientOptions& options, const Observer& observer) {
  const double settled = circuit.tran ? 0.5 * (circuit.tran->tstart + circuit.tran->tstop) : 0.0;
  detail::PwlRangeCheck range(circuit, assembled, settled);
  detail::JunctionChargeCheck charges(circuit, assembled);
  detail::MosLambdaCheck lambdas(circuit);
  detail::BjtEarlyCheck early(circuit, assembled);
  if (range.empty() && charges.empty() && lambdas.empty() && early.empty())
    return run_transient_unchecked(circuit, assembled, options, observer);
  const Observer watched = [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd& l,
                               const Eigen::VectorXd& xdot) {
    range.add(t, x, l);
    charges.add(t, x, l);
    lambdas.add(t, x);
    early.add(t, x, l);
    return !observer || observer(t, x, l, xdot);
  };
  TransientResult result = run_transient_unchecked(circuit, assembled, options, watched);
  range.warn(result.warnings, &result.range_misses);
  charges.warn(result.warnings, result.charge_misses);
  lambdas.warn(result.warnings, result.lambda_misses);
  early.warn(result.warnings);
  return result;
}

namespace {

// The θ-stepper's options from the resolved settings (tran_settings.hpp): the fixed step, or
// error control with its step bounds; the report's step rule and warnings go to `result`. False
// (kInvalidInput) when a source cannot be resolved.
bool theta_options(const Circuit& circuit, const Assembled& assembled, const TranSettings& s,
                   const TransientOptions& options, solvers::ThetaOptions& opt,
                   TransientResult& result) {
  const double span = s.tstop - s.tstart;
  opt.theta = s.theta;
  opt.t_start = 0.0;
  opt.t_stop = s.tstop;
  opt.restart_steps = options.restart_steps;
  opt.restart_on_jump = options.restart_on_jump;
  opt.lcp_solver = s.lcp_solver;
  opt.block_flip = options.block_flip;
  opt.settle_switches = circuit.tran->uic;
  opt.analyses = options.analyses;
  // A circuit without capacitors or inductors has no state: every point is a static solve,
  // exact at any step, so it is solved at the print times themselves (nothing interpolated).
  const auto& e = assembled.mlcs.E;
  const bool stateless =
      std::none_of(e.valuePtr(), e.valuePtr() + e.nonZeros(), [](double v) { return v != 0.0; });
  opt.adaptive = s.adaptive && !stateless;
  opt.smooth_kinks = s.stepping.smooth_kinks;
  const auto [bound, bound_source] = source_step_bound(circuit);
  if (!opt.adaptive) {
    // The fixed-step θ-scheme: --step, else .options step, else the .tran step (capped by TMAX).
    opt.h = s.h;
    const std::string source = options.h                       ? "--step"
                               : circuit.stepping.step > 0     ? ".options step"
                               : s.tmax > 0 && opt.h == s.tmax ? "the .tran TMAX"
                               : stateless && s.adaptive
                                   ? "no capacitor or inductor: every print time solved exactly"
                               : s.tstep > 0 ? "the .tran step"
                                             : "no .tran step given: a 1000th of the run";
    result.step_rule = fmt::format("fixed h = {:.6g} s ({})", opt.h, source);
    if (opt.h > 4 * bound && stateless && s.adaptive)
      result.warnings.push_back(fmt::format(
          "the print interval {:.3g} s does not resolve source '{}' (it changes on a time scale "
          "of {:.3g} s): the rows are exact but too far apart to show its waveform; take a "
          "smaller TSTEP",
          opt.h, bound_source, 4 * bound));
    else if (opt.h > 4 * bound)
      result.warnings.push_back(fmt::format(
          "the fixed step {:.3g} s does not resolve source '{}' (it changes on a time scale of "
          "{:.3g} s): its waveform is undersampled; take a smaller step",
          opt.h, bound_source, 4 * bound));
    return true;
  }
  // TSTEP is the print interval and the hint for the first step; TMAX (else a 50th of the run)
  // and the sources' content bound the step; error control chooses it.
  const double cap = s.tmax > 0 ? s.tmax : span / 50;
  opt.h_max = std::min(cap, bound);
  if (span / opt.h_max > kMaxSteps) {
    result.fail(solvers::Status::kInvalidInput,
                fmt::format("source '{}' changes on a time scale of {:.3g} s: resolving it over "
                            "the {:.3g} s run needs {:.3g} steps; shorten the run or check the "
                            "source's frequency",
                            bound_source, 4 * bound, span, span / opt.h_max));
    return false;
  }
  opt.h = std::min(s.output_step, opt.h_max) / 10;
  opt.reltol = s.stepping.reltol;
  if (options.dense_output) {
    opt.output_step = s.output_step;
    opt.output_from = s.tstart;
  }
  opt.atol = error_floors(assembled, s.stepping);
  result.step_rule = fmt::format(
      "error control (RELTOL {:g}, VNTOL {:g} V, ABSTOL {:g} A, CHGTOL {:g} C), h <= {:.3g} s "
      "({})",
      s.stepping.reltol, s.stepping.vntol, s.stepping.abstol, s.stepping.chgtol, opt.h_max,
      opt.h_max == bound                  ? "the content of source " + bound_source
      : s.tmax > 0 && opt.h_max == s.tmax ? std::string("TMAX")
                                          : std::string("a 50th of the run"));
  return true;
}

// Ends `result` with the failure of a step, naming the devices of a singular mode
// (explain.hpp).
void fail_step(TransientResult& result, const Assembled& assembled,
               const solvers::ThetaStepper& stepper, double theta,
               const solvers::MlcpOutcome& outcome) {
  const ModeDiagnosis why =
      outcome.status == solvers::LcpStatus::kNumericalFailure
          ? explain_mode(assembled, theta * (stepper.t_next() - stepper.t()), stepper.mode())
          : ModeDiagnosis{};
  result.fail(outcome.status,
              fmt::format("at t = {:.9g} s (step from {:.9g} s): {}", stepper.t_next(), stepper.t(),
                          why.with(fmt::format("{}{} [{}]", outcome.message,
                                               detail::pair_list(assembled, outcome.pairs),
                                               solvers::to_string(outcome.status)))),
              stepper.t_next(), detail::failure_devices(assembled, why, outcome.pairs));
}

// The points handed to the observer: every accepted point from TSTART, and (dense output) the
// print times between them when the steps may be longer than the print interval.
class PointEmitter {
 public:
  PointEmitter(const TranSettings& s, const solvers::ThetaOptions& opt, bool dense_output,
               const solvers::ThetaStepper& stepper, const Observer& observer, long& points)
      : stepper_(stepper),
        observer_(observer),
        points_(points),
        t_from_(s.tstart - 1e-9 * s.tstop),
        interval_(s.output_step),
        dense_(dense_output && interval_ > 0 && (opt.adaptive || opt.h > interval_ * (1 + 1e-9))),
        grid_(s.tstart, interval_) {}

  bool operator()() {
    if (dense_) {
      const double tol = 1e-9 * interval_, t0 = stepper_.t_prev(), t1 = stepper_.t();
      for (;; ++next_k_) {
        const double g = grid_.at(next_k_);
        if (g >= t1 - tol) break;
        if (g <= t0 + tol) continue;
        stepper_.interpolate(g, x_, lambda_, xdot_);
        ++points_;
        if (!observer_(g, x_, lambda_, xdot_)) return false;
      }
    }
    if (stepper_.t() < t_from_) return true;
    ++points_;
    return observer_(stepper_.t(), stepper_.x(), stepper_.lambda(), stepper_.xdot());
  }

 private:
  const solvers::ThetaStepper& stepper_;
  const Observer& observer_;
  long& points_;
  double t_from_, interval_;
  bool dense_;
  solvers::DecimalGrid grid_;  // exact decimal times
  long next_k_ = 0;
  Eigen::VectorXd x_, lambda_, xdot_;
};

TransientResult run_transient_unchecked(const Circuit& circuit, const Assembled& assembled,
                                        const TransientOptions& options, const Observer& observer) {
  TransientResult result;
  if (!circuit.tran) {
    result.fail(solvers::Status::kInvalidInput,
                "no .tran card: nothing to simulate (add e.g. '.tran 1u 1m')");
    return result;
  }
  const TranSettings settings = resolve_tran_settings(circuit, options);
  if (settings.method == TranMethod::kEvent)
    return run_event_transient(circuit, assembled, options, observer);
  solvers::ThetaOptions opt;
  if (!theta_options(circuit, assembled, settings, options, opt, result)) return result;
  result.h = opt.h;
  result.theta = opt.theta;
  if (std::string why = opt.validate(); !why.empty()) {
    result.fail(solvers::Status::kInvalidInput, std::move(why));
    return result;
  }
  detail::InitialPoint init = detail::initial_point(circuit, assembled);
  if (!init.error.empty()) {
    result.fail(init.status, init.error, 0.0, init.devices);
    return result;
  }
  result.warnings.insert(result.warnings.end(), init.warnings.begin(), init.warnings.end());
  if (!circuit.tran->uic)
    detail::leave_unstable_equilibrium(circuit, assembled, settings.tstop - settings.tstart, init,
                                       result.warnings);
  // Inductor currents cut by opening switches: the stepper solves the state jump at each
  // instant where switches open (solvers::SwitchJump), which is checked alone; a step's end
  // minus its start would add the step's own motion h·i' to it.
  const detail::CutDetector cuts(circuit, assembled);
  std::vector<detail::InductorCut> cut_list;
  opt.record_jumps = cuts.active();
  solvers::ThetaStepper stepper(assembled.mlcs, opt);
  stepper.start(init.x, init.q, init.lambda, init.mode);
  PointEmitter emit(settings, opt, options.dense_output, stepper, observer, result.points);
  bool go_on = emit();
  StepCapture capture(options, stepper, opt.h);
  while (go_on && !stepper.finished()) {
    capture.before_step(result.captured);
    const solvers::MlcpOutcome outcome = stepper.step();
    capture.after_step(result.captured);
    if (outcome.status != solvers::LcpStatus::kSolved &&
        outcome.status != solvers::LcpStatus::kInaccurate) {
      fail_step(result, assembled, stepper, opt.theta, outcome);
      break;
    }
    for (const solvers::SwitchJump& j : stepper.take_switch_jumps())
      cuts.check(j.t, j.x_minus, j.x_plus, cuts.opened(j.mode_minus, j.mode_plus), cut_list);
    go_on = emit();
  }
  detail::report_cuts(cut_list, result.warnings);
  result.t_end = stepper.t();
  result.stopped = !go_on;
  result.stats = stepper.stats();
  result.shared_analysis = stepper.shared_analysis();
  if (result.stats.floor_steps > 0) {
    result.warnings.push_back(fmt::format(
        "{} steps were accepted at the smallest step ({:.3g} s) with an error estimate above "
        "RELTOL: the result there is less accurate than asked",
        result.stats.floor_steps, solvers::ThetaStepper::floor_step(settings.tstop)));
    if (result.summary.solved()) {
      result.summary.status = solvers::Status::kInaccurate;
      result.summary.message = result.warnings.back();
    }
  }
  return result;
}
}  // namespace

}  // namespace nsspice::circuit
