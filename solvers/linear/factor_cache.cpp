#include "solvers/linear/factor_cache.hpp"

namespace nsspice::solvers {

const KluFactor* FactorCache::find(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  entries_.splice(entries_.begin(), entries_, it->second);
  return &entries_.front().factor;
}

const KluFactor* FactorCache::get(const std::string& key, const KluSymbolic& symbolic,
                                  const SparseMatrix& a) {
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
  const int factorizations_before = entry.factor.factorizations();
  const int refactorizations_before = entry.factor.refactorizations();
  const LuStatus status =
      entry.factor.valid() ? entry.factor.refactor(symbolic, a) : entry.factor.factor(symbolic, a);
  factorizations_ += entry.factor.factorizations() - factorizations_before;
  refactorizations_ += entry.factor.refactorizations() - refactorizations_before;
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
