// Internal: the .step card (LTspice), one sweep dimension (ast.hpp StepCard):
//
//   .step [lin|dec|oct] param NAME start stop incr|points
//   .step param NAME list v1 v2 ...
//   .step [lin|dec|oct] SRC start stop incr|points      .step SRC list ...      (V/I DC value)
//   .step [lin|dec|oct] MODEL(PARAM) start stop ...     .step MODEL(PARAM) list ...
//   .step [lin|dec|oct] TYPE MODEL(PARAM) ...           (LTspice: ".step NPN 2N2222(VAF) ...";
//                                                        the model must be of that TYPE)
//   .step [lin|dec|oct] temp start stop ...             .step temp list ...   (the .temp value)
//
// The values are numbers or {expressions} of top-level parameters; their meaning (the points
// of the sweep) is decided by the sweep itself (app/sweep), which also checks the ranges.
#include <fmt/format.h>

#include "netlist/src/card_reader.hpp"

namespace nsspice::netlist::detail {

std::optional<StepCard> parse_step(const CardReader& r, const std::vector<Item>& items) {
  StepCard card;
  card.span = r.card_span();
  std::size_t i = 1;
  auto keyword = [&](std::size_t k) {
    if (k >= items.size() || !items[k].is_plain()) return std::string();
    return r.word(items[k].word).lower;
  };
  if (const std::string s = keyword(i); s == "lin" || s == "dec" || s == "oct") {
    card.scale = s == "lin"   ? StepCard::Scale::kLin
                 : s == "dec" ? StepCard::Scale::kDec
                              : StepCard::Scale::kOct;
    ++i;
  }
  if (i >= items.size()) {
    r.error(r.end_span(), ".step needs 'param NAME', a source or MODEL(PARAM), then its values");
    return std::nullopt;
  }
  auto model_group = [&](std::size_t k) {
    return k < items.size() && items[k].has_group && !items[k].word.text.empty() &&
           items[k].args.size() == 1 && items[k].args[0].is_plain();
  };
  if (!model_group(i) && items[i].is_plain() && model_group(i + 1)) {  // LTspice: TYPE MODEL(P)
    card.model_type = r.word(items[i].word);
    ++i;
  }
  if (keyword(i) == "temp" && !model_group(i)) {
    card.target = StepCard::Target::kTemp;
    card.name = r.word(items[i].word);
    card.name.lower = "temp";
  } else if (keyword(i) == "param") {
    card.target = StepCard::Target::kParam;
    ++i;
    if (i >= items.size()) {
      r.error(r.end_span(), ".step param needs a parameter name");
      return std::nullopt;
    }
    auto name = r.name(items[i], "a parameter name");
    if (!name) return std::nullopt;
    card.name = *name;
  } else if (model_group(i)) {
    card.target = StepCard::Target::kModel;
    card.name = r.word(items[i].word);
    card.model_param = r.word(items[i].args[0].word);
  } else {
    auto name = r.name(items[i], "'param', a source name or MODEL(PARAM)");
    if (!name) return std::nullopt;
    const char letter = name->lower.empty() ? '\0' : name->lower[0];
    if (letter != 'v' && letter != 'i') {
      r.error(name->span, fmt::format(".step of '{}': only parameters (.step param NAME ...), V "
                                      "and I sources, MODEL(PARAM) and temp can be stepped",
                                      name->text));
      return std::nullopt;
    }
    card.target = StepCard::Target::kSource;
    card.name = *name;
  }
  ++i;
  if (keyword(i) == "list") {
    if (card.scale != StepCard::Scale::kLin) {
      r.error(r.span(items[i]), "'list' cannot follow 'dec' or 'oct'");
      return std::nullopt;
    }
    card.scale = StepCard::Scale::kList;
    ++i;
    if (i >= items.size()) {
      r.error(r.end_span(), ".step ... list needs at least one value");
      return std::nullopt;
    }
  } else if (items.size() - i != 3) {
    r.error(i < items.size() ? r.span(items[i]) : r.end_span(),
            card.scale == StepCard::Scale::kLin
                ? std::string(".step needs start, stop and increment (or 'list' and values)")
                : fmt::format(".step needs start, stop and points per {}",
                              card.scale == StepCard::Scale::kDec ? "decade" : "octave"));
    return std::nullopt;
  }
  for (; i < items.size(); ++i) {
    auto v = r.number(items[i]);
    if (!v) return std::nullopt;
    card.values.push_back(*v);
  }
  return card;
}

}  // namespace nsspice::netlist::detail
