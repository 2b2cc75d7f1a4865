// netlist_bench [ELEMENTS]: parse + flatten an RC ladder of ELEMENTS (default 100 000)
// elements built from nested subcircuits, and print the times and the peak RSS; then the same
// for the ladder written flat (one card per element) and print the times again.
//
//   s0 = R + C (one ladder stage, values from parameters)
//   s<k> = 10 x s<k-1> in series, k = 1..4  (s4 = 20 000 elements)
//   top  = ELEMENTS / 20 000 instances of s4 in series (plus a source)
// Target (issue 3): under 1 s and under 500 MB for 100 000 elements. Last: a netlist whose
// library is missing (ELEMENTS/2 instances of unknown subcircuits): the errors' "did you mean"
// is computed once per name (it was once per instance: 12 s on a public 89 000-line deck).
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "netlist/flatten.hpp"
#include "netlist/parse.hpp"

namespace {

std::string ladder(long elements) {
  std::string s = "RC ladder benchmark\n.param rval=1k cval={1n*2}\n";
  s += "V1 n0 0 PULSE(0 1 0 1n 1n 1m 2m)\n";
  s += ".subckt s0 a b params: r={rval}\nR1 a b {r}\nC1 b 0 {cval}\n.ends s0\n";
  for (int k = 1; k <= 4; ++k) {
    s += fmt::format(".subckt s{} a b\n", k);
    for (int i = 0; i < 10; ++i) {
      const std::string from = i == 0 ? std::string("a") : fmt::format("m{}", i);
      const std::string to = i == 9 ? std::string("b") : fmt::format("m{}", i + 1);
      s += fmt::format("X{} {} {} s{}\n", i, from, to, k - 1);
    }
    s += ".ends\n";
  }
  const long tops = elements / 20000;
  for (long i = 0; i < tops; ++i) s += fmt::format("X{} n{} n{} s4\n", i, i, i + 1);
  s += ".tran 1u 1m\n.end\n";
  return s;
}

// The same ladder written flat: one card per element.
std::string flat_ladder(long elements) {
  std::string s = "flat RC ladder benchmark\nV1 n0 0 1\n";
  for (long i = 0; i < elements / 2; ++i) {
    s += fmt::format("R{} n{} n{} 1k\nC{} n{} 0 2n\n", i, i, i + 1, i, i + 1);
  }
  return s + ".tran 1u 1m\n.end\n";
}

// A netlist whose PDK library is missing: 200 subcircuits defined, `instances` instances of 20
// others that are not (each an "unknown subcircuit" error with a "did you mean").
std::string missing_library(long instances) {
  std::string s = "missing PDK library\n";
  for (int k = 0; k < 200; ++k) s += fmt::format(".subckt cell_{} a b\nR1 a b 1k\n.ends\n", k);
  for (long i = 0; i < instances; ++i)
    s += fmt::format("X{} n{} n{} sg13_lv_{}\n", i, i, i + 1, i % 20);
  return s + ".tran 1u 1m\n.end\n";
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace nsspice::netlist;
  const long elements = argc > 1 ? std::atol(argv[1]) : 100000;
  const std::string text = ladder(elements);
  const auto t0 = std::chrono::steady_clock::now();
  SourceManager sources;
  Diagnostics diags;
  const Netlist parsed = parse_string(text, "ladder.cir", sources, diags);
  const double t_parse = seconds_since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  const Netlist flat = flatten(parsed, sources, diags);
  const double t_flatten = seconds_since(t1);
  std::size_t count = 0;
  for (const Card& c : flat.cards) count += std::holds_alternative<ElementCard>(c) ? 1 : 0;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("netlist: %zu bytes, %zu elements after flattening, %d diagnostics\n", text.size(),
              count, static_cast<int>(diags.all().size()));
  std::printf("parse   %.3f s\nflatten %.3f s\ntotal   %.3f s\npeak RSS %.1f MB\n", t_parse,
              t_flatten, t_parse + t_flatten, static_cast<double>(usage.ru_maxrss) / 1024.0);
  const std::string flat_text = flat_ladder(elements);
  const auto t2 = std::chrono::steady_clock::now();
  SourceManager flat_sources;
  Diagnostics flat_diags;
  Netlist flat_parsed = parse_string(flat_text, "flat.cir", flat_sources, flat_diags);
  const double t_flat_parse = seconds_since(t2);
  const auto t3 = std::chrono::steady_clock::now();
  const Netlist flat_flat = flatten(std::move(flat_parsed), flat_sources, flat_diags);
  const double t_flat_flatten = seconds_since(t3);
  getrusage(RUSAGE_SELF, &usage);
  std::printf(
      "flat netlist: %zu bytes, %zu cards\nparse   %.3f s\nflatten %.3f s\n"
      "peak RSS (whole run) %.1f MB\n",
      flat_text.size(), flat_flat.cards.size(), t_flat_parse, t_flat_flatten,
      static_cast<double>(usage.ru_maxrss) / 1024.0);
  const std::string missing = missing_library(elements / 2);
  const auto t4 = std::chrono::steady_clock::now();
  SourceManager missing_sources;
  Diagnostics missing_diags;
  const Netlist missing_flat =
      flatten(parse_string(missing, "missing.cir", missing_sources, missing_diags), missing_sources,
              missing_diags);
  std::printf("missing library: %ld unknown instances, %d diagnostics, parse + flatten %.3f s\n",
              elements / 2, static_cast<int>(missing_diags.all().size()), seconds_since(t4));
  return diags.has_errors() || flat_diags.has_errors() ? 1 : 0;
}
