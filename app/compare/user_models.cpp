#include "app/compare/user_models.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "app/compare/spice_params.hpp"

namespace nsspice::app {

std::string plain_name(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return out;
}

namespace {

bool is_expression(const std::string& raw) {
  return !raw.empty() && (raw.front() == '{' || raw.front() == '\'');
}

// "KEY=VALUE" as written, the number for an expression; empty when the value is text.
std::string param_text(const netlist::Param& p) {
  if (p.raw.text.empty()) return p.name.text;  // a flag
  if (is_expression(p.raw.text) && p.number) return p.name.text + "=" + spice_number(*p.number);
  if (!p.number) return {};
  return p.name.text + "=" + p.raw.text;
}

UserCard card_of(const netlist::ModelCard& m) {
  UserCard card;
  card.name = plain_name(m.name.text);
  std::string params;
  for (const auto& p : m.params) {
    const std::string text = param_text(p);
    if (text.empty()) {
      card.dropped.push_back(p.name.text + "=" + p.raw.text);
      continue;
    }
    params += (params.empty() ? "" : " ") + text;
  }
  // A diode card with ISR and no NR: nsspice takes NR = 2 (SPICE's default, and ngspice's
  // diosetup.c), Debian's ngspice-39 takes 1 (its showmod prints nr 1), a different forward
  // branch by orders of magnitude; so ngspice gets NR=2 written out.
  const auto given = [&](const char* name) {
    return std::any_of(m.params.begin(), m.params.end(),
                       [&](const netlist::Param& p) { return p.name.lower == name; });
  };
  if (m.type.lower == "d" && given("isr") && !given("nr")) {
    if (!params.empty()) params += ' ';
    params += "NR=2";
    card.added.emplace_back("NR=2");
  }
  card.text = fmt::format(".model {} {}({})", card.name, m.type.text, params);
  return card;
}

std::string instance_text(const netlist::ElementCard& e) {
  std::string out;
  // A diode's positional area (D1 a k DS 2) as area=, ahead of its NAME=VALUE parameters.
  const char letter = e.letter != 0 ? e.letter : (e.name.lower.empty() ? '\0' : e.name.lower[0]);
  if (letter == 'd' && e.value) out += fmt::format(" area={}", e.value->value);
  for (const auto& p : e.params) {
    const std::string text = param_text(p);
    if (!text.empty()) out += " " + text;
  }
  for (const auto& f : e.flags) out += " " + f.text;
  return out;
}

}  // namespace

UserModels collect_user_models(const netlist::Netlist& flat) {
  UserModels out;
  for (const auto& card : flat.cards) {
    if (const auto* m = std::get_if<netlist::ModelCard>(&card))
      out.cards[m->name.lower] = card_of(*m);
    else if (const auto* e = std::get_if<netlist::ElementCard>(&card); e && e->model)
      out.instance_params[e->name.lower] = instance_text(*e);
  }
  return out;
}

}  // namespace nsspice::app
