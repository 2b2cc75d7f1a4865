// LRU cache of mode factorizations with a measured choice between fresh factorizations and
// refactored copies of a model (factor_cache.hpp).
#include "solvers/linear/factor_cache.hpp"

#include <ctime>

namespace nsspice::solvers {
namespace {

// CPU time of the calling thread [s]: the cost model compares work, not the waits of a shared
// machine.
double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

const KluFactor* FactorCache::find(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  entries_.splice(entries_.begin(), entries_, it->second);
  return &entries_.front().factor;
}

bool FactorCache::model_worth() const {
  if (!model_.valid() || stats_.fresh_count == 0) return false;
  const double t_fresh = stats_.fresh_seconds / static_cast<double>(stats_.fresh_count);
  if (t_fresh < kModelMinSeconds) return false;
  if (stats_.model_attempts < kModelTrials) return true;  // measuring
  const long ok = stats_.model_attempts - stats_.model_failures;
  if (ok == 0) return false;
  const double t_model = stats_.model_seconds / static_cast<double>(ok);
  const double p_fail =
      static_cast<double>(stats_.model_failures) / static_cast<double>(stats_.model_attempts);
  return t_model + p_fail * t_fresh < kModelGain * t_fresh;
}

LuStatus FactorCache::compute(Entry& entry, const KluSymbolic& symbolic, const SparseMatrix& a,
                              int score) {
  const int factorizations_before = entry.factor.factorizations();
  const int refactorizations_before = entry.factor.refactorizations();
  const bool use_model = model_worth();
  const double start = thread_seconds();
  LuStatus status;
  if (use_model) {
    status = entry.factor.refactor_like(model_, symbolic, a);
  } else if (entry.factor.valid()) {
    status = entry.factor.refactor(symbolic, a);  // a recycled entry
  } else {
    status = entry.factor.factor(symbolic, a);
  }
  const double seconds = thread_seconds() - start;
  const int fresh = entry.factor.factorizations() - factorizations_before;
  const int refactored = entry.factor.refactorizations() - refactorizations_before;
  factorizations_ += fresh;
  refactorizations_ += refactored;
  if (use_model) {
    ++stats_.model_attempts;
    if (refactored > 0) {
      stats_.model_seconds += seconds;
    } else {
      ++stats_.model_failures;
    }
  } else if (fresh > 0 && refactored == 0 && status == LuStatus::kOk) {
    stats_.fresh_seconds += seconds;
    ++stats_.fresh_count;
  }
  // A fresh factorization of a higher score becomes the model (its measures start over).
  if (status == LuStatus::kOk && fresh > 0 && score > model_score_ &&
      model_.copy_from(entry.factor)) {
    model_score_ = score;
    bytes_ -= model_bytes_;
    model_bytes_ = model_.bytes();
    bytes_ += model_bytes_;
    stats_.model_attempts = stats_.model_failures = 0;
    stats_.model_seconds = 0;
  }
  return status;
}

const KluFactor* FactorCache::get(const std::string& key, const KluSymbolic& symbolic,
                                  const SparseMatrix& a, int score) {
  if (const KluFactor* hit = find(key)) {
    ++stats_.hits;
    return hit;
  }
  if (singular_keys_.count(key) != 0) {  // known singular: not worth another factorization
    ++stats_.singular;
    return nullptr;
  }
  ++stats_.misses;
  Entry entry;
  if (static_cast<int>(entries_.size()) >= capacity_) {
    // Recycle the least recently used factorization: same pattern, new values.
    auto last = std::prev(entries_.end());
    index_.erase(last->key);
    bytes_ -= last->bytes;
    entry.factor = std::move(last->factor);
    entries_.erase(last);
  }
  const LuStatus status = compute(entry, symbolic, a, score);
  if (status != LuStatus::kOk || !entry.factor.valid()) {
    ++stats_.singular;
    if (singular_keys_.size() < kMaxSingularKeys) singular_keys_.insert(key);
    return nullptr;
  }
  entry.key = key;
  entry.bytes = entry.factor.bytes();
  bytes_ += entry.bytes;
  entries_.push_front(std::move(entry));
  index_[key] = entries_.begin();
  while (bytes_ > byte_budget_ && entries_.size() > 1) {  // drop the least recently used
    bytes_ -= entries_.back().bytes;
    index_.erase(entries_.back().key);
    entries_.pop_back();
  }
  return &entries_.front().factor;
}

}  // namespace nsspice::solvers
