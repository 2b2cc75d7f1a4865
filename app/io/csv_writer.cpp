#include "app/io/csv_writer.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstring>

namespace nsspice::app {

CsvWriter::~CsvWriter() { close(); }

bool CsvWriter::open(const std::string& path, const std::string& /*title*/,
                     const std::vector<std::string>& names) {
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) return false;
  buffer_ = "time";
  // RFC 4180: a name holding a comma or a quote (v(a,b)) is quoted, inner quotes doubled.
  for (const auto& n : names) {
    if (n.find_first_of(",\"") == std::string::npos) {
      buffer_ += "," + n;
      continue;
    }
    buffer_ += ",\"";
    for (char ch : n) buffer_ += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    buffer_ += '"';
  }
  buffer_ += '\n';
  return true;
}

void CsvWriter::put(size_t column, double v) {
  // std::to_chars: the shortest text that reads back to the same double; a value bit-equal to
  // the column's previous one reuses its text.
  Memo& m = memo_[column];
  if (m.size == 0 || std::memcmp(&m.value, &v, sizeof v) != 0) {
    m.value = v;
    m.size =
        static_cast<unsigned char>(std::to_chars(m.text, m.text + sizeof m.text, v).ptr - m.text);
  }
  buffer_.append(m.text, m.size);
}

void CsvWriter::row(double t, std::span<const double> values) {
  if (memo_.size() != values.size() + 1) memo_.assign(values.size() + 1, Memo{});
  put(0, t);
  for (size_t k = 0; k < values.size(); ++k) {
    buffer_ += ',';
    put(k + 1, values[k]);
  }
  buffer_ += '\n';
  if (buffer_.size() > (1u << 16)) flush_buffer();
}

void CsvWriter::flush_buffer() {
  if (file_ == nullptr || buffer_.empty()) return;
  if (failed()) {  // the file is lost already: keep memory flat, keep the first reason
    buffer_.clear();
    return;
  }
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) fail();
  buffer_.clear();
}

bool CsvWriter::close() {
  return close_buffered(file_, [this] { flush_buffer(); });
}

}  // namespace nsspice::app
