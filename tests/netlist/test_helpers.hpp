// Shared helpers for the netlist tests: parse a string and fetch cards / rendered diagnostics.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <variant>

#include "netlist/ast.hpp"
#include "netlist/diagnostics.hpp"
#include "netlist/parse.hpp"
#include "netlist/source.hpp"

namespace nsspice::netlist::testing {

struct Parsed {
  SourceManager sources;
  Diagnostics diags;
  Netlist net;
  std::string text() const { return diags.format(sources); }
};

inline Parsed parse(std::string_view text, std::string name = "t.cir") {
  Parsed p;
  p.net = parse_string(text, std::move(name), p.sources, p.diags);
  return p;
}

// The index-th card, which must hold a T.
template <typename T>
const T& card(const Parsed& p, std::size_t index) {
  static const T kEmpty{};
  if (index >= p.net.cards.size()) {
    ADD_FAILURE() << "no card " << index << " (have " << p.net.cards.size() << ")\n" << p.text();
    return kEmpty;
  }
  const T* c = std::get_if<T>(&p.net.cards[index]);
  if (!c) {
    ADD_FAILURE() << "card " << index << " has another type";
    return kEmpty;
  }
  return *c;
}

// Diagnostics text of a netlist made of a title line and `body`.
inline std::string diagnose(std::string_view body) {
  return parse("title\n" + std::string(body)).text();
}

}  // namespace nsspice::netlist::testing
