#pragma once
// A RowSink that hands its rows to another sink on a worker thread, so that formatting and
// writing the waveforms (CSV text, raw, measurements, plot decimation, resampling) overlaps
// the time stepping instead of adding to it.
//
// Rows are copied into chunks of about kChunkDoubles values; a full chunk is queued for the
// worker, which replays its rows, in order, into the downstream sink. At most kMaxQueued chunks
// wait at once: a producer that gets that far ahead waits for the worker, so memory stays
// bounded whatever the run's length. finish() queues the last partial chunk, waits until the
// worker has replayed everything and then finishes the downstream sink, on the caller's
// thread: after finish() the downstream sink holds exactly the rows given, as with a
// synchronous chain. An exception thrown downstream stops the worker (later rows are dropped)
// and is rethrown by finish(); row() itself never throws for it.
//
// With `positions` (strictly increasing, < width) the rows given are compact: value k belongs
// at column positions[k] of a row of `width` values; the worker expands them, the other columns
// NaN (the run evaluates only the signals someone reads, and the copy stays small).
//
// The downstream sink must not be used by anyone else until finish() has returned.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "app/io/waveforms.hpp"

namespace nsspice::app {

class AsyncSink : public RowSink {
 public:
  static constexpr size_t kChunkDoubles = 1 << 14;
  static constexpr size_t kMaxQueued = 8;

  explicit AsyncSink(RowSink& out, std::vector<size_t> positions = {}, size_t width = 0);
  ~AsyncSink() override;  // finishes (errors swallowed: call finish() to see them)
  AsyncSink(const AsyncSink&) = delete;
  AsyncSink& operator=(const AsyncSink&) = delete;

  void row(double t, std::span<const double> values) override;
  void finish() override;
  // True once the downstream sink has thrown (the rows given from then on are dropped): the
  // producer can stop early, finish() rethrows. Cheap enough to ask after every row.
  bool failed() const { return stopped_.load(std::memory_order_relaxed); }

 private:
  struct Chunk {
    size_t width = 0;  // values per row, time included
    std::vector<double> data;
  };
  void submit();  // queues chunk_ (waits while the queue is full)
  void work();

  RowSink& out_;
  std::vector<size_t> positions_;
  std::vector<double> full_;  // worker: the expanded row
  Chunk chunk_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Chunk> queue_;
  std::vector<std::vector<double>> spare_;  // storage of replayed chunks, reused
  bool closing_ = false;
  bool failed_ = false;               // the downstream sink threw: the worker has stopped
  std::atomic<bool> stopped_{false};  // failed_, readable without the lock
  bool finished_ = false;
  std::exception_ptr error_;
  std::thread worker_;
};

}  // namespace nsspice::app
