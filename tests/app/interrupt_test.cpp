// SIGINT / SIGTERM during `run` and `compare` (app/cli/interrupt.hpp): a real nsspice child
// process on a long run is signalled; the exit code (128 + signal), the message, and the file
// (CSV ending on a whole row, raw file whose point count matches its data) are checked. A second
// signal ends the process at once, even where the graceful path is blocked.
#include "app/cli/interrupt.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <string_view>
#include <thread>

#include "app/io/waveforms.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

using Clock = std::chrono::steady_clock;

// An RC with a diode, 10^7 fixed steps of 1 ns (seconds of wall time), the file resampled on
// 1 µs: a few thousand rows (tens of KB) per second.
constexpr const char* kLongRun =
    "long run\nV1 a 0 SIN(0 1 1k)\nR1 a b 1k\nC1 b 0 1u\nD1 b c DM\nR2 c 0 1k\n.model DM D\n"
    ".tran 1n 10m\n.end\n";

class Interrupt : public AppTest {
 protected:
  // Starts `nsspice args...` in the test directory, stdout and stderr to files there.
  void start(const std::vector<std::string>& args) {
    std::vector<std::string> all = {NSSPICE_BINARY};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string out = (dir_ / "stdout.txt").string(), err = (dir_ / "stderr.txt").string();
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      if (::chdir(dir_.c_str()) != 0) ::_exit(120);
      const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (o < 0 || e < 0) ::_exit(121);
      ::dup2(o, STDOUT_FILENO);
      ::dup2(e, STDERR_FILENO);
      ::execv(argv[0], argv.data());
      ::_exit(122);
    }
  }
  // True once the child catches SIGINT and SIGTERM (/proc/PID/status, SigCgt): its handlers are
  // installed, so a signal now tests them and not the default action.
  bool handlers_installed() const {
    std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("SigCgt:", 0) != 0) continue;
      const std::string hex = line.substr(line.find_first_not_of(" \t", 7));
      unsigned long long mask = 0;
      std::from_chars(hex.data(), hex.data() + hex.size(), mask, 16);
      const auto bit = [](int sig) { return 1ULL << (sig - 1); };
      return (mask & bit(SIGINT)) != 0 && (mask & bit(SIGTERM)) != 0;
    }
    return false;
  }
  // Waits (at most 30 s) until `ready()` holds; false on timeout or if the child ended.
  template <class Ready>
  bool wait_until(Ready ready) {
    const auto end = Clock::now() + std::chrono::seconds(30);
    while (Clock::now() < end) {
      if (ready()) return true;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  // The child's exit code (-signal if it died of one); killed and -1000 after 60 s.
  int wait_exit() {
    const auto end = Clock::now() + std::chrono::seconds(60);
    int status = 0;
    while (Clock::now() < end) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return -1000;
  }
  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    AppTest::TearDown();
  }
  std::string err() const { return read_file(dir_ / "stderr.txt"); }
  std::string out() const { return read_file(dir_ / "stdout.txt"); }
  // Starts a long run into `file`, waits until it is stepping, signals it once.
  void start_long_run(const std::string& file, std::vector<std::string> extra, int sig) {
    write("long.cir", kLongRun);
    std::vector<std::string> args = {"run", "long.cir", "-o", file, "--grid", "1u"};
    args.insert(args.end(), extra.begin(), extra.end());
    start(args);
    ASSERT_TRUE(wait_until([&] { return handlers_installed() && fs::exists(dir_ / file); }))
        << err();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // some rows computed
    ASSERT_EQ(::kill(pid_, sig), 0);
  }
  // From "interrupted at t = T s; FILE holds N rows (SIG)": T and N.
  static bool parse_message(const std::string& text, const std::string& sig,
                            const std::string& file, double& t, long& rows) {
    const std::string head = "nsspice: interrupted at t = ";
    const auto at = text.find(head);
    if (at == std::string::npos) return false;
    char* end = nullptr;
    t = std::strtod(text.c_str() + at + head.size(), &end);
    const std::string mid = " s; " + file + " holds ";
    if (std::string_view(end).substr(0, mid.size()) != mid) return false;
    rows = std::strtol(end + mid.size(), &end, 10);
    const std::string tail = " rows (" + sig + ")\n";
    return std::string_view(end).substr(0, tail.size()) == tail;
  }
  // The process has ended (an orphan may stay a zombie where nothing reaps orphans, as in some
  // containers: a zombie has ended too).
  static bool gone(pid_t p) {
    if (::kill(p, 0) != 0 && errno == ESRCH) return true;
    const std::string stat = read_file("/proc/" + std::to_string(p) + "/stat");
    const auto close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
  }
  pid_t pid_ = -1;
};

