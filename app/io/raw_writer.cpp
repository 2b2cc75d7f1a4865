#include "app/io/raw_writer.hpp"

#include <fmt/format.h>

#include <cstring>
#include <ctime>

#include "app/io/signals.hpp"

namespace nsspice::app {
namespace {

constexpr int kCountWidth = 12;  // up to 10^12 - 1 points
constexpr size_t kFlushBytes = size_t{1} << 20;

}  // namespace

std::string raw_date_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S  %Y", &tm);
  return buf;
}

RawWriter::~RawWriter() { close(); }

bool RawWriter::open(const std::string& path, const std::string& title,
                     const std::vector<std::string>& names) {
  file_ = std::fopen(path.c_str(), "wb");
  if (file_ == nullptr) return false;
  std::string head = fmt::format(
      "Title: {}\nDate: {}\nPlotname: Transient Analysis\nFlags: real\nNo. Variables: {}\n"
      "No. Points: ",
      title.empty() ? std::string("nsspice") : title, raw_date_now(), names.size() + 1);
  count_pos_ = static_cast<long>(head.size());
  head += fmt::format("{:<{}}\nVariables:\n\t0\ttime\ttime\n", 0, kCountWidth);
  for (size_t k = 0; k < names.size(); ++k)
    head += fmt::format("\t{}\t{}\t{}\n", k + 1, names[k], raw_type(signal_kind(names[k])));
  head += binary_ ? "Binary:\n" : "Values:\n";
  buffer_ = std::move(head);
  flush_buffer();
  return !failed();
}

void RawWriter::row(double t, std::span<const double> values) {
  if (file_ == nullptr) return;
  if (binary_) {
    const size_t at = buffer_.size();
    buffer_.resize(at + sizeof(double) * (values.size() + 1));
    std::memcpy(buffer_.data() + at, &t, sizeof t);
    if (!values.empty())
      std::memcpy(buffer_.data() + at + sizeof t, values.data(), sizeof(double) * values.size());
  } else {
    auto out = std::back_inserter(buffer_);
    fmt::format_to(out, " {}\t{:.16e}\n", points_, t);
    for (double v : values) fmt::format_to(out, "\t{:.16e}\n", v);
    buffer_ += '\n';
  }
  ++points_;
  if (buffer_.size() >= kFlushBytes) flush_buffer();
}

void RawWriter::flush_buffer() {
  if (file_ == nullptr) return;
  if (failed()) {  // the file is lost already: keep memory flat, keep the first reason
    buffer_.clear();
    return;
  }
  const bool written =
      buffer_.empty() || std::fwrite(buffer_.data(), 1, buffer_.size(), file_) == buffer_.size();
  buffer_.clear();
  // Data first, then the count that covers it: the file is consistent at every step (a count
  // is never written over data that did not reach the file).
  if (!written || std::fflush(file_) != 0) {
    fail();
    return;
  }
  const std::string count = fmt::format("{:<{}}", points_, kCountWidth);
  if (std::fseek(file_, count_pos_, SEEK_SET) != 0 ||
      std::fwrite(count.data(), 1, count.size(), file_) != count.size() ||
      std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_END) != 0)
    fail();
}

bool RawWriter::close() {
  return close_buffered(file_, [this] { flush_buffer(); });
}

}  // namespace nsspice::app
