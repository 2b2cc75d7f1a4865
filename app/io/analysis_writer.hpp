#pragma once
// The file of an .op, .dc or .ac run, laid out as ngspice writes it:
//
//   raw:  Plotname "Operating Point" | "DC transfer characteristic" | "AC Analysis";
//         Flags real (op, dc) or complex (ac: every value, the frequency included, is a pair
//         re,im: ASCII "re,im", binary two float64); variable 0 is the scale ("v(v-sweep)",
//         "frequency"), none for .op (its one point holds the signals only).
//   CSV:  header, then one row per point; .ac writes per signal its magnitude in dB and its
//         phase in degrees under ngspice's names: v(out) → vdb(out), vp(out); i(l1) → idb(l1),
//         ip(l1).
// The point count of a raw file is a padded field rewritten at close (as RawWriter does).
#include <complex>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "app/io/output_file.hpp"

namespace nsspice::app {

struct AnalysisLayout {
  std::string plotname;
  bool complex = false;
  // Leading real columns: (raw name, CSV name), e.g. ("frequency", "frequency"),
  // ("v(v-sweep)", "v-sweep").
  std::vector<std::pair<std::string, std::string>> scale;
  std::vector<std::string> names;  // the signals: "v(out)", "i(l1)"
};

// "v(out)" → "vdb(out)" (dB) or "vp(out)" (phase): the letter, the suffix, the rest.
std::string ac_column_name(const std::string& signal, const char* suffix);
// The CSV's (and the Bode plot's) magnitude in dB, 20·log10|z|, and phase in degrees, arg z.
double magnitude_db(std::complex<double> z);
double phase_deg(std::complex<double> z);

class AnalysisWriter {
 public:
  explicit AnalysisWriter(OutputFormat format) : format_(format) {}
  ~AnalysisWriter();
  AnalysisWriter(const AnalysisWriter&) = delete;
  AnalysisWriter& operator=(const AnalysisWriter&) = delete;

  bool open(const std::string& path, const std::string& title, AnalysisLayout layout);
  // One point: the scale values and the signals (real), or their phasors (complex layout).
  void row(std::span<const double> scale, std::span<const double> values);
  void row(std::span<const double> scale, std::span<const std::complex<double>> values);
  bool close();
  long points() const { return points_; }

 private:
  OutputFormat format_;
  AnalysisLayout layout_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  long points_ = 0;
  long count_pos_ = -1;
  bool failed_ = false;
  void put_raw(std::complex<double> v, bool first);
  void end_row();
};

}  // namespace nsspice::app
