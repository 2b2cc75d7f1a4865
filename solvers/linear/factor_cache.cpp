// LRU cache of mode factorizations with a deterministic choice between fresh factorizations and
// refactored copies of a model (factor_cache.hpp).
#include "solvers/linear/factor_cache.hpp"

#include <algorithm>
#include <utility>

namespace nsspice::solvers {
void FactorBudget::note_peak() { peak_ = std::max(peak_, bytes_ + spare_bytes_); }

void FactorBudget::add(double bytes) {
  bytes_ += bytes;
  note_peak();
}

void FactorBudget::keep_spare(KluFactor&& f) {
  if (!f.valid() || f.bytes() <= 0) return;
  if (static_cast<int>(spares_.size()) >= kMaxSpares) {  // the most recent drop is kept
    spare_bytes_ -= spares_.front().bytes();
    spares_.erase(spares_.begin());
  }
  spare_bytes_ += f.bytes();
  spares_.push_back(std::move(f));
}

bool FactorBudget::take_spare(const KluSymbolic& symbolic, KluFactor& to) {
  for (auto it = spares_.begin(); it != spares_.end(); ++it) {
    if (!it->of(symbolic)) continue;
    spare_bytes_ -= it->bytes();
    to = std::move(*it);
    spares_.erase(it);
    return true;
  }
  return false;
}

void FactorBudget::free_spares() {
  spares_.clear();
  spare_bytes_ = 0;
}

void FactorBudget::enforce(const FactorCache& keep) {
  while (bytes_ > limit_) {
    // The least recently used entry among every cache's last one (a few caches: a linear scan).
    FactorCache* victim = nullptr;
    long oldest = 0;
    for (FactorCache* c : caches_) {
      if (c->entries_.empty() || (c == &keep && c->entries_.size() == 1)) continue;
      const long used = c->entries_.back().used;
      if (victim == nullptr || used < oldest) {
        victim = c;
        oldest = used;
      }
    }
    if (victim == nullptr) return;  // only the entry just computed is left
    victim->drop_last();
    ++evictions_;
  }
}

FactorCache::FactorCache(int capacity, double byte_budget)
    : capacity_(capacity < 1 ? 1 : capacity), own_budget_(byte_budget), budget_(&own_budget_) {
  budget_->caches_.push_back(this);
}

FactorCache::FactorCache(int capacity, FactorBudget* shared)
    : capacity_(capacity < 1 ? 1 : capacity), budget_(shared != nullptr ? shared : &own_budget_) {
  budget_->caches_.push_back(this);
}

FactorCache::~FactorCache() {
  // The solver of a step size no longer met: its least recently used factor may serve the next
  // miss of another (header).
  if (!entries_.empty()) budget_->keep_spare(std::move(entries_.back().factor));
  budget_->bytes_ -= bytes_;
  auto& caches = budget_->caches_;
  caches.erase(std::remove(caches.begin(), caches.end(), this), caches.end());
}

void FactorCache::clear(bool spare) {
  if (spare && !entries_.empty()) budget_->keep_spare(std::move(entries_.back().factor));
  budget_->bytes_ -= bytes_;
  bytes_ = 0;
  entries_.clear();
  index_.clear();
  singular_keys_.clear();
}

void FactorCache::drop_last() {
  bytes_ -= entries_.back().bytes;
  budget_->bytes_ -= entries_.back().bytes;
  index_.erase(entries_.back().key);
  budget_->keep_spare(std::move(entries_.back().factor));
  entries_.pop_back();
}

const KluFactor* FactorCache::find(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  entries_.splice(entries_.begin(), entries_, it->second);
  entries_.front().used = budget_->tick();
  return &entries_.front().factor;
}

const KluFactor* FactorCache::front_hit(const KluFactor* f) {
  if (f == nullptr || entries_.empty() || &entries_.front().factor != f) return nullptr;
  entries_.front().used = budget_->tick();
  ++stats_.hits;
  return f;
}

double FactorModel::cost_fresh(const KluFactor& f, double nonzeros) {
  return f.flops() + kFreshPerEntry * f.lu_entries() + kPerNonzero * nonzeros;
}

double FactorModel::cost_model(double nonzeros) const {
  return factor.flops() + (kRefactorPerEntry + kCopyPerEntry) * factor.lu_entries() +
         kPerNonzero * nonzeros;
}

double FactorModel::mean_fresh() const {
  return fresh_count > 0 ? fresh_cost / static_cast<double>(fresh_count) : 0.0;
}

bool FactorModel::worth(double nonzeros) {
  if (!factor.valid() || fresh_count == 0) return false;
  ++misses_since_attempt;
  if (attempts_total < kModelTrials || misses_since_attempt >= kModelProbe) return true;
  const double c_fresh = mean_fresh();
  const double p_fail = attempts > 0 ? failures / attempts : 0.0;
  return cost_model(nonzeros) + p_fail * c_fresh < kModelGain * c_fresh;
}

void FactorModel::record(bool ok) {
  attempts = kModelMemory * attempts + 1;
  failures = kModelMemory * failures + (ok ? 0 : 1);
  ++attempts_total;
  misses_since_attempt = 0;
}

void FactorModel::adopt(const KluFactor& fresh, int new_score) {
  if (!factor.copy_from(fresh)) {
    score = -1;
    return;
  }
  restart(new_score);
}

void FactorModel::adopt(KluFactor&& fresh, int new_score) {
  factor = std::move(fresh);
  restart(new_score);
}

void FactorModel::restart(int new_score) {
  score = new_score;
  attempts = failures = 0;
  attempts_total = 0;
}

void FactorCache::offer_model(const KluSymbolic& symbolic, const SparseMatrix& a, int score) {
  FactorModel& model = symbolic.model();
  if (a.nonZeros() < kModelMinNonzeros) return;
  if (model.offered || model.fresh_count == 0) return;
  model.offered = true;
  if (score <= model.score) return;
  KluFactor f;
  const LuStatus status = f.factor(symbolic, a);
  factorizations_ += f.factorizations();
  if (status == LuStatus::kOk) model.adopt(std::move(f), score);  // no copy: f is not cached
}

LuStatus FactorCache::compute(Entry& entry, const KluSymbolic& symbolic, const SparseMatrix& a,
                              int score) {
  FactorModel& model = symbolic.model();
  const auto nonzeros = static_cast<double>(a.nonZeros());
  // A mode ranked above the model (more pairs on) is not served by its pivot order (header): a
  // fresh factorization straight away, not a refactorization that fails first.
  const bool use_model =
      a.nonZeros() >= kModelMinNonzeros && score <= model.score && model.worth(nonzeros);
  // A new entry that uses the model starts from the spare (refactored in place when it holds the
  // model's structure); one factored afresh frees the spare first (header).
  if (!entry.factor.valid()) {
    if (!use_model)
      budget_->free_spares();
    else if (budget_->take_spare(symbolic, entry.factor))
      ++stats_.spares_used;
  }
  const int factorizations_before = entry.factor.factorizations();
  const int refactorizations_before = entry.factor.refactorizations();
  const int in_place_before = entry.factor.in_place_starts();
  LuStatus status;
  if (use_model) {
    status = entry.factor.refactor_like(model.factor, symbolic, a);
  } else if (entry.factor.valid()) {
    status = entry.factor.refactor(symbolic, a);  // a recycled entry
  } else {
    status = entry.factor.factor(symbolic, a);
  }
  const int fresh = entry.factor.factorizations() - factorizations_before;
  const int refactored = entry.factor.refactorizations() - refactorizations_before;
  factorizations_ += fresh;
  refactorizations_ += refactored;
  if (use_model) {
    ++stats_.model_attempts;
    if (refactored == 0) ++stats_.model_failures;
    stats_.model_in_place += entry.factor.in_place_starts() - in_place_before;
    model.record(refactored > 0);
  } else if (fresh > 0 && refactored == 0 && status == LuStatus::kOk &&
             a.nonZeros() >= kModelMinNonzeros) {
    model.fresh_cost += FactorModel::cost_fresh(entry.factor, nonzeros);
    ++model.fresh_count;
  }
  // A fresh factorization of a higher score becomes the model.
  if (status == LuStatus::kOk && fresh > 0 && score > model.score &&
      a.nonZeros() >= kModelMinNonzeros)
    model.adopt(entry.factor, score);
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
    budget_->bytes_ -= last->bytes;
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
  entry.used = budget_->tick();
  bytes_ += entry.bytes;
  budget_->add(entry.bytes);
  entries_.push_front(std::move(entry));
  index_[key] = entries_.begin();
  budget_->enforce(*this);  // drop the least recently used (of every cache sharing the budget)
  return &entries_.front().factor;
}

}  // namespace nsspice::solvers
