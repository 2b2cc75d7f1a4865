#include "app/io/raw_reader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>

#include "app/io/ltspice_raw.hpp"
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

// The binary points of a plot at `pos` (as many whole points as there are, up to `npoints`),
// stored as `layout` says (complex data: every value a pair of float64, re then im, the scale's
// imaginary part ignored); `pos` moves past them.
void read_binary(const std::string& c, size_t& pos, size_t npoints, const RawLayout& layout,
                 Waveforms& data) {
  const size_t nv = data.columns.size() + 1;
  const size_t part = data.complex ? 8 : layout.value_bytes;  // bytes of a real part
  const size_t row = layout.row_bytes(nv);
  const size_t whole = c.size() > pos ? (c.size() - pos) / row : 0;  // points present
  // Variable after variable needs every point; point after point gives the whole ones.
  const size_t n = layout.fast_access ? (npoints <= whole ? npoints : 0) : std::min(whole, npoints);
  data.time.resize(n);
  for (auto& column : data.columns) column.resize(n);
  for (auto& column : data.imag) column.resize(n);
  const char* base = c.data() + pos;
  for (size_t i = 0; i < n; ++i) {
    // Point after point: [t, v1, ..., v(nv-1)]; variable after variable: all t, all v1, ...
    const char* p = layout.fast_access ? base + i * layout.scale_bytes : base + i * row;
    const double t = read_raw_value(p, data.complex ? 8 : layout.scale_bytes);
    data.time[i] = layout.abs_scale ? std::abs(t) : t;
    for (size_t k = 1; k < nv; ++k) {
      const char* q = layout.fast_access
                          ? base + n * layout.scale_bytes + ((k - 1) * n + i) * layout.value_bytes
                          : p + layout.scale_bytes + (k - 1) * layout.value_bytes;
      data.columns[k - 1][i] = read_raw_value(q, part);
      if (data.complex) data.imag[k - 1][i] = read_raw_value(q + 8, 8);
    }
  }
  pos += n * row;
}

// The ASCII points of a plot at `pos`: "index t v1 v2 ..." (any white space; complex data:
// "re,im" per value), as many whole points as there are, up to `npoints`; `pos` moves past them.
void read_ascii(const std::string& c, size_t& pos, long npoints, Waveforms& data) {
  const size_t nv = data.columns.size() + 1;
  std::vector<double> point(nv), imag(nv);
  const char* p = c.data() + pos;
  const char* end = c.data() + c.size();
  // One value at p (re,im for complex data); false when there is none.
  auto value = [&](size_t k) {
    char* q = nullptr;
    point[k] = std::strtod(p, &q);
    if (q == p) return false;
    p = q;
    if (!data.complex) return true;
    if (p == end || *p != ',') return false;
    imag[k] = std::strtod(++p, &q);
    if (q == p) return false;
    p = q;
    return true;
  };
  for (long i = 0; i < npoints; ++i) {
    char* q = nullptr;
    std::strtol(p, &q, 10);  // point index
    if (q == p) break;
    p = q;
    size_t k = 0;
    while (k < nv && value(k)) ++k;
    if (k < nv) break;  // a point cut short
    data.time.push_back(point[0]);
    for (k = 1; k < nv; ++k) data.columns[k - 1].push_back(point[k]);
    if (data.complex)
      for (k = 1; k < nv; ++k) data.imag[k - 1].push_back(imag[k]);
    while (p < end && std::isspace(static_cast<unsigned char>(*p))) ++p;
  }
  pos = static_cast<size_t>(p - c.data());
}

// The start of each run after the first in a plot that holds several one after another: only
// LTspice's stepped runs (.step: "stepped" among the Flags), or a time that goes back (a time
// never does within one run). A stepped run starts again at the scale's first value (a stepped
// DC sweep may be descending, so a decrease alone is no new run). A DC sweep's scale is not
// split: it may descend, and a nested sweep (ngspice's and ours: one plot, the inner sweep
// starting again for each outer value) is one run whose every point is kept.
std::vector<size_t> run_starts(const Waveforms& data, bool stepped) {
  std::vector<size_t> starts;
  const std::vector<double>& x = data.time;
  for (size_t i = 1; i < x.size(); ++i)
    if (data.scale == Scale::kTime ? x[i] < x[i - 1]
                                   : stepped && x[i] == x.front() && x[i - 1] != x.front())
      starts.push_back(i);
  return starts;
}

// Keeps the first of several runs in one plot (run_starts), and `note` says so with the counts.
void keep_first_run(Waveforms& data, bool stepped) {
  const std::vector<size_t> starts = run_starts(data, stepped);
  if (starts.empty()) return;
  const size_t end = starts.front(), all = data.time.size();
  data.time.resize(end);
  for (auto& column : data.columns) column.resize(end);
  for (auto& column : data.imag) column.resize(end);
  data.note =
      fmt::format("{} of {} runs{}: the first one is read ({} of {} points; the other {} left out)",
                  stepped ? "a stepped run" : "a plot", starts.size() + 1,
                  stepped ? ""
                          : fmt::format(" (the {} goes back {} time{})", data.scale_name,
                                        starts.size(), starts.size() == 1 ? "" : "s"),
                  end, all, all - end);
}

