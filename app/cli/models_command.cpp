#include "app/cli/models_command.hpp"

#include <fmt/format.h>

#include <cmath>

#include "app/cli/plot_command.hpp"
#include "app/cli/simulation.hpp"
#include "app/plot/plot_gnuplot.hpp"
#include "circuit/elaborate.hpp"

namespace nsspice::app {
namespace {

// v(i) of the SPICE branch and of its PWL on a log grid of [imin, imax], as two series.
PlotPanel branch_panel(std::string title, const circuit::ExpBranch& b, const circuit::PwlFit& fit) {
  PlotPanel panel{std::move(title), std::string("V"), {}, false};
  PlotSeries spice{std::string("SPICE"), {}, {}, true, 0, false};
  const bool ideal = fit.curve.segments.empty();  // idealized: v = V0 (0, or BV in breakdown)
  PlotSeries pwl{std::string(ideal ? "ideal" : "PWL"), {}, {}, false, 1, false};
  const int n = 400;
  for (int s = 0; s < n; ++s) {
    const double i = fit.imin * std::pow(fit.imax / fit.imin, s / (n - 1.0));
    spice.t.push_back(i);
    spice.y.push_back(b.voltage(i));
    pwl.t.push_back(i);
    pwl.y.push_back(ideal ? b.v0 : fit.curve.voltage(i));
  }
  panel.series = {std::move(spice), std::move(pwl)};
  return panel;
}

// A MOS card's square law in saturation per unit W/L: v_gs against I_D = KP/2·x², SPICE
// (v_gs = VT + √(2·I_D/KP)) and PWL (the secants of x² through the knots, inverted), on the
// log-current axis of the junction panels, over I_D = KP/2·(10⁻³·xmax)² … KP/2·xmax².
PlotPanel mos_panel(const circuit::DiodeConversion& conv) {
  PlotPanel panel{conv.model + " saturation, per W/L = 1", std::string("V_GS [V]"), {}, false};
  PlotSeries spice{std::string("SPICE"), {}, {}, true, 0, false};
  PlotSeries pwl{std::string("PWL"), {}, {}, false, 1, false};
  const std::vector<double>& x = conv.mos_knots;
  const double xmax = x.back(), kp = conv.mos_kp;
  const double lo = 0.5 * kp * 1e-6 * xmax * xmax, hi = 0.5 * kp * xmax * xmax;
  const int n = 400;
  for (int s = 0; s < n; ++s) {
    const double i = lo * std::pow(hi / lo, s / (n - 1.0)), y = 2 * i / kp;
    size_t k = 1;
    while (k + 1 < x.size() && x[k] * x[k] < y) ++k;
    const double overdrive = x[k - 1] + (y - x[k - 1] * x[k - 1]) / (x[k - 1] + x[k]);
    spice.t.push_back(i);
    spice.y.push_back(conv.mos_vt + std::sqrt(y));
    pwl.t.push_back(i);
    pwl.y.push_back(conv.mos_vt + overdrive);
  }
  panel.series = {std::move(spice), std::move(pwl)};
  return panel;
}

int write_models_plot(const ModelsOptions& o, const circuit::Circuit& c) {
  if (!plot_extension_ok(o.plot)) {
    print_error(fmt::format("--plot '{}': the plot must be a .png, .svg or .pdf file", o.plot));
    return kBadInput;
  }
  PlotRequest plot;
  plot.title = fmt::format("{}: SPICE (dashed) and {} device characteristics{}", o.netlist,
                           c.pwl.idealize ? "ideal" : "PWL",
                           c.pwl.idealize ? "\n(idealized: --ideal / .options idealize, the "
                                            "ideal diode is used instead)"
                                          : "");
  plot.output = o.plot;
  plot.xlabel = "current [A]";
  plot.log_x = true;
  for (const auto& conv : c.conversions) {
    if (conv.mos_knots.size() > 1) plot.panels.push_back(mos_panel(conv));
    if (!(conv.forward_fit.imax > 0)) continue;  // not a SPICE card
    plot.panels.push_back(
        branch_panel(conv.model + " " + conv.forward_label, conv.forward, conv.forward_fit));
    if (conv.reverse)
      plot.panels.push_back(
          branch_panel(conv.model + " " + conv.reverse_label, *conv.reverse, conv.reverse_fit));
  }
  if (plot.panels.empty()) {
    print_error(fmt::format("--plot: '{}' has no SPICE diode, transistor or MOS model {}to draw{}",
                            o.netlist, c.unused_models.empty() ? "" : "that an element uses ",
                            c.unused_models.empty() ? "" : " (--all draws every .model card)"));
    return kBadInput;
  }
  if (const std::string why = write_plot(plot); !why.empty()) {
    print_error(fmt::format("plot '{}': {}", o.plot, why));
    return kOutputFailed;
  }
  fmt::print("plot: {}\n", o.plot);
  return 0;
}

}  // namespace

std::string format_conversions(const circuit::Circuit& circuit) {
  std::string out;
  for (const auto& conv : circuit.conversions) out += fmt::format("  {}\n", conv.summary);
  for (const std::string& knot : circuit.bias_notes) out += fmt::format("  {}\n", knot);
  if (const size_t n = circuit.unused_models.size(); n > 0)
    out += fmt::format(
        "  {} .model card{} not used by any element: not converted, {} parameters not checked "
        "(nsspice models --all converts every card)\n",
        n, n == 1 ? "" : "s", n == 1 ? "its" : "their");
  return out;
}

namespace {

// "d1, d2, d3, ... (N in all)": the names of the unused cards, at most `shown` of them.
std::string unused_names(const std::vector<std::string>& names, size_t shown) {
  std::string out;
  for (size_t k = 0; k < names.size() && k < shown; ++k) out += (k ? ", " : "") + names[k];
  if (names.size() > shown) out += fmt::format(", ... ({} in all)", names.size());
  return out;
}

}  // namespace

int models_command(const ModelsOptions& o) {
  LoadOptions load;
  load.require_tran = false;
  load.models = o.all ? circuit::ModelCards::kAll : circuit::ModelCards::kUsed;
  const auto loaded = load_netlist(o.netlist, load);
  if (!loaded) return kBadInput;
  circuit::Circuit& c = loaded->circuit;
  if (o.ideal) circuit::idealize_diodes(c);
  if (c.conversions.empty() && c.unused_models.empty()) {
    fmt::print("{}: no device models\n", o.netlist);
    return 0;
  }
  const std::string at =
      c.pwl.temp != 27 ? fmt::format(", at {:g} °C (.temp)", c.pwl.temp) : std::string();
  fmt::print("device models of {} (tolerance {:g} mV·max(1, v/1 V), .options pwltol{}){}:\n{}",
             o.netlist, c.pwl.tol * 1e3, at, c.pwl.idealize ? ", idealized" : "",
             format_conversions(c));
  if (!c.unused_models.empty())
    fmt::print("not used by any element: {}\n", unused_names(c.unused_models, 20));
  return o.plot.empty() ? 0 : write_models_plot(o, c);
}

}  // namespace nsspice::app
