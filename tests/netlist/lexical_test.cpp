// Tests for the line level of the netlist language: title, comments, continuation lines (and
// their spans), case-insensitivity, whitespace/line-ending variants and .end.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "netlist/parse.hpp"
#include "test_helpers.hpp"

namespace nsspice::netlist {
namespace {

using testing::card;
using testing::parse;

TEST(NetlistLines, TitleIsAlwaysLineOne) {
  auto p = parse("R1 a b 1k\nR2 a b 2k\n");
  EXPECT_EQ(p.net.title, "R1 a b 1k");
  EXPECT_EQ(p.net.title_span.line, 1);
  EXPECT_EQ(p.net.title_span.column, 1);
  EXPECT_EQ(p.net.title_span.length, 9);
  ASSERT_EQ(p.net.cards.size(), 1u);
  EXPECT_EQ(card<ElementCard>(p, 0).name.text, "R2");
  EXPECT_FALSE(p.diags.has_errors());
  // A title that is really a card (a netlist written without its title line) is not read, and
  // the warning says so; a title that merely starts like one is text.
  ASSERT_EQ(p.diags.all().size(), 1u);
  EXPECT_EQ(p.diags.all()[0].message,
            "the first line is the title (as in SPICE), so this element card is not read; write "
            "a title line above it");
  EXPECT_EQ(p.diags.all()[0].span.line, 1);
  auto tran = parse(".tran 1u 1m\nR1 a 0 1k\n");
  ASSERT_EQ(tran.diags.all().size(), 1u);
  EXPECT_NE(tran.diags.all()[0].message.find("this control card is not read"), std::string::npos);
  for (const char* title : {"RC filter test 1", ".tran without TSTOP", "* a comment title",
                            "Buck converter 12 V to 5 V", ".model without a type"})
    EXPECT_EQ(parse(std::string(title) + "\nR1 a 0 1k\n").diags.all().size(), 0u) << title;
}

// LTspice on Windows saves netlists as UTF-16: they are read as UTF-8 (with or without the
// byte-order mark, little or big endian; a character outside the BMP as a surrogate pair).
TEST(NetlistLines, Utf16IsReadAsUtf8) {
  auto utf16 = [](const std::u16string& s, bool little, bool bom) {
    std::string out;
    if (bom) out += little ? "\xFF\xFE" : "\xFE\xFF";
    for (char16_t c : s) {
      const char lo = static_cast<char>(c & 0xFF), hi = static_cast<char>(c >> 8);
      out += little ? std::string{lo, hi} : std::string{hi, lo};
    }
    return out;
  };
  const std::u16string text = u"* t \u00b5 \U0001F600\nV1 in 0 5\n";
  const std::string utf8 = "* t \xC2\xB5 \xF0\x9F\x98\x80\nV1 in 0 5\n";
  for (auto [little, bom] : {std::pair{true, true}, {true, false}, {false, true}}) {
    std::string s = utf16(text, little, bom);
    utf16_to_utf8(s);
    EXPECT_EQ(s, utf8) << little << bom;
  }
  std::string plain = utf8;
  utf16_to_utf8(plain);
  EXPECT_EQ(plain, utf8);
}

TEST(NetlistLines, EmptyFileAndTitleOnly) {
  auto empty = parse("");
  EXPECT_EQ(empty.net.title, "");
  EXPECT_TRUE(empty.net.cards.empty());
  EXPECT_EQ(empty.diags.all().size(), 0u);
  auto only = parse("* just a title\n");
  EXPECT_EQ(only.net.title, "* just a title");
  EXPECT_TRUE(only.net.cards.empty());
  EXPECT_FALSE(only.net.has_end);
  EXPECT_EQ(only.diags.all().size(), 0u);
  auto plus = parse("+\n");  // a lone '+' on line 1 is just a title
  EXPECT_EQ(plus.net.title, "+");
  EXPECT_FALSE(plus.diags.has_errors());
}

TEST(NetlistLines, CommentsOfEachKind) {
  auto p = parse(
      "title\n"
      "* full-line comment R9 a b abc\n"
      "   * indented comment\n"
      "R1 a b 1k ; semicolon comment abc\n"
      "R2 a b 2k $ dollar comment abc\n"
      "R3 a b 3k // slash comment abc\n"
      "R4 a b 4k;tight\n"
      "\n"
      "   \t \n"
      "; whole line\n"
      "$ whole line\n"
      "// whole line\n");
  EXPECT_EQ(p.text(), "");
  ASSERT_EQ(p.net.cards.size(), 4u);
  EXPECT_DOUBLE_EQ(card<ElementCard>(p, 0).value->value, 1e3);
  EXPECT_DOUBLE_EQ(card<ElementCard>(p, 1).value->value, 2e3);
  EXPECT_DOUBLE_EQ(card<ElementCard>(p, 2).value->value, 3e3);
  EXPECT_DOUBLE_EQ(card<ElementCard>(p, 3).value->value, 4e3);
}

TEST(NetlistLines, DollarInsideAWordIsNotAComment) {
  auto p = parse("title\nR1 a$1 b 1k\n");
  EXPECT_EQ(p.text(), "");
  EXPECT_EQ(card<ElementCard>(p, 0).nodes.at(0).text, "a$1");
}

TEST(NetlistLines, ContinuationLinesKeepRealColumns) {
  auto p = parse(
      "title\n"
      "V1 in 0\n"
      "* a comment between the card and its continuation\n"
      "+   PULSE(0 5\n"
      "+\t1n 1n 1n 10n 20n)\n"
      "C1 a b\n"
      "  + 1u IC=2\n");
  ASSERT_EQ(p.text(), "");
  const auto& v = card<ElementCard>(p, 0);
  ASSERT_EQ(v.functions.size(), 1u);
  const auto& fn = v.functions[0];
  EXPECT_EQ(fn.kind.span.line, 4);
  EXPECT_EQ(fn.kind.span.column, 5);
  ASSERT_EQ(fn.args.size(), 7u);
  EXPECT_EQ(fn.args[1].span.line, 4);
  EXPECT_EQ(fn.args[1].span.column, 13);
  EXPECT_EQ(fn.args[2].span.line, 5);
  EXPECT_EQ(fn.args[2].span.column, 3);
  EXPECT_EQ(fn.args[2].span.length, 2);
  EXPECT_EQ(fn.args[6].span.column, 16);
  EXPECT_DOUBLE_EQ(fn.args[6].value, 20e-9);
  const auto& c = card<ElementCard>(p, 1);
  EXPECT_EQ(c.value->span.line, 7);
  EXPECT_EQ(c.value->span.column, 5);
  ASSERT_EQ(c.params.size(), 1u);
  EXPECT_EQ(c.params[0].span.column, 8);
  EXPECT_EQ(c.params[0].raw.span.column, 11);
}

TEST(NetlistLines, ErrorOnContinuationLinePointsAtThatLine) {
  auto p = parse("title\nC1 a\n+ b\n+    abc\n", "c.cir");
  EXPECT_EQ(p.text(), "c.cir:4:6: error: expected a number, got 'abc'\n+    abc\n     ^~~\n");
}

TEST(NetlistLines, CaseInsensitiveNamesAndKeywords) {
  auto p = parse(
      "title\n"
      "r1 A B 1K\n"
      "v1 IN 0 dc 5 Sin(0 1 1MEG)\n"
      ".MODEL dmod d(vf=0.7)\n"
      ".TRAN 1N 1U uic\n"
      ".Options RelTol=1m\n"
      ".IC V(Out)=1\n"
      ".END\n");
  EXPECT_EQ(p.text(), "");
  ASSERT_EQ(p.net.cards.size(), 6u);
  const auto& r = card<ElementCard>(p, 0);
  EXPECT_EQ(r.name.text, "r1");
  EXPECT_EQ(r.nodes[0].text, "A");
  EXPECT_EQ(r.nodes[0].lower, "a");
  const auto& v = card<ElementCard>(p, 1);
  EXPECT_DOUBLE_EQ(v.value->value, 5);
  EXPECT_EQ(v.functions.at(0).kind.lower, "sin");
  EXPECT_DOUBLE_EQ(v.functions.at(0).args.at(2).value, 1e6);
  EXPECT_EQ(card<ModelCard>(p, 2).params.at(0).name.lower, "vf");
  EXPECT_TRUE(card<TranCard>(p, 3).uic);
  EXPECT_EQ(card<OptionsCard>(p, 4).params.at(0).name.lower, "reltol");
  EXPECT_EQ(card<IcCard>(p, 5).entries.at(0).node.text, "Out");
  EXPECT_TRUE(p.net.has_end);
}

TEST(NetlistLines, CrlfTabsAndCommas) {
  auto p = parse("title\r\nR1\ta\tb\t1k\r\nV1 a 0 PWL(0,0, 1m,5)\r\n.end\r\n");
  EXPECT_EQ(p.net.title, "title");
  EXPECT_EQ(p.text(), "");
  ASSERT_EQ(p.net.cards.size(), 2u);
  EXPECT_EQ(card<ElementCard>(p, 0).nodes.at(1).text, "b");
  EXPECT_EQ(card<ElementCard>(p, 0).value->span.column, 8);
  EXPECT_EQ(card<ElementCard>(p, 1).functions.at(0).args.size(), 4u);
  EXPECT_TRUE(p.net.has_end);
}

TEST(NetlistLines, EverythingAfterEndIsIgnored) {
  auto p = parse("title\nR1 a b 1k\n.end\nQ1 garbage ((( \n.tran\n+ more\n");
  EXPECT_EQ(p.text(), "");
  EXPECT_TRUE(p.net.has_end);
  EXPECT_EQ(p.net.cards.size(), 1u);
}

TEST(NetlistLines, ControlBlockIsSkippedWithOneWarning) {
  auto p = parse("title\n.control\nrun\nplot v(1)\n.endc\nR1 a b 1k\n");
  EXPECT_EQ(p.diags.error_count(), 0);
  EXPECT_EQ(p.diags.warning_count(), 1);
  EXPECT_EQ(p.net.cards.size(), 1u);
}

TEST(NetlistLines, ContinuationWithoutCardIsAnError) {
  auto p = parse("title\n+ R1 a b 1k\nR2 a b 2k\n");
  EXPECT_EQ(p.text(),
            "t.cir:2:1: error: continuation line without a card to continue\n+ R1 a b 1k\n^\n");
  EXPECT_EQ(p.net.cards.size(), 1u);
}

}  // namespace
}  // namespace nsspice::netlist
