#pragma once
// Min/max decimation of a waveform for drawing, one bucket per pixel column.
//
// The time span [t_b, t_e] is cut into C columns of width w = (t_e − t_b)/C; column c holds the
// samples with c = ⌊(t − t_b)/w⌋. Of each column the sample of least y and the sample of greatest
// y are kept, in time order (one sample when they coincide), and the last sample of the series.
// Every vertical extent the eye sees in a column (a PWM node swinging rail to rail, a one-sample
// spike) is therefore drawn as it is: the envelope of the decimated series equals the envelope of
// the data column by column, and a line joining the kept samples covers [min, max] of each column.
// At most 2C + 1 points, whatever the length of the input.
#include <cstddef>
#include <span>
#include <vector>

namespace nsspice::app {

struct DecimatedSeries {
  std::vector<double> t, y;
};

// Streaming form (points arrive in time order; bounded memory): add(), then finish().
class SeriesDecimator {
 public:
  SeriesDecimator(double t_begin, double t_end, int columns = 3000);
  void add(double t, double y, std::vector<double>& out_t, std::vector<double>& out_y);
  void finish(std::vector<double>& out_t, std::vector<double>& out_y);

 private:
  double t0_, width_;
  long column_ = -1;
  int n_ = 0;
  double t_lo_ = 0, y_lo_ = 0, t_hi_ = 0, y_hi_ = 0, t_last_ = 0, y_last_ = 0;
  void flush(std::vector<double>& out_t, std::vector<double>& out_y);
};

// The whole series at once (t ascending), over [t_begin, t_end] in `columns` columns.
DecimatedSeries decimate(std::span<const double> t, std::span<const double> y, double t_begin,
                         double t_end, int columns);

// The last `capacity` samples of a streamed series (a ring): the raw data a zoom on the end of
// a long run draws from.
class TailBuffer {
 public:
  explicit TailBuffer(size_t capacity = 16384) : capacity_(capacity) {}
  void add(double t, double y);
  // The kept samples in time order.
  DecimatedSeries samples() const;

 private:
  size_t capacity_, next_ = 0;
  std::vector<double> t_, y_;
};

}  // namespace nsspice::app
