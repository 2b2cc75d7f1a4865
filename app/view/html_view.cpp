// view_html (html_view.hpp): the page is
//   <style> uPlot's CSS, ours </style>
//   <script type="application/json" id="nsv-meta"> title, report, measurements, signals, time
//   <script type="application/octet-stream" id="nsv-time|nsv-s<k>"> base64 float64 / float32
//   <script> uPlot </script> <script> viewer.js </script>
// with every "</" inside the JSON written "<\/" so that no text ends a <script> early.
#include "app/view/html_view.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string_view>

#include "app/io/signals.hpp"
#include "solvers/time/decimal_grid.hpp"

namespace nsspice::app {
namespace view_assets {
extern const std::string_view kUplotJs, kUplotCss, kViewerJs, kViewerCss;
}  // namespace view_assets

namespace {

std::string html_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// JSON for inside <script>: "</" → "<\/".
std::string script_json(const nlohmann::json& j) {
  const std::string text = j.dump();
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') out += '\\';
  }
  return out;
}

// t0 + k·h for every sample (h from the first and last times, as a short decimal), or nullopt.
std::optional<std::pair<double, double>> uniform_grid(const std::vector<double>& t) {
  if (t.size() < 2) return std::nullopt;
  const double raw_h = (t.back() - t.front()) / static_cast<double>(t.size() - 1);
  const double h = std::stod(fmt::format("{:.12g}", raw_h));
  const solvers::DecimalGrid grid(t.front(), h);
  for (size_t k = 0; k < t.size(); ++k)
    if (grid.at(static_cast<long>(k)) != t[k]) return std::nullopt;
  return std::pair{t.front(), h};
}

template <typename T>
std::string encoded(const std::vector<double>& v) {
  std::vector<T> typed(v.begin(), v.end());
  return base64(reinterpret_cast<const unsigned char*>(typed.data()), typed.size() * sizeof(T));
}

nlohmann::json meta_of(const ViewData& d, const std::optional<std::pair<double, double>>& grid) {
  nlohmann::json meta = {{"title", d.title},
                         {"subtitle", d.subtitle},
                         {"report", d.report},
                         {"points", d.time->size()}};
  meta["time"] = grid ? nlohmann::json{{"uniform", true}, {"t0", grid->first}, {"h", grid->second}}
                      : nlohmann::json{{"uniform", false}};
  nlohmann::json signals = nlohmann::json::array();
  for (const auto& s : d.signals) {
    const SignalKind kind = signal_kind(s.name);
    signals.push_back({{"name", s.name},
                       {"unit", kind == SignalKind::kOther ? "" : unit_of(kind)},
                       {"quantity", kind == SignalKind::kVoltage   ? "voltage"
                                    : kind == SignalKind::kCurrent ? "current"
                                                                   : "value"}});
  }
  meta["signals"] = std::move(signals);
  return meta;
}

std::string measurement_rows(const std::vector<MeasureResult>& ms) {
  std::string out;
  for (const auto& m : ms)
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n", html_escape(m.name),
        m.value ? html_escape(fmt::format("{:.6g} {}", *m.value, m.unit)) : html_escape(m.failure),
        html_escape(m.text));
  return out;
}

}  // namespace

std::string base64(const unsigned char* bytes, size_t size) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < size; i += 3) {
    const unsigned v = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += kDigits[v >> 18], out += kDigits[(v >> 12) & 63], out += kDigits[(v >> 6) & 63],
        out += kDigits[v & 63];
  }
  if (i + 1 == size) {
    const unsigned v = bytes[i] << 16;
    out += kDigits[v >> 18], out += kDigits[(v >> 12) & 63], out += "==";
  } else if (i + 2 == size) {
    const unsigned v = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += kDigits[v >> 18], out += kDigits[(v >> 12) & 63], out += kDigits[(v >> 6) & 63],
        out += '=';
  }
  return out;
}

std::string view_html(const ViewData& d) {
  const auto grid = uniform_grid(*d.time);
  std::string html;
  auto out = std::back_inserter(html);
  fmt::format_to(out,
                 "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"generator\" content=\"nsspice view\">\n<title>{}</title>\n"
                 "<style>\n{}\n{}\n</style>\n</head>\n<body>\n",
                 html_escape(d.title), view_assets::kUplotCss, view_assets::kViewerCss);
  fmt::format_to(out, "<h1>{}</h1>\n<p class=\"sub\">{}</p>\n", html_escape(d.title),
                 html_escape(d.subtitle));
  html +=
      "<div class=\"bar\"><button id=\"nsv-reset\">Reset</button><span id=\"nsv-range\"></span>"
      "<span class=\"hint\">drag: zoom · wheel: zoom · shift+wheel, ←/→: pan · double-click: "
      "all · click: cursor A, then B · legend: show/hide</span></div>\n"
      "<div id=\"nsv-plots\"></div>\n<h2>Cursors</h2>\n<div id=\"nsv-cursors\"></div>\n";
  if (!d.measurements.empty())
    fmt::format_to(out,
                   "<h2>Measurements</h2>\n<table><tr><th>name</th><th>value</th><th>"
                   "measurement</th></tr>\n{}</table>\n",
                   measurement_rows(d.measurements));
  if (!d.report.empty())
    fmt::format_to(out, "<details open><summary>Run report</summary><pre>{}</pre></details>\n",
                   html_escape(d.report));
  html += "<pre id=\"nsv-state\"></pre>\n";
  fmt::format_to(out, "<script type=\"application/json\" id=\"nsv-meta\">{}</script>\n",
                 script_json(meta_of(d, grid)));
  if (!grid)
    fmt::format_to(out, "<script type=\"application/octet-stream\" id=\"nsv-time\">{}</script>\n",
                   encoded<double>(*d.time));
  for (size_t k = 0; k < d.signals.size(); ++k)
    fmt::format_to(out, "<script type=\"application/octet-stream\" id=\"nsv-s{}\">{}</script>\n", k,
                   encoded<float>(*d.signals[k].values));
  fmt::format_to(out, "<script>\n{}\n</script>\n<script>\n{}\n</script>\n</body>\n</html>\n",
                 view_assets::kUplotJs, view_assets::kViewerJs);
  return html;
}

bool write_view(const std::string& path, const ViewData& data, std::string& error) {
  if (data.time == nullptr || data.time->empty() || data.signals.empty()) {
    error = fmt::format("'{}': nothing to view (no samples or no signals)", path);
    return false;
  }
  std::ofstream file(path, std::ios::binary);
  if (!file) {
    error = fmt::format("cannot write '{}': {}", path, std::strerror(errno));
    return false;
  }
  file << view_html(data);
  file.flush();
  if (!file) {
    error = fmt::format("writing '{}' failed: {}", path, std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace nsspice::app
