#pragma once
// PSpice's model tolerances for Monte Carlo runs (docs/sweeps.md, "Model tolerances"):
//
//   .model NAME TYPE (P=V [DEV[/track][/dist] T[%]] [LOT[/track][/dist] T[%]] ...)
//
// A DEV or LOT item (also written DEV=T) applies to the parameter written before it, P₀. Its
// deviation in a run is d = T·ξ (T absolute, in P's unit) or d = T·P₀·ξ (T with '%', T/100
// relative), where ξ is uniform in [−1, 1] (dist UNIFORM or U, the default) or standard normal
// clipped to [−4, 4] (GAUSS or G: T is one standard deviation); P = P₀ + d_DEV + d_LOT.
//   * LOT: one ξ per run for every device of the model (with /track n, 1 ≤ n ≤ 99: one ξ per
//     run and distribution shared by every LOT tolerance of track n, of any model);
//   * DEV: one ξ per device instance (with /track n: shared by that device's DEV tolerances of
//     track n). The devices of a model with DEV tolerances get a copy of the card each,
//     named "<model>@<device>", which replaces the card (no element uses it any more).
// The ξ are drawn from the run's generator (the same `draw` as the distribution functions:
// normal = true gives a standard normal, false a uniform value in [−1, 1]) in the order of the
// flat cards, so a run's values depend only on (seed, run index). Without a draw function (no
// Monte Carlo run) the tolerances are removed and each gets a warning that P keeps P₀, on the
// cards an element names (the others are not read: circuit::ModelCards).
// With `drawn` set, each deviated parameter is told with its value: "model.param" for the LOT
// deviation of the model's card, "model@device.param" for a device's copy.
// Errors (at the tolerance): no parameter before it, a parameter without a number, a value
// that is not a number ≥ 0, an unknown distribution (WCASE is PSpice's worst-case analysis,
// which nsspice does not run), a track outside 1..99.
#include <functional>
#include <string>

#include "netlist/ast.hpp"
#include "netlist/diagnostics.hpp"

namespace nsspice::app {

void apply_model_tolerances(netlist::Netlist& flat, const std::function<double(bool)>& draw,
                            netlist::Diagnostics& diags,
                            const std::function<void(const std::string&, double)>& drawn = {});

}  // namespace nsspice::app
