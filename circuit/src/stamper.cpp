#include "circuit/src/stamper.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace nsspice::circuit::detail {

void Stamper::conductance(Triplets& t, int a, int b, double gv) {
  if (a > 0) t.emplace_back(row(a), row(a), gv);
  if (b > 0) t.emplace_back(row(b), row(b), gv);
  if (a > 0 && b > 0) {
    t.emplace_back(row(a), row(b), -gv);
    t.emplace_back(row(b), row(a), -gv);
  }
}

void Stamper::transconductance(int p, int n, int cp, int cn, double gm) {
  for (auto [r, rs] : {std::pair{p, 1.0}, std::pair{n, -1.0}}) {
    if (r <= 0) continue;
    if (cp > 0) g.emplace_back(row(r), row(cp), rs * gm);
    if (cn > 0) g.emplace_back(row(r), row(cn), -rs * gm);
  }
}

void Stamper::branch(int a, int bn, int col, double branch_sign) {
  if (a > 0) g.emplace_back(row(a), col, 1.0), g.emplace_back(col, row(a), branch_sign);
  if (bn > 0) g.emplace_back(row(bn), col, -1.0), g.emplace_back(col, row(bn), -branch_sign);
}

void Stamper::pair_current(int a, int k, int j, double gain) {
  if (a > 0) b.emplace_back(row(a), j, -gain);
  if (k > 0) b.emplace_back(row(k), j, gain);
}

void Stamper::pair_voltage(int a, int k, int j, double sign) {
  if (a > 0) c.emplace_back(j, row(a), -sign);
  if (k > 0) c.emplace_back(j, row(k), sign);
}

int Stamper::new_pair(const std::string& device_name, int device_index, double offset,
                      bool is_forced, const std::string& role) {
  out_.pair_names.push_back(device_name);
  out_.pair_roles.push_back(role);
  out_.pair_device.push_back(device_index);
  offsets.push_back(offset);
  forced.push_back(is_forced);
  kink.push_back(0);
  return static_cast<int>(offsets.size()) - 1;
}

void Stamper::mark_kinks(std::size_t first_pair, std::size_t first_d) {
  const std::size_t count = offsets.size();
  if (first_pair >= count) return;
  std::vector<double> diag(count - first_pair, 0.0);
  std::vector<char> coupled(count - first_pair, 0);
  auto local = [&](int j) { return static_cast<std::size_t>(j) - first_pair; };
  for (std::size_t i = first_d; i < d.size(); ++i) {
    const auto& t = d[i];
    if (static_cast<std::size_t>(t.row()) < first_pair) continue;
    if (t.row() == t.col()) {
      diag[local(t.row())] += t.value();
    } else if (t.value() != 0.0) {
      coupled[local(t.row())] = 1;
      if (static_cast<std::size_t>(t.col()) >= first_pair) coupled[local(t.col())] = 1;
    }
  }
  for (std::size_t j = first_pair; j < count; ++j)
    if (!forced[j] && diag[j - first_pair] > 0 && !coupled[j - first_pair]) kink[j] = 1;
}

int Stamper::new_source(const Waveform& w, std::optional<double> dc) {
  out_.sources.push_back(w);
  out_.source_dc.push_back(dc.value_or(std::numeric_limits<double>::quiet_NaN()));
  return static_cast<int>(out_.sources.size()) - 1;
}

int Stamper::new_branch(const std::string& signal_name) {
  out_.unknown_names.push_back(signal_name);
  return next_column++;
}

void Stamper::stored_charge(const std::string& name, int a, int k,
                            const std::vector<std::pair<int, double>>& terms, Assembled& out) {
  if (std::none_of(terms.begin(), terms.end(), [](const auto& t) { return t.second != 0; })) return;
  const double s = charge_scale;
  const int u = new_branch("qs(" + name + ")");
  g.emplace_back(u, u, 1.0);
  for (const auto& [j, coef] : terms) b.emplace_back(u, j, coef / s);
  if (a > 0) e.emplace_back(row(a), u, s);
  if (k > 0) e.emplace_back(row(k), u, -s);
  out.derived.push_back({"q(" + name + ")", {}, {{u, s}}});
}

std::vector<std::pair<int, double>> Stamper::charge_knots(const PwlCharge& q,
                                                          const std::string& device, int index,
                                                          int a, int k, const std::string& role) {
  std::vector<std::pair<int, double>> out;
  for (std::size_t i = 0; i < q.knots.size(); ++i) {
    const std::string label = q.knots.size() > 1 ? fmt::format("{}{}", role, i + 1) : role;
    const int j = new_pair(device, index, q.knots[i].v, false, label);
    pair_voltage(a, k, j);
    d.emplace_back(j, j, 1.0);
    out.emplace_back(j, q.knots[i].dc);
    if (q.knots[i].v < 0) smooth_knots.push_back(j);
  }
  return out;
}

PwlSquare pwl_square(int segments, double vmax) {
  if (segments == 6) {
    // AB08 §14.4.3 (Leenaerts–van Bokhoven): f = 0.09x; 0.314055x − 0.0224055;
    // 0.780422x − 0.138391; 1.94107x − 0.856254; 4.82766x − 5.29668, breakpoints below.
    const std::vector<double> a = {0, 0.1, 0.2487, 0.6185, 1.5383};
    const std::vector<double> slope = {0.09, 0.314055, 0.780422, 1.94107, 4.82766};
    PwlSquare f{a, {}};
    for (size_t i = 0; i < slope.size(); ++i) f.c.push_back(slope[i] - (i ? slope[i - 1] : 0.0));
    return f;
  }
  // Secants of x² through x_i = i·vmax/(segments − 1), i = 0..segments−1, extended linearly.
  std::vector<double> x;
  for (int i = 0; i < segments; ++i) x.push_back(i * vmax / (segments - 1));
  return pwl_square_knots(x);
}

PwlSquare pwl_square_knots(const std::vector<double>& x) {
  PwlSquare f;
  double previous = 0;
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    const double slope = x[i] + x[i + 1];  // (x1² − x0²)/(x1 − x0)
    f.a.push_back(x[i]);
    f.c.push_back(slope - previous);
    previous = slope;
  }
  return f;
}

}  // namespace nsspice::circuit::detail
