#include "app/io/analysis_writer.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <numbers>

#include "app/io/raw_writer.hpp"
#include "app/io/signals.hpp"
#include "app/io/waveforms.hpp"

namespace nsspice::app {
namespace {

constexpr int kCountWidth = 12;
constexpr size_t kFlushBytes = size_t{1} << 20;

void put_csv(std::string& out, double v) {
  if (v == 0) v = 0;  // no "-0"
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  out.append(text, end);
}

}  // namespace

double magnitude_db(std::complex<double> z) { return 20 * std::log10(std::abs(z)); }

double phase_deg(std::complex<double> z) { return std::arg(z) * 180 / std::numbers::pi; }

std::string ac_column_name(const std::string& signal, const char* suffix) {
  const auto open = signal.find('(');
  if (open == std::string::npos) return signal + suffix;
  return signal.substr(0, open) + suffix + signal.substr(open);
}

AnalysisWriter::~AnalysisWriter() { close(); }

bool AnalysisWriter::open(const std::string& path, const std::string& title,
                          AnalysisLayout layout) {
  layout_ = std::move(layout);
  file_ = std::fopen(path.c_str(), "wb");
  if (file_ == nullptr) return false;
  std::string head;
  if (format_ == OutputFormat::kCsv) {
    bool first = true;
    auto col = [&](const std::string& name) {
      head += (first ? "" : ",") + name;
      first = false;
    };
    for (const auto& s : layout_.scale) col(s.second);
    for (const auto& n : layout_.names) {
      if (!layout_.complex) {
        col(n);
        continue;
      }
      col(ac_column_name(n, "db"));
      col(ac_column_name(n, "p"));
    }
    head += '\n';
  } else {
    head = fmt::format(
        "Title: {}\nDate: {}\nPlotname: {}\nFlags: {}\nNo. Variables: {}\n"
        "No. Points: ",
        title.empty() ? std::string("nsspice") : title, raw_date_now(), layout_.plotname,
        layout_.complex ? "complex" : "real", layout_.scale.size() + layout_.names.size());
    count_pos_ = static_cast<long>(head.size());
    head += fmt::format("{:<{}}\nVariables:\n", 0, kCountWidth);
    size_t k = 0;
    for (const auto& s : layout_.scale)
      head += s.first == "frequency"
                  ? fmt::format("\t{}\tfrequency\tfrequency\tgrid=3\n", k++)
                  : fmt::format("\t{}\t{}\t{}\n", k++, s.first, raw_type(signal_kind(s.first)));
    for (const auto& n : layout_.names)
      head += fmt::format("\t{}\t{}\t{}\n", k++, n, raw_type(signal_kind(n)));
    head += format_ == OutputFormat::kRaw ? "Binary:\n" : "Values:\n";
  }
  buffer_ = std::move(head);
  return true;
}

void AnalysisWriter::put_raw(std::complex<double> v, bool first) {
  if (format_ == OutputFormat::kRaw) {
    const size_t at = buffer_.size();
    const size_t words = layout_.complex ? 2 : 1;
    const double parts[2] = {v.real(), v.imag()};
    buffer_.resize(at + words * sizeof(double));
    std::memcpy(buffer_.data() + at, parts, words * sizeof(double));
    return;
  }
  auto out = std::back_inserter(buffer_);
  if (first)
    fmt::format_to(out, "{}\t\t", points_);
  else
    buffer_ += '\t';
  if (layout_.complex)
    fmt::format_to(out, "{:.16e},{:.16e}\n", v.real(), v.imag());
  else
    fmt::format_to(out, "{:.16e}\n", v.real());
}

void AnalysisWriter::row(std::span<const double> scale, std::span<const double> values) {
  if (file_ == nullptr) return;
  if (format_ == OutputFormat::kCsv) {
    bool first = true;
    for (auto list : {scale, values})
      for (double v : list) {
        if (!first) buffer_ += ',';
        first = false;
        put_csv(buffer_, v);
      }
    buffer_ += '\n';
  } else {
    bool first = true;
    for (auto list : {scale, values})
      for (double v : list) {
        put_raw(v, first);
        first = false;
      }
  }
  end_row();
}

void AnalysisWriter::row(std::span<const double> scale,
                         std::span<const std::complex<double>> values) {
  if (file_ == nullptr) return;
  bool first = true;
  if (format_ == OutputFormat::kCsv) {
    for (double v : scale) {
      if (!first) buffer_ += ',';
      first = false;
      put_csv(buffer_, v);
    }
    for (std::complex<double> z : values) {
      for (double v : {magnitude_db(z), phase_deg(z)}) {
        if (!first) buffer_ += ',';
        first = false;
        put_csv(buffer_, v);
      }
    }
    buffer_ += '\n';
  } else {
    for (double v : scale) {
      put_raw(v, first);
      first = false;
    }
    for (std::complex<double> z : values) {
      put_raw(z, first);
      first = false;
    }
  }
  end_row();
}

void AnalysisWriter::end_row() {
  ++points_;
  if (buffer_.size() < kFlushBytes) return;
  if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) failed_ = true;
  buffer_.clear();
}

bool AnalysisWriter::close() {
  if (file_ == nullptr) return !failed_;
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
    failed_ = true;
  buffer_.clear();
  if (count_pos_ >= 0 && !failed_) {  // the point count is never written over lost data
    const std::string count = fmt::format("{:<{}}", points_, kCountWidth);
    if (std::fflush(file_) != 0 || std::fseek(file_, count_pos_, SEEK_SET) != 0 ||
        std::fwrite(count.data(), 1, count.size(), file_) != count.size())
      failed_ = true;
  }
  if (std::fclose(file_) != 0) failed_ = true;
  file_ = nullptr;
  return !failed_;
}

}  // namespace nsspice::app
