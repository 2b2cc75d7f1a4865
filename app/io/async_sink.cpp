#include "app/io/async_sink.hpp"

#include <limits>
#include <utility>

namespace nsspice::app {

AsyncSink::AsyncSink(RowSink& out, std::vector<size_t> positions, size_t width)
    : out_(out), positions_(std::move(positions)) {
  if (!positions_.empty()) full_.assign(width, std::numeric_limits<double>::quiet_NaN());
  worker_ = std::thread([this] { work(); });
}

AsyncSink::~AsyncSink() {
  try {
    finish();
  } catch (...) {  // a destructor must not throw; finish() reports it to those who ask
  }
}

void AsyncSink::row(double t, std::span<const double> values) {
  const size_t width = values.size() + 1;
  if (chunk_.width != width && !chunk_.data.empty()) submit();
  chunk_.width = width;
  chunk_.data.push_back(t);
  chunk_.data.insert(chunk_.data.end(), values.begin(), values.end());
  if (chunk_.data.size() + width > kChunkDoubles) submit();
}

void AsyncSink::submit() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queue_.size() < kMaxQueued || failed_; });
  if (failed_) {  // the worker has stopped: the rows go nowhere (finish() reports why)
    chunk_.data.clear();
    return;
  }
  const size_t width = chunk_.width;
  queue_.push_back(std::move(chunk_));
  chunk_ = Chunk{width, {}};
  if (!spare_.empty()) {
    chunk_.data = std::move(spare_.back());
    spare_.pop_back();
  }
  chunk_.data.reserve(kChunkDoubles);
  // Notified under the lock, here and below: a notify after unlocking is as correct, but
  // Helgrind reports it ("pthread_cond_signal: associated lock is not held"); one notify per
  // chunk of 16k values costs nothing measurable.
  changed_.notify_all();
}

void AsyncSink::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return !queue_.empty() || closing_; });
    if (queue_.empty()) return;  // closing, and nothing left
    Chunk c = std::move(queue_.front());
    queue_.pop_front();
    changed_.notify_all();  // room in the queue
    lock.unlock();
    std::exception_ptr failure;
    try {
      const size_t w = c.width;
      for (size_t i = 0; i + w <= c.data.size(); i += w) {
        const std::span<const double> values(c.data.data() + i + 1, w - 1);
        if (positions_.empty()) {
          out_.row(c.data[i], values);
          continue;
        }
        for (size_t k = 0; k < values.size() && k < positions_.size(); ++k)
          full_[positions_[k]] = values[k];
        out_.row(c.data[i], full_);
      }
    } catch (...) {
      failure = std::current_exception();
    }
    c.data.clear();
    lock.lock();
    spare_.push_back(std::move(c.data));
    if (failure) {
      error_ = failure;
      failed_ = true;
      stopped_.store(true, std::memory_order_relaxed);
      queue_.clear();
      changed_.notify_all();
      return;
    }
    changed_.notify_all();
  }
}

void AsyncSink::finish() {
  if (finished_) return;
  finished_ = true;
  if (!chunk_.data.empty()) submit();
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    changed_.notify_all();
  }
  if (worker_.joinable()) worker_.join();
  std::exception_ptr failure;
  {
    std::lock_guard lock(mutex_);
    failure = std::exchange(error_, nullptr);
  }
  if (failure) std::rethrow_exception(failure);
  out_.finish();
}

}  // namespace nsspice::app
