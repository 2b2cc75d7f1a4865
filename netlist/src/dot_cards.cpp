// Internal: control cards.
//
//   .model name type '(' {param} ')'  |  .model name type {param}
//   param := NAME=VALUE  |  DEV[/...] VALUE  |  LOT[/...] VALUE   (PSpice's tolerance of the
//            parameter before it: kept as the param "dev[/...]" = VALUE, app/sweep applies it)
//   .tran tstep tstop [tstart [tmax]] [UIC]  |  .tran tstop [UIC]   (LTspice: tstep = 0)
//   .ic {V '(' node ')' '=' value | I '(' inductor ')' '=' value}   (.nodeset: V only)
//   .options|.option|.opt {NAME=VALUE | FLAG}
//   .temp T                                    (as .options TEMP=T)
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "netlist/src/card_reader.hpp"
#include "netlist/units.hpp"

namespace nsspice::netlist::detail {
namespace {

// PSpice's "DEV 5%", "LOT/GAUSS 10%", "DEV/1/UNIFORM 2%" (a keyword, then its value).
bool is_tolerance(const Item& keyword, const Item* value) {
  if (!keyword.is_plain() || value == nullptr || !value->is_plain()) return false;
  const std::string w = ascii_lower(keyword.word.text);
  const std::string head = w.substr(0, w.find('/'));
  return head == "dev" || head == "lot";
}

// NAME=FUNC(args) with FUNC an identifier and its '(' right after it: the generic syntax reads
// FUNC as the value word and (args) as the next item, a bare group.
bool is_call_value(const Item& item, const Item* next) {
  if (!item.has_value || item.has_group || next == nullptr || !next->has_group ||
      !next->word.text.empty() || next->has_value || next->begin != item.value.end)
    return false;
  const std::string& f = item.value.text;
  return !f.empty() && (std::isalpha(static_cast<unsigned char>(f[0])) != 0 || f[0] == '_') &&
         std::all_of(f.begin(), f.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
         });
}

// The param of items[i] (a tolerance takes items[i + 1] too: i moves past it). A function call
// written without braces (ngspice's Monte Carlo decks: TOX=AGAUSS(9e-09, 9e-09, 10), also
// IS=exp(-31.5)) is read as the expression {FUNC(args)}, as ngspice reads it; i moves past the
// group.
std::optional<Param> model_param(const CardReader& r, const std::vector<Item>& items,
                                 std::size_t& i, std::string_view where) {
  const Item* next = i + 1 < items.size() ? &items[i + 1] : nullptr;
  if (is_call_value(items[i], next)) {
    const Item& named = items[i++];
    Item whole;  // FUNC(args)
    whole.begin = named.value.begin;
    whole.end = next->end;
    const Token call{r.text(whole), whole.begin, whole.end};
    Word value = r.word(call);
    value.text = "{" + value.text + "}";
    value.lower = ascii_lower(value.text);
    return Param{r.word(named.word), std::move(value), std::nullopt,
                 r.span(Token{{}, named.begin, next->end})};
  }
  if (!is_tolerance(items[i], next)) return r.param(items[i], where);
  ++i;
  return Param{r.word(items[i - 1].word), r.word(next->word), parse_spice_number(next->word.text),
               r.span(items[i - 1])};
}

// items[first, last) as NAME=VALUE, a tolerance (DEV/LOT VALUE), or the bare flags PCHAN / NCHAN
// (a VDMOS's polarity, kept as a param without a value). Returns the index after the last item
// read (a tolerance may read one past `last`), or nothing on an error.
std::optional<std::size_t> add_params(const CardReader& r, const std::vector<Item>& items,
                                      std::size_t first, std::size_t last, std::string_view where,
                                      std::vector<Param>& out) {
  std::size_t i = first;
  for (; i < last; ++i) {
    const std::string flag = ascii_lower(items[i].word.text);
    if (items[i].is_plain() && (flag == "pchan" || flag == "nchan")) {
      out.push_back(Param{r.word(items[i].word), Word{}, std::nullopt, r.span(items[i])});
      continue;
    }
    auto p = model_param(r, items, i, where);
    if (!p) return std::nullopt;
    out.push_back(std::move(*p));
  }
  return i;
}

}  // namespace

