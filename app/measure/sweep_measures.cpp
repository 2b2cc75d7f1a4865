#include "app/measure/sweep_measures.hpp"

#include <algorithm>

namespace nsspice::app {

SweepMeasures::SweepMeasures(MeasureScale scale, const std::vector<std::string>& names,
                             bool complex)
    : set_(std::move(scale)), complex_(complex), signal_count_(names.size()), names_(names) {
  for (size_t k = 0; k < names.size(); ++k) columns_.push_back({k, AcPart::kReal});
}

bool SweepMeasures::add(const MeasureSpec& spec, std::string& error) {
  // The .ac forms it reads become columns of their own.
  if (complex_)
    for (const std::string& ref : spec.signals()) {
      if (std::find(names_.begin(), names_.end(), ref) != names_.end()) continue;
      const auto form = ac_form(ref);
      if (!form) continue;
      const auto it =
          std::find(names_.begin(), names_.begin() + static_cast<std::ptrdiff_t>(signal_count_),
                    form->signal);
      if (it == names_.begin() + static_cast<std::ptrdiff_t>(signal_count_)) continue;
      columns_.push_back({static_cast<size_t>(it - names_.begin()), form->part});
      names_.push_back(ref);
    }
  if (!set_.add(spec, names_, error)) return false;
  std::vector<char> used(names_.size(), 0);
  set_.mark_columns(used);
  signals_.clear();
  slot_.assign(names_.size(), static_cast<size_t>(-1));
  for (size_t c = 0; c < names_.size(); ++c) {
    if (!used[c]) continue;
    const size_t s = columns_[c].signal;
    auto it = std::find(signals_.begin(), signals_.end(), s);
    if (it == signals_.end()) it = signals_.insert(signals_.end(), s);
    slot_[c] = static_cast<size_t>(it - signals_.begin());
  }
  values_.assign(names_.size(), 0.0);
  return true;
}

void SweepMeasures::feed(double scale, std::span<const double> re, std::span<const double> im) {
  for (size_t c = 0; c < names_.size(); ++c) {
    const size_t k = slot_[c];
    if (k == static_cast<size_t>(-1)) continue;
    values_[c] = ac_value({re[k], k < im.size() ? im[k] : 0.0}, columns_[c].part);
  }
  set_.feed(scale, values_);
}

}  // namespace nsspice::app