TEST_F(Interrupt, SigintFinishesTheRowClosesTheCsvAndExits130) {
  start_long_run("long.csv", {"--no-progress"}, SIGINT);
  EXPECT_EQ(wait_exit(), 130) << err();
  double t = 0;
  long rows = 0;
  ASSERT_TRUE(parse_message(err(), "SIGINT", "long.csv", t, rows)) << err();
  EXPECT_GT(rows, 1);
  EXPECT_LT(t, 10e-3);  // stopped early
  EXPECT_NE(out().find("run report (interrupted)"), std::string::npos) << out();
  EXPECT_NE(out().find("long.csv (" + std::to_string(rows) + " rows)"), std::string::npos);
  // The CSV ends on a whole row: a newline at the end, every row as wide as the header, numbers
  // only, as many rows as the message says, the last one at the time it names.
  const std::string csv = read_file(dir_ / "long.csv");
  ASSERT_FALSE(csv.empty());
  EXPECT_EQ(csv.back(), '\n');
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  const auto fields = std::count(line.begin(), line.end(), ',') + 1;
  EXPECT_EQ(line.rfind("time,", 0), 0u) << line;
  long data = 0;
  double last_t = -1;
  while (std::getline(in, line)) {
    ++data;
    ASSERT_EQ(std::count(line.begin(), line.end(), ',') + 1, fields) << "row " << data;
    std::istringstream cells(line);
    std::string cell;
    for (int k = 0; std::getline(cells, cell, ','); ++k) {
      double v = 0;
      const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
      ASSERT_TRUE(ec == std::errc() && end == cell.data() + cell.size())
          << "row " << data << ": '" << cell << "'";
      if (k == 0) last_t = v;
    }
  }
  EXPECT_EQ(data, rows);
  EXPECT_NEAR(last_t, t, 1e-9 * t);
}

TEST_F(Interrupt, SigtermLeavesARawFileThatReadsBackAndExits143) {
  start_long_run("long.raw", {"-q"}, SIGTERM);
  EXPECT_EQ(wait_exit(), 143) << err();
  double t = 0;
  long rows = 0;
  ASSERT_TRUE(parse_message(err(), "SIGTERM", "long.raw", t, rows)) << err();
  EXPECT_TRUE(out().empty()) << out();  // -q: no report
  std::string error;
  const auto w = app::read_waveforms((dir_ / "long.raw").string(), error);
  ASSERT_TRUE(w) << error;
  EXPECT_EQ(static_cast<long>(w->points()), rows);
  EXPECT_NEAR(w->time.back(), t, 1e-9 * t);
  ASSERT_EQ(w->names.size(), 5u);  // v(a), v(b), v(c), i(v1), i(d1)
  // The binary data are exactly as long as the count says: time and 5 signals per point.
  const auto size = fs::file_size(dir_ / "long.raw");
  const std::string text = read_file(dir_ / "long.raw");
  const auto data_at = text.find("Binary:\n") + 8;
  EXPECT_EQ(size - data_at, static_cast<std::uintmax_t>(rows) * 6 * sizeof(double));
}

