#pragma once
// The plots of a sweep (`--plot` with .step, --step-param or --runs; docs/sweeps.md, "Plot"):
//   * the overlay: each panel's signals as one run would draw them, every run over the others,
//     read back from the runs' files: up to kLegendRuns runs get a legend entry each, labelled
//     with their values; with more, each signal keeps one colour and one legend entry and the
//     runs form a band of at most kOverlayRuns of them, evenly spread over the run indices;
//   * Monte Carlo runs also get a histogram of each measurement (sweep_tables.hpp gives the
//     bins), one file per measurement next to the plot, <plot stem>.<measurement>.hist<ext>,
//     with the --spec limits drawn as red vertical lines and the count, mean, standard deviation
//     and yield in the title.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/io/waveforms.hpp"
#include "app/sweep/sweep_tables.hpp"

namespace nsspice::app {

inline constexpr std::size_t kOverlayRuns = 50;
inline constexpr std::size_t kLegendRuns = 8;

struct OverlayPlan {
  std::string path;                              // "" = no plot
  std::vector<std::vector<std::string>> panels;  // signal names per panel
  std::string title;
};

// Reads the runs' files (`paths`, those with ok[k]) and draws them; "" or why not.
std::string draw_overlay(const OverlayPlan& plan, const std::vector<std::string>& paths,
                         const std::vector<bool>& ok,
                         const std::function<std::string(std::size_t)>& label);

// The same, with run k's waveforms from `read` (nullopt with `error`).
using RunReader = std::function<std::optional<Waveforms>(std::size_t k, std::string& error)>;
std::string draw_overlay(const OverlayPlan& plan, const std::vector<bool>& ok,
                         const RunReader& read,
                         const std::function<std::string(std::size_t)>& label);

// The histogram file of measurement `name` beside the plot `plot_path`.
std::string histogram_path(const std::string& plot_path, const std::string& name);

// Draws the histogram of every measurement of `records` beside `plot_path`, titled with the
// circuit's `title` and `runs` ("200 runs (Monte Carlo, seed 1)"); the paths written, or the
// first error in `error`. A measurement with fewer than two distinct values is left out (named
// in `skipped`).
std::vector<std::string> draw_histograms(const std::string& plot_path, const std::string& title,
                                         const std::string& runs,
                                         const std::vector<RunRecord>& records,
                                         const std::vector<Spec>& specs,
                                         std::vector<std::string>& skipped, std::string& error);

}  // namespace nsspice::app
