#include "app/csv_writer.hpp"

#include <fmt/format.h>

namespace nsspice::app {

CsvWriter::~CsvWriter() { close(); }

bool CsvWriter::open(const std::string& path, const std::vector<std::string>& names) {
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) return false;
  buffer_ = "time";
  for (const auto& n : names) buffer_ += "," + n;
  buffer_ += '\n';
  return true;
}

void CsvWriter::row(double t, const std::vector<double>& values) {
  fmt::format_to(std::back_inserter(buffer_), "{}", t);
  for (double v : values) fmt::format_to(std::back_inserter(buffer_), ",{}", v);
  buffer_ += '\n';
  if (buffer_.size() > (1u << 16)) flush_buffer();
}

void CsvWriter::flush_buffer() {
  if (file_ == nullptr || buffer_.empty()) return;
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) failed_ = true;
  buffer_.clear();
}

bool CsvWriter::close() {
  if (file_ == nullptr) return !failed_;
  flush_buffer();
  if (std::fclose(file_) != 0) failed_ = true;
  file_ = nullptr;
  return !failed_;
}

}  // namespace nsspice::app
