#include "app/io/raw_reader.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>

#include "app/io/signals.hpp"

namespace nsspice::app {
namespace {

bool starts_with_ci(std::string_view line, std::string_view key) {
  if (line.size() < key.size()) return false;
  for (size_t i = 0; i < key.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) !=
        std::tolower(static_cast<unsigned char>(key[i])))
      return false;
  return true;
}

std::string trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

std::string normalise_name(std::string name, const std::string& type) {
  name = lower(std::move(name));
  const auto hash = name.find("#branch");
  if (hash != std::string::npos) return "i(" + name.substr(0, hash) + ")";
  if (type == "voltage" && signal_kind(name) != SignalKind::kVoltage) return "v(" + name + ")";
  return name;
}

struct Plot {
  Waveforms data;
  std::string plotname;
  size_t end = 0;  // offset just after this plot's data
};

// Reads one plot starting at `pos`; nullopt (error set) if there is no valid header there.
std::optional<Plot> read_plot(const std::string& c, size_t pos, std::string& error) {
  Plot plot;
  long nvars = -1, npoints = -1;
  bool binary = false, complex = false;
  auto next_line = [&](std::string& line) {
    if (pos >= c.size()) return false;
    size_t eol = c.find('\n', pos);
    if (eol == std::string::npos) eol = c.size();
    line = c.substr(pos, eol - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    pos = eol + 1;
    return true;
  };
  std::string line;
  std::vector<std::string> types;
  bool have_data = false;
  while (!have_data && next_line(line)) {
    auto value = [&] { return trim(line.substr(line.find(':') + 1)); };
    if (starts_with_ci(line, "title:")) {
      plot.data.title = value();
    } else if (starts_with_ci(line, "date:")) {
      plot.data.date = value();
    } else if (starts_with_ci(line, "plotname:")) {
      plot.plotname = value();
    } else if (starts_with_ci(line, "flags:")) {
      complex = lower(value()).find("complex") != std::string::npos;
    } else if (starts_with_ci(line, "no. variables:")) {
      nvars = std::strtol(value().c_str(), nullptr, 10);
    } else if (starts_with_ci(line, "no. points:")) {
      npoints = std::strtol(value().c_str(), nullptr, 10);
    } else if (starts_with_ci(line, "variables:")) {
      if (nvars <= 0) {
        error = "'Variables:' before a valid 'No. Variables:'";
        return std::nullopt;
      }
      for (long k = 0; k < nvars; ++k) {
        if (!next_line(line)) {
          error = "file ends inside the variable list";
          return std::nullopt;
        }
        std::istringstream fields(line);
        long index = 0;
        std::string name, type;
        if (!(fields >> index >> name >> type)) {
          error = fmt::format("bad variable line '{}'", line);
          return std::nullopt;
        }
        if (k == 0) continue;  // the scale (time)
        plot.data.names.push_back(normalise_name(name, type));
        types.push_back(type);
      }
    } else if (starts_with_ci(line, "values:") || starts_with_ci(line, "binary:")) {
      binary = starts_with_ci(line, "binary:");
      have_data = true;
    }
  }
  if (!have_data || nvars <= 0 || npoints < 0 || plot.data.names.size() + 1 != size_t(nvars)) {
    error = "not a SPICE raw file (missing Title/No. Variables/No. Points/Variables/Values)";
    return std::nullopt;
  }
  if (complex) {
    error = "complex data (an AC analysis?) is not supported; expected a transient analysis";
    return std::nullopt;
  }
  const auto nv = static_cast<size_t>(nvars);
  plot.data.columns.assign(nv - 1, {});
  std::vector<double> point(nv);
  if (binary) {
    const size_t row_bytes = nv * sizeof(double);
    const size_t available = (c.size() - std::min(pos, c.size())) / row_bytes;
    const size_t n = std::min(available, static_cast<size_t>(npoints));
    plot.data.time.reserve(n);
    for (size_t i = 0; i < n; ++i, pos += row_bytes) {
      std::memcpy(point.data(), c.data() + pos, row_bytes);
      plot.data.time.push_back(point[0]);
      for (size_t k = 1; k < nv; ++k) plot.data.columns[k - 1].push_back(point[k]);
    }
  } else {
    const char* p = c.data() + pos;
    const char* end = c.data() + c.size();
    for (long i = 0; i < npoints; ++i) {
      char* q = nullptr;
      std::strtol(p, &q, 10);  // point index
      if (q == p) break;
      p = q;
      size_t k = 0;
      for (; k < nv; ++k) {
        point[k] = std::strtod(p, &q);
        if (q == p) break;
        p = q;
      }
      if (k < nv) break;  // a point cut short
      plot.data.time.push_back(point[0]);
      for (k = 1; k < nv; ++k) plot.data.columns[k - 1].push_back(point[k]);
      while (p < end && std::isspace(static_cast<unsigned char>(*p))) ++p;
    }
    pos = static_cast<size_t>(p - c.data());
  }
  plot.end = pos;
  return plot;
}

}  // namespace

std::optional<Waveforms> parse_raw(const std::string& content, std::string& error) {
  std::optional<Waveforms> first;
  size_t pos = 0;
  while (pos < content.size()) {
    std::string why;
    auto plot = read_plot(content, pos, why);
    if (!plot) {
      if (!first) error = why;
      break;
    }
    if (plot->plotname.find("Transient") != std::string::npos) return std::move(plot->data);
    if (!first) first = std::move(plot->data);
    pos = plot->end;
  }
  return first;
}

namespace {

std::optional<std::string> file_text(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = fmt::format("cannot open '{}'", path);
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::move(ss).str();
}

}  // namespace

std::optional<Waveforms> read_raw(const std::string& path, std::string& error) {
  const auto text = file_text(path, error);
  if (!text) return std::nullopt;
  std::string why;
  auto data = parse_raw(*text, why);
  if (!data) error = fmt::format("'{}': {}", path, why);
  return data;
}

std::optional<std::vector<Waveforms>> read_raw_plots(const std::string& path, std::string& error) {
  const auto text = file_text(path, error);
  if (!text) return std::nullopt;
  std::vector<Waveforms> plots;
  for (size_t pos = 0; pos < text->size();) {
    std::string why;
    auto plot = read_plot(*text, pos, why);
    if (!plot) {
      if (plots.empty()) {
        error = fmt::format("'{}': {}", path, why);
        return std::nullopt;
      }
      break;
    }
    pos = plot->end;
    plots.push_back(std::move(plot->data));
  }
  return plots;
}

}  // namespace nsspice::app
