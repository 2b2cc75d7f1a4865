#include "circuit/transient.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "circuit/src/initial_point.hpp"

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
                           std::span<const size_t> which, std::vector<double>& out) const {
  out.resize(which.size());
  const size_t n = static_cast<size_t>(x.size());
  for (size_t k = 0; k < which.size(); ++k) {
    const size_t s = which[k];
    out[k] = s < n ? x[static_cast<Eigen::Index>(s)] : derived_value(derived[s - n], x, lambda);
  }
}

SignalTable make_signals(const Circuit&, const Assembled& assembled) {
  SignalTable t;
  t.names = assembled.unknown_names;
  t.derived = assembled.derived;
  for (const auto& d : assembled.derived) t.names.push_back(d.name);
  return t;
}

TransientResult run_transient(const Circuit& circuit, const Assembled& assembled,
                              const TransientOptions& options, const Observer& observer) {
  TransientResult result;
  if (!circuit.tran) {
    result.error = "no .tran card: nothing to simulate (add e.g. '.tran 1u 1m')";
    return result;
  }
  if (options.method.value_or(circuit.method) == TranMethod::kEvent)
    return run_event_transient(circuit, assembled, options, observer);
  const TranSpec& tran = *circuit.tran;
  solvers::ThetaOptions opt;
  opt.theta = options.theta.value_or(circuit.theta);
  opt.h = options.h.value_or(tran.tmax > 0 ? std::min(tran.tstep, tran.tmax) : tran.tstep);
  opt.t_start = 0.0;
  opt.t_stop = tran.tstop;
  opt.restart_steps = options.restart_steps;
  opt.restart_on_jump = options.restart_on_jump;
  opt.lcp_solver = options.lcp_solver.value_or(circuit.lcp_solver);
  opt.block_flip = options.block_flip;
  result.h = opt.h;
  result.theta = opt.theta;
  if (std::string why = opt.validate(); !why.empty()) {
    result.error = why;
    return result;
  }
  detail::InitialPoint init = detail::initial_point(circuit, assembled);
  if (!init.error.empty()) {
    result.error = init.error;
    return result;
  }
  solvers::ThetaStepper stepper(assembled.mlcs, opt);
  stepper.start(init.x, init.q, init.lambda, init.mode);
  auto emit = [&]() {
    // TSTART: points from there on (with a rounding margin, as times accumulate t + h).
    if (stepper.t() < tran.tstart - 1e-6 * opt.h) return true;
    ++result.points;
    return observer(stepper.t(), stepper.x(), stepper.lambda());
  };
  bool go_on = emit();
  StepCapture capture(options, stepper, opt.h);
  while (go_on && !stepper.finished()) {
    capture.before_step(result.captured);
    const solvers::MlcpOutcome outcome = stepper.step();
    capture.after_step(result.captured);
    if (outcome.status != solvers::LcpStatus::kSolved &&
        outcome.status != solvers::LcpStatus::kInaccurate) {
      result.error =
          fmt::format("at t = {:.9g} s (step from {:.9g} s): {}{} [{}]", stepper.t_next(),
                      stepper.t(), outcome.message, detail::pair_list(assembled, outcome.pairs),
                      solvers::to_string(outcome.status));
      break;
    }
    go_on = emit();
  }
  result.t_end = stepper.t();
  result.stats = stepper.stats();
  result.ok = result.error.empty();
  return result;
}

}  // namespace nsspice::circuit
