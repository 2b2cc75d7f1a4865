// Coupled inductors whose inductance matrix is not positive semidefinite (checks.hpp).
//
// The inductors joined by K cards form groups (the connected components of the coupling
// graph). A group's inductance matrix is L_ii = L_i, L_ij = k_ij·√(L_i L_j) (one K per pair; a
// pair coupled twice adds), and its stored energy ½ iᵀ L i must be ≥ 0 for every current
// vector i: L positive semidefinite. Each |k| ≤ 1 (the card's check) is not enough with three or
// more inductors (k12 = k13 = 1, k23 = 0.1: eigenvalue −0.42 L). The smallest eigenvalue of the
// symmetric scaled matrix S = D^-½ L D^-½ (D = diag L_i; S_ii = 1, S_ij = Σ k_ij), by Eigen's
// SelfAdjointEigenSolver, below −kIndefinite is an error naming the inductors and K cards: no
// physical coupling has these coefficients, and the circuit would grow without bound from any
// disturbance (the run said only that its operating point was an unstable equilibrium).
// Perfect coupling (an eigenvalue 0, k = ±1) stays: the inductor cuts handle it.
#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "circuit/src/checks.hpp"
#include "circuit/src/graph.hpp"

namespace nsspice::circuit::detail {
namespace {

constexpr double kIndefinite = 1e-9;

}  // namespace

void check_inductive_systems(const Circuit& circuit, netlist::Diagnostics& diags) {
  std::map<std::string, int> index;  // inductor name → its number among the coupled ones
  std::vector<size_t> mutuals;       // device indices of the K couplings
  for (size_t d = 0; d < circuit.devices.size(); ++d)
    if (const auto* k = std::get_if<Mutual>(&circuit.devices[d])) {
      mutuals.push_back(d);
      for (const std::string& l : {k->l1, k->l2}) index.emplace(l, static_cast<int>(index.size()));
    }
  if (mutuals.empty()) return;
  std::map<std::string, double> inductance;
  for (const Device& dev : circuit.devices)
    if (const auto* l = std::get_if<Inductor>(&dev)) inductance[l->name] = l->l;
  UnionFind groups_of(static_cast<int>(index.size()));
  for (size_t d : mutuals) {
    const auto& k = std::get<Mutual>(circuit.devices[d]);
    groups_of.unite(index.at(k.l1), index.at(k.l2));
  }
  std::map<int, std::vector<std::string>> groups;  // root → its inductors, in name order
  for (const auto& [name, i] : index) groups[groups_of.find(i)].push_back(name);
  for (const auto& [root, names] : groups) {
    if (names.size() < 2) continue;
    const auto n = static_cast<Eigen::Index>(names.size());
    Eigen::MatrixXd s = Eigen::MatrixXd::Identity(n, n);
    auto at = [&](const std::string& l) {
      return static_cast<Eigen::Index>(std::lower_bound(names.begin(), names.end(), l) -
                                       names.begin());
    };
    std::vector<size_t> cards;
    for (size_t d : mutuals) {
      const auto& k = std::get<Mutual>(circuit.devices[d]);
      if (groups_of.find(index.at(k.l1)) != root) continue;
      const Eigen::Index a = at(k.l1), b = at(k.l2);
      s(a, b) += k.k;
      s(b, a) += k.k;
      cards.push_back(d);
    }
    if (!std::all_of(names.begin(), names.end(), [&](const std::string& l) {
          return inductance.count(l) && inductance.at(l) > 0;
        }))
      continue;  // a missing or non-positive inductor has its own error
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(s, Eigen::EigenvaluesOnly);
    const double lowest = eig.eigenvalues().minCoeff();
    if (!(lowest < -kIndefinite)) continue;
    std::string ks;
    for (size_t d : cards)
      ks += (ks.empty() ? "" : ", ") + std::get<Mutual>(circuit.devices[d]).name +
            fmt::format(" = {:g}", std::get<Mutual>(circuit.devices[d]).k);
    std::string ls;
    for (const std::string& l : names) ls += (ls.empty() ? "" : ", ") + l;
    diags.error(
        circuit.spans[cards.front()],
        fmt::format("the coupled inductors {} ({}) have an inductance matrix that is not "
                    "positive semidefinite (its scaled form has the eigenvalue {:.3g} < 0): "
                    "their stored energy could be negative, which no physical coupling "
                    "allows; check the coupling coefficients and their signs",
                    ls, ks, lowest));
  }
}

}  // namespace nsspice::circuit::detail
