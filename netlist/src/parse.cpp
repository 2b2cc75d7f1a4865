// Netlist parsing driver: file -> SourceManager -> logical cards -> syntax items -> AST cards.
//
//   netlist := title { card } [.end]
//   card    := element (first letter R C L V I D) | '.' keyword ...
// Each bad card is reported and skipped; parsing always continues to the end (or .end).
#include "netlist/parse.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <system_error>

#include "netlist/src/card_reader.hpp"
#include "netlist/src/lines.hpp"
#include "netlist/src/syntax.hpp"

namespace nsspice::netlist {
namespace {

using detail::CardReader;
using detail::Item;

template <typename T>
void push(Netlist& net, std::optional<T> card) {
  if (card) net.cards.emplace_back(std::move(*card));
}

void parse_dot_card(const CardReader& r, const std::vector<Item>& items, const Word& keyword,
                    Netlist& net) {
  const std::string& k = keyword.lower;
  if (k == ".end") {
    net.has_end = true;
  } else if (k == ".model") {
    push(net, detail::parse_model(r, items));
  } else if (k == ".tran") {
    push(net, detail::parse_tran(r, items));
  } else if (k == ".ic") {
    push(net, detail::parse_ic(r, items));
  } else if (k == ".options" || k == ".option" || k == ".opt") {
    push(net, detail::parse_options(r, items));
  } else {
    r.warning(keyword.span, fmt::format("unsupported control card '{}' ignored", keyword.text));
  }
}

void parse_card(const detail::LogicalCard& card, Diagnostics& diags, Netlist& net) {
  auto items = detail::parse_card_syntax(card, diags);
  if (!items || items->empty()) return;
  const CardReader r(card, diags);
  const Item& first = items->front();
  if (!first.is_plain()) {
    r.error(r.span(first),
            fmt::format("expected an element name or a control card, got '{}'", r.text(first)));
    return;
  }
  const Word keyword = r.word(first.word);
  if (keyword.lower.front() == '.') {
    parse_dot_card(r, *items, keyword, net);
  } else {
    push(net, detail::parse_element(r, *items));
  }
}

std::string error_text(int err) { return std::error_code(err, std::generic_category()).message(); }

}  // namespace

Netlist parse_string(std::string_view text, std::string name, SourceManager& sources,
                     Diagnostics& diags) {
  const int file = sources.add(std::move(name), std::string(text));
  detail::SplitText split = detail::split_cards(file, sources.text(file), diags);
  Netlist net;
  net.title = std::move(split.title);
  net.title_span = split.title_span;
  for (const detail::LogicalCard& card : split.cards) parse_card(card, diags, net);
  return net;
}

Netlist parse_file(const std::filesystem::path& path, SourceManager& sources, Diagnostics& diags) {
  const std::string shown = path.string();
  auto fail = [&](int err) {
    diags.error(SourceSpan{}, fmt::format("cannot open netlist '{}': {}", shown, error_text(err)));
    return Netlist{};
  };
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(shown.c_str(), "rb"), &std::fclose);
  if (!f) return fail(errno != 0 ? errno : ENOENT);
  std::string text;
  char buffer[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f.get())) > 0) text.append(buffer, n);
  if (std::ferror(f.get())) return fail(errno != 0 ? errno : EIO);
  return parse_string(text, shown, sources, diags);
}

}  // namespace nsspice::netlist
