// Min/max decimation per pixel column (decimate.hpp) and the tail ring of a streamed series.
#include "app/plot/decimate.hpp"

#include <algorithm>
#include <cmath>

namespace nsspice::app {

SeriesDecimator::SeriesDecimator(double t_begin, double t_end, int columns)
    : t0_(t_begin), width_(std::max(t_end - t_begin, 1e-300) / std::max(columns, 1)) {}

void SeriesDecimator::add(double t, double y, std::vector<double>& out_t,
                          std::vector<double>& out_y) {
  const auto c = static_cast<long>(std::floor((t - t0_) / width_));
  if (c != column_ && n_ > 0) flush(out_t, out_y);
  column_ = c;
  if (n_ == 0 || y < y_lo_) t_lo_ = t, y_lo_ = y;
  if (n_ == 0 || y > y_hi_) t_hi_ = t, y_hi_ = y;
  t_last_ = t, y_last_ = y;
  ++n_;
}

void SeriesDecimator::flush(std::vector<double>& out_t, std::vector<double>& out_y) {
  if (n_ == 0) return;
  auto push = [&](double t, double y) {
    out_t.push_back(t);
    out_y.push_back(y);
  };
  if (t_lo_ == t_hi_ && y_lo_ == y_hi_) {
    push(t_lo_, y_lo_);
  } else if (t_lo_ <= t_hi_) {
    push(t_lo_, y_lo_), push(t_hi_, y_hi_);
  } else {
    push(t_hi_, y_hi_), push(t_lo_, y_lo_);
  }
  n_ = 0;
}

void SeriesDecimator::finish(std::vector<double>& out_t, std::vector<double>& out_y) {
  const double t_last = t_last_, y_last = y_last_;
  const bool any = n_ > 0 || !out_t.empty();
  flush(out_t, out_y);
  if (any && (out_t.empty() || out_t.back() != t_last || out_y.back() != y_last)) {
    out_t.push_back(t_last);
    out_y.push_back(y_last);
  }
}

DecimatedSeries decimate(std::span<const double> t, std::span<const double> y, double t_begin,
                         double t_end, int columns) {
  DecimatedSeries out;
  SeriesDecimator d(t_begin, t_end, columns);
  for (size_t i = 0; i < t.size() && i < y.size(); ++i) d.add(t[i], y[i], out.t, out.y);
  d.finish(out.t, out.y);
  return out;
}

void TailBuffer::add(double t, double y) {
  if (capacity_ == 0) return;
  if (t_.size() < capacity_) {
    t_.push_back(t);
    y_.push_back(y);
    return;
  }
  t_[next_] = t;
  y_[next_] = y;
  next_ = (next_ + 1) % capacity_;
}

DecimatedSeries TailBuffer::samples() const {
  DecimatedSeries out;
  out.t.reserve(t_.size());
  out.y.reserve(y_.size());
  for (size_t k = 0; k < t_.size(); ++k) {
    const size_t i = (next_ + k) % t_.size();
    out.t.push_back(t_[i]);
    out.y.push_back(y_[i]);
  }
  return out;
}

}  // namespace nsspice::app
