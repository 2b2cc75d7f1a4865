#pragma once
// The measurement grammar, shared by netlist .meas cards and the command line's --meas:
//
//   [NAME] avg|rms|min|max|pp|integ SIGNAL [from=T1] [to=T2]
//   [NAME] when SIGNAL=LEVEL [rise=N|fall=N|cross=N|cross=last] [td=T]
//          (LEVEL a number, or a second signal: ngspice's WHEN v(a)=v(b), SIGNAL − SIGNAL2 = 0)
//   [NAME] find SIGNAL at=T
//   [NAME] find SIGNAL when SIGNAL2=LEVEL [rise=N|fall=N|cross=N] [td=T]
//   [NAME] deriv SIGNAL at=T
//   [NAME] deriv SIGNAL when SIGNAL2=LEVEL [rise=N|fall=N|cross=N] [td=T]
//          (the slope dSIGNAL/dt there: HSPICE's and LTspice's DERIV; ngspice 39 refuses it)
//   [NAME] trig EVENT targ EVENT          (the delay t_targ − t_trig, ngspice's TRIG/TARG)
//     EVENT := SIGNAL val=LEVEL [td=T] [rise=N|fall=N|cross=N|rise=last|...] [from=T1] [to=T2]
//            | at=T
//   NAME param [=] EXPR                   (of the measurements before it: Pout/Pin)
//
// The SIGNAL of avg ... integ, when and find may be arithmetic of signals, evaluated at every
// point (LTspice's `avg V(out)*I(Rload)`; app/measure/signal_expr.hpp): + - * / ^, abs sqrt exp
// log log10 min max pow, numbers; written with or without blanks.
//
// A leading "tran", "dc" or "ac" (the analysis of a netlist .meas card) is kept in `analysis`.
// Numbers take SPICE suffixes (1m, 2.5u). A bare node name is the signal v(name). What the
// measurements compute: app/measure.hpp.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nsspice::netlist {

enum class MeasureKind {
  kAvg,
  kRms,
  kMin,
  kMax,
  kPp,
  kInteg,
  kWhen,
  kFindAt,
  kFindWhen,
  kTrigTarg,
  kParam,
  kMinAt,  // ngspice's MIN_AT, MAX_AT: the time of the window's minimum, maximum
  kMaxAt,
  kDeriv  // DERIV: the signal's slope at an instant (at=, or when SIGNAL2=LEVEL)
};
enum class Edge { kRise, kFall, kCross };

// An instant of the run: the N-th (or last) crossing of a level by a signal, counted among the
// crossings at t >= td inside [from, to]; or, with `at`, the time at itself.
struct CrossingSpec {
  std::string signal;  // empty for a bare "at=T"
  double level = 0;
  Edge edge = Edge::kCross;
  int count = 1;  // the N-th crossing; -1 = last
  double td = 0;
  std::optional<double> from, to, at;
};

struct MeasureSpec {
  std::string name;  // given, or made up as "<kind>_<signal>"
  std::string text;  // as written
  // The analysis it measures: "tran", "dc" or "ac"; empty when not written (LTspice: the run's).
  // Along time, a DC sweep's value or frequency: app/measure/measure.hpp, MeasureScale.
  std::string analysis;
  MeasureKind kind = MeasureKind::kAvg;
  std::string signal;  // the measured signal (kTrigTarg: none; kParam: the expression)
  // kWhen: the crossing of `signal`; kFindWhen: the condition; kFindAt: at only; kDeriv: at
  // only, or the condition;
  // kTrigTarg: the TRIG event.
  CrossingSpec when;
  CrossingSpec targ;               // kTrigTarg: the TARG event
  std::optional<double> from, to;  // the window of avg ... integ

  // Every signal the measurement reads (no empty names).
  std::vector<std::string> signals() const;
};

// The functions of measurement expressions (abs sqrt exp log ln log10 min max pow): a name
// followed by '(' that is not one of them is a signal, v(...), i(...).
bool is_measure_function(std::string_view name);
// Whether a measured signal is arithmetic of signals rather than one signal: an operator outside
// parentheses, or a function around a signal ("v(out)*i(rload)", "-v(a)", "abs(v(a))"); a bare
// node name may hold '-' ("out-1" is v(out-1)).
bool is_measure_expression(std::string_view text);
// The signals such an expression reads (lower case, blanks removed), in order, each once.
std::vector<std::string> measure_refs(std::string_view text);

// Parses the tokens of one measurement (the CLI string split at blanks, or a .meas card's
// tokens after its name, with `name` given). nullopt with `error` set on bad syntax, and
// `*error_token` (if given) set to the index of the token at fault in `tokens` (the last one
// when something is missing at the end).
std::optional<MeasureSpec> parse_measure(const std::vector<std::string>& tokens, std::string name,
                                         std::string& error, size_t* error_token = nullptr);
std::optional<MeasureSpec> parse_measure(const std::string& text, std::string& error);

}  // namespace nsspice::netlist
