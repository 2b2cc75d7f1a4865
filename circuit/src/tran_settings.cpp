// Command line > netlist > default, once, and the ranges of every transient setting
// (circuit/tran_settings.hpp).
#include "circuit/tran_settings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace nsspice::circuit {
namespace {

// "--theta 2", ".options theta=2", "theta = 2" (a default).
std::string spelled(SettingSource source, const char* cli, const char* netlist, double value) {
  switch (source) {
    case SettingSource::kCommandLine:
      return fmt::format("{} {:g}", cli, value);
    case SettingSource::kNetlist:
      return fmt::format("{}={:g}", netlist, value);
    case SettingSource::kDefault:
      break;
  }
  return fmt::format("{} = {:g}", netlist, value);
}

bool positive(double v) { return v > 0 && std::isfinite(v); }

std::string check_event(const TranSettings& s) {
  if (!(s.event_rtol > 0 && s.event_rtol < 1))
    return fmt::format("{}: must be in (0, 1)",
                       spelled(s.event_rtol_source, "--evrtol", ".options evrtol", s.event_rtol));
  if (!positive(s.event_atol))
    return fmt::format(".options evatol={:g}: must be positive", s.event_atol);
  if (!(s.event_time_tol > 0 && s.event_time_tol < 1e-3))
    return fmt::format(".options evtimetol={:g}: must be in (0, 1e-3)", s.event_time_tol);
  if (!(s.event_h_max >= 0) || !std::isfinite(s.event_h_max))
    return fmt::format("{}: must be positive (seconds)",
                       spelled(s.step_source, "--step", ".options evmaxstep", s.event_h_max));
  return {};
}

std::string check_stepping(const StepSettings& st) {
  if (!(st.reltol > 0 && st.reltol < 1))
    return fmt::format(".options reltol={:g}: must be in (0, 1)", st.reltol);
  const std::pair<const char*, double> floors[] = {
      {"abstol", st.abstol}, {"vntol", st.vntol}, {"chgtol", st.chgtol}, {"trtol", st.trtol}};
  for (const auto& [name, v] : floors)
    if (!positive(v)) return fmt::format(".options {}={:g}: must be positive", name, v);
  return {};
}

}  // namespace

double fixed_step(double tstep, double tstop, double tmax, double step) {
  if (step > 0) return step;
  const double h = tstep > 0 ? tstep : tstop / 1000;  // .tran TSTOP alone: a 1000th of the run
  return tmax > 0 ? std::min(h, tmax) : h;
}

TranSettings resolve_tran_settings(const Circuit& circuit, const TransientOptions& overrides) {
  TranSettings s;
  s.method = overrides.method.value_or(circuit.method);
  s.theta = overrides.theta.value_or(circuit.theta);
  s.theta_source = overrides.theta ? SettingSource::kCommandLine : SettingSource::kNetlist;
  if (circuit.tran) {
    s.tstep = circuit.tran->tstep;
    s.tstop = circuit.tran->tstop;
    s.tstart = circuit.tran->tstart;
    s.tmax = circuit.tran->tmax;
  }
  s.step = overrides.h.value_or(circuit.stepping.step);
  s.h = overrides.h ? *overrides.h : fixed_step(s.tstep, s.tstop, s.tmax, s.step);
  s.step_source = overrides.h ? SettingSource::kCommandLine : SettingSource::kNetlist;
  s.adaptive = !(s.step > 0) && overrides.adaptive.value_or(circuit.stepping.adaptive);
  s.output_step = s.tstep > 0 ? s.tstep : s.tstop / 1000;
  s.lcp_solver = overrides.lcp_solver.value_or(circuit.lcp_solver);
  s.event_rtol = overrides.event_rtol.value_or(circuit.event.rtol);
  s.event_rtol_source =
      overrides.event_rtol ? SettingSource::kCommandLine : SettingSource::kNetlist;
  s.event_atol = circuit.event.atol;
  s.event_time_tol = circuit.event.time_tol;
  s.event_h_max = overrides.h.value_or(circuit.event.h_max > 0 ? circuit.event.h_max : s.tmax);
  s.stepping = circuit.stepping;
  return s;
}

std::string TranSettings::validate() const {
  if (!(tstop > tstart) || !(tstart >= 0) || !(tstep >= 0) || !std::isfinite(tstep))
    return fmt::format(".tran {:g} {:g} {:g}: needs TSTEP >= 0 and TSTOP > TSTART >= 0", tstep,
                       tstop, tstart);
  if (!(theta >= 0.5 && theta <= 1))
    return fmt::format("{}: must be in [0.5, 1]",
                       spelled(theta_source, "--theta", ".options theta", theta));
  if (step_source == SettingSource::kCommandLine && !positive(h))
    return fmt::format("--step {:g}: must be positive (seconds)", h);
  if (!positive(h)) return fmt::format("the time step {:g}: must be positive (seconds)", h);
  if (!(step >= 0) || !std::isfinite(step))
    return fmt::format("{}: must be positive (seconds)",
                       spelled(step_source, "--step", ".options step", step));
  if (std::string why = check_stepping(stepping); !why.empty()) return why;
  if (method == TranMethod::kEvent) return check_event(*this);
  if (event_rtol_source == SettingSource::kCommandLine) return check_event(*this);
  return {};
}

}  // namespace nsspice::circuit
