// Internal: analysis and output control cards.
//
//   .op
//   .print [analysis] signal...   .save signal...   .probe signal...
//        signal := V '(' node [, node] ')' | I '(' name ')' | P '(' name ')'
//                | all | allv | alli | '@' name '[' param ']' | node      (node -> "v(node)")
//        @name[i] @name[id] @name[c] -> "i(name)"; @name[p] -> "p(name)" (ngspice's device
//        quantities that nsspice has: the element current and power)
//        in .print ac: vdb(x) vm(x) vp(x) vr(x) vi(x) -> "v(x)", idb(x) ... -> "i(x)" (the .ac
//        file has dB and phase of each saved signal)
//   .meas|.measure [analysis] name item...   (items kept as compact lower-case tokens)
// A signal of another form is a warning and is dropped from the list.
#include <fmt/format.h>

#include "netlist/src/card_reader.hpp"

namespace nsspice::netlist::detail {
namespace {

bool is_analysis(const std::string& lower) {
  return lower == "tran" || lower == "op" || lower == "dc" || lower == "ac" || lower == "noise" ||
         lower == "tf" || lower == "disto";
}

bool plain_args(const Item& item, std::size_t lo, std::size_t hi) {
  if (item.args.size() < lo || item.args.size() > hi) return false;
  for (const Item& a : item.args) {
    if (!a.is_plain() && !CardReader::is_kicad_net(a)) return false;  // v(Net-(D1-A))
  }
  return true;
}

// "v(a)", "v(a,b)", "i(v1)", "p(r1)", "all", "allv", "alli", or "" for an unsupported form.
std::string signal_text(const CardReader& r, const Item& item) {
  const std::string head = ascii_lower(item.word.text);
  if (item.has_value) return "";
  if (!item.has_group) {
    if (head == "all" || head == "allv" || head == "alli") return head;
    if (head.starts_with('@')) return device_quantity(head);
    return fmt::format("v({})", head);
  }
  if (head == "v" && plain_args(item, 1, 2)) return ascii_lower(compact_text(r, item));
  if ((head == "i" || head == "p") && plain_args(item, 1, 1))
    return ascii_lower(compact_text(r, item));
  return "";
}

// In `.print ac`: ngspice's magnitude/phase forms vdb(x) vm(x) vp(x) vr(x) vi(x) (and i...)
// name the signal v(x) (i(x)), whose dB and phase the .ac analysis writes; "" otherwise.
std::string ac_form(const CardReader& r, const Item& item) {
  const std::string head = ascii_lower(item.word.text);
  if (item.has_value || !item.has_group || head.size() < 2) return "";
  const std::string rest = head.substr(1);
  if (rest != "db" && rest != "m" && rest != "p" && rest != "r" && rest != "i") return "";
  if ((head[0] != 'v' || !plain_args(item, 1, 2)) && (head[0] != 'i' || !plain_args(item, 1, 1)))
    return "";
  std::string text = ascii_lower(compact_text(r, item));
  text.erase(1, head.size() - 1);  // "vdb(out)" -> "v(out)"
  return text;
}

// The suggestion for a signal of an unsupported form.
std::string signal_hint(const std::string& lower) {
  if (lower.starts_with('@'))
    return "nsspice has a device's current (@name[i], @d1[id]) and power (@name[p])";
  if (lower.starts_with("vdb(") || lower.starts_with("vm(") || lower.starts_with("vp(") ||
      lower.starts_with("vr(") || lower.starts_with("vi("))
    return "the .ac analysis writes magnitude and phase (vdb, vp) of every v(node) it saves; "
           "name v(node)";
  return "use v(node), v(a,b), i(name), p(name), @name[i], all, allv or alli";
}

}  // namespace

std::string device_quantity(const std::string& lower) {
  const auto open = lower.find('[');
  if (lower.size() < 5 || open == std::string::npos || open < 2 || lower.back() != ']') return "";
  const std::string name = lower.substr(1, open - 1);
  const std::string param = lower.substr(open + 1, lower.size() - open - 2);
  if (param == "i" || param == "id" || param == "c") return fmt::format("i({})", name);
  if (param == "p") return fmt::format("p({})", name);
  return "";
}

std::string compact_text(const CardReader& r, const Item& item) {
  std::string out = item.word.text;
  if (item.has_group) {
    out += '(';
    for (std::size_t i = 0; i < item.args.size(); ++i) {
      if (i > 0) out += ',';
      out += compact_text(r, item.args[i]);
    }
    out += ')';
  }
  if (item.has_value) out += "=" + item.value.text;
  return out;
}

std::optional<OpCard> parse_op(const CardReader& r, const std::vector<Item>& items) {
  for (std::size_t i = 1; i < items.size(); ++i) {
    r.warning(r.span(items[i]), fmt::format("unexpected '{}' after .op ignored", r.text(items[i])));
  }
  return OpCard{r.card_span()};
}

std::optional<SaveCard> parse_save(const CardReader& r, const std::vector<Item>& items) {
  SaveCard card;
  card.span = r.card_span();
  card.command = r.word(items.front().word);
  std::size_t i = 1;
  if ((card.command.lower == ".print" || card.command.lower == ".plot") && i < items.size() &&
      items[i].is_plain() && is_analysis(ascii_lower(items[i].word.text))) {
    card.analysis = r.word(items[i++].word);
  }
  for (; i < items.size(); ++i) {
    std::string text = signal_text(r, items[i]);
    if (text.empty() && card.analysis && card.analysis->lower == "ac") text = ac_form(r, items[i]);
    if (text.empty()) {
      r.warning(r.span(items[i]),
                fmt::format("unsupported signal '{}' in {} ignored ({})", r.text(items[i]),
                            card.command.lower, signal_hint(ascii_lower(r.text(items[i])))));
      continue;
    }
    card.signals.push_back(Word{r.text(items[i]), text, r.span(items[i])});
  }
  if (items.size() == 1) {
    r.warning(card.command.span, fmt::format("{} without signals ignored", card.command.lower));
    return std::nullopt;
  }
  return card;
}

std::optional<MeasCard> parse_meas(const CardReader& r, const std::vector<Item>& items) {
  // The analysis type may be left out (LTspice: ".meas Eff param Pout/Pin").
  const bool typed =
      items.size() > 1 && items[1].is_plain() && is_analysis(ascii_lower(items[1].word.text));
  const std::size_t name_at = typed ? 2 : 1;
  if (items.size() < name_at + 2 || !items[name_at].is_plain()) {
    const SourceSpan at = items.size() <= name_at ? r.end_span() : r.span(items[name_at]);
    r.error(at, fmt::format("{} needs a name and a measurement ({} [TRAN] NAME AVG V(out) ...)",
                            ascii_lower(items[0].word.text), ascii_lower(items[0].word.text)));
    return std::nullopt;
  }
  MeasCard card;
  card.span = r.card_span();
  if (typed) card.analysis = r.word(items[1].word);
  card.name = r.word(items[name_at].word);
  for (std::size_t i = name_at + 1; i < items.size(); ++i) {
    // The item's source text without blanks: arithmetic stays as written ("(V(a)-V(b))*I(LL)",
    // which the item syntax splits at the '-'), and "AVG (x)" becomes "AVG(x)" (parse_measure
    // splits the kind off).
    std::string text;
    for (char c : r.text(items[i]))
      if (c != ' ' && c != '\t') text.push_back(c);
    card.tokens.push_back(Word{text, ascii_lower(text), r.span(items[i])});
  }
  return card;
}

}  // namespace nsspice::netlist::detail
