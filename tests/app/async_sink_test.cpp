// AsyncSink: rows replayed downstream on a worker thread, in order and complete, whatever the
// chunking; downstream failures reported by finish(); finish() idempotent.
#include "app/io/async_sink.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>
#include <vector>

namespace nsspice::app {
namespace {

// Records every row and the thread that saw it; optionally throws at row `throw_at`.
class Recorder : public RowSink {
 public:
  void row(double t, std::span<const double> values) override {
    if (static_cast<long>(rows.size()) == throw_at) throw std::runtime_error("disk full");
    rows.emplace_back(1, t);
    rows.back().insert(rows.back().end(), values.begin(), values.end());
    thread = std::this_thread::get_id();
  }
  void finish() override { ++finished; }
  std::vector<std::vector<double>> rows;
  std::thread::id thread;
  long throw_at = -1;
  int finished = 0;
};

TEST(AsyncSink, ReplaysEveryRowInOrderOnAnotherThread) {
  Recorder rec;
  const long n = 200000;  // many chunks: the producer outruns the queue's bound
  {
    AsyncSink sink(rec);
    std::vector<double> v(3);
    for (long i = 0; i < n; ++i) {
      v = {double(i), -double(i), 0.5 * double(i)};
      sink.row(1e-9 * double(i), v);
    }
    sink.finish();
    EXPECT_EQ(rec.finished, 1);
    sink.finish();  // idempotent
    EXPECT_EQ(rec.finished, 1);
  }
  ASSERT_EQ(static_cast<long>(rec.rows.size()), n);
  for (long i = 0; i < n; ++i) {
    const auto& r = rec.rows[static_cast<size_t>(i)];
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0], 1e-9 * double(i));
    EXPECT_EQ(r[1], double(i));
    EXPECT_EQ(r[2], -double(i));
    EXPECT_EQ(r[3], 0.5 * double(i));
  }
  EXPECT_NE(rec.thread, std::this_thread::get_id());
}

TEST(AsyncSink, RowsWiderThanAChunkAndChangingWidths) {
  Recorder rec;
  AsyncSink sink(rec);
  std::vector<double> wide(AsyncSink::kChunkDoubles + 5, 2.0), narrow(1, 7.0);
  sink.row(0.0, wide);
  sink.row(1.0, narrow);
  sink.row(2.0, wide);
  sink.row(3.0, {});
  sink.finish();
  ASSERT_EQ(rec.rows.size(), 4u);
  EXPECT_EQ(rec.rows[0].size(), wide.size() + 1);
  EXPECT_EQ(rec.rows[1], (std::vector<double>{1.0, 7.0}));
  EXPECT_EQ(rec.rows[2].size(), wide.size() + 1);
  EXPECT_EQ(rec.rows[3], (std::vector<double>{3.0}));
}

TEST(AsyncSink, DownstreamFailureIsReportedByFinishNotRow) {
  Recorder rec;
  rec.throw_at = 1000;
  AsyncSink sink(rec);
  std::vector<double> v(2, 1.0);
  for (int i = 0; i < 100000; ++i) EXPECT_NO_THROW(sink.row(double(i), v));
  EXPECT_THROW(sink.finish(), std::runtime_error);
  EXPECT_EQ(rec.rows.size(), 1000u);  // the rows before the failure arrived, in order
  EXPECT_EQ(rec.rows.back()[0], 999.0);
  EXPECT_EQ(rec.finished, 0);
  EXPECT_NO_THROW(sink.finish());
}

TEST(AsyncSink, NoRowsFinishesDownstream) {
  Recorder rec;
  { AsyncSink sink(rec); }  // the destructor finishes
  EXPECT_EQ(rec.finished, 1);
  EXPECT_TRUE(rec.rows.empty());
}

}  // namespace
}  // namespace nsspice::app
