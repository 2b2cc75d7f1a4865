// Internal: helpers shared by the card parsers (items -> AST pieces with spans).
//
//   word   -> Word{text, lower, span}
//   number := plain word accepted by parse_spice_number | expression
//             else "expected a number, got 'x'"
//   expression := '{' text '}' | '\'' text '\''     (kept in Value::expr, evaluated by flatten)
//   param  := word '=' word  (number set when the right side is a SPICE number)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "netlist/ast.hpp"
#include "netlist/diagnostics.hpp"
#include "netlist/src/lines.hpp"
#include "netlist/src/syntax.hpp"

namespace nsspice::netlist::detail {

// True for "{...}" or "'...'" (an expression evaluated by flatten()).
bool is_expression(std::string_view text);
// The text between the delimiters of an expression word; offset 1 into the word.
std::string_view expression_body(std::string_view text);

class CardReader {
 public:
  CardReader(const LogicalCard& card, Diagnostics& diags) : card_(card), diags_(diags) {}

  Word word(const Token& token) const;
  SourceSpan span(const Item& item) const { return card_.span_of(item.begin, item.end); }
  SourceSpan span(const Token& token) const { return card_.span_of(token.begin, token.end); }
  SourceSpan end_span() const { return card_.end_span(); }
  SourceSpan card_span() const { return card_.card_span(); }
  std::string text(const Item& item) const;
  // The card's text from byte `begin` to its end, and its span (clipped to the line where it
  // starts).
  std::string tail(std::size_t begin) const { return card_.text.substr(begin); }
  SourceSpan tail_span(std::size_t begin) const { return card_.span_of(begin, card_.text.size()); }

  // A plain word that is a SPICE number; otherwise reports and returns nullopt.
  std::optional<Value> number(const Item& item) const;
  std::optional<Value> number(const Token& token) const;
  // True when the item is a plain word holding a SPICE number or an expression (no report).
  static bool is_number(const Item& item);
  // NAME=VALUE item; otherwise reports "expected NAME=VALUE <where>, got 'x'".
  std::optional<Param> param(const Item& item, std::string_view where) const;
  // A plain word used as a name (node, model, ...); otherwise reports "expected <what>, got 'x'".
  std::optional<Word> name(const Item& item, std::string_view what) const;
  // A node name: a plain word, or KiCad's net name with parentheses written without blanks
  // ("Net-(D1-A)", kept as written); otherwise reports "expected a node name, got 'x'".
  std::optional<Word> node(const Item& item) const;
  static bool is_kicad_net(const Item& item);

  void error(SourceSpan span, std::string message) const { diags_.error(span, std::move(message)); }
  void warning(SourceSpan span, std::string message) const {
    diags_.warning(span, std::move(message));
  }

 private:
  const LogicalCard& card_;
  Diagnostics& diags_;
};

// ngspice's device quantities as the signals nsspice has: "@d1[id]" -> "i(d1)", "@r1[p]" ->
// "p(r1)"; "" for another device parameter (output_cards.cpp).
std::string device_quantity(const std::string& lower);

// Card parsers: each reports its own errors and returns nullopt for a bad card.
std::optional<ElementCard> parse_element(const CardReader& r, const std::vector<Item>& items);
std::optional<OpCard> parse_op(const CardReader& r, const std::vector<Item>& items);
std::optional<NodesetCard> parse_nodeset(const CardReader& r, const std::vector<Item>& items);
std::optional<SaveCard> parse_save(const CardReader& r, const std::vector<Item>& items);
std::optional<MeasCard> parse_meas(const CardReader& r, const std::vector<Item>& items);
std::optional<ParamCard> parse_param(const CardReader& r, const std::vector<Item>& items);
std::optional<IncludeCard> parse_include(const CardReader& r, const std::vector<Item>& items);
std::optional<GlobalCard> parse_global(const CardReader& r, const std::vector<Item>& items);
std::optional<SubcktDef> parse_subckt_header(const CardReader& r, const std::vector<Item>& items);
// "params:r0=4k" (PSpice's keyword without the blank after it) read as "r0=4k"; other items as
// they are (hierarchy_cards.cpp).
Item without_params_prefix(const Item& item);
// X cards give an InstanceCard, all other letters an ElementCard.
std::optional<Card> parse_element_or_instance(const CardReader& r, const std::vector<Item>& items);
// E|G name n+ n- TABLE {expr} = (x, y) ... (table_source.cpp), read from the card's text:
// nullopt when the card is not of that form; otherwise the card, or nullopt after an error.
std::optional<std::optional<ElementCard>> parse_table_source(const LogicalCard& card,
                                                             Diagnostics& diags);
// .func NAME(P1, ...) BODY (func_card.cpp), read from the card's text: nullopt when the card is
// not a .func card; otherwise the card, or nullopt after an error.
std::optional<std::optional<FuncCard>> parse_func_card(const LogicalCard& card, Diagnostics& diags);
// Text of an item with the blanks outside expressions removed, e.g. "v(a,b)", "val=2".
std::string compact_text(const CardReader& r, const Item& item);
std::optional<ModelCard> parse_model(const CardReader& r, const std::vector<Item>& items);
std::optional<TranCard> parse_tran(const CardReader& r, const std::vector<Item>& items);
std::optional<IcCard> parse_ic(const CardReader& r, const std::vector<Item>& items);
std::optional<OptionsCard> parse_options(const CardReader& r, const std::vector<Item>& items);
// .temp T: the options card TEMP=T (SPICE's circuit temperature in °C).
std::optional<OptionsCard> parse_temp(const CardReader& r, const std::vector<Item>& items);
std::optional<StepCard> parse_step(const CardReader& r, const std::vector<Item>& items);
std::optional<DcCard> parse_dc(const CardReader& r, const std::vector<Item>& items);
std::optional<AcCard> parse_ac(const CardReader& r, const std::vector<Item>& items);
std::optional<PssCard> parse_pss(const CardReader& r, const std::vector<Item>& items);

}  // namespace nsspice::netlist::detail
