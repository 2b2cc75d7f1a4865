#pragma once
// The waveform file of `run`: its format (by extension, or --format), the writer for it, and the
// optional uniform-grid resampler in front of it.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/io/waveforms.hpp"
#include "solvers/time/decimal_grid.hpp"

namespace nsspice::app {

enum class OutputFormat { kCsv, kRaw, kRawAscii };

// `format` is "", "csv", "raw" (binary) or "rawascii"; "" follows the extension (.raw: binary
// raw, anything else: CSV). nullopt with `error` set for an unknown --format.
std::optional<OutputFormat> output_format(const std::string& path, const std::string& format,
                                          std::string& error);
std::unique_ptr<WaveformWriter> make_writer(OutputFormat format);
const char* format_name(OutputFormat format);

// Resamples a stream of rows on the uniform grid t0 + k·h (linear interpolation between the
// computed points), and also passes through, exactly, every computed point that lies on one of
// the `keep` times (source breakpoints: PULSE/PWL corners), the first and the last point.
class GridResampler : public RowSink {
 public:
  GridResampler(RowSink& out, double h, std::vector<double> keep);
  void row(double t, std::span<const double> values) override;
  void finish() override;

 private:
  RowSink& out_;
  double h_;
  std::vector<double> keep_;  // sorted
  size_t keep_next_ = 0;
  bool have_prev_ = false, finished_ = false;
  double t0_ = 0, t_prev_ = 0, t_emitted_ = 0;
  solvers::DecimalGrid grid_;  // t0_ + k h_
  long k_ = 1;                 // next grid index
  std::vector<double> prev_, scratch_;
  bool last_pending_ = false;
  void emit(double t, std::span<const double> values);
};

// Passes the selected columns on (`run --save`).
class ColumnSelector : public RowSink {
 public:
  ColumnSelector(RowSink& out, std::vector<size_t> columns)
      : out_(out), columns_(std::move(columns)), scratch_(columns_.size()) {}
  void row(double t, std::span<const double> values) override;
  void finish() override { out_.finish(); }

 private:
  RowSink& out_;
  std::vector<size_t> columns_;
  std::vector<double> scratch_;
};

}  // namespace nsspice::app