TEST_F(Interrupt, SecondSignalExitsAtOnceWhereTheFirstCannotFinish) {
  // Writing into a FIFO that nobody reads blocks the run in open(): the first signal cannot be
  // acted on; the second one must end the process by itself.
  write("long.cir", kLongRun);
  ASSERT_EQ(::mkfifo((dir_ / "fifo.csv").c_str(), 0644), 0);
  start({"run", "long.cir", "-o", "fifo.csv", "-q"});
  ASSERT_TRUE(wait_until([&] { return handlers_installed(); })) << err();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(::kill(pid_, SIGINT), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int status = 0;
  ASSERT_EQ(::waitpid(pid_, &status, WNOHANG), 0) << "the first signal alone ended the run";
  const auto sent = Clock::now();
  ASSERT_EQ(::kill(pid_, SIGINT), 0);
  EXPECT_EQ(wait_exit(), 130) << err();
  EXPECT_LT(Clock::now() - sent, std::chrono::seconds(5));
  EXPECT_NE(err().find("second signal: exiting at once"), std::string::npos) << err();
}

TEST_F(Interrupt, CompareStopsTheNgspiceProcessGroup) {
  // A stand-in for ngspice that never finishes: a shell with a child (sleep), both in the group
  // that compare starts; their PIDs are written down so that the test can see them gone.
  write("slow_ngspice.sh",
        "#!/bin/sh\necho $$ > shell.pid\nsleep 300 &\necho $! > sleep.pid\nwait\n");
  fs::permissions(dir_ / "slow_ngspice.sh", fs::perms::owner_all);
  write("rc.cir", "rc\nV1 a 0 PULSE(0 1 0 1u 1u 1m 2m)\nR1 a b 1k\nC1 b 0 1u\n.tran 1u 2m\n.end\n");
  start({"compare", "rc.cir", "-d", "cmp", "-q", "--ngspice", (dir_ / "slow_ngspice.sh").string()});
  ASSERT_TRUE(wait_until([&] {
    return fs::exists(dir_ / "cmp" / "sleep.pid") && !read_file(dir_ / "cmp" / "sleep.pid").empty();
  })) << err();
  const pid_t shell = std::stoi(read_file(dir_ / "cmp" / "shell.pid"));
  const pid_t sleeper = std::stoi(read_file(dir_ / "cmp" / "sleep.pid"));
  const auto sent = Clock::now();
  ASSERT_EQ(::kill(pid_, SIGTERM), 0);
  EXPECT_EQ(wait_exit(), 143) << err();
  EXPECT_LT(Clock::now() - sent, std::chrono::seconds(10));
  EXPECT_NE(err().find("nsspice: interrupted at t = 0.002 s; cmp/nsspice.raw holds "),
            std::string::npos)
      << err();
  EXPECT_NE(err().find(" rows; ngspice was stopped (SIGTERM)\n"), std::string::npos) << err();
  // Both members of the group are gone.
  const auto end = Clock::now() + std::chrono::seconds(5);
  while (Clock::now() < end && !(gone(shell) && gone(sleeper)))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(gone(shell));
  EXPECT_TRUE(gone(sleeper));
  // nsspice's own run was complete and is on disk.
  std::string error;
  const auto w = app::read_waveforms((dir_ / "cmp" / "nsspice.raw").string(), error);
  ASSERT_TRUE(w) << error;
  EXPECT_NEAR(w->time.back(), 2e-3, 1e-12);
}

TEST_F(Interrupt, CompareTimeoutStopsTheNgspiceProcessGroup) {
  // The same process-group stop for --timeout: the stand-in never finishes, compare does.
  write("slow_ngspice.sh",
        "#!/bin/sh\necho $$ > shell.pid\nsleep 300 &\necho $! > sleep.pid\nwait\n");
  fs::permissions(dir_ / "slow_ngspice.sh", fs::perms::owner_all);
  write("rc.cir", "rc\nV1 a 0 PULSE(0 1 0 1u 1u 1m 2m)\nR1 a b 1k\nC1 b 0 1u\n.tran 1u 2m\n.end\n");
  const auto start = Clock::now();
  const CliRun r = nsspice("compare rc.cir -d cmp --timeout 0.5 --ngspice '" +
                           (dir_ / "slow_ngspice.sh").string() + "'");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(r.exit_code, 5) << r.output;  // nsspice's side ran; ngspice failed (compare.md)
  EXPECT_NE(r.output.find("ngspice did not finish within 0.5 s (killed)"), std::string::npos)
      << r.output;
  const pid_t sleeper = std::stoi(read_file(dir_ / "cmp" / "sleep.pid"));
  const auto end = Clock::now() + std::chrono::seconds(5);
  while (Clock::now() < end && !gone(sleeper))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(gone(sleeper));
}

TEST(InterruptScope, RecordsTheFirstSignalAndRestoresTheHandlers) {
  struct sigaction before {};
  ::sigaction(SIGTERM, nullptr, &before);
  {
    const app::InterruptScope scope;
    EXPECT_EQ(scope.signal(), 0);
    EXPECT_FALSE(scope.requested());
    ASSERT_EQ(::raise(SIGTERM), 0);  // handled: the process goes on
    EXPECT_EQ(scope.signal(), SIGTERM);
    EXPECT_TRUE(scope.requested());
  }
  struct sigaction after {};
  ::sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
  // A new scope starts clean.
  const app::InterruptScope again;
  EXPECT_EQ(again.signal(), 0);
  EXPECT_EQ(app::interrupted_exit_code(SIGINT), 130);
  EXPECT_EQ(app::interrupted_exit_code(SIGTERM), 143);
  EXPECT_STREQ(app::signal_name(SIGINT), "SIGINT");
}

}  // namespace
}  // namespace nsspice::testing
