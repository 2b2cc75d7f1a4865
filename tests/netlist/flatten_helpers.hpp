// Helpers for the flatten and corpus tests: parse + flatten a file or a string, find cards.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <variant>

#include "netlist/ast.hpp"
#include "netlist/flatten.hpp"
#include "netlist/parse.hpp"

namespace nsspice::netlist::testing {

inline std::filesystem::path corpus_dir() {
  return std::filesystem::path(NSSPICE_EXAMPLES_DIR) / ".." / "tests" / "netlist" / "corpus";
}

struct Flat {
  SourceManager sources;
  Diagnostics diags;
  Netlist net;
  std::string text() const { return diags.format(sources); }

  std::size_t element_count() const {
    std::size_t n = 0;
    for (const Card& c : net.cards) n += std::holds_alternative<ElementCard>(c) ? 1 : 0;
    return n;
  }
  // The element named `lower`; a test failure (and an empty card) if there is none.
  const ElementCard& element(const std::string& lower) const {
    for (const Card& c : net.cards) {
      const auto* e = std::get_if<ElementCard>(&c);
      if (e != nullptr && e->name.lower == lower) return *e;
    }
    ADD_FAILURE() << "no element '" << lower << "'";
    static const ElementCard kEmpty{};
    return kEmpty;
  }
  const ModelCard& model(const std::string& lower) const {
    for (const Card& c : net.cards) {
      const auto* m = std::get_if<ModelCard>(&c);
      if (m != nullptr && m->name.lower == lower) return *m;
    }
    ADD_FAILURE() << "no model '" << lower << "'";
    static const ModelCard kEmpty{};
    return kEmpty;
  }
  template <typename T>
  const T* first() const {
    for (const Card& c : net.cards) {
      if (const auto* t = std::get_if<T>(&c)) return t;
    }
    return nullptr;
  }
  // "node node ..." of an element (lower case).
  std::string nodes(const std::string& lower) const {
    std::string out;
    for (const Word& w : element(lower).nodes) out += (out.empty() ? "" : " ") + w.lower;
    return out;
  }
  double value(const std::string& lower) const {
    const ElementCard& e = element(lower);
    EXPECT_TRUE(e.value.has_value()) << lower;
    return e.value ? e.value->value : 0;
  }
  // Number of the param `name` of element `lower`.
  double param(const std::string& lower, const std::string& name) const {
    for (const Param& p : element(lower).params) {
      if (p.name.lower == name) {
        EXPECT_TRUE(p.number.has_value()) << lower << " " << name;
        return p.number.value_or(0);
      }
    }
    ADD_FAILURE() << "no param '" << name << "' on '" << lower << "'";
    return 0;
  }
};

// Parses `path` (shown as `shown`) and flattens it.
inline void load_file(Flat& f, const std::filesystem::path& path, const std::string& shown,
                      const FlattenOptions& options = {}) {
  const Netlist parsed = parse_file(path, f.sources, f.diags, shown);
  f.net = flatten(parsed, f.sources, f.diags, options);
}

// Parses the text (title line included) and flattens it; includes are served from `files`.
inline void load_text(Flat& f, const std::string& text,
                      const std::map<std::string, std::string>& files = {}) {
  const Netlist parsed = parse_string(text, "t.cir", f.sources, f.diags);
  FlattenOptions options;
  options.read_file = [files](const std::string& location, std::string& out) {
    auto it = files.find(location);
    if (it == files.end()) return 2;  // ENOENT
    out = it->second;
    return 0;
  };
  f.net = flatten(parsed, f.sources, f.diags, options);
}

}  // namespace nsspice::netlist::testing