std::optional<ModelCard> parse_model(const CardReader& r, const std::vector<Item>& items) {
  ModelCard card;
  card.span = r.card_span();
  if (items.size() < 3) {
    r.error(r.end_span(), ".model needs a name and a type");
    return std::nullopt;
  }
  auto name = r.name(items[1], "a model name");
  if (!name) return std::nullopt;
  card.name = std::move(*name);
  const Item& type = items[2];
  if (type.word.text.empty() || type.has_value) {
    r.error(r.span(type), fmt::format("expected a model type, got '{}'", r.text(type)));
    return std::nullopt;
  }
  card.type = r.word(type.word);
  std::size_t first = 3;
  if (card.type.lower.rfind("ako:", 0) == 0) {
    // PSpice's AKO ("a kind of"): `AKO:BASE [TYPE] [(params)]`, or `AKO: BASE ...`.
    Word base = card.type;
    base.text.erase(0, 4);
    base.lower.erase(0, 4);
    base.span.column += 4;
    base.span.length = std::max(1, base.span.length - 4);
    const Item* base_item = &type;
    if (base.text.empty()) {
      if (items.size() < 4 || items[3].word.text.empty() || items[3].has_value) {
        r.error(r.span(type), "AKO: expected the name of the model it is a kind of");
        return std::nullopt;
      }
      base_item = &items[3];
      base = r.word(base_item->word);
      first = 4;
    }
    card.ako = std::move(base);
    card.type = Word{};
    card.type.span = card.ako->span;
    if (base_item->has_group &&
        !add_params(r, base_item->args, 0, base_item->args.size(), "in .model", card.params))
      return std::nullopt;
    if (first < items.size() && !items[first].word.text.empty() && !items[first].has_value) {
      const Item& named = items[first++];
      card.type = r.word(named.word);
      if (named.has_group &&
          !add_params(r, named.args, 0, named.args.size(), "in .model", card.params))
        return std::nullopt;
    }
  } else if (type.has_group &&
             !add_params(r, type.args, 0, type.args.size(), "in .model", card.params)) {
    return std::nullopt;
  }
  for (std::size_t i = first; i < items.size(); ++i) {
    const Item& item = items[i];
    if (item.word.text.empty() && item.has_group && !item.has_value) {  // "D (VF=1)"-like
      if (!add_params(r, item.args, 0, item.args.size(), "in .model", card.params))
        return std::nullopt;
      continue;
    }
    const auto next = add_params(r, items, i, i + 1, "in .model", card.params);
    if (!next) return std::nullopt;
    i = *next - 1;
  }
  return card;
}

std::optional<OptionsCard> parse_temp(const CardReader& r, const std::vector<Item>& items) {
  if (items.size() < 2) {
    r.error(r.end_span(), ".temp needs a temperature (°C)");
    return std::nullopt;
  }
  if (items.size() > 2)
    r.warning(r.span(items[2]), ".temp: only the first temperature is used (one run)");
  auto value = r.number(items[1]);
  if (!value) return std::nullopt;
  OptionsCard card;
  card.span = r.card_span();
  Param p{r.word(items[0].word), r.word(items[1].word), value->value, r.span(items[1])};
  p.name.text = p.name.lower = "temp";
  if (!value->expr.empty()) p.number.reset();  // {expr}: resolved by flatten like .options
  card.params.push_back(std::move(p));
  return card;
}

