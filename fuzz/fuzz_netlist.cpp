// libFuzzer target: parse + flatten + elaborate + assemble any byte string.
//
// The input is split at NUL bytes: segment 0 is the netlist "fuzz.cir", segment i >= 1 is the
// file "f<i>.inc" (so ".include f1.inc" and ".lib f2.inc sec" reach the include logic and its
// cycle detection). Files are served from memory: nothing is read from disk. Elements and
// subcircuit instances are capped at 20000 so that exponential subcircuit nesting stays fast.
// A netlist without errors is elaborated; a circuit without errors is assembled into its MLCS
// (MNA matrices), as the app does before stepping. Since the NUL byte splits files, the
// control-character check sees every other C0 byte.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "circuit/assemble.hpp"
#include "circuit/elaborate.hpp"
#include "netlist/flatten.hpp"
#include "netlist/parse.hpp"

using namespace nsspice;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> files(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      files.emplace_back();
    } else {
      files.back() += static_cast<char>(data[i]);
    }
  }
  netlist::SourceManager sources;
  netlist::Diagnostics diags;
  const netlist::Netlist parsed = netlist::parse_string(files[0], "fuzz.cir", sources, diags);
  netlist::FlattenOptions options;
  options.max_elements = 20000;
  options.max_instances = 20000;
  options.read_file = [&files](const std::string& location, std::string& text) {
    for (std::size_t i = 1; i < files.size(); ++i) {
      if (location == "f" + std::to_string(i) + ".inc") {
        text = files[i];
        return 0;
      }
    }
    return 2;  // ENOENT
  };
  const netlist::Netlist flat = netlist::flatten(parsed, sources, diags, options);
  if (!diags.has_errors()) {
    const circuit::Circuit circuit = circuit::elaborate(flat, diags);
    if (!diags.has_errors()) {
      const circuit::Assembled assembled = circuit::assemble(circuit);
      if (assembled.unknown_names.size() != static_cast<std::size_t>(assembled.mlcs.n))
        __builtin_trap();
    }
  }
  const std::string text = diags.format(sources);
  if (diags.all().empty() != text.empty()) __builtin_trap();
  return 0;
}
