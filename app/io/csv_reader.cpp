#include "app/io/csv_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

#include "app/io/signals.hpp"

namespace nsspice::app {
namespace {

char delimiter_of(const std::string& header) {
  if (header.find('\t') != std::string::npos) return '\t';
  if (header.find(';') != std::string::npos && header.find(',') == std::string::npos) return ';';
  return ',';
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
  size_t a = 0;
  while (a < s.size() && s[a] == ' ') ++a;
  return s.substr(a);
}

// The header's names, split at `d`; a name may be quoted (RFC 4180: "" is a quote).
std::vector<std::string> header_names(const std::string& line, char d) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= line.size()) {
    std::string name;
    size_t cut;
    if (start < line.size() && line[start] == '"') {
      size_t k = start + 1;
      for (; k < line.size(); ++k) {
        if (line[k] != '"') {
          name += line[k];
        } else if (k + 1 < line.size() && line[k + 1] == '"') {
          name += '"';
          ++k;
        } else {
          break;
        }
      }
      cut = line.find(d, k);
    } else {
      cut = line.find(d, start);
      name = line.substr(start, cut == std::string::npos ? std::string::npos : cut - start);
    }
    if (cut == std::string::npos) cut = line.size();
    names.push_back(lower(trimmed(std::move(name))));
    start = cut + 1;
  }
  while (names.size() > 1 && names.back().empty()) names.pop_back();  // a trailing delimiter
  return names;
}

bool time_named(const std::string& name) {
  return name == "time" || name.starts_with("time ") || name.starts_with("time[");
}

size_t time_column(const std::vector<std::string>& names) {
  for (size_t k = 0; k < names.size(); ++k)
    if (time_named(names[k])) return k;
  return 0;
}

// The unit of ngspice's sweep scales ("v-sweep": V, "i-sweep": A); "" for another name.
std::string sweep_unit(const std::string& name) {
  if (!name.ends_with("-sweep")) return {};
  if (name.starts_with('v')) return "V";
  if (name.starts_with('i')) return "A";
  return {};
}

// What the scale column `name` holds (docs/output.md, "Plots"): a column named time is a
// transient's; "frequency" an AC analysis's (`run` writes dB and phase columns there); ngspice's
// sweep names as `run` writes them ("v-sweep", "i-sweep"; a nested sweep's outer column
// "<source>-sweep") a DC sweep's; any other first column (a table written elsewhere) is the time
// unless it goes back, which no time does: then it is a sweep.
void set_scale(Waveforms& w, const std::string& name, bool time_named) {
  const auto swept = [](const std::string& n) { return n.ends_with("-sweep"); };
  if (name == "frequency") {
    w.scale = Scale::kFrequency;
    w.scale_name = name;
    w.scale_unit = "Hz";
  } else if (!time_named && (swept(name) || std::any_of(w.names.begin(), w.names.end(), swept) ||
                             !std::is_sorted(w.time.begin(), w.time.end()))) {
    w.scale = Scale::kSweep;
    w.scale_name = name;
    w.scale_unit = sweep_unit(name);
  }
}

}  // namespace

std::optional<Waveforms> read_csv(const std::string& path, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = fmt::format("cannot open '{}'", path);
    return std::nullopt;
  }
  Waveforms w;
  w.title = std::filesystem::path(path).stem().string();
  std::string line;
  if (!std::getline(in, line)) {
    error = fmt::format("'{}' is empty", path);
    return std::nullopt;
  }
  const char d = delimiter_of(line);
  const std::vector<std::string> header = header_names(line, d);
  const size_t tc = time_column(header);
  for (size_t k = 0; k < header.size(); ++k)
    if (k != tc) w.names.push_back(header[k]);
  w.columns.assign(w.names.size(), {});
  long line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line == "\r") continue;
    const char* p = line.data();
    const char* end = line.data() + line.size();
    for (size_t k = 0; k < header.size(); ++k) {
      while (p < end && (*p == ' ' || *p == '\t') && *p != d) ++p;
      double v = 0;
      auto [q, ec] = std::from_chars(p, end, v);
      if (ec != std::errc()) {
        error = fmt::format("'{}':{}: expected {} numbers", path, line_no, header.size());
        return std::nullopt;
      }
      if (k == tc)
        w.time.push_back(v);
      else
        w.columns[k < tc ? k : k - 1].push_back(v);
      p = q;
      while (p < end && *p == ' ') ++p;
      if (p < end && *p == d) ++p;
    }
  }
  if (!header.empty()) set_scale(w, header[tc], time_named(header[tc]));
  return w;
}

}  // namespace nsspice::app
