#pragma once
// The measurement grammar, shared by netlist .meas cards and the command line's --meas:
//
//   [NAME] avg|rms|min|max|pp|integ SIGNAL [from=T1] [to=T2]
//   [NAME] when SIGNAL=LEVEL [rise=N|fall=N|cross=N|cross=last] [td=T]
//   [NAME] find SIGNAL at=T
//   [NAME] find SIGNAL when SIGNAL2=LEVEL [rise=N|fall=N|cross=N] [td=T]
//
// A leading "tran" (the analysis of a netlist .meas card) is accepted and ignored. Numbers take
// SPICE suffixes (1m, 2.5u). A bare node name is the signal v(name). What the measurements
// compute: app/measure.hpp.
#include <optional>
#include <string>
#include <vector>

namespace nsspice::netlist {

enum class MeasureKind { kAvg, kRms, kMin, kMax, kPp, kInteg, kWhen, kFindAt, kFindWhen };
enum class Edge { kRise, kFall, kCross };

struct MeasureSpec {
  std::string name;  // given, or made up as "<kind>_<signal>"
  std::string text;  // as written
  MeasureKind kind = MeasureKind::kAvg;
  std::string signal;       // the measured signal
  std::string when_signal;  // kWhen: = signal; kFindWhen: the crossing signal
  double level = 0;         // crossing level
  Edge edge = Edge::kCross;
  int count = 1;  // the N-th crossing; -1 = last
  double td = 0;  // crossings counted from td
  std::optional<double> from, to, at;
};

// Parses the tokens of one measurement (the CLI string split at blanks, or a .meas card's
// tokens after its name, with `name` given). nullopt with `error` set on bad syntax.
std::optional<MeasureSpec> parse_measure(const std::vector<std::string>& tokens, std::string name,
                                         std::string& error);
std::optional<MeasureSpec> parse_measure(const std::string& text, std::string& error);

}  // namespace nsspice::netlist
