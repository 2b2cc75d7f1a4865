#include "app/io/csv_reader.hpp"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <fstream>

#include "app/io/signals.hpp"

namespace nsspice::app {

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
  size_t start = 0;
  bool first = true;
  while (start <= line.size()) {
    std::string name;
    size_t comma;
    if (start < line.size() && line[start] == '"') {  // a quoted name (RFC 4180)
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
      comma = line.find(',', k);
      if (comma == std::string::npos) comma = line.size();
    } else {
      comma = line.find(',', start);
      if (comma == std::string::npos) comma = line.size();
      name = line.substr(start, comma - start);
    }
    while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.pop_back();
    if (!first) w.names.push_back(lower(name));
    first = false;
    start = comma + 1;
  }
  w.columns.assign(w.names.size(), {});
  long line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line == "\r") continue;
    const char* p = line.data();
    const char* end = line.data() + line.size();
    double v = 0;
    for (size_t k = 0; k <= w.names.size(); ++k) {
      auto [q, ec] = std::from_chars(p, end, v);
      if (ec != std::errc()) {
        error = fmt::format("'{}':{}: expected {} numbers", path, line_no, w.names.size() + 1);
        return std::nullopt;
      }
      (k == 0 ? w.time : w.columns[k - 1]).push_back(v);
      p = q;
      if (p < end && *p == ',') ++p;
    }
  }
  return w;
}

}  // namespace nsspice::app