std::optional<TranCard> parse_tran(const CardReader& r, const std::vector<Item>& items) {
  TranCard card;
  card.span = r.card_span();
  std::vector<Value> values;
  std::string modifier;  // the first modifier met (UIC, LTspice's NODISCARD, STEADY)
  for (std::size_t i = 1; i < items.size(); ++i) {
    const Item& item = items[i];
    const std::string word = item.is_plain() ? ascii_lower(item.word.text) : std::string();
    if (word == "uic" || word == "nodiscard" || word == "steady" || word == "startup") {
      if (word == "uic") card.uic = true;
      if (word == "nodiscard") card.nodiscard = true;
      if (word == "steady")
        r.warning(r.span(item),
                  "LTspice's STEADY (stop once a steady state is detected) is ignored: nsspice "
                  "runs to TSTOP (a .pss card finds the periodic steady state)");
      if (word == "startup") {
        r.error(r.span(item),
                "LTspice's STARTUP (every independent source ramped up from 0 over the first "
                "20 µs) is not supported: ramp the sources in their waveforms instead (e.g. "
                "PWL(0 0 20u 12) for a 12 V supply), or remove it to start from the operating "
                "point");
        return std::nullopt;
      }
      if (modifier.empty())
        for (char ch : word)
          modifier += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      continue;
    }
    if (!modifier.empty()) {
      r.error(r.span(item),
              fmt::format("unexpected '{}' after {} in .tran", r.text(item), modifier));
      return std::nullopt;
    }
    auto v = r.number(item);
    if (!v) return std::nullopt;
    if (values.size() == 4) {
      r.error(v->span, "too many values in .tran (expected TSTEP TSTOP [TSTART [TMAX]])");
      return std::nullopt;
    }
    values.push_back(*v);
  }
  if (values.empty()) {
    r.error(r.end_span(), ".tran needs TSTOP (or TSTEP TSTOP)");
    return std::nullopt;
  }
  if (values.size() == 1) {  // LTspice's ".tran TSTOP": no print interval
    card.tstep = Value{0, values[0].span, ""};
    card.tstop = values[0];
    return card;
  }
  card.tstep = values[0];
  card.tstop = values[1];
  if (values.size() > 2) card.tstart = values[2];
  if (values.size() > 3) card.tmax = values[3];
  return card;
}

namespace {

// `currents`: I(L1)=value is read too (.ic; LTspice's initial inductor current).
bool parse_ic_entries(const CardReader& r, const std::vector<Item>& items, std::string_view where,
                      bool currents, std::vector<IcEntry>& out) {
  for (std::size_t i = 1; i < items.size(); ++i) {
    const Item& item = items[i];
    // The node: a plain word, or one holding parentheses (KiCad's "Net-(R1-Pad2)").
    const bool node_ok = item.args.size() == 1 && !item.args[0].has_value &&
                         (item.args[0].is_plain() || !item.args[0].word.text.empty());
    const std::string kind = ascii_lower(item.word.text);
    const bool current = kind == "i" && item.has_group;
    const bool shape_ok = (kind == "v" || (current && currents && item.args.size() == 1 &&
                                           item.args[0].is_plain())) &&
                          item.has_group && node_ok && item.has_value;
    if (!shape_ok) {
      r.error(r.span(item),
              fmt::format("expected {} in {}, got '{}'{}",
                          currents ? "V(node)=value or I(inductor)=value" : "V(node)=value", where,
                          r.text(item),
                          current && !currents
                              ? " (an inductor's initial current is its IC=: L1 a b 1m IC=0.5, "
                                "or .ic I(L1)=0.5)"
                              : ""));
      return false;
    }
    auto v = r.number(item.value);
    if (!v) return false;
    const Item& node = item.args[0];
    Word name = r.word(node.word);
    if (!node.is_plain()) {
      name.text = r.text(node);
      name.lower = ascii_lower(name.text);
      name.span = r.span(node);
    }
    out.push_back(IcEntry{name, *v, r.span(item), current});
  }
  return true;
}

}  // namespace

std::optional<IcCard> parse_ic(const CardReader& r, const std::vector<Item>& items) {
  IcCard card;
  card.span = r.card_span();
  if (!parse_ic_entries(r, items, ".ic", true, card.entries)) return std::nullopt;
  return card;
}

std::optional<NodesetCard> parse_nodeset(const CardReader& r, const std::vector<Item>& items) {
  NodesetCard card;
  card.span = r.card_span();
  if (!parse_ic_entries(r, items, ".nodeset", false, card.entries)) return std::nullopt;
  return card;
}

std::optional<OptionsCard> parse_options(const CardReader& r, const std::vector<Item>& items) {
  OptionsCard card;
  card.span = r.card_span();
  for (std::size_t i = 1; i < items.size(); ++i) {
    const Item& item = items[i];
    if (item.is_plain()) {  // flag
      card.params.push_back(
          Param{r.word(item.word), Word{"", "", r.span(item)}, std::nullopt, r.span(item)});
      continue;
    }
    auto p = r.param(item, "in .options");
    if (!p) return std::nullopt;
    card.params.push_back(std::move(*p));
  }
  return card;
}

}  // namespace nsspice::netlist::detail
