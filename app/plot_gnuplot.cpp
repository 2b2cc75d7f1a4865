#include "app/plot_gnuplot.hpp"

#include <fmt/format.h>
#include <gnuplot-iostream.h>

#include <cmath>
#include <filesystem>

namespace nsspice::app {
namespace {

struct TimeUnit {
  double scale;
  const char* label;
};

TimeUnit time_unit(double t_end) {
  if (t_end < 1e-6) return {1e9, "ns"};
  if (t_end < 1e-3) return {1e6, "µs"};
  if (t_end < 1.0) return {1e3, "ms"};
  return {1.0, "s"};
}

std::string terminal_for(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".svg")
    return "svg size 1200,700 dynamic enhanced font 'Sans,12' background rgb 'white'";
  if (ext == ".pdf") return "pdfcairo size 8in,4.7in enhanced font 'Sans,10'";
  return "pngcairo size 1200,700 enhanced font 'Sans,11'";
}

std::string quoted(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '\'' || c == '_' || c == '^' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string write_plot(const PlotRequest& request) {
  if (request.series.empty() || request.time.empty()) return "nothing to plot";
  const auto unit = time_unit(request.time.back());
  try {
    Gnuplot gp("gnuplot 2>&1");
    gp << "set terminal " << terminal_for(request.output) << "\n";
    gp << "set output '" << request.output << "'\n";
    gp << "set title '" << quoted(request.title) << "'\n";
    gp << "set xlabel 'time [" << unit.label << "]'\nset grid lc rgb '#dddddd'\n";
    gp << "set key outside right top box\nset border lw 1.2\nset tics nomirror\n";
    gp << "set style line 1 lw 2 lc rgb '#1f77b4'\nset style line 2 lw 2 lc rgb '#d62728'\n"
          "set style line 3 lw 2 lc rgb '#2ca02c'\nset style line 4 lw 2 lc rgb '#ff7f0e'\n"
          "set style line 5 lw 2 lc rgb '#9467bd'\nset style line 6 lw 2 lc rgb '#8c564b'\n"
          "set style increment user\n";
    // Voltages on the left axis, currents on the right one when both are plotted.
    auto is_current = [](const std::string& name) { return name.rfind("i(", 0) == 0; };
    bool any_v = false, any_i = false;
    for (const auto& s : request.series) (is_current(s.name) ? any_i : any_v) = true;
    const bool two_axes = any_v && any_i;
    gp << "set ylabel '" << (any_v ? "voltage [V]" : "current [A]") << "'\n";
    if (two_axes) gp << "set y2label 'current [A]'\nset y2tics\nset ytics nomirror\n";
    gp << "plot ";
    for (size_t k = 0; k < request.series.size(); ++k) {
      const bool y2 = two_axes && is_current(request.series[k].name);
      gp << (k ? ", " : "") << "'-' using 1:2 axes x1" << (y2 ? "y2" : "y1") << " with lines ls "
         << (k % 6 + 1) << " title '" << quoted(request.series[k].name) << (y2 ? " (right)" : "")
         << "'";
    }
    gp << "\n";
    for (const auto& s : request.series) {
      std::vector<std::pair<double, double>> points;
      points.reserve(request.time.size());
      for (size_t i = 0; i < request.time.size(); ++i)
        points.emplace_back(request.time[i] * unit.scale, s.values[i]);
      gp.send1d(points);
    }
    gp << "set output\n";
  } catch (const std::exception& e) {
    return fmt::format("gnuplot failed: {}", e.what());
  }
  std::error_code ec;
  if (!std::filesystem::exists(request.output, ec) ||
      std::filesystem::file_size(request.output, ec) == 0)
    return "gnuplot did not write the plot (is gnuplot installed?)";
  return {};
}

}  // namespace nsspice::app
