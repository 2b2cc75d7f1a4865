// Restamping (circuit/assemble.hpp, restamp): a circuit that differs from the pattern's only in
// values is assembled on the pattern's sparsity equal bit for bit to assemble() (every matrix:
// structure and the bits of each value, duplicate stamps summed in the same order; the rest of
// the assembly: offsets, sources, switch controls); a circuit of another structure (another
// topology, a PWL model with more segments) does not fit and is left to assemble().
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "circuit/assemble.hpp"
#include "circuit_helpers.hpp"

namespace nsspice::circuit {
namespace {

using testing::elaborate_text;

Circuit circuit_of(const std::string& text) {
  auto e = elaborate_text(text);
  EXPECT_FALSE(e.diags.has_errors()) << e.text();
  return std::move(e.circuit);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same_matrix(const solvers::SparseMatrix& a, const solvers::SparseMatrix& b,
                        const char* name) {
  ASSERT_EQ(a.rows(), b.rows()) << name;
  ASSERT_EQ(a.cols(), b.cols()) << name;
  ASSERT_EQ(a.nonZeros(), b.nonZeros()) << name;
  ASSERT_TRUE(a.isCompressed() && b.isCompressed()) << name;
  for (Eigen::Index j = 0; j <= a.cols(); ++j)
    ASSERT_EQ(a.outerIndexPtr()[j], b.outerIndexPtr()[j]) << name;
  for (Eigen::Index k = 0; k < a.nonZeros(); ++k) {
    EXPECT_EQ(a.innerIndexPtr()[k], b.innerIndexPtr()[k]) << name << " entry " << k;
    EXPECT_TRUE(same_bits(a.valuePtr()[k], b.valuePtr()[k]))
        << name << " entry " << k << ": " << a.valuePtr()[k] << " vs " << b.valuePtr()[k];
  }
}

void expect_same_assembly(const Assembled& r, const Assembled& a) {
  const solvers::Mlcs &x = r.mlcs, &y = a.mlcs;
  ASSERT_EQ(x.n, y.n);
  ASSERT_EQ(x.m, y.m);
  expect_same_matrix(x.E, y.E, "E");
  expect_same_matrix(x.G, y.G, "G");
  expect_same_matrix(x.B, y.B, "B");
  expect_same_matrix(x.C, y.C, "C");
  expect_same_matrix(x.D, y.D, "D");
  expect_same_matrix(x.C_off, y.C_off, "C_off");
  expect_same_matrix(x.S, y.S, "S");
  ASSERT_EQ(x.d.size(), y.d.size());
  for (Eigen::Index j = 0; j < x.d.size(); ++j) EXPECT_TRUE(same_bits(x.d[j], y.d[j])) << j;
  EXPECT_EQ(x.forced, y.forced);
  ASSERT_EQ(x.switches.size(), y.switches.size());
  for (std::size_t k = 0; k < x.switches.size(); ++k) {
    EXPECT_TRUE(same_bits(x.switches[k].on_above, y.switches[k].on_above));
    EXPECT_TRUE(same_bits(x.switches[k].off_below, y.switches[k].off_below));
  }
  EXPECT_EQ(r.unknown_names, a.unknown_names);
  EXPECT_EQ(r.pair_names, a.pair_names);
  EXPECT_EQ(r.unknown_devices, a.unknown_devices);
  // The sources' values come from the run's own waveforms.
  Eigen::VectorXd s1(static_cast<Eigen::Index>(r.sources.size())), s2(s1.size());
  for (const double t : {0.0, 1.3e-6, 7.7e-6}) {
    x.source_values(t, s1);
    y.source_values(t, s2);
    for (Eigen::Index k = 0; k < s1.size(); ++k) EXPECT_TRUE(same_bits(s1[k], s2[k])) << t;
  }
}

// A buck converter with parallel parts (duplicate stamps on one entry, summed in order), an
// ideal switch, diodes with RON and GOFF, coupled inductors and controlled sources.
std::string buck(double r, double l, double c, double vin, double ron, double vt) {
  return fmt::format(
      "buck\nVin in 0 DC {3}\nVp ctrl 0 PULSE(0 1 0 10n 10n 4.99u 10u)\n"
      "S1 in sw ctrl 0 SWM\nD1 0 sw DM\nL1 sw out {1} IC=0\nC1 out 0 {2} IC=0\n"
      "C2 out 0 {{{2}/3}}\nR1 out 0 {0}\nR2 out 0 {{{0}*7}}\nR3 out 0 {{{0}*0.1}}\n"
      "L2 a 0 {1}\nK1 L1 L2 0.3\nR4 a 0 50\nE1 e 0 out 0 {4}\nR5 e 0 1k\nG1 0 f out 0 1m\n"
      "R6 f 0 {0}\n.model SWM SW(VT={5} RON={4})\n.model DM D(RON={4} GOFF=1n VF=0.6)\n"
      ".tran 10n 20u UIC\n.end\n",
      r, l, c, vin, ron, vt);
}

TEST(Restamp, EqualsAssembleBitForBitForOtherValues) {
  const Circuit nominal = circuit_of(buck(10, 100e-6, 10e-6, 10, 0.01, 0.5));
  const AssemblyPattern pattern(nominal);
  // R = 12.345 and 3.3: G[out, out] = 1/R + 1/(7R) + 1/(0.1R) has other bits when summed in
  // another order (a restamp that summed the stamps in another order would fail here).
  for (const auto& values : {std::array<double, 6>{10, 100e-6, 10e-6, 10, 0.01, 0.5},
                             std::array<double, 6>{12.345, 87.21e-6, 11.3e-6, 12, 0.0377, 0.45},
                             std::array<double, 6>{3.3, 1.3e-3, 1e-9, 1e-3, 3.3, 0.1}}) {
    const Circuit run =
        circuit_of(buck(values[0], values[1], values[2], values[3], values[4], values[5]));
    const auto restamped = restamp(run, pattern);
    ASSERT_TRUE(restamped.has_value()) << values[0];
    expect_same_assembly(*restamped, assemble(run));
  }
}

TEST(Restamp, AnotherStructureDoesNotFit) {
  const AssemblyPattern pattern(circuit_of(buck(10, 100e-6, 10e-6, 10, 0.01, 0.5)));
  // One more resistor: one more stamp.
  std::string more = buck(10, 100e-6, 10e-6, 10, 0.01, 0.5);
  more.insert(more.find(".model"), "R9 out in 1meg\n");
  EXPECT_FALSE(restamp(circuit_of(more), pattern).has_value());
  // The same parts between other nodes: the same count of stamps, at other places.
  std::string moved = buck(10, 100e-6, 10e-6, 10, 0.01, 0.5);
  moved.replace(moved.find("R4 a 0 50"), 9, "R4 a e 50");
  EXPECT_FALSE(restamp(circuit_of(moved), pattern).has_value());
  // A PWL MOS whose SEGMENTS changes the number of complementarity pairs.
  auto mos = [](int segments) {
    return fmt::format(
        "m\nVd d 0 5\nVg g 0 3\nRd d dr 100\nM1 dr g 0 0 NM\n"
        ".model NM NMOS(KP=2m VTO=1 SEGMENTS={} VMAX=5)\n.tran 1u 10u\n.end\n",
        segments);
  };
  const AssemblyPattern mos_pattern(circuit_of(mos(4)));
  EXPECT_TRUE(restamp(circuit_of(mos(4)), mos_pattern).has_value());
  EXPECT_FALSE(restamp(circuit_of(mos(6)), mos_pattern).has_value());
}

}  // namespace
}  // namespace nsspice::circuit
