// Every write checked (app/io/file_write.hpp): each file nsspice writes, pointed at /dev/full
// (every write fails with ENOSPC), gives exit 3 and "cannot write 'FILE': No space left on
// device"; the writers themselves report the failure and its errno.
#include <cerrno>
#include <cstring>

#include "app/io/csv_writer.hpp"
#include "app/io/event_log.hpp"
#include "app/io/file_write.hpp"
#include "app/io/raw_writer.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

const std::string kFull = std::string("cannot write '/dev/full': ") + std::strerror(ENOSPC);

// 10^4 steps, a few hundred KB of CSV: more than one buffer, so the failure comes mid-run.
constexpr const char* kRc = "rc\nV1 a 0 SIN(0 1 1k)\nR1 a b 1k\nC1 b 0 1u\n.tran 1u 10m\n.end\n";
// An ideal switch opening on an inductor's current: the event-driven run logs events.
constexpr const char* kCut =
    "cut\nV1 a 0 1\nR1 a b 1\nL1 b c 1m\nS1 c 0 ctl 0 SW\nVc ctl 0 PULSE(1 0 0.5m 1n 1n 1 2)\n"
    ".model SW SW(VT=0.5 RON=0)\n.tran 1u 1m\n.end\n";

bool dev_full_usable() { return fs::exists("/dev/full"); }

using WriteFailure = AppTest;

TEST_F(WriteFailure, CsvOnAFullDiskStopsTheRunAndExits3) {
  if (!dev_full_usable()) GTEST_SKIP() << "no /dev/full";
  write("rc.cir", kRc);
  const auto r = nsspice("run rc.cir -o /dev/full -q");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("nsspice: error: " + kFull + " (the run was stopped at t = "),
            std::string::npos)
      << r.output;
}

TEST_F(WriteFailure, SmallCsvFailsAtCloseAndExits3) {
  if (!dev_full_usable()) GTEST_SKIP() << "no /dev/full";
  write("rc.cir", "rc\nV1 a 0 1\nR1 a b 1k\nC1 b 0 1u\n.tran 1m 2m\n.end\n");
  const auto r = nsspice("run rc.cir -o /dev/full -q");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("nsspice: error: " + kFull + "\n"), std::string::npos) << r.output;
}

TEST_F(WriteFailure, RawBinaryAndAsciiExit3) {
  if (!dev_full_usable()) GTEST_SKIP() << "no /dev/full";
  write("rc.cir", kRc);
  for (const char* format : {"raw", "rawascii"}) {
    const auto r = nsspice(std::string("run rc.cir -o /dev/full -q --format ") + format);
    EXPECT_EQ(r.exit_code, 3) << format << ": " << r.output;
    EXPECT_NE(r.output.find("nsspice: error: " + kFull), std::string::npos) << r.output;
  }
}

TEST_F(WriteFailure, MeasJsonExit3AndTheWaveformFileIsIntact) {
  if (!dev_full_usable()) GTEST_SKIP() << "no /dev/full";
  write("rc.cir", kRc);
  const auto r = nsspice("run rc.cir -q --meas 'max v(b)' --meas-json /dev/full");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("nsspice: error: " + kFull), std::string::npos) << r.output;
  EXPECT_GT(fs::file_size(dir_ / "rc.csv"), 0u);
}

TEST_F(WriteFailure, EventLogExit3) {
  if (!dev_full_usable()) GTEST_SKIP() << "no /dev/full";
  write("cut.cir", kCut);
  // The event log goes beside the output as <stem>.events.csv: make that name /dev/full.
  fs::create_symlink("/dev/full", dir_ / "cut.events.csv");
  const auto r = nsspice("run cut.cir -q --method event");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find(std::string("nsspice: error: cannot write 'cut.events.csv': ") +
                          std::strerror(ENOSPC)),
            std::string::npos)
      << r.output;
}

TEST_F(WriteFailure, CompareJsonExit3) {
  if (!dev_full_usable()) GTEST_SKIP() << "no /dev/full";
  // A stand-in for ngspice that writes nothing: compare goes on to its report files.
  write("fake_ngspice.sh", "#!/bin/sh\nexit 0\n");
  fs::permissions(dir_ / "fake_ngspice.sh", fs::perms::owner_all);
  write("rc.cir", "rc\nV1 a 0 1\nR1 a b 1k\nC1 b 0 1u\n.tran 10u 1m\n.end\n");
  const auto r = nsspice("compare rc.cir -d cmp -q --json /dev/full --ngspice '" +
                         (dir_ / "fake_ngspice.sh").string() + "'");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("nsspice: error: " + kFull), std::string::npos) << r.output;
}

TEST_F(WriteFailure, ReportOnAFullStdoutExit3) {
  if (!dev_full_usable()) GTEST_SKIP() << "no /dev/full";
  write("rc.cir", "rc\nV1 a 0 1\nR1 a b 1k\nC1 b 0 1u\n.tran 1m 2m\n.end\n");
  // stdout to /dev/full, stderr to the pipe read here.
  const auto r = run_shell("cd '" + dir_.string() + "' && ( '" + NSSPICE_BINARY +
                           "' run rc.cir > /dev/full )");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find(std::string("cannot write the report to standard output: ") +
                          std::strerror(ENOSPC)),
            std::string::npos)
      << r.output;
  // -q writes nothing there: nothing to lose.
  EXPECT_EQ(run_shell("cd '" + dir_.string() + "' && ( '" + NSSPICE_BINARY +
                      "' run rc.cir -q > /dev/full )")
                .exit_code,
            0);
}

TEST_F(WriteFailure, MissingFolderNamesTheFileAndTheReason) {
  write("rc.cir", kRc);
  const auto r = nsspice("run rc.cir -q -o no/such/dir/out.csv");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(
      r.output.find(std::string("cannot write 'no/such/dir/out.csv': ") + std::strerror(ENOENT)),
      std::string::npos)
      << r.output;
}

TEST_F(WriteFailure, WritersKeepTheFirstErrno) {
  if (!dev_full_usable()) GTEST_SKIP() << "no /dev/full";
  app::CsvWriter csv;
  ASSERT_TRUE(csv.open("/dev/full", "t", {"v(a)"}));  // the header is still buffered
  const std::vector<double> v = {1.0};
  for (int i = 0; i < 10000 && !csv.failed(); ++i) csv.row(1e-6 * i, v);
  EXPECT_TRUE(csv.failed());  // a buffer of 64 KB went out and failed, before close
  EXPECT_FALSE(csv.close());
  EXPECT_EQ(csv.error_number(), ENOSPC);

  app::RawWriter raw(true);
  EXPECT_FALSE(raw.open("/dev/full", "t", {"v(a)"}));  // the header is flushed at once
  EXPECT_EQ(raw.error_number(), ENOSPC);
  EXPECT_FALSE(raw.close());

  EXPECT_EQ(app::write_whole_file("/dev/full", "{}\n"), kFull);
  EXPECT_EQ(app::write_event_log("/dev/full", {}), kFull);
}

TEST_F(WriteFailure, WholeFileWritesAndReportsOpenFailures) {
  const fs::path ok = dir_ / "ok.json";
  EXPECT_EQ(app::write_whole_file(ok.string(), "{\"a\": 1}\n"), "");
  EXPECT_EQ(read_file(ok), "{\"a\": 1}\n");
  const std::string missing = (dir_ / "missing" / "x.json").string();
  EXPECT_EQ(app::write_whole_file(missing, "x"),
            "cannot write '" + missing + "': " + std::strerror(ENOENT));
}

}  // namespace
}  // namespace nsspice::testing
