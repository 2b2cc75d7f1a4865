#pragma once
// Streams waveform rows to a CSV file: header "time,<signal>,..." then one row per point,
// numbers in the shortest form that reads back to the same double.
#include <cstdio>
#include <string>
#include <vector>

#include "app/io/waveforms.hpp"

namespace nsspice::app {

class CsvWriter : public WaveformWriter {
 public:
  CsvWriter() = default;
  ~CsvWriter() override;
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  bool open(const std::string& path, const std::string& title,
            const std::vector<std::string>& names) override;
  void row(double t, std::span<const double> values) override;
  bool close() override;

 private:
  std::FILE* file_ = nullptr;
  std::string buffer_;
  // Per column: the last value and its text (many columns repeat: sources, currents of blocking
  // devices), so that a repeated value is copied instead of formatted again.
  struct Memo {
    double value = 0;
    char text[32] = {};
    unsigned char size = 0;
  };
  std::vector<Memo> memo_;
  void flush_buffer();
  void put(size_t column, double v);
};

}  // namespace nsspice::app
