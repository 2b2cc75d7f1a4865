// The θ-scheme's period map (pss_map.hpp): one period of the fixed-step θ-scheme (h = T/N)
// started at t = 0 from x0 with q0 = E x0, restart steps at t = 0 as at any source breakpoint,
// so that Φ is the period map of a fixed-step transient whose sources have a breakpoint at
// every kT. Its Jacobian is the forward difference
//
//   J_{:,k} = (Φ(x0 + δ_k e_k)_D − Φ(x0)_D) / δ_k,   δ_k = 1e-7·max(|x_k|, ‖x_D‖∞, 1e-3),
//
// exact up to O(δ) where the mode sequence does not change, one extra period per column.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "circuit/src/initial_point.hpp"
#include "circuit/src/pss_map.hpp"
#include "solvers/time/theta_stepper.hpp"

namespace nsspice::circuit::detail {
namespace {

solvers::ThetaOptions theta_options(const Circuit& c, const PssOptions& o) {
  solvers::ThetaOptions opt;
  opt.theta = c.theta;
  long steps = o.steps_per_period;
  if (steps <= 0)
    steps =
        c.tran && c.tran->tstep > 0 ? std::max(1L, std::lround(o.period / c.tran->tstep)) : 1000;
  opt.h = o.period / static_cast<double>(steps);
  opt.t_start = 0;
  opt.t_stop = o.period;
  opt.switch_state_from_mode = true;  // a period continues the one before
  opt.lcp_solver = c.lcp_solver;
  return opt;
}

class ThetaMap final : public PeriodMap {
 public:
  ThetaMap(const Assembled& a, const solvers::ThetaOptions& options)
      : a_(a), stepper_(a.mlcs, options) {
    h_ = options.h;
    theta_ = options.theta;
  }

  solvers::Summary run(const PssState& from, PssState& to, const PssObserver* observer,
                       double t_offset) override {
    ++count_;
    stepper_.start(from.x, a_.mlcs.E * from.x, from.lambda, from.mode);
    if (observer != nullptr) (*observer)(t_offset, stepper_.x(), stepper_.lambda());
    sequence_.clear();
    while (!stepper_.finished()) {
      const solvers::MlcpOutcome outcome = stepper_.step();
      if (outcome.status != solvers::LcpStatus::kSolved &&
          outcome.status != solvers::LcpStatus::kInaccurate) {
        return step_failure(a_, outcome.status, outcome.message, stepper_.t_next(), outcome.pairs,
                            stepper_.mode(), h_);
      }
      note_mode(stepper_.mode());
      if (observer != nullptr)
        (*observer)(t_offset + stepper_.t(), stepper_.x(), stepper_.lambda());
    }
    to = {stepper_.x(), stepper_.lambda(), stepper_.mode()};
    return solved();
  }

  solvers::Summary jacobian(const PssState& from, const PssState& to, Eigen::MatrixXd& j) override {
    return finite_difference_jacobian(*this, a_, from, to, j);
  }

  std::string mode_sequence() const override { return sequence_; }

 private:
  const Assembled& a_;
  solvers::ThetaStepper stepper_;
  std::string sequence_;  // the modes of the period's steps, runs collapsed
  std::string last_;

  void note_mode(const std::vector<char>& mode) {
    std::string m(mode.size(), '0');
    for (size_t k = 0; k < mode.size(); ++k) m[k] = mode[k] ? '1' : '0';
    if (!sequence_.empty() && m == last_) return;
    sequence_ += (sequence_.empty() ? "" : " ") + m;
    last_ = m;
  }
};

}  // namespace

solvers::Summary finite_difference_jacobian(PeriodMap& map, const Assembled& a,
                                            const PssState& from, const PssState& to,
                                            Eigen::MatrixXd& j) {
  const std::vector<Eigen::Index> d = dynamic_columns(a.mlcs.E);
  const auto n = static_cast<Eigen::Index>(d.size());
  j.resize(n, n);
  const double floor = std::max(part(from.x, d).cwiseAbs().maxCoeff(), 1e-3);
  const Eigen::VectorXd base = part(to.x, d);
  for (Eigen::Index k = 0; k < n; ++k) {
    PssState p = from, po;
    const auto col = d[static_cast<size_t>(k)];
    const double delta = 1e-7 * std::max(std::abs(from.x[col]), floor);
    p.x[col] += delta;
    if (solvers::Summary s = map.run(p, po); !s.solved()) return s;
    j.col(k) = (part(po.x, d) - base) / delta;
  }
  return solved();
}

MadeMap make_theta_map(const Circuit& circuit, const Assembled& a, const PssOptions& options) {
  const solvers::ThetaOptions opt = theta_options(circuit, options);
  if (std::string why = opt.validate(); !why.empty())
    return {nullptr, solvers::invalid_input("the theta map: " + std::move(why))};
  return {std::make_unique<ThetaMap>(a, opt), solved()};
}

}  // namespace nsspice::circuit::detail
