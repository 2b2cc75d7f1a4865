#pragma once
// Streams waveform rows to a CSV file: header "time,<signal>,..." then one row per point,
// numbers in the shortest form that reads back to the same double.
#include <cstdio>
#include <string>
#include <vector>

namespace nsspice::app {

class CsvWriter {
 public:
  CsvWriter() = default;
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  // Opens (truncates) the file and writes the header; returns false with errno set on failure.
  bool open(const std::string& path, const std::vector<std::string>& names);
  void row(double t, const std::vector<double>& values);
  // Flushes and closes; returns false if any write failed.
  bool close();

 private:
  std::FILE* file_ = nullptr;
  std::string buffer_;
  bool failed_ = false;
  void flush_buffer();
};

}  // namespace nsspice::app
