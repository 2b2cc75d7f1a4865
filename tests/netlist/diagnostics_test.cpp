// Tests for diagnostics: exact rendered text of bad inputs, several errors in one run,
// severities/counters, notes, tabs under the caret, and the missing-file message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "test_helpers.hpp"

namespace nsspice::netlist {
namespace {

using testing::diagnose;
using testing::parse;

TEST(NetlistDiagnostics, ExpectedANumber) {
  EXPECT_EQ(diagnose("\nC1 a b abc\n"),
            "t.cir:3:8: error: expected a number, got 'abc'\nC1 a b abc\n       ^~~\n");
}

TEST(NetlistDiagnostics, ResistorArity) {
  EXPECT_EQ(diagnose("R1 a b\n"),
            "t.cir:2:7: error: resistor 'R1' needs 2 nodes and a value\nR1 a b\n      ^\n");
}

TEST(NetlistDiagnostics, CapacitorArityAfterComment) {
  EXPECT_EQ(diagnose("C1 a ; b 1u\n"),
            "t.cir:2:5: error: capacitor 'C1' needs 2 nodes and a value\nC1 a ; b 1u\n    ^\n");
}

TEST(NetlistDiagnostics, UnknownElementType) {
  EXPECT_EQ(diagnose("J1 d g s jmod\n"),
            "t.cir:2:1: error: unsupported element type 'J' (element 'J1'): JFETs are not "
            "supported\nJ1 d g s jmod\n^~\n");
}

TEST(NetlistDiagnostics, UnsupportedControlCard) {
  EXPECT_EQ(diagnose(".foo x=1\n"),
            "t.cir:2:1: warning: unsupported control card '.foo' ignored\n.foo x=1\n^~~~\n");
}

TEST(NetlistDiagnostics, TranMissingTstop) {
  EXPECT_EQ(diagnose(".tran\n"),
            "t.cir:2:6: error: .tran needs TSTOP (or TSTEP TSTOP)\n.tran\n     ^\n");
  EXPECT_EQ(diagnose(".tran 1n\n"), "");  // LTspice's ".tran TSTOP"
}

TEST(NetlistDiagnostics, TranBadValue) {
  EXPECT_EQ(diagnose(".tran 1n 1x5\n"),
            "t.cir:2:10: error: expected a number, got '1x5'\n.tran 1n 1x5\n         ^~~\n");
}

TEST(NetlistDiagnostics, MissingCloseParenthesis) {
  EXPECT_EQ(diagnose("V1 a 0 SIN(0 1 1k\n"),
            "t.cir:2:11: error: missing ')' to close this '('\nV1 a 0 SIN(0 1 1k\n"
            "          ^\n");
}

TEST(NetlistDiagnostics, UnmatchedCloseParenthesis) {
  EXPECT_EQ(diagnose("V1 a 0 SIN 0 1 1k)\n"),
            "t.cir:2:18: error: unmatched ')'\nV1 a 0 SIN 0 1 1k)\n                 ^\n");
}

TEST(NetlistDiagnostics, MissingValueAfterEquals) {
  EXPECT_EQ(diagnose("C1 a b 1u IC=\n"),
            "t.cir:2:14: error: expected a value after '='\nC1 a b 1u IC=\n             ^\n");
}

TEST(NetlistDiagnostics, BadIcEntry) {
  EXPECT_EQ(diagnose(".ic v(1)=1 i(L1 L2)=2\n"),
            "t.cir:2:12: error: expected V(node)=value or I(inductor)=value in .ic, got "
            "'i(L1 L2)=2'\n"
            ".ic v(1)=1 i(L1 L2)=2\n"
            "           ^~~~~~~~~~\n");
  EXPECT_EQ(diagnose(".nodeset i(L1)=2\n"),
            "t.cir:2:10: error: expected V(node)=value in .nodeset, got 'i(L1)=2' (an "
            "inductor's initial current is its IC=: L1 a b 1m IC=0.5, or .ic I(L1)=0.5)\n"
            ".nodeset i(L1)=2\n"
            "         ^~~~~~~\n");
}

TEST(NetlistDiagnostics, DiodeWithoutModel) {
  EXPECT_EQ(diagnose("D1 a k\n"),
            "t.cir:2:7: error: diode 'D1' needs 2 nodes and a model name\nD1 a k\n      ^\n");
}

TEST(NetlistDiagnostics, UnsupportedSourceFunction) {
  EXPECT_EQ(diagnose("V1 a 0 AM(1 0 1k 10)\n"),
            "t.cir:2:8: error: unsupported source function 'AM'\nV1 a 0 AM(1 0 1k 10)\n"
            "       ^~\n");
}

TEST(NetlistDiagnostics, BadSourceArgument) {
  EXPECT_EQ(diagnose("V1 a 0 PULSE(0 5 1n x)\n"),
            "t.cir:2:21: error: expected a number, got 'x'\nV1 a 0 PULSE(0 5 1n x)\n"
            "                    ^\n");
}

TEST(NetlistDiagnostics, ModelParamWithoutValue) {
  EXPECT_EQ(diagnose(".model dm D(VF 0.7)\n"),
            "t.cir:2:13: error: expected NAME=VALUE in .model, got 'VF'\n"
            ".model dm D(VF 0.7)\n"
            "            ^~\n");
}

TEST(NetlistDiagnostics, TabsAreCopiedUnderTheCaret) {
  EXPECT_EQ(diagnose("C1\ta\tb\tabc\n"),
            "t.cir:2:8: error: expected a number, got 'abc'\nC1\ta\tb\tabc\n  \t \t \t^~~\n");
}

TEST(NetlistDiagnostics, MultipleErrorsInOneRun) {
  auto p = parse(
      "title\n"
      "C0 a b abc\n"
      "R2 a b 1k\n"
      "Q1 c b e\n"
      "C1 a b\n"
      ".tran\n"
      ".bogus\n"
      "L1 a b 1u\n");
  EXPECT_EQ(p.diags.error_count(), 4);
  EXPECT_EQ(p.diags.warning_count(), 1);
  ASSERT_EQ(p.diags.all().size(), 5u);
  EXPECT_EQ(p.diags.all()[0].span.line, 2);
  EXPECT_EQ(p.diags.all()[1].span.line, 4);
  EXPECT_EQ(p.diags.all()[2].span.line, 5);
  EXPECT_EQ(p.diags.all()[3].span.line, 6);
  EXPECT_EQ(p.diags.all()[4].span.line, 7);
  ASSERT_EQ(p.net.cards.size(), 2u);  // the good cards survive
  EXPECT_EQ(std::get<ElementCard>(p.net.cards[1]).name.text, "L1");
}

TEST(NetlistDiagnostics, MissingFile) {
  SourceManager sources;
  Diagnostics diags;
  const std::filesystem::path path = "definitely_missing_netlist_4711.cir";
  Netlist net = parse_file(path, sources, diags);
  EXPECT_TRUE(net.cards.empty());
  EXPECT_EQ(diags.error_count(), 1);
  EXPECT_EQ(diags.all().at(0).span.file, -1);
  EXPECT_EQ(diags.format(sources),
            "nsspice: error: cannot open netlist 'definitely_missing_netlist_4711.cir': No such "
            "file or directory\n");
}

TEST(NetlistDiagnostics, ParseFileReadsAndNamesTheFile) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("nsspice_netlist_test_" + std::to_string(::getpid()) + ".cir");
  {
    std::ofstream out(path, std::ios::binary);
    out << "file title\nR1 a b 1k\nC2 a b oops\n";
  }
  SourceManager sources;
  Diagnostics diags;
  Netlist net = parse_file(path, sources, diags);
  std::filesystem::remove(path);
  EXPECT_EQ(net.title, "file title");
  EXPECT_EQ(net.cards.size(), 1u);
  EXPECT_EQ(diags.format(sources), path.string() +
                                       ":3:8: error: expected a number, got 'oops'\n"
                                       "C2 a b oops\n       ^~~~\n");
}

TEST(NetlistDiagnostics, NotesAndSpanlessDiagnostics) {
  SourceManager sources;
  const int file = sources.add("n.cir", "title\nR1 a b 1k\nR1 c d 2k\n");
  Diagnostics diags;
  Diagnostic d{Severity::kError, SourceSpan{file, 3, 1, 2}, "duplicate element 'R1'", {}};
  d.notes.push_back(
      Diagnostic{Severity::kNote, SourceSpan{file, 2, 1, 2}, "first defined here", {}});
  diags.add(d);
  diags.warning(SourceSpan{}, "no analysis requested");
  EXPECT_EQ(diags.error_count(), 1);
  EXPECT_EQ(diags.warning_count(), 1);
  EXPECT_TRUE(diags.has_errors());
  EXPECT_EQ(diags.format(sources),
            "n.cir:3:1: error: duplicate element 'R1'\nR1 c d 2k\n^~\n"
            "n.cir:2:1: note: first defined here\nR1 a b 1k\n^~\n"
            "nsspice: warning: no analysis requested\n");
}

TEST(NetlistSourceManager, LinesWithoutNewlines) {
  SourceManager sources;
  const int f = sources.add("a.cir", "one\r\ntwo\nthree");
  EXPECT_EQ(sources.path(f), "a.cir");
  EXPECT_EQ(sources.line_text(f, 1), "one");
  EXPECT_EQ(sources.line_text(f, 2), "two");
  EXPECT_EQ(sources.line_text(f, 3), "three");
  EXPECT_EQ(sources.line_text(f, 4), "");
  EXPECT_EQ(sources.line_text(f, 0), "");
  EXPECT_EQ(sources.line_text(f + 1, 1), "");
  EXPECT_EQ(sources.path(-1), "");
}

}  // namespace
}  // namespace nsspice::netlist
