#include "app/plot/analysis_plot.hpp"

#include <fmt/format.h>

#include "app/io/analysis_writer.hpp"
#include "app/io/signals.hpp"

namespace nsspice::app {

void DcSweepCurves::start(const std::string& label) {
  for (const auto& n : names_)
    curves_.push_back({label.empty() ? n : fmt::format("{} ({})", n, label), {}, {}});
}

void DcSweepCurves::point(double x, std::span<const double> values) {
  const size_t first = curves_.size() - names_.size();
  for (size_t k = 0; k < names_.size() && k < values.size(); ++k) {
    curves_[first + k].t.push_back(x);
    curves_[first + k].y.push_back(values[k]);
  }
}

void DcSweepCurves::draw(PlotRequest& request, std::string xlabel) && {
  PlotPanel volts, amps;
  for (size_t i = 0; i < curves_.size(); ++i) {
    const bool current = signal_kind(names_[i % names_.size()]) == SignalKind::kCurrent;
    (current ? amps : volts).series.push_back(std::move(curves_[i]));
  }
  for (auto* p : {&volts, &amps})
    if (!p->series.empty()) request.panels.push_back(std::move(*p));
  request.xlabel = std::move(xlabel);
}

void draw_bode(PlotRequest& request, std::vector<PlotSeries> magnitudes,
               std::vector<PlotSeries> phases) {
  request.xlabel = "frequency [Hz]";
  request.log_x = true;
  request.panels = {{"magnitude [dB]", "", std::move(magnitudes), false},
                    {"phase [deg]", "", std::move(phases), false}};
}

BodeCurves::BodeCurves(const std::vector<std::string>& names) {
  for (const auto& n : names) {
    magnitudes_.push_back({ac_column_name(n, "db"), {}, {}});
    phases_.push_back({ac_column_name(n, "p"), {}, {}});
  }
}

void BodeCurves::point(double f, std::span<const std::complex<double>> z) {
  for (size_t k = 0; k < z.size() && k < magnitudes_.size(); ++k) {
    magnitudes_[k].t.push_back(f);
    magnitudes_[k].y.push_back(magnitude_db(z[k]));
    phases_[k].t.push_back(f);
    phases_[k].y.push_back(phase_deg(z[k]));
  }
}

}  // namespace nsspice::app
