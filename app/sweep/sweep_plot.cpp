// The plots of a sweep (sweep_plot.hpp).
#include "app/sweep/sweep_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "app/io/waveforms.hpp"
#include "app/plot/decimate.hpp"
#include "app/plot/plot_gnuplot.hpp"

namespace nsspice::app {
namespace {

// The runs drawn: those that completed, at most kOverlayRuns of them evenly spread.
std::vector<std::size_t> drawn_runs(const std::vector<bool>& ok) {
  std::vector<std::size_t> drawn;
  for (std::size_t k = 0; k < ok.size(); ++k)
    if (ok[k]) drawn.push_back(k);
  if (drawn.size() <= kOverlayRuns) return drawn;
  std::vector<std::size_t> spread;
  for (std::size_t i = 0; i < kOverlayRuns; ++i)
    spread.push_back(drawn[i * (drawn.size() - 1) / (kOverlayRuns - 1)]);
  return spread;
}

// The histogram's outline: from (e₀, 0) up and along each bin's count, down at the end.
PlotSeries outline(const Histogram& h, const std::string& name) {
  PlotSeries s{name, {h.edges.front()}, {0.0}};
  for (std::size_t b = 0; b < h.counts.size(); ++b) {
    const double c = static_cast<double>(h.counts[b]);
    s.t.insert(s.t.end(), {h.edges[b], h.edges[b + 1]});
    s.y.insert(s.y.end(), {c, c});
  }
  s.t.push_back(h.edges.back());
  s.y.push_back(0.0);
  return s;
}

std::string safe_name(const std::string& name) {
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return out;
}

}  // namespace

std::string draw_overlay(const OverlayPlan& plan, const std::vector<std::string>& paths,
                         const std::vector<bool>& ok,
                         const std::function<std::string(std::size_t)>& label) {
  return draw_overlay(
      plan, ok, [&](std::size_t k, std::string& error) { return read_waveforms(paths[k], error); },
      label);
}

std::string draw_overlay(const OverlayPlan& plan, const std::vector<bool>& ok,
                         const RunReader& read,
                         const std::function<std::string(std::size_t)>& label) {
  const std::vector<std::size_t> drawn = drawn_runs(ok);
  if (drawn.empty()) return "no run finished: nothing to draw";
  PlotRequest request;
  request.title = plan.title;
  request.output = plan.path;
  request.panels.resize(plan.panels.size());
  // Few runs: one legend entry each. Many: one colour and one legend entry per signal, the
  // runs drawn over each other in it (the spread is what the eye reads).
  const bool each = drawn.size() <= kLegendRuns;
  std::size_t missing = 0;
  for (std::size_t k : drawn) {
    std::string error;
    const auto w = read(k, error);
    if (!w) return error;
    if (w->time.empty()) continue;
    for (std::size_t p = 0; p < plan.panels.size(); ++p) {
      const auto& names = plan.panels[p];
      for (const auto& name : names) {
        const auto c = w->index(name);
        if (!c) {
          ++missing;
          continue;
        }
        const DecimatedSeries d =
            decimate(w->time, w->columns[*c], w->time.front(), w->time.back(), 1500);
        PlotSeries series{each ? fmt::format("{} {}", name, label(k))
                               : fmt::format("{} ({} runs)", name, drawn.size()),
                          d.t, d.y};
        if (!each) {
          series.color =
              static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
          series.in_legend = k == drawn.front();
        }
        request.panels[p].series.push_back(std::move(series));
      }
    }
  }
  std::erase_if(request.panels, [](const PlotPanel& p) { return p.series.empty(); });
  if (request.panels.empty()) return "none of the plotted signals is in the runs' files (--save)";
  if (drawn.size() < ok.size())
    request.note = fmt::format("{} of {} runs drawn", drawn.size(), ok.size());
  if (missing > 0)
    request.note += fmt::format("{}signals not in the runs' files are left out (--save)",
                                request.note.empty() ? "" : "; ");
  return write_plot(request);
}

std::string histogram_path(const std::string& plot_path, const std::string& name) {
  std::filesystem::path p(plot_path);
  return p
      .replace_filename(
          fmt::format("{}.{}.hist{}", p.stem().string(), safe_name(name), p.extension().string()))
      .string();
}

std::vector<std::string> draw_histograms(const std::string& plot_path, const std::string& title,
                                         const std::string& runs,
                                         const std::vector<RunRecord>& records,
                                         const std::vector<Spec>& specs,
                                         std::vector<std::string>& skipped, std::string& error) {
  std::vector<std::string> written;
  for (const auto& name : measure_names(records)) {
    const std::vector<double> v = measure_values(records, name);
    const auto h = histogram(v);
    if (!h) {
      skipped.push_back(name);
      continue;
    }
    std::string unit;
    for (const auto& r : records)
      for (const auto& m : r.measures)
        if (m.name == name && unit.empty()) unit = m.unit;
    double mean = 0, var = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    for (double x : v) var += (x - mean) * (x - mean);
    const double sd = std::sqrt(var / static_cast<double>(v.size() - 1));
    PlotRequest request;
    request.output = histogram_path(plot_path, name);
    request.xlabel = unit.empty() ? name : fmt::format("{} [{}]", name, unit);
    request.title =
        fmt::format("{}\n{} of {}: mean {:.6g}, std dev {:.3g}", title, name, runs, mean, sd);
    request.height = 500;
    PlotPanel panel;
    panel.ylabel = "runs";
    panel.series.push_back(outline(*h, fmt::format("{} ({} bins)", name, h->counts.size())));
    const double top = static_cast<double>(*std::max_element(h->counts.begin(), h->counts.end()));
    for (const auto& s : specs) {
      if (s.name != name) continue;
      const auto in =
          std::count_if(v.begin(), v.end(), [&](double x) { return x >= s.lo && x <= s.hi; });
      request.title += fmt::format(
          ", yield {:.1f} % in [{:g}, {:g}]",
          100.0 * static_cast<double>(in) / static_cast<double>(records.size()), s.lo, s.hi);
      for (const double at : {s.lo, s.hi}) {
        PlotSeries line{fmt::format("spec [{:g}, {:g}]", s.lo, s.hi), {at, at}, {0.0, top}};
        line.color = 1;
        line.in_legend = at == s.lo;
        panel.series.push_back(std::move(line));
      }
    }
    request.panels.push_back(std::move(panel));
    if (std::string why = write_plot(request); !why.empty()) {
      error = fmt::format("plot '{}': {}", request.output, why);
      return written;
    }
    written.push_back(request.output);
  }
  return written;
}

}  // namespace nsspice::app
