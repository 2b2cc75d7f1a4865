#include "app/io/waveforms.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>

#include "app/io/csv_reader.hpp"
#include "app/io/ltspice_raw.hpp"
#include "app/io/raw_reader.hpp"

namespace nsspice::app {

std::optional<size_t> Waveforms::index(const std::string& name) const {
  auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return std::nullopt;
  return static_cast<size_t>(it - names.begin());
}

std::optional<Waveforms> read_waveforms(const std::string& path, std::string& error) {
  const std::string ext = std::filesystem::path(path).extension().string();
  bool raw = ext == ".raw";
  if (ext != ".raw" && ext != ".csv") {
    std::ifstream in(path, std::ios::binary);
    char head[6] = {};
    in.read(head, 6);
    raw = std::string(head, 6) == "Title:" || is_utf16le(std::string_view(head, 6));
  }
  return raw ? read_raw(path, error) : read_csv(path, error);
}

std::string needs_time_scale(const Waveforms& w, const std::string& path, const std::string& what) {
  if (w.scale == Scale::kTime && !w.complex) return {};
  const std::string kind =
      w.scale == Scale::kFrequency || w.complex
          ? fmt::format("an AC analysis ({} over {})", w.complex ? "complex data" : "dB and phase",
                        w.scale_name)
          : fmt::format("a DC sweep (over {})", w.scale_name);
  return fmt::format(
      "'{}' is {}, not waveforms over time: {} takes a transient's file ({})", path, kind, what,
      w.scale == Scale::kFrequency || w.complex ? "nsspice plot draws this one as a Bode plot"
                                                : "nsspice plot draws this one");
}

double interpolate(const std::vector<double>& t, const std::vector<double>& y, double at) {
  if (t.empty()) return 0.0;
  if (at <= t.front()) {
    // The value after a jump at t0 is the later one.
    auto it = std::upper_bound(t.begin(), t.end(), t.front());
    return y[static_cast<size_t>(it - t.begin()) - 1];
  }
  if (at >= t.back()) return y.back();
  const auto hi = static_cast<size_t>(std::upper_bound(t.begin(), t.end(), at) - t.begin());
  const size_t lo = hi - 1;
  if (t[lo] == at) return y[lo];
  const double f = (at - t[lo]) / (t[hi] - t[lo]);
  return y[lo] + f * (y[hi] - y[lo]);
}

void WaveformWriter::fail() {
  if (error_ == 0) error_ = errno != 0 ? errno : EIO;
}

void WaveformCollector::row(double t, std::span<const double> values) {
  if (target_.columns.size() < values.size()) target_.columns.resize(values.size());
  target_.time.push_back(t);
  for (size_t k = 0; k < values.size(); ++k) target_.columns[k].push_back(values[k]);
}

}  // namespace nsspice::app
