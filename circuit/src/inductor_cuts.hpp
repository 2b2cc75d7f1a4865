#pragma once
// Inductor currents cut by an opening ideal switch.
//
// When a switch opens (on → off) and the current of an inductor L has no other path (an ideal
// switch, GOFF = 0, alone in its loop), the current jumps from i⁻ to i⁺ in zero time. The
// voltage across the inductor is then an impulse
//
//     v(t) = L (i⁺ − i⁻) δ(t − t_s),   of size  Φ = L |i⁻ − i⁺|   (V·s = Wb, a flux),
//
// and the energy ½ L (i⁻² − i⁺²) vanishes in the jump (in a real circuit: an arc, an avalanche
// breakdown, a destroyed transistor). The model's answer, the jump, is kept; the cut is named
// on stderr (TransientResult::warnings) and, for event-driven runs, in the event log.
//
// Detection, for each state jump from x⁻ to x⁺ at an instant where some ideal switch (GOFF = 0;
// a finite ROFF gives the current a path with a finite voltage) opened: an inductor whose
// current changed by more than half its value before, |i⁺ − i⁻| > ½ |i⁻|, with |i⁻| above
// kCutFloor. The jumps are the θ-stepper's solvers::SwitchJump (x⁺ extrapolated to the instant
// from two vanishing backward-Euler steps: docs/theory.md §5.7) and the event-driven mode's
// (the points before and after its mode selection, 2δ apart). A current that keeps flowing (a
// freewheeling diode takes it) does not change there: by O(δ²) (θ-scheme) or 2δ·i' (event-driven,
// δ = 1e-9 of the run), not by the motion L⁻¹ ∫v dt of a step, which near a zero crossing of
// the current is larger than the current itself.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/circuit.hpp"

namespace nsspice::circuit::detail {

inline constexpr double kCutFloor = 1e-9;    // A: smaller currents are not reported
inline constexpr size_t kCutsReported = 10;  // warnings listed one by one, then a count

struct InductorCut {
  double t = 0;
  std::string inductor;
  std::string switches;  // the switch(es) that opened, space separated
  double l = 0, i_before = 0, i_after = 0;
  double impulse() const;  // Φ = L |i⁻ − i⁺| (V·s)
  double energy() const;   // ½ L (i⁻² − i⁺²) (J)
  // "t = 1.2e-3 s: switch s1 cuts the current of l1 (0.5 A -> 0 A): voltage impulse
  //  L·Δi = 5e-04 V·s, energy 1.25e-04 J lost in the jump"
  std::string describe() const;
};

class CutDetector {
 public:
  CutDetector(const Circuit& circuit, const Assembled& assembled);
  // Any inductor and any switch at all (else nothing can be cut: callers skip the copies).
  bool active() const { return !inductors_.empty() && !switch_pairs_.empty(); }
  // The switches that are on in `before` and off in `after` (modes over all pairs).
  std::vector<std::string> opened(const std::vector<char>& before,
                                  const std::vector<char>& after) const;
  // Appends the cuts of a step or jump at t from x⁻ to x⁺ in which `opened` switches opened.
  void check(double t, const Eigen::VectorXd& x_before, const Eigen::VectorXd& x_after,
             const std::vector<std::string>& opened, std::vector<InductorCut>& out) const;

 private:
  struct Watched {
    std::string name;
    int unknown = 0;  // index of i(name) in x
    double l = 0;
  };
  std::vector<Watched> inductors_;
  std::vector<int> switch_pairs_;  // pairs of the switches
  const Assembled& a_;
};

// The warnings of `cuts` (at most kCutsReported, then how many more) appended to `warnings`.
void report_cuts(const std::vector<InductorCut>& cuts, std::vector<std::string>& warnings);

}  // namespace nsspice::circuit::detail
