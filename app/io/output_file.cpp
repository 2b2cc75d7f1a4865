#include "app/io/output_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "app/io/csv_writer.hpp"
#include "app/io/raw_writer.hpp"
#include "app/io/signals.hpp"

namespace nsspice::app {

std::optional<OutputFormat> output_format(const std::string& path, const std::string& format,
                                          std::string& error) {
  const std::string f = lower(format);
  if (f == "csv") return OutputFormat::kCsv;
  if (f == "raw" || f == "rawbinary" || f == "binary") return OutputFormat::kRaw;
  if (f == "rawascii" || f == "ascii") return OutputFormat::kRawAscii;
  if (!f.empty()) {
    error = fmt::format("--format '{}': expected csv, raw or rawascii", format);
    return std::nullopt;
  }
  return lower(std::filesystem::path(path).extension().string()) == ".raw" ? OutputFormat::kRaw
                                                                           : OutputFormat::kCsv;
}

std::unique_ptr<WaveformWriter> make_writer(OutputFormat format) {
  switch (format) {
    case OutputFormat::kRaw:
      return std::make_unique<RawWriter>(true);
    case OutputFormat::kRawAscii:
      return std::make_unique<RawWriter>(false);
    case OutputFormat::kCsv:
      break;
  }
  return std::make_unique<CsvWriter>();
}

const char* format_name(OutputFormat format) {
  switch (format) {
    case OutputFormat::kRaw:
      return "SPICE raw, binary";
    case OutputFormat::kRawAscii:
      return "SPICE raw, ASCII";
    case OutputFormat::kCsv:
      break;
  }
  return "CSV";
}

GridResampler::GridResampler(RowSink& out, double h, std::vector<double> keep)
    : out_(out), h_(h), keep_(std::move(keep)) {
  std::sort(keep_.begin(), keep_.end());
}

void GridResampler::emit(double t, std::span<const double> values) {
  out_.row(t, values);
  t_emitted_ = t;
}

void GridResampler::row(double t, std::span<const double> values) {
  const double eps = 1e-9 * h_;
  if (!have_prev_) {
    have_prev_ = true;
    t0_ = t;
    emit(t, values);
    prev_.assign(values.begin(), values.end());
    t_prev_ = t;
    return;
  }
  scratch_.resize(values.size());
  if (grid_.origin() != t0_ || grid_.step() != h_) grid_ = solvers::DecimalGrid(t0_, h_);
  for (double tg = grid_.at(k_); tg <= t + eps; tg = grid_.at(++k_)) {  // exact decimal times
    if (std::abs(tg - t) <= eps) {
      emit(tg, values);  // a grid point on a computed point: its values, the grid's time
    } else if (tg > t_prev_) {
      const double f = (tg - t_prev_) / (t - t_prev_);
      for (size_t i = 0; i < values.size(); ++i)
        scratch_[i] = prev_[i] + f * (values[i] - prev_[i]);
      emit(tg, scratch_);
    }
  }
  while (keep_next_ < keep_.size() && keep_[keep_next_] < t - eps) ++keep_next_;
  if (keep_next_ < keep_.size() && std::abs(keep_[keep_next_] - t) <= eps &&
      std::abs(t_emitted_ - t) > eps)
    emit(t, values);
  prev_.assign(values.begin(), values.end());
  t_prev_ = t;
  last_pending_ = std::abs(t_emitted_ - t) > eps;
}

void GridResampler::finish() {
  if (finished_) return;
  finished_ = true;
  if (have_prev_ && last_pending_) emit(t_prev_, prev_);
  out_.finish();
}

void ColumnSelector::row(double t, std::span<const double> values) {
  for (size_t k = 0; k < columns_.size(); ++k) scratch_[k] = values[columns_[k]];
  out_.row(t, scratch_);
}

}  // namespace nsspice::app
