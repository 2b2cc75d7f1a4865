// `nsspice view` (view_command.hpp).
#include "app/cli/view_command.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "app/cli/simulation.hpp"
#include "app/io/signals.hpp"
#include "app/view/html_view.hpp"

namespace nsspice::app {
namespace {

// The measurements of `texts` on the file's rows; nullopt with the error printed.
std::optional<std::vector<MeasureResult>> measure_file(const std::vector<std::string>& texts,
                                                       const Waveforms& w) {
  MeasureSet set;
  std::string error;
  for (const auto& text : texts) {
    const auto spec = parse_measure(text, error);
    if (!spec || !set.add(*spec, w.names, error)) {
      print_error(fmt::format("--meas '{}': {}", text, error));
      return std::nullopt;
    }
  }
  std::vector<double> row(w.names.size());
  for (size_t i = 0; i < w.time.size() && !set.empty(); ++i) {
    for (size_t k = 0; k < w.columns.size(); ++k) row[k] = w.columns[k][i];
    set.feed(w.time[i], row);
  }
  return set.results();
}

}  // namespace

int write_view_file(const std::string& path, const Waveforms& w, const std::string& title,
                    const std::string& subtitle, const std::string& report,
                    const std::vector<MeasureResult>& measurements) {
  ViewData d;
  d.title = title;
  d.subtitle = subtitle;
  d.report = report;
  d.measurements = measurements;
  d.time = &w.time;
  for (size_t k = 0; k < w.names.size(); ++k) d.signals.push_back({w.names[k], &w.columns[k]});
  std::string error;
  if (!write_view(path, d, error)) {
    print_error(error);
    return kOutputFailed;
  }
  return 0;
}

std::string view_path_error(const std::string& path, const std::string& option) {
  const std::string ext = lower(std::filesystem::path(path).extension().string());
  if (ext == ".html" || ext == ".htm") return {};
  return fmt::format("{} '{}': the viewer is an HTML file: the name must end in .html or .htm",
                     option, path);
}

int view_command(const ViewOptions& o) {
  if (!o.output.empty())
    if (const std::string why = view_path_error(o.output, "-o"); !why.empty()) {
      print_error(why);
      return kBadInput;
    }
  std::string error;
  auto data = read_waveforms(o.input, error);
  if (!data) {
    print_error(error);
    return kBadInput;
  }
  if (const std::string why = needs_time_scale(*data, o.input, "view"); !why.empty()) {
    print_error(why);
    return kBadInput;
  }
  if (!data->note.empty()) fmt::print(stderr, "nsspice: note: '{}': {}\n", o.input, data->note);
  if (data->time.empty() || data->names.empty()) {
    print_error(fmt::format("'{}' holds no points", o.input));
    return kBadInput;
  }
  if (!o.signals.empty()) {
    const auto idx = select_signals(split_signals(o.signals), data->names, "--signals", error);
    if (!idx) {
      print_error(error);
      return kBadInput;
    }
    Waveforms subset;
    subset.title = data->title, subset.date = data->date, subset.time = std::move(data->time);
    for (size_t k : *idx) {
      subset.names.push_back(data->names[k]);
      subset.columns.push_back(data->columns[k]);
    }
    *data = std::move(subset);
  }
  const auto measured = measure_file(o.measures, *data);
  if (!measured) return kBadInput;
  const std::string output =
      o.output.empty() ? std::filesystem::path(o.input).stem().string() + ".html" : o.output;
  const std::string title = !o.title.empty()       ? o.title
                            : !data->title.empty() ? data->title
                                                   : o.input;
  const std::string subtitle = fmt::format(
      "{}{}: {} points, {} signal{}", o.input, data->date.empty() ? "" : " (" + data->date + ")",
      data->points(), data->names.size(), data->names.size() == 1 ? "" : "s");
  if (const int code = write_view_file(output, *data, title, subtitle, {}, *measured); code != 0)
    return code;
  if (!measured->empty()) fmt::print("{}", format_measures(*measured));
  fmt::print("view: {} ({} points, {} signals)\n", output, data->points(), data->names.size());
  return 0;
}

}  // namespace nsspice::app
