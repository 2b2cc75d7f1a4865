// Internal: the analysis cards besides .tran and .op.
//
//   .dc SRC START STOP STEP [SRC2 START2 STOP2 STEP2]     (SRC: a V or I source by name)
//   .ac DEC|OCT|LIN N FSTART FSTOP
//   .pss GFREQ TSTAB OSCNOB [PSSPOINTS [HARMS [SCITER [STEADY_COEFF]]]] [UIC]      (ngspice)
//   .pss [TRIG signal [VAL=x] [RISE|FALL]] PERIOD=T|FREQ=F [TSTAB=t] [PERIODS=K] [STEPS=N]
//        [WARMUP=W] [MAXITER=N] [UIC]                                              (nsspice)
// Values may be numbers or expressions (evaluated by flatten); their ranges are checked by the
// elaboration, where the sources are known.
#include <fmt/format.h>

#include <algorithm>

#include "netlist/src/card_reader.hpp"
#include "netlist/suggest.hpp"

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

namespace {

const std::vector<std::string> kPssParams = {"period",  "freq",  "val",    "tstab",
                                             "periods", "steps", "warmup", "maxiter"};

bool plain_is(const Item& item, const char* word) {
  return item.is_plain() && ascii_lower(item.word.text) == word;
}

// The ngspice form from items[1] (a number): GFREQ TSTAB OSCNOB, then up to four numbers.
std::optional<PssCard> parse_pss_ngspice(const CardReader& r, const std::vector<Item>& items,
                                         PssCard card) {
  card.ngspice = true;
  std::size_t end = items.size();
  if (end > 1 && plain_is(items[end - 1], "uic")) {
    card.uic = true;
    --end;
  }
  if (end < 4 || end > 8) {
    r.error(end < 4 ? r.end_span() : r.span(items[8]),
            ".pss (ngspice) needs GFREQ TSTAB OSCNOB [PSSPOINTS [HARMS [SCITER [STEADY_COEFF]]]] "
            "[UIC]");
    return std::nullopt;
  }
  for (std::size_t i = 1; i < end; ++i) {
    if (i == 3) {
      card.node = r.node(items[i]);
      if (!card.node) return std::nullopt;
      continue;
    }
    auto v = r.number(items[i]);
    if (!v) return std::nullopt;
    card.positional.push_back(std::move(*v));
  }
  return card;
}

}  // namespace

std::optional<PssCard> parse_pss(const CardReader& r, const std::vector<Item>& items) {
  PssCard card;
  card.span = r.card_span();
  if (items.size() > 1 && CardReader::is_number(items[1]))
    return parse_pss_ngspice(r, items, std::move(card));
  for (std::size_t i = 1; i < items.size(); ++i) {
    const Item& item = items[i];
    if (plain_is(item, "trig")) {
      if (i + 1 >= items.size()) {
        r.error(r.end_span(), "expected a signal after TRIG, e.g. 'TRIG v(out)'");
        return std::nullopt;
      }
      const Item& signal = items[++i];
      Word w = r.word(signal.word);
      w.text = compact_text(r, signal);
      w.lower = ascii_lower(w.text);
      w.span = r.span(signal);
      if (!(w.lower.starts_with("v(") || w.lower.starts_with("i(")) || !w.lower.ends_with(")")) {
        r.error(w.span, fmt::format("expected the trigger's signal v(node), v(a,b) or i(L), "
                                    "got '{}'",
                                    w.text));
        return std::nullopt;
      }
      card.trigger = std::move(w);
    } else if (plain_is(item, "rise") || plain_is(item, "fall")) {
      card.falling = plain_is(item, "fall");
    } else if (plain_is(item, "uic")) {
      card.uic = true;
    } else if (item.has_value && !item.has_group) {
      auto p = r.param(item, "in .pss");
      if (!p) return std::nullopt;
      if (std::find(kPssParams.begin(), kPssParams.end(), p->name.lower) == kPssParams.end()) {
        r.error(p->name.span, fmt::format("unknown .pss parameter '{}'{}", p->name.text,
                                          did_you_mean(p->name.lower, kPssParams)));
        return std::nullopt;
      }
      if (!p->number && !is_expression(p->raw.text)) {
        r.error(p->raw.span,
                fmt::format("expected a number for {}, got '{}'", p->name.text, p->raw.text));
        return std::nullopt;
      }
      card.params.push_back(std::move(*p));
    } else {
      r.error(r.span(item),
              fmt::format("unexpected '{}' in .pss (expected PERIOD=T, FREQ=F, TRIG signal, "
                          "VAL=, RISE, FALL, TSTAB=, PERIODS=, STEPS=, WARMUP=, MAXITER=, UIC; or "
                          "ngspice's .pss GFREQ TSTAB OSCNOB ...)",
                          r.text(item)));
      return std::nullopt;
    }
  }
  return card;
}

}  // namespace nsspice::netlist::detail
