// ngspice / LTspice options without a meaning in nsspice, grouped by the reason.
#include "circuit/src/spice_options.hpp"

#include <array>

namespace nsspice::circuit::detail {
namespace {

struct Group {
  std::array<std::string_view, 16> names;
  const char* reason;
};

constexpr Group kGroups[] = {
    {{"gminsteps", "srcsteps", "itl1", "itl2", "itl3", "itl4", "itl5", "itl6", "pivtol", "pivrel",
      "noopiter", "rshunt", "cshunt", "xmu", "ramptime"},
     "there is no Newton iteration: every step is one complementarity problem solved exactly"},
    {{"klu", "sparse", "trytocompact"},
     "nsspice chooses its sparse LU itself (KLU when installed, else Eigen)"},
    {{"maxord"}, "the θ-scheme is a one-step method"},
    {{"savecurrents", "post", "ingold", "numdgt", "nopage", "plotwinsize", "list", "node", "opts",
      "acct", "noacct", "norefvalue", "nomod", "warn", "maxwarns", "interp"},
     "it formats ngspice's or LTspice's own output; nsspice writes every signal asked for"},
    {{"keepopinfo", "noinit", "bypass", "autostop", "seed", "defad", "defas", "defl", "defw"},
     "it steers a part of SPICE that nsspice does not have"},
};

}  // namespace

const char* foreign_option_reason(std::string_view name) {
  for (const Group& g : kGroups)
    for (std::string_view n : g.names)
      if (!n.empty() && n == name) return g.reason;
  return nullptr;
}

}  // namespace nsspice::circuit::detail
