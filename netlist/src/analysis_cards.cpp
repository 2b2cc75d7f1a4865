// Internal: the analysis cards besides .tran and .op.
//
//   .dc SRC START STOP STEP [SRC2 START2 STOP2 STEP2]     (SRC: a V or I source by name)
//   .ac DEC|OCT|LIN N FSTART FSTOP
// Values may be numbers or expressions (evaluated by flatten); their ranges are checked by the
// elaboration, where the sources are known.
#include <fmt/format.h>

#include "netlist/src/card_reader.hpp"

namespace nsspice::netlist::detail {

std::optional<DcCard> parse_dc(const CardReader& r, const std::vector<Item>& items) {
  DcCard card;
  card.span = r.card_span();
  const std::size_t given = items.size() - 1;
  if (given != 4 && given != 8) {
    r.error(given == 0 ? r.end_span() : r.span(items.back()),
            fmt::format(".dc needs SRC START STOP STEP [SRC2 START2 STOP2 STEP2], got {} "
                        "value{}",
                        given, given == 1 ? "" : "s"));
    return std::nullopt;
  }
  for (std::size_t i = 1; i < items.size(); i += 4) {
    auto source = r.name(items[i], "a source name (V or I) to sweep");
    if (!source) return std::nullopt;
    auto start = r.number(items[i + 1]);
    auto stop = start ? r.number(items[i + 2]) : std::nullopt;
    auto step = stop ? r.number(items[i + 3]) : std::nullopt;
    if (!step) return std::nullopt;
    card.sweeps.push_back(DcSweep{std::move(*source), *start, *stop, *step});
  }
  return card;
}

std::optional<AcCard> parse_ac(const CardReader& r, const std::vector<Item>& items) {
  AcCard card;
  card.span = r.card_span();
  if (items.size() != 5) {
    r.error(items.size() < 5 ? r.end_span() : r.span(items[5]),
            ".ac needs DEC|OCT|LIN N FSTART FSTOP");
    return std::nullopt;
  }
  const Item& variation = items[1];
  const std::string lower = ascii_lower(variation.word.text);
  if (!variation.is_plain() || (lower != "dec" && lower != "oct" && lower != "lin")) {
    r.error(r.span(variation),
            fmt::format("expected DEC, OCT or LIN after .ac, got '{}'", r.text(variation)));
    return std::nullopt;
  }
  card.variation = r.word(variation.word);
  auto points = r.number(items[2]);
  auto fstart = points ? r.number(items[3]) : std::nullopt;
  auto fstop = fstart ? r.number(items[4]) : std::nullopt;
  if (!fstop) return std::nullopt;
  card.points = *points;
  card.fstart = *fstart;
  card.fstop = *fstop;
  return card;
}

}  // namespace nsspice::netlist::detail
