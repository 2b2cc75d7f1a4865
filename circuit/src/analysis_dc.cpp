// .op and .dc (circuit/analysis.hpp): the static MLCP of docs/formulation.md §2,
//
//   G x − B λ = S s,   w = C x + D λ + d,   0 ≤ w ⊥ λ ≥ 0,
//
// with s the sources' DC values as SPICE takes them (static_source_values: a DC value written
// beside a transient function, else that function at t = 0), and for .dc the swept sources'
// entries of s replaced by
// the sweep values (s is linear in them, so each point is a new right-hand side b = S s of the
// same MLCP: one symbolic analysis, mode factors cached, each point warm-started from the
// previous mode by solvers::StaticMlcp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "circuit/analysis.hpp"
#include "circuit/src/initial_point.hpp"
#include "circuit/src/mos_lambda_check.hpp"
#include "circuit/src/pwl_range_check.hpp"
#include "solvers/time/operating_point.hpp"

namespace nsspice::circuit {
namespace {

bool solved(const solvers::OperatingPoint& op) {
  return op.outcome.status == solvers::LcpStatus::kSolved ||
         op.outcome.status == solvers::LcpStatus::kInaccurate;
}

// The columns of s that belong to the device named `name`.
std::vector<Eigen::Index> source_columns(const Circuit& circuit, const Assembled& a,
                                         const std::string& name) {
  std::vector<Eigen::Index> out;
  for (size_t k = 0; k < a.source_device.size(); ++k) {
    const int d = a.source_device[k];
    if (d >= 0 && device_name(circuit.devices[static_cast<size_t>(d)]) == name)
      out.push_back(static_cast<Eigen::Index>(k));
  }
  return out;
}

// The sources whose DC value differs from their transient function's value at t = 0: a note each,
// as ngspice's "dc value used for op instead of transient time=0 value"; not for the components
// in `swept` (a .dc sweep's own sources).
void note_dc_values(const Circuit& circuit, const Assembled& a, AnalysisResult& r,
                    const std::vector<std::vector<Eigen::Index>>& swept = {}) {
  for (size_t k = 0; k < a.source_dc.size(); ++k) {
    const double dc = a.source_dc[k];
    if (std::isnan(dc) || a.source_device[k] < 0) continue;
    const auto column = static_cast<Eigen::Index>(k);
    if (std::any_of(swept.begin(), swept.end(), [&](const std::vector<Eigen::Index>& c) {
          return std::find(c.begin(), c.end(), column) != c.end();
        }))
      continue;
    const double t0 = waveform_value(a.sources[k], 0.0);
    if (dc == t0) continue;
    const Device& d = circuit.devices[static_cast<size_t>(a.source_device[k])];
    const char* unit = std::holds_alternative<CurrentSource>(d) ? "A" : "V";
    r.notes.push_back(
        fmt::format("'{}': its DC value {:g} {} is used for the operating point, not its transient "
                    "function's {:g} {} at t = 0 (as in SPICE; a .tran starts from the latter)",
                    device_name(d), dc, unit, t0, unit));
  }
}

void count(const solvers::StaticMlcp& solver, AnalysisResult& r) {
  r.pivots = solver.stats().pivots;
  r.mode_changes = solver.stats().mode_changes;
}

}  // namespace

AnalysisResult operating_point(const Circuit& circuit, const Assembled& a, StaticSolution& out) {
  AnalysisResult r;
  const solvers::Mlcs& m = a.mlcs;
  solvers::StaticMlcp solver(m);
  Eigen::VectorXd s;
  static_source_values(a, s);
  const Eigen::VectorXd b = m.S * s;  // (n zeros when there is no source)
  note_dc_values(circuit, a, r);
  const solvers::OperatingPoint op = solver.solve_stepping(b);
  count(solver, r);
  if (op.source_steps > 0)
    r.notes.push_back(fmt::format(
        "the operating point was found by source stepping (the sources ramped from 0 in {} "
        "steps, each from the last one's mode): the search from all pairs off did not reach it",
        op.source_steps));
  if (op.gmin_steps > 0)
    r.notes.push_back(fmt::format(
        "the operating point was found by GMIN stepping (a conductance on every node from "
        "1e-3 S down to 1e-12 S in {} steps, then none, each from the last one's mode): the "
        "search from all pairs off and source stepping did not reach it",
        op.gmin_steps));
  if (!solved(op)) {
    r.fail(op.outcome.status,
           fmt::format("the DC operating point could not be found: {}{}", op.outcome.message,
                       detail::pair_list(a, op.outcome.pairs)),
           std::numeric_limits<double>::quiet_NaN(),
           detail::failure_devices(a, {}, op.outcome.pairs));
    return r;
  }
  for (const auto& u : op.unsettled)
    r.notes.push_back(detail::unsettled_switch(
        a, u, fmt::format("the point below is the one solved with it {}", u.on ? "on" : "off")));
  out = {op.x, op.lambda, op.mode};
  r.points = 1;
  return r;
}

double dc_value(const DcSweepSpec& sweep, long k) {
  return sweep.start + static_cast<double>(k) * sweep.step;
}

AnalysisResult dc_sweep(const Circuit& circuit, const Assembled& a, const DcObserver& observer) {
  AnalysisResult r;
  for (const auto& sweep : circuit.dc) {
    if (!sweep.parameter) continue;
    r.fail(solvers::Status::kInvalidInput,
           fmt::format("'{}' is a .param: its sweep rebuilds the circuit from the netlist "
                       "for every value (app/cli/param_sweep.hpp)",
                       sweep.source));
    return r;
  }
  const solvers::Mlcs& m = a.mlcs;
  std::vector<std::vector<Eigen::Index>> columns;
  for (const auto& sweep : circuit.dc) columns.push_back(source_columns(circuit, a, sweep.source));
  solvers::StaticMlcp solver(m);
  Eigen::VectorXd s0;
  static_source_values(a, s0);
  note_dc_values(circuit, a, r, columns);
  const long outer = circuit.dc.size() > 1 ? circuit.dc[1].points : 1;
  std::vector<double> values(circuit.dc.size());
  Eigen::VectorXd s = s0, b, b_last;
  long stepped = 0;
  std::string first_stepped;
  // The converted SPICE junctions' currents against their fits' ranges, point by point (the
  // small-signal check has no meaning here: no point is watched as settled).
  detail::PwlRangeCheck range(circuit, a, std::numeric_limits<double>::infinity());
  // The converted MOSFETs' LAMBDA factor, fixed at the operating point, against the points'.
  detail::MosLambdaSweepCheck lambdas(circuit);
  for (long j = 0; j < outer; ++j) {
    for (long i = 0; i < circuit.dc[0].points; ++i) {
      values[0] = dc_value(circuit.dc[0], i);
      if (values.size() > 1) values[1] = dc_value(circuit.dc[1], j);
      for (size_t k = 0; k < values.size(); ++k)
        for (Eigen::Index c : columns[k]) s[c] = values[k];
      b = m.S * s;
      // A point the warm-started solve does not answer: source stepping, from the last point
      // answered, then from 0 (operating_point.hpp).
      const solvers::OperatingPoint op = solver.solve_stepping(b, r.points > 0 ? &b_last : nullptr);
      auto at = [&] {  // the point's sweep values, for a note or the failure
        std::string where = fmt::format("{} = {:g}", circuit.dc[0].source, values[0]);
        if (values.size() > 1) where += fmt::format(", {} = {:g}", circuit.dc[1].source, values[1]);
        return where;
      };
      if (op.source_steps > 0 && stepped++ == 0) first_stepped = at();
      if (!solved(op)) {
        count(solver, r);
        r.fail(op.outcome.status,
               fmt::format("no DC solution at {}: {}{}", at(), op.outcome.message,
                           detail::pair_list(a, op.outcome.pairs)),
               std::numeric_limits<double>::quiet_NaN(),
               detail::failure_devices(a, {}, op.outcome.pairs));
        return r;
      }
      observer(values, op.x, op.lambda);
      if (!range.empty()) {
        range.label(at());
        range.add(static_cast<double>(r.points), op.x, op.lambda);
      }
      if (!lambdas.empty()) lambdas.add(op.x, at);
      b_last = b;
      ++r.points;
    }
  }
  if (stepped > 0)
    r.notes.push_back(fmt::format(
        "{} point{} of the sweep (the first at {}) found by source stepping (the sources ramped "
        "from the last point answered, or from 0, in steps of at most 1/{}): the solve from the "
        "previous point's mode did not reach {}",
        stepped, stepped == 1 ? "" : "s", first_stepped, solvers::kSourceSteps,
        stepped == 1 ? "it" : "them"));
  range.warn(r.warnings);
  lambdas.warn(r.warnings);
  count(solver, r);
  return r;
}

}  // namespace nsspice::circuit
