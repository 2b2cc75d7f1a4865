#pragma once
// Waveform plots through gnuplot (gnuplot-iostream): the only file that sees gnuplot.
#include <string>
#include <vector>

namespace nsspice::app {

struct PlotSeries {
  std::string name;
  std::vector<double> values;
};

struct PlotRequest {
  std::string title;
  std::string output;  // .png, .svg or .pdf
  std::vector<double> time;
  std::vector<PlotSeries> series;
};

// Writes the plot; returns an empty string or the reason it failed.
std::string write_plot(const PlotRequest& request);

}  // namespace nsspice::app
