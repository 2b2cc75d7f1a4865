// Issue 20: per-step cost of the θ-scheme on the diode-clamped RC network of
// bench/clamp_network.py, switching steps against non-switching ones, measured inside one
// process: the process CPU time (CLOCK_PROCESS_CPUTIME_ID; wall time on a shared machine counts
// the time the process waits for a core) between consecutive accepted points, the observer's own
// work excluded.
//
//   clamp_step_bench NETLIST.cir
//
// A step "switches" when the set of conducting pairs (λ_j > 0) differs from the previous point's.
// Prints: steps, mode-changing steps, the median and mean cost of non-switching steps, the mean
// and max cost of switching steps, the same split by whether the step's new mode was met before in
// the run (a periodic run meets its modes again from its second or third period: those steps find
// their factorizations cached, the others pay them), the largest number of pairs changed in one
// step, and the run statistics (pivoting steps, pivots, factorizations, step sizes, shared mode
// structures, mode-system solves, modes answered by low-rank updates and their solves, dense
// matrices built).
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/elaborate.hpp"
#include "circuit/transient.hpp"
#include "netlist/parse.hpp"

int main(int argc, char** argv) {
  using namespace nsspice;
  auto cpu_now = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  if (argc != 2) {
    std::fprintf(stderr, "usage: clamp_step_bench NETLIST.cir\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  netlist::SourceManager sources;
  netlist::Diagnostics diags;
  const netlist::Netlist tree = netlist::parse_string(text.str(), argv[1], sources, diags);
  const circuit::Circuit c = circuit::elaborate(tree, diags);
  if (diags.has_errors() || !c.tran) {
    std::fprintf(stderr, "%s", diags.format(sources).c_str());
    return 1;
  }
  const circuit::Assembled a = circuit::assemble(c);
  circuit::TransientOptions opt;
  opt.h = c.tran->tstep;
  opt.adaptive = false;  // the fixed step of bench/clamp_network.py, whatever the default
  opt.dense_output = false;
  std::vector<double> plain, switching, into_new, into_met;
  std::set<std::string> met;  // the modes of the accepted points so far
  std::vector<char> mode, prev;
  long max_changed = 0;
  double last = cpu_now();
  bool first = true;
  const auto result = circuit::run_transient(
      c, a, opt,
      [&](double, const Eigen::VectorXd&, const Eigen::VectorXd& lambda, const Eigen::VectorXd&) {
        const double dt = cpu_now() - last;
        mode.resize(static_cast<size_t>(lambda.size()));
        for (Eigen::Index j = 0; j < lambda.size(); ++j) mode[j] = lambda[j] > 0;
        if (!first) {
          long changed = 0;
          for (size_t j = 0; j < mode.size(); ++j) changed += mode[j] != prev[j];
          (changed > 0 ? switching : plain).push_back(dt);
          if (changed > 0)
            (met.count(std::string(mode.begin(), mode.end())) ? into_met : into_new).push_back(dt);
          max_changed = std::max(max_changed, changed);
        }
        first = false;
        met.insert(std::string(mode.begin(), mode.end()));
        prev.swap(mode);
        last = cpu_now();
        return true;
      });
  if (!result.ok()) {
    std::fprintf(stderr, "run failed: %s\n", result.summary.message.c_str());
    return 1;
  }
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0.0 : s / static_cast<double>(v.size());
  };
  std::vector<double> sorted = plain;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted.empty() ? 0.0 : sorted[sorted.size() / 2];
  const double sw_max =
      switching.empty() ? 0.0 : *std::max_element(switching.begin(), switching.end());
  const auto& s = result.stats;
  std::printf(
      "{\"steps\": %zu, \"switching_steps\": %zu, \"max_pairs_changed\": %ld, "
      "\"plain_median_us\": %.2f, \"plain_mean_us\": %.2f, \"switching_mean_us\": %.2f, "
      "\"switching_max_us\": %.2f, \"switching_into_new_modes\": %zu, "
      "\"switching_into_new_mean_us\": %.2f, \"switching_into_met_modes\": %zu, "
      "\"switching_into_met_mean_us\": %.2f, \"switching_into_met_max_us\": %.2f, "
      "\"pivoting_steps\": %ld, \"pivots\": %ld, "
      "\"factorizations\": %ld, \"refactorizations\": %ld, \"step_solvers\": %ld, "
      "\"mode_structures\": %ld, \"mode_solves\": %ld, \"low_rank_modes\": %ld, "
      "\"low_rank_solves\": %ld, \"dense_allocations\": %ld}\n",
      plain.size() + switching.size(), switching.size(), max_changed, 1e6 * median,
      1e6 * mean(plain), 1e6 * mean(switching), 1e6 * sw_max, into_new.size(), 1e6 * mean(into_new),
      into_met.size(), 1e6 * mean(into_met),
      into_met.empty() ? 0.0 : 1e6 * *std::max_element(into_met.begin(), into_met.end()),
      s.lemke_calls, s.pivots, s.factorizations, s.refactorizations, s.step_solvers,
      s.mode_structures, s.mode_solves, s.low_rank_modes, s.low_rank_solves, s.dense_allocations);
  return 0;
}