// What the first variable holds and its unit, from its raw type ("time", "frequency",
// "voltage", ...).
void set_scale(Waveforms& data, const std::string& name, const std::string& type) {
  const std::pair<Scale, std::string_view> kinds[] = {{Scale::kTime, "s"},
                                                      {Scale::kFrequency, "Hz"},
                                                      {Scale::kSweep, "V"},
                                                      {Scale::kSweep, "A"},
                                                      {Scale::kSweep, ""}};
  const size_t k = type == "time"        ? 0
                   : type == "frequency" ? 1
                   : type == "voltage"   ? 2
                   : type == "current"   ? 3
                                         : 4;
  data.scale = kinds[k].first;
  data.scale_unit = std::string(kinds[k].second);
  data.scale_name = name;
}

// A plot's header up to its "Values:" or "Binary:" line.
struct Header {
  long nvars = -1, npoints = -1;
  bool binary = false, complex = false, have_data = false;
  std::string flags;  // lower case
  bool ltspice = false;
};

// Reads the header at `pos` (moved past it) into `h` and `plot`; false with `error` set on a
// bad variable list.
bool read_header(const std::string& c, size_t& pos, Header& h, Plot& plot, std::string& error) {
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
  while (!h.have_data && next_line(line)) {
    auto value = [&] { return trim(line.substr(line.find(':') + 1)); };
    if (starts_with_ci(line, "title:")) {
      plot.data.title = value();
    } else if (starts_with_ci(line, "date:")) {
      plot.data.date = value();
    } else if (starts_with_ci(line, "plotname:")) {
      plot.plotname = value();
    } else if (starts_with_ci(line, "flags:")) {
      h.flags = lower(value());
      h.complex = h.flags.find("complex") != std::string::npos;
    } else if (starts_with_ci(line, "command:")) {
      const std::string command = lower(value());
      h.ltspice = h.ltspice || command.find("ltspice") != std::string::npos ||
                  command.find("linear technology") != std::string::npos;
    } else if (starts_with_ci(line, "no. variables:")) {
      h.nvars = std::strtol(value().c_str(), nullptr, 10);
    } else if (starts_with_ci(line, "no. points:")) {
      h.npoints = std::strtol(value().c_str(), nullptr, 10);
    } else if (starts_with_ci(line, "variables:")) {
      if (h.nvars <= 0) {
        error = "'Variables:' before a valid 'No. Variables:'";
        return false;
      }
      for (long k = 0; k < h.nvars; ++k) {
        if (!next_line(line)) {
          error = "file ends inside the variable list";
          return false;
        }
        std::istringstream fields(line);
        long index = 0;
        std::string name, type;
        if (!(fields >> index >> name >> type)) {
          error = fmt::format("bad variable line '{}'", line);
          return false;
        }
        if (k > 0)
          plot.data.names.push_back(normalise_name(name, type));
        else
          set_scale(plot.data, normalise_name(name, type), lower(type));
      }
    } else if (starts_with_ci(line, "values:") || starts_with_ci(line, "binary:")) {
      h.binary = starts_with_ci(line, "binary:");
      h.have_data = true;
    }
  }
  return true;
}

// Reads one plot starting at `pos`; nullopt (error set) if there is no valid header there.
// `ltspice`: the file is LTspice's (its header was UTF-16), whatever its Command: line says.
std::optional<Plot> read_plot(const std::string& c, size_t pos, bool ltspice, std::string& error) {
  Plot plot;
  Header h;
  h.ltspice = ltspice;
  if (!read_header(c, pos, h, plot, error)) return std::nullopt;
  if (!h.have_data || h.nvars <= 0 || h.npoints < 0 ||
      plot.data.names.size() + 1 != size_t(h.nvars)) {
    error = "not a SPICE raw file (missing Title/No. Variables/No. Points/Variables/Values)";
    return std::nullopt;
  }
  const auto nv = static_cast<size_t>(h.nvars);
  plot.data.columns.assign(nv - 1, {});
  plot.data.complex = h.complex;
  if (h.complex) plot.data.imag.assign(nv - 1, {});
  const bool transient = lower(plot.plotname).find("transient") != std::string::npos;
  if (h.binary) {
    // Complex data (ngspice's, LTspice's, ours): every value, the scale included, two float64.
    const RawLayout layout =
        h.complex ? RawLayout{.scale_bytes = 16,
                              .value_bytes = 16,
                              .fast_access = h.flags.find("fastaccess") != std::string::npos}
                  : raw_layout(h.ltspice, h.flags, transient, nv, size_t(h.npoints),
                               c.size() - std::min(pos, c.size()));
    read_binary(c, pos, size_t(h.npoints), layout, plot.data);
  } else {
    read_ascii(c, pos, h.npoints, plot.data);
    if (h.ltspice && transient)  // compressed: negative times, as in binary files
      for (double& t : plot.data.time) t = std::abs(t);
  }
  keep_first_run(plot.data, h.flags.find("stepped") != std::string::npos);
  plot.end = pos;
  return plot;
}

}  // namespace

std::optional<Waveforms> parse_raw(const std::string& file, std::string& error) {
  const bool utf16 = is_utf16le(file);
  const std::string decoded = utf16 ? utf16le_to_8bit(file) : std::string();
  const std::string& content = utf16 ? decoded : file;
  std::optional<Waveforms> first;
  size_t pos = 0;
  while (pos < content.size()) {
    std::string why;
    auto plot = read_plot(content, pos, utf16, why);
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
  const bool utf16 = is_utf16le(*text);
  const std::string decoded = utf16 ? utf16le_to_8bit(*text) : std::string();
  const std::string& content = utf16 ? decoded : *text;
  std::vector<Waveforms> plots;
  for (size_t pos = 0; pos < content.size();) {
    std::string why;
    auto plot = read_plot(content, pos, utf16, why);
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
