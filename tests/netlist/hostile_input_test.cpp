// Hostile input (issue 16): files that are not regular or too big, nesting 15 000 deep, an
// expansion bomb, control characters in names. Each case must end in a diagnostic at the
// right place, never in a crash, a hang or gigabytes of memory. Large inputs are generated.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "flatten_helpers.hpp"
#include "test_helpers.hpp"

namespace nsspice::netlist {
namespace {

namespace fs = std::filesystem;
using testing::Flat;

class HostileFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("nsspice_hostile_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  // Parses + flattens dir_/name (shown as `name`).
  std::string diagnose(const std::string& name, const FlattenOptions& options = {}) {
    Flat f;
    testing::load_file(f, dir_ / name, name, options);
    return f.text();
  }
  fs::path dir_;
};

TEST_F(HostileFiles, TopFileMustBeARegularFile) {
  SourceManager sources;
  Diagnostics diags;
  parse_file("/dev/zero", sources, diags);
  ASSERT_EQ(diags.error_count(), 1);
  EXPECT_EQ(diags.all().at(0).message,
            "cannot open netlist '/dev/zero': not a regular file (a character device)");
  Diagnostics d2;
  parse_file(dir_, sources, d2, "somedir");
  ASSERT_EQ(d2.error_count(), 1);
  EXPECT_EQ(d2.all().at(0).message, "cannot open netlist 'somedir': Is a directory");
  // A FIFO without a writer: an error at once, not a wait for a writer.
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  Diagnostics d3;
  parse_file(dir_ / "fifo", sources, d3, "fifo");
  ASSERT_EQ(d3.error_count(), 1);
  EXPECT_EQ(d3.all().at(0).message, "cannot open netlist 'fifo': not a regular file (a FIFO)");
}

TEST_F(HostileFiles, IncludedFileMustBeARegularFileErrorAtTheCard) {
  ASSERT_EQ(::mkfifo((dir_ / "pipe.inc").c_str(), 0600), 0);
  fs::create_directories(dir_ / "folder.inc");
  write("top.cir",
        "t\n.include /dev/zero\n.include pipe.inc\n.include folder.inc\nR1 a 0 1\n.end\n");
  const std::string d = diagnose("top.cir");
  EXPECT_NE(d.find("top.cir:2:10: error: cannot open include file '/dev/zero': not a regular "
                   "file (a character device)\n"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("top.cir:3:10: error: cannot open include file 'pipe.inc': not a regular "
                   "file (a FIFO)\n"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("top.cir:4:10: error: cannot open include file 'folder.inc': Is a directory\n"),
            std::string::npos)
      << d;
}

TEST_F(HostileFiles, SizeLimit) {
  EXPECT_EQ(kMaxNetlistBytes, 256u << 20);
  EXPECT_EQ(byte_size_text(kMaxNetlistBytes), "256 MiB");
  EXPECT_EQ(byte_size_text(900), "900 bytes");
  EXPECT_EQ(byte_size_text(3u << 29), "1.5 GiB");
  write("big.inc", "* " + std::string(198, 'x') + "\n");  // 201 bytes
  write("top.cir", "t\n.include big.inc\nR1 a 0 1\n");
  FlattenOptions options;
  options.max_file_bytes = 200;
  EXPECT_NE(diagnose("top.cir", options)
                .find("top.cir:2:10: error: cannot open include file 'big.inc': 201 bytes is "
                      "more than the limit of 200 bytes for a netlist file"),
            std::string::npos);
  options.max_file_bytes = 201;
  EXPECT_EQ(diagnose("top.cir", options), "");
  std::string text;
  EXPECT_EQ(read_netlist_file(dir_ / "big.inc", text, 100),
            "201 bytes is more than the limit of 100 bytes for a netlist file");
  EXPECT_TRUE(text.empty());  // checked before reading
  EXPECT_EQ(read_netlist_file(dir_ / "big.inc", text), "");
  EXPECT_EQ(text.size(), 201u);
}

TEST_F(HostileFiles, IncludeCycleIsCaught) {
  write("a.inc", ".include b.inc\n");
  write("b.inc", ".include a.inc\n");
  write("top.cir", "t\n.include a.inc\nR1 a 0 1\n");
  const std::string d = diagnose("top.cir");
  EXPECT_NE(d.find("error: include cycle: "), std::string::npos) << d;
  EXPECT_NE(d.find("a.inc -> "), std::string::npos) << d;
}

// .subckt definitions nested `depth` deep (s0 holds s1 holds s2 ...), one resistor each.
std::string nested_definitions(int depth) {
  std::string text = "t\n";
  for (int i = 0; i < depth; ++i) text += ".subckt s" + std::to_string(i) + " p\nR1 p 0 1\n";
  for (int i = depth; i-- > 0;) text += ".ends\n";
  return text + "X1 a s0\n.end\n";
}

TEST(NetlistHostile, SubcktDefinitionsNested15000DeepAreAnErrorNotACrash) {
  Flat f;
  testing::load_text(f, nested_definitions(15000));
  // Parsed, copied (flatten of a const tree copies it), flattened and destroyed without a crash.
  const std::string d = f.text();
  EXPECT_NE(d.find("t.cir:514:1: error: subcircuit definitions nested more than 256 levels deep "
                   "(s0 -> s1 -> s2 -> ... -> s253 -> s254 -> s255); this definition is skipped "
                   "up to its '.ends'"),
            std::string::npos)
      << d.substr(0, 2000);
  EXPECT_EQ(f.diags.error_count(), 1) << d.substr(0, 2000);
}

TEST(NetlistHostile, SubcktDefinitionsNested256DeepAreFine) {
  const testing::Parsed p = testing::parse(nested_definitions(256));
  EXPECT_EQ(p.text(), "");
}

TEST(NetlistHostile, DefinitionNestingAddsUpThroughIncludes) {
  // 200 nested definitions in the netlist, the innermost including a file with 100 more.
  std::string text = "t\n";
  for (int i = 0; i < 200; ++i) text += fmt::format(".subckt a{} p\n", i);
  text += ".include deep.inc\n";
  for (int i = 0; i < 200; ++i) text += ".ends\n";
  auto nested = [](int levels) {
    std::string out;
    for (int i = 0; i < levels; ++i) out += fmt::format(".subckt b{} p\nR1 p 0 1\n", i);
    for (int i = 0; i < levels; ++i) out += ".ends\n";
    return out;
  };
  Flat f;
  testing::load_text(f, text, {{"deep.inc", nested(100)}});
  ASSERT_EQ(f.diags.error_count(), 1) << f.text().substr(0, 1000);
  EXPECT_NE(f.text().find("t.cir:202:1: error: subcircuit definitions nested more than 256 levels "
                          "deep through this include (100 levels in 'deep.inc' included 200 "
                          "levels deep); its cards are not used"),
            std::string::npos)
      << f.text().substr(0, 1000);
  Flat g;  // 56 more levels fit
  testing::load_text(g, text, {{"deep.inc", nested(56)}});
  EXPECT_FALSE(g.diags.has_errors()) << g.text().substr(0, 1000);
}

TEST(NetlistHostile, InstancesNested15000DeepStopAtTheDepthLimit) {
  std::string text = "t\nX0 a s0\n";
  for (int i = 0; i < 15000; ++i) {
    text += ".subckt s" + std::to_string(i) + " p\nX1 p s" + std::to_string(i + 1) + "\n.ends\n";
  }
  text += ".subckt s15000 p\nR1 p 0 1\n.ends\n";
  Flat f;
  testing::load_text(f, text);
  ASSERT_EQ(f.diags.error_count(), 1) << f.text().substr(0, 2000);
  const std::string& m = f.diags.all().at(0).message;
  EXPECT_EQ(m.rfind("subcircuits nested more than 100 levels deep: instance 'x0.x1.x1.", 0), 0u)
      << m;
  EXPECT_NE(m.find(".x1.x1' (subcircuits s0 -> s1 -> s2 -> "), std::string::npos) << m;
  EXPECT_NE(m.find(" ... "), std::string::npos) << m;
  EXPECT_NE(m.find(" -> s98 -> s99 -> s100)"), std::string::npos) << m;
  EXPECT_LE(m.size(), 330u);
  EXPECT_EQ(f.element_count(), 0u);
}

// The 103-line bomb of the issue: 8 levels of 10 instances = 10^8 resistors.
std::string bomb(int levels, int fan_out) {
  std::string text = "bomb\n.subckt l0 a b\nR1 a b 1\n.ends\n";
  for (int l = 1; l <= levels; ++l) {
    text += fmt::format(".subckt l{} a b\n", l);
    for (int k = 0; k < fan_out; ++k) text += fmt::format("X{} a b l{}\n", k, l - 1);
    text += ".ends\n";
  }
  return text + fmt::format("X0 in 0 l{}\nV1 in 0 1\n.end\n", levels);
}

TEST(NetlistHostile, ExpansionBombStopsBeforeExpandingAnything) {
  const std::string text = bomb(8, 10);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 103);  // the 103 lines
  Flat f;
  testing::load_text(f, text);
  ASSERT_EQ(f.diags.error_count(), 1) << f.text();
  EXPECT_NE(f.text().find("t.cir:101:1: error: the flattened netlist would have more than "
                          "10000000 elements; nothing was expanded; the instances holding most "
                          "of them: 'x0' (subcircuit 'l8', more than 10000000 elements, one of 1 "
                          "instances) -> 'x0.x0' (subcircuit 'l7', 10000000 elements, one of 10 "
                          "instances) -> 'x0.x0.x0' (subcircuit 'l6', 1000000 elements, one of 10 "
                          "instances) -> 'x0.x0.x0.x0' (subcircuit 'l5', 100000 elements, one of "
                          "10 instances) -> ...\n"),
            std::string::npos)
      << f.text();
  // The count was checked before allocation: not one card was produced.
  EXPECT_EQ(f.net.cards.size(), 0u);
}

TEST(NetlistHostile, InstanceBombWithoutElementsStopsToo) {
  // Found by the fuzzer: instances of an unknown subcircuit at the bottom of 8 levels × 10
  // produce no element but 10^8 expansions (each reporting); counted and stopped alike.
  std::string text = bomb(8, 10);
  text.replace(text.find("R1 a b 1\n"), 9, "Xq a b nowhere\n");
  Flat f;
  testing::load_text(f, text);
  ASSERT_EQ(f.diags.error_count(), 1) << f.text();
  EXPECT_NE(f.text().find("error: the flattened netlist would have more than 10000000 subcircuit "
                          "instances; nothing was expanded; the instances holding most of them: "
                          "'x0' (subcircuit 'l8', more than 10000000 instances inside, one of 1 "
                          "instances) -> 'x0.x0' (subcircuit 'l7', "),
            std::string::npos)
      << f.text();
  EXPECT_EQ(f.net.cards.size(), 0u);
}

TEST(NetlistHostile, ElementCountAtTheLimitIsExpanded) {
  Flat f;
  const Netlist parsed = parse_string(bomb(3, 10), "t.cir", f.sources, f.diags);
  FlattenOptions options;
  options.max_elements = 1001;  // 1000 resistors + V1
  f.net = flatten(parsed, f.sources, f.diags, options);
  EXPECT_EQ(f.text(), "");
  EXPECT_EQ(f.element_count(), 1001u);
  options.max_elements = 1000;
  Flat g;
  g.net =
      flatten(parse_string(bomb(3, 10), "t.cir", g.sources, g.diags), g.sources, g.diags, options);
  ASSERT_EQ(g.diags.error_count(), 1);
  EXPECT_EQ(
      g.diags.all().at(0).message.rfind(
          "the flattened netlist would have more than 1000 elements; nothing was expanded", 0),
      0u);
  EXPECT_EQ(g.element_count(), 0u);
}

TEST(NetlistHostile, ParenthesesNested100000Deep) {
  const std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
  const testing::Parsed bare = testing::parse("t\nR1 a 0 " + deep + "\n");
  ASSERT_EQ(bare.diags.error_count(), 1);
  EXPECT_EQ(bare.diags.all().at(0).message, "parentheses nested too deeply");
  Flat f;
  testing::load_text(f, "t\nR1 a 0 {" + deep + "}\n");
  ASSERT_EQ(f.diags.error_count(), 1) << f.text().substr(0, 500);
  EXPECT_EQ(f.diags.all().at(0).message, "expression nested too deeply");
}

TEST(NetlistHostile, ParameterChain100000Long) {
  std::string text = "t\n";
  for (int i = 0; i < 100000; ++i)
    text += ".param p" + std::to_string(i) + "=p" + std::to_string(i + 1) + "\n";
  text += ".param p100000=1\nR1 a 0 {p0}\n";
  Flat f;
  testing::load_text(f, text);
  EXPECT_TRUE(f.diags.has_errors());
  EXPECT_NE(f.text().find("error: parameter definitions nested more than 256 levels deep"),
            std::string::npos);
}

TEST(NetlistHostile, NestingAddsUpAlongAParameterChain) {
  // 255 chained parameters, each nested 60 parentheses deep: 15 300 levels in total crashed
  // (stack overflow) before the total was limited; now an error after 1024.
  std::string text = "t\n";
  const std::string open(60, '('), close(60, ')');
  for (int i = 0; i < 255; ++i)
    text += fmt::format(".param p{}={{{}p{}+1{}}}\n", i, open, i + 1, close);
  text += ".param p255=0\nR1 a 0 {p0}\n";
  Flat f;
  testing::load_text(f, text);
  EXPECT_TRUE(f.diags.has_errors());
  EXPECT_NE(f.text().find("error: expressions nested more than 1024 levels deep in total through "
                          "parameter references"),
            std::string::npos)
      << f.text().substr(0, 1000);
  // A chain of 16 such parameters (16 · 61 levels) is fine.
  std::string ok = "t\n";
  for (int i = 0; i < 16; ++i)
    ok += fmt::format(".param p{}={{{}p{}+1{}}}\n", i, open, i + 1, close);
  ok += ".param p16=0\nR1 a 0 {p0}\n";
  Flat g;
  testing::load_text(g, ok);
  EXPECT_EQ(g.text(), "");
  EXPECT_DOUBLE_EQ(g.value("r1"), 16.0);
}

TEST(NetlistHostile, ControlCharactersInNamesAreErrors) {
  const testing::Parsed nul = testing::parse(std::string("t\nR1 a\0b 0 1\n", 13));
  ASSERT_EQ(nul.diags.error_count(), 1) << nul.text();
  EXPECT_NE(nul.text().find("t.cir:2:5: error: control character 0x00 in 'a\\x00b' (names and "
                            "values must be printable)"),
            std::string::npos)
      << nul.text();
  // The echoed source line shows the byte as '?', so the caret still lines up.
  EXPECT_NE(nul.text().find("\nR1 a?b 0 1\n    ^\n"), std::string::npos) << nul.text();
  const testing::Parsed esc = testing::parse(
      "t\nR\x1b"
      "1 a 0 1\nC1 x\x7fy 0 1u\n");
  ASSERT_EQ(esc.diags.error_count(), 2) << esc.text();
  EXPECT_NE(esc.text().find("t.cir:2:2: error: control character 0x1b in 'R\\x1b1'"),
            std::string::npos)
      << esc.text();
  EXPECT_NE(esc.text().find("t.cir:3:5: error: control character 0x7f in 'x\\x7fy'"),
            std::string::npos)
      << esc.text();
  // Tabs and carriage returns are blanks, not errors; comments may hold anything.
  EXPECT_EQ(testing::parse("t\nR1\ta\t0 1\r\n* \x01 comment\n").text(), "");
}

}  // namespace
}  // namespace nsspice::netlist
