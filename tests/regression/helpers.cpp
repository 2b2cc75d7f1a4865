#include "helpers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "circuit/elaborate.hpp"
#include "netlist/parse.hpp"

namespace nsspice::testing {

std::string elaboration_errors(const std::string& text) {
  netlist::SourceManager sources;
  netlist::Diagnostics diags;
  const netlist::Netlist tree = netlist::parse_string(text, "t.cir", sources, diags);
  circuit::elaborate(tree, diags);
  EXPECT_TRUE(diags.has_errors());
  return diags.format(sources);
}

int Waveforms::column(const std::string& name) const {
  auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) {
    ADD_FAILURE() << "no signal " << name;
    return -1;
  }
  return static_cast<int>(it - names.begin());
}

std::vector<double> Waveforms::series(const std::string& name) const {
  const int c = column(name);
  std::vector<double> out;
  if (c < 0) return out;
  for (const auto& r : rows) out.push_back(r[static_cast<size_t>(c)]);
  return out;
}

double Waveforms::at(const std::string& name, size_t point) const {
  const int c = column(name);
  return c < 0 ? 0.0 : rows.at(point)[static_cast<size_t>(c)];
}

std::string read_example(const std::string& name) {
  std::ifstream in(std::string(NSSPICE_EXAMPLES_DIR) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Waveforms simulate(const std::string& text, const circuit::TransientOptions& given, bool dense) {
  circuit::TransientOptions options = given;
  options.dense_output = dense;
  Waveforms out;
  netlist::SourceManager sources;
  netlist::Diagnostics diags;
  const netlist::Netlist tree = netlist::parse_string(text, "test.cir", sources, diags);
  if (!diags.has_errors()) out.circuit = circuit::elaborate(tree, diags);
  out.diagnostics = diags.format(sources);
  if (diags.has_errors()) {
    ADD_FAILURE() << out.diagnostics;
    return out;
  }
  out.assembled = circuit::assemble(out.circuit);
  const circuit::SignalTable table = circuit::make_signals(out.circuit, out.assembled);
  out.names = table.names;
  const auto& m = out.assembled.mlcs;
  out.result = circuit::run_transient(out.circuit, out.assembled, options,
                                      [&](double t, const Eigen::VectorXd& x,
                                          const Eigen::VectorXd& lambda, const Eigen::VectorXd&) {
                                        std::vector<double> values;
                                        table.evaluate(x, lambda, values);
                                        out.t.push_back(t);
                                        out.rows.push_back(std::move(values));
                                        out.x.push_back(x);
                                        out.lambda.push_back(lambda);
                                        out.w.push_back(m.C * x + m.D * lambda + m.d);
                                        return true;
                                      });
  return out;
}

void expect_same_series(const Waveforms& a, const Waveforms& b,
                        std::initializer_list<const char*> signals, double rel,
                        const std::string& what) {
  ASSERT_EQ(a.t.size(), b.t.size()) << what;
  for (const char* s : signals) {
    const auto x = a.series(s), y = b.series(s);
    for (size_t k = 0; k < x.size(); ++k)
      ASSERT_NEAR(x[k], y[k], rel * (1 + std::abs(y[k])))
          << what << ": " << s << " at t = " << a.t[k];
  }
}

Waveforms simulate_fixed(const std::string& text, circuit::TransientOptions options) {
  if (!options.h) {
    netlist::SourceManager sources;
    netlist::Diagnostics diags;
    const netlist::Netlist tree = netlist::parse_string(text, "test.cir", sources, diags);
    const circuit::Circuit c = circuit::elaborate(tree, diags);
    if (c.tran)
      options.h = c.tran->tmax > 0 ? std::min(c.tran->tstep, c.tran->tmax) : c.tran->tstep;
  }
  return simulate(text, options);
}

}  // namespace nsspice::testing
