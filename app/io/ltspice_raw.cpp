#include "app/io/ltspice_raw.hpp"

#include <cstring>

namespace nsspice::app {

bool is_utf16le(std::string_view c) {
  if (c.size() >= 2 && static_cast<unsigned char>(c[0]) == 0xFF &&
      static_cast<unsigned char>(c[1]) == 0xFE)
    return true;
  return c.size() >= 4 && c[0] != 0 && c[1] == 0 && c[2] != 0 && c[3] == 0;
}

namespace {

enum class Stop { kEnd, kBinary, kValues };

// Decodes UTF-16LE code units from `c` at `pos` into `out`, line by line; with `at_data`, stops
// after a line that starts with "Binary:" or "Values:" (pos then just after its '\n').
Stop decode_lines(std::string_view c, size_t& pos, std::string& out, bool at_data) {
  size_t line_start = out.size();
  while (pos + 1 < c.size()) {
    const unsigned unit = static_cast<unsigned char>(c[pos]) |
                          (static_cast<unsigned>(static_cast<unsigned char>(c[pos + 1])) << 8);
    pos += 2;
    if (unit >= 0xD800 && unit <= 0xDFFF) {  // a surrogate half: one '?' per pair
      if (unit < 0xDC00) out += '?';
      continue;
    }
    out += unit <= 0xFF ? static_cast<char>(unit) : '?';
    if (unit != '\n') continue;
    const std::string_view line(out.data() + line_start, out.size() - line_start);
    line_start = out.size();
    if (!at_data) continue;
    if (line.starts_with("Binary:") || line.starts_with("binary:")) return Stop::kBinary;
    if (line.starts_with("Values:") || line.starts_with("values:")) return Stop::kValues;
  }
  return Stop::kEnd;
}

}  // namespace

std::string utf16le_to_8bit(std::string_view c) {
  std::string out;
  out.reserve(c.size());
  size_t pos = 0;
  if (c.size() >= 2 && static_cast<unsigned char>(c[0]) == 0xFF &&
      static_cast<unsigned char>(c[1]) == 0xFE)
    pos = 2;
  // The header, then the binary data as it is (to the end of the file: LTspice writes one plot
  // per file), or the ASCII values decoded like the header.
  switch (decode_lines(c, pos, out, true)) {
    case Stop::kBinary:
      out.append(c.substr(pos));
      break;
    case Stop::kValues:
      decode_lines(c, pos, out, false);
      break;
    case Stop::kEnd:
      break;
  }
  return out;
}

RawLayout raw_layout(bool ltspice, const std::string& flags, bool transient, size_t variables,
                     size_t points, size_t available) {
  RawLayout l;
  l.fast_access = flags.find("fastaccess") != std::string::npos;
  const bool all_double = !ltspice || flags.find("double") != std::string::npos;
  l.value_bytes = all_double ? 8 : 4;
  RawLayout other = l;
  other.value_bytes = all_double ? 4 : 8;
  // The bytes decide when they fit one layout exactly and not the other (an 8-bit LTspice IV
  // header without a Command: line, or a "double" flag the header left out).
  auto fits = [&](const RawLayout& layout) {  // exactly `points` points (no overflow)
    const size_t row = layout.row_bytes(variables);
    return row > 0 && available % row == 0 && available / row == points;
  };
  if (variables > 1 && !fits(l) && fits(other)) l = other;
  l.abs_scale = ltspice && transient;
  return l;
}

double read_raw_value(const char* p, size_t bytes) {
  if (bytes == 4) {
    float f = 0;
    std::memcpy(&f, p, sizeof f);
    return f;
  }
  double d = 0;
  std::memcpy(&d, p, sizeof d);
  return d;
}

}  // namespace nsspice::app
