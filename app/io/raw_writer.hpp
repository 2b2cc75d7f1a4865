#pragma once
// Streams waveforms to a SPICE raw file laid out as ngspice writes it:
//
//   Title: <title>
//   Date: Sat Nov 21 08:46:01  2026
//   Plotname: Transient Analysis
//   Flags: real
//   No. Variables: <1 + signals>
//   No. Points: <count, left-aligned in a fixed-width field>
//   Variables:
//   \t0\ttime\ttime
//   \t1\tv(out)\tvoltage          (types: voltage for v(...), current for i(...))
//   Values:                       (ASCII: " <i>\t<time>\n\t<v1>\n...\n\n" per point, %.16e)
//   Binary:                       (binary: float64 native byte order, point by point)
//
// The point count is written as a padded field and rewritten after every buffer flush and at
// close (ngspice's own -r output does the same), so the file is valid at every flush: a run
// that fails or is interrupted leaves the points written so far, and memory stays flat.
#include <cstdio>
#include <string>
#include <vector>

#include "app/io/waveforms.hpp"

namespace nsspice::app {

class RawWriter : public WaveformWriter {
 public:
  explicit RawWriter(bool binary) : binary_(binary) {}
  ~RawWriter() override;
  RawWriter(const RawWriter&) = delete;
  RawWriter& operator=(const RawWriter&) = delete;

  bool open(const std::string& path, const std::string& title,
            const std::vector<std::string>& names) override;
  void row(double t, std::span<const double> values) override;
  bool close() override;
  long points() const { return points_; }

 private:
  bool binary_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  long points_ = 0;
  long count_pos_ = 0;
  void flush_buffer();
};

// The date line as ngspice writes it ("Sat Nov 21 08:46:01  2026"), local time.
std::string raw_date_now();

}  // namespace nsspice::app
