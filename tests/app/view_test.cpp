// The waveform viewer: the HTML file itself (self-contained, data intact, no early </script>),
// `nsspice view` and `run --view`, and a real headless Chromium that renders a 10^6-point file,
// zooms, and reads back the visible range and the drawn extremes (skipped, with a message, where
// Chromium is absent; scripts/install-deps.sh installs it for CI).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "app/view/html_view.hpp"
#include "app_test_helpers.hpp"

namespace nsspice::testing {
namespace {

class View : public AppTest {};

TEST(ViewBase64, MatchesRfc4648Vectors) {
  auto b64 = [](const std::string& s) {
    return app::base64(reinterpret_cast<const unsigned char*>(s.data()), s.size());
  };
  EXPECT_EQ(b64(""), "");
  EXPECT_EQ(b64("f"), "Zg==");
  EXPECT_EQ(b64("fo"), "Zm8=");
  EXPECT_EQ(b64("foo"), "Zm9v");
  EXPECT_EQ(b64("foob"), "Zm9vYg==");
  EXPECT_EQ(b64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(b64("foobar"), "Zm9vYmFy");
}

TEST(ViewHtml, SelfContainedAndNoTextEndsAScriptEarly) {
  const std::vector<double> t = {0, 1e-6, 2e-6}, y = {0, 1, 0};
  app::ViewData d;
  d.title = "evil </script><script>alert(1)</script>";
  d.report = "a </script> report";
  d.time = &t;
  d.signals.push_back({"v(out)", &y});
  const std::string html = app::view_html(d);
  EXPECT_EQ(html.find("alert(1)</script>"), std::string::npos);
  // Nothing loaded from elsewhere (uPlot's licence header names its site; nothing fetches it).
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("fetch("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_NE(html.find("uPlot"), std::string::npos);             // the library is inside
  EXPECT_NE(html.find("\"uniform\":true"), std::string::npos);  // t = k·1e-6: no time array
  EXPECT_EQ(html.find("id=\"nsv-time\""), std::string::npos);
}

TEST_F(View, ViewCommandAndRunView) {
  write("rc.cir",
        "rc\nV1 in 0 PULSE(0 1 0 1n 1n 5u 10u)\nR1 in out 1k\nC1 out 0 1n\n.tran 10n 50u\n.end\n");
  CliRun r = nsspice("run rc.cir -o rc.csv --no-progress --view --meas 'max v(out)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("viewer             rc.html"), std::string::npos) << r.output;
  const std::string html = read_file(dir_ / "rc.html");
  EXPECT_NE(html.find("Run report"), std::string::npos);
  EXPECT_NE(html.find("max v(out)"), std::string::npos);
  r = nsspice("view rc.csv -o v.html --signals 'v(out)' --meas 'pp v(out)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("view: v.html"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pp"), std::string::npos) << r.output;
  EXPECT_NE(read_file(dir_ / "v.html").find("\"name\":\"v(out)\""), std::string::npos);
  r = nsspice("view rc.csv --signals 'v(nope)'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  r = nsspice("view missing.csv");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  r = nsspice("view rc.csv -o no/such/dir/v.html");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("no/such/dir/v.html"), std::string::npos) << r.output;
}

std::string chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"})
    if (run_shell(std::string("command -v ") + name).exit_code == 0) return name;
  return {};
}

// The viewer's state after the page ran (#nsv-state, JSON), from Chromium's DOM dump.
std::string page_state(const std::string& browser, const fs::path& html, const std::string& hash) {
  const CliRun r = run_shell(
      fmt::format("timeout 60 {} --headless --no-sandbox --disable-gpu --virtual-time-budget=10000 "
                  "--window-size=1200,900 --dump-dom 'file://{}{}' 2>/dev/null",
                  browser, html.string(), hash));
  const std::string open = "<pre id=\"nsv-state\">";
  const auto a = r.output.find(open);
  if (a == std::string::npos) return {};
  const auto b = r.output.find("</pre>", a);
  return r.output.substr(a + open.size(), b - a - open.size());
}

double number_after(const std::string& json, const std::string& key, size_t from = 0) {
  const auto at = json.find("\"" + key + "\":", from);
  if (at == std::string::npos) return NAN;
  return std::stod(json.substr(at + key.size() + 3));
}

TEST_F(View, HeadlessChromiumRendersAMillionPointsZoomsAndReadsBack) {
  const std::string browser = chromium();
  if (browser.empty())
    GTEST_SKIP() << "chromium not installed (apt-get install chromium, or "
                    "scripts/install-deps.sh): viewer test skipped";
  // 10^6 samples at h = 10 ns: a 100 kHz PWM (100 samples per period) with a ripple and one
  // single-sample spike; the pyramid must keep the spike at every zoom.
  const size_t n = 1000000;
  std::vector<double> t(n), y(n);
  for (size_t k = 0; k < n; ++k) {
    t[k] = static_cast<double>(k) / 1e8;
    y[k] = (k % 1000 < 400 ? 12.0 : 0.0) + 0.01 * std::sin(static_cast<double>(k) * 0.37);
  }
  const size_t spike = 654321;
  y[spike] = 20.0;
  app::ViewData d;
  d.title = "a million points";
  d.time = &t;
  d.signals.push_back({"v(sw)", &y});
  std::string error;
  const fs::path html = dir_ / "million.html";
  ASSERT_TRUE(app::write_view(html.string(), d, error)) << error;
  EXPECT_LT(fs::file_size(html), 6u << 20);  // float32 + base64: about 5.3 MB

  // The whole run: drawn from the pyramid (blocks of more than one sample), spike included.
  const std::string all = page_state(browser, html, "");
  ASSERT_FALSE(all.empty()) << "no state from the page";
  EXPECT_NEAR(number_after(all, "from"), 0, 1e-15);
  EXPECT_NEAR(number_after(all, "to"), t.back(), 1e-15);
  EXPECT_GT(number_after(all, "block"), 1) << all;
  EXPECT_LT(number_after(all, "points"), 20000) << all;
  EXPECT_NEAR(number_after(all, "max"), 20.0, 1e-5) << all;
  // For the record (not a check): the page's own timings of decoding, pyramid and one redraw.
  std::cout << "viewer, 10^6 points: decode " << number_after(all, "decode") << " ms, pyramid "
            << number_after(all, "pyramid") << " ms, redraw " << number_after(all, "redraw")
            << " ms\n";

  // Zoomed on 2 µs around the spike (200 samples): the samples themselves, and the visible range
  // is the one asked for.
  const double from = t[spike - 100], to = t[spike + 100];
  const std::string zoomed = page_state(browser, html, fmt::format("#range={},{}", from, to));
  ASSERT_FALSE(zoomed.empty());
  EXPECT_NEAR(number_after(zoomed, "from"), from, 1e-12 * to) << zoomed;
  EXPECT_NEAR(number_after(zoomed, "to"), to, 1e-12 * to) << zoomed;
  EXPECT_EQ(number_after(zoomed, "block"), 1) << zoomed;
  // The drawn extremes are those of the data in the window (float32: 1e-6 relative).
  double lo = INFINITY, hi = -INFINITY;
  for (size_t k = spike - 100; k <= spike + 100; ++k)
    lo = std::min(lo, y[k]), hi = std::max(hi, y[k]);
  EXPECT_NEAR(number_after(zoomed, "min"), lo, 1e-6 * std::abs(hi)) << zoomed;
  EXPECT_NEAR(number_after(zoomed, "max"), hi, 1e-6 * std::abs(hi)) << zoomed;

  // Zoomed on a window away from the spike: its extremes are the PWM levels, not the spike.
  const std::string calm = page_state(browser, html, "#range=0.001,0.002");
  EXPECT_NEAR(number_after(calm, "max"), 12.01, 0.001) << calm;
  EXPECT_NEAR(number_after(calm, "min"), -0.01, 0.001) << calm;

  // Screenshots before and after the zoom: both drawn, and different.
  for (const auto& [name, hash] : {std::pair<std::string, std::string>{"full.png", ""},
                                   {"zoom.png", fmt::format("#range={},{}", from, to)}})
    run_shell(
        fmt::format("cd '{}' && timeout 60 {} --headless --no-sandbox --disable-gpu "
                    "--hide-scrollbars --virtual-time-budget=10000 --window-size=1200,900 "
                    "--screenshot={} 'file://{}{}' 2>/dev/null",
                    dir_.string(), browser, name, html.string(), hash));
  ASSERT_TRUE(fs::exists(dir_ / "full.png") && fs::exists(dir_ / "zoom.png"));
  EXPECT_GT(fs::file_size(dir_ / "full.png"), 10000u);
  EXPECT_NE(read_file(dir_ / "full.png"), read_file(dir_ / "zoom.png"));
}

}  // namespace
}  // namespace nsspice::testing
