// Syntax tree of a SPICE netlist (one struct per card kind; no device semantics applied).
//
//   netlist := title-line card* [.end]
//   card    := element | X-instance | .model | .param | .subckt ... .ends | .include | .lib
//            | .tran | .op | .ic | .nodeset | .options | .print/.save/.probe | .meas | .global
//            | .dc | .ac | .pss
//
// Two stages use this tree:
//  * parse_string()/parse_file() give the PARSED tree: it may hold expressions (Value::expr,
//    Param::raw = "{...}"), ParamCard, FuncCard, InstanceCard, IncludeCard, GlobalCard, subcircuit
//    definitions (Netlist::subckts) and library sections (Netlist::libs).
//  * flatten() (netlist/flatten.hpp) gives the FLAT tree: only ElementCard, ModelCard, TranCard,
//    OpCard, IcCard, NodesetCard, OptionsCard, SaveCard, MeasCard, DcCard, AcCard, PssCard; every
//    Value
//    and every expression Param is a number; subcircuits are expanded into hierarchical names
//    ("x1.x2.r3", nodes "x1.n3"); subckts and libs are empty.
// Values keep their source spans so later layers can report errors at the right place.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "netlist/diagnostics.hpp"
#include "netlist/source.hpp"

namespace nsspice::netlist {

struct Word {
  std::string text;
  std::string lower;  // ASCII lower-case of text
  SourceSpan span;
};

// A number. Parsed tree: `expr` holds the text between the braces/quotes of "{...}" or '...'
// (value is 0 then); flatten() evaluates it into `value` and clears `expr`.
struct Value {
  double value = 0;
  SourceSpan span;
  std::string expr;
};

// NAME=VALUE; name.lower is used for lookup; number is set when raw is a SPICE number.
// raw.text "{expr}" or "'expr'" is an expression: number is empty in the parsed tree and set
// by flatten() (raw is kept as written). Other non-numbers (e.g. "method=event") stay raw.
struct Param {
  Word name;
  Word raw;
  std::optional<double> number;
  SourceSpan span;
};

// SIN(...) PULSE(...) PWL(...) EXP(...) SFFM(...): kind.lower in {"sin", "pulse", "pwl", "exp",
// "sffm"}; args as written (numbers or expressions). params: named options of the function,
// written inside the parentheses or right after them: PWL's "r=" (repeat from time r) and "td="
// (delay), e.g. PWL(0 0 1m 1) r=0 td=2m.
//
// PWL's other forms (LTspice, PSpice) are read into the same fields: (t v) pairs each in its own
// parentheses; a time written "+t" (relative to the previous point: its index is in `relative`);
// REPEAT FOREVER | FOR n ( ... ) ENDREPEAT as the whole list (param "repeat" = n, 0 forever);
// FILE name | file=name (param "file", read by flatten(): its points become args);
// TIME_SCALE_FACTOR= and VALUE_SCALE_FACTOR= (params).
struct SourceFunction {
  Word kind;
  std::vector<Value> args;
  SourceSpan span;
  std::vector<Param> params;
  std::vector<std::size_t> relative;  // PWL: args that are times relative to the previous one
};

// Notes locating a card inside the subcircuit instances and include files that produced it
// (innermost first). Append them to any diagnostic about the card. Null for top-level cards.
using CardContext = std::shared_ptr<const std::vector<Diagnostic>>;

// One device. Fields by element letter (nodes in card order):
//   R C L   nodes[2], value, params (IC= on C/L, others kept)
//   K       refs = {L1, L2}, value = coupling k; no nodes
//   V I     nodes[2], value = DC value, functions[0..1], params ("ac", "acphase", others)
//   E G     nodes[4] (n+ n- nc+ nc-), value = gain | E comparator form: model instead of value
//   F H     nodes[2], refs = {controlling voltage source}, value = gain | transresistance
//   E G F H POLY(1): as above without value; functions[0] = {kind "poly", args p0 p1 ...}
//   D       nodes[2], model, flags (OFF), params (IC= area ...)
//   S       nodes[4] (n+ n- nc+ nc-), model, flags (ON | OFF)
//   W       nodes[2], refs = {controlling voltage source}, model, flags (ON | OFF)
//   M       nodes[4] (d g s b) or nodes[3] (d g s: VDMOS), model, params (W= L= ...), flags
//   Q       nodes[3|4] (c b e [substrate]), model, value = area (if written), params, flags
// The bytes [first, second) of a written expression that bytes [offset, offset + length) of its
// expansion come from, `origin` giving each expanded byte's (ExprBindings); empty origin: the
// expansion is the written text.
inline std::pair<std::size_t, std::size_t> written_range(
    const std::vector<std::pair<std::size_t, std::size_t>>& origin, std::size_t offset,
    std::size_t length) {
  if (origin.empty()) return {offset, offset + length};
  if (offset >= origin.size()) return {origin.back().second, origin.back().second + 1};
  std::pair<std::size_t, std::size_t> r = origin[offset];
  for (std::size_t k = offset; k < std::min(origin.size(), offset + length); ++k)
    r = {std::min(r.first, origin[k].first), std::max(r.second, origin[k].second)};
  return r;
}

// How the names in a behavioural expression (B V=/I=, E/G VALUE=) resolve in the flat netlist,
// filled by flatten(): the values of the .param names it reads and, inside a subcircuit
// instance, the flat names of the nodes in its v(...) and of the elements in its i(...).
// A name absent here is taken as written.
struct ExprBindings {
  std::map<std::string, double> params;         // parameter (lower case) -> value
  std::map<std::string, std::string> nodes;     // node as written (lower) -> flat name
  std::map<std::string, std::string> elements;  // element in i(x) (lower) -> flat name
  // The expression with its .func calls expanded (empty: it has none; parse the text as
  // written), and for each byte of `expanded` the bytes [first, second) of the written text it
  // comes from (a function body's bytes: the whole call).
  std::string expanded;
  std::vector<std::pair<std::size_t, std::size_t>> origin;
  std::pair<std::size_t, std::size_t> written(std::size_t offset, std::size_t length) const {
    return written_range(origin, offset, length);
  }
};

struct ElementCard {
  Word name;                              // "R1", "d3", "x1.r3" (flat); lower is unique
  std::vector<Word> nodes;                // node names as written ("0", "gnd", "out", "x1.n3")
  std::optional<Value> value;             // see the table above
  std::optional<Word> model;              // D S W M Q R, E comparator: model name
  std::vector<SourceFunction> functions;  // V/I: SIN PULSE PWL EXP SFFM
  std::vector<Param> params;              // e.g. IC=1.5 on C/L; "ac" (and "acphase") on V/I
  SourceSpan span;                        // whole card (first line)
  // The element kind: lower-case first letter of the name as written on its card ('r' for
  // "x1.r3"). Set by the parser; 0 in cards built by hand (then use name.lower[0]).
  char letter = 0;
  std::vector<Word> refs;   // K: inductor names; F H W: controlling V source (hierarchical)
  std::vector<Word> flags;  // bare keywords after the model, lower-cased: "on", "off"
  CardContext context;      // flat tree: the instance/include chain, null at top level
  std::shared_ptr<const ExprBindings> bindings;  // behavioural expressions only (flatten)
};

// The expression of a behavioural source: B's V= or I=, E's or G's VALUE=; null otherwise.
inline const Param* behavioural_expression(const ElementCard& e) {
  const char letter = e.letter != 0 ? e.letter : (e.name.lower.empty() ? '\0' : e.name.lower[0]);
  if (letter != 'b' && letter != 'e' && letter != 'g') return nullptr;
  for (const auto& p : e.params) {
    const bool b_key = letter == 'b' && (p.name.lower == "v" || p.name.lower == "i");
    if (b_key || (letter != 'b' && p.name.lower == "value")) return &p;
  }
  return nullptr;
}

// .model DMOD D(VF=0.7 RON=0.1)   (parentheses optional, as in SPICE); any type is kept.
struct ModelCard {
  Word name;  // inside a subcircuit instance: hierarchical ("x1.dmod") after flatten
  Word type;  // empty in a parsed AKO card that names no type (its base's, after resolution)
  std::vector<Param> params;
  // PSpice's `.MODEL QP AKO:QP350 [PNP] (BF=150)` ("a kind of"): the model it copies, before
  // flatten() resolves it (detail::resolve_ako: the base's parameters, then these over them).
  std::optional<Word> ako;
  SourceSpan span;
  CardContext context;  // as ElementCard::context
};

// .tran TSTEP TSTOP [TSTART [TMAX]] [UIC], or .tran TSTOP [UIC] (LTspice; tstep = 0 then, its
// span that of TSTOP). TSTEP = 0 means "no print interval given".
struct TranCard {
  Value tstep;
  Value tstop;
  std::optional<Value> tstart;
  std::optional<Value> tmax;
  bool uic = false;
  bool nodiscard = false;  // LTspice's NODISCARD: the points before TSTART kept too
  SourceSpan span;
};

struct IcEntry {
  Word node;  // the node; for `current`, the inductor
  Value value;
  SourceSpan span;
  bool current = false;  // I(L1)=value (LTspice's .ic of an inductor's current)
};

// .ic V(n1)=10 v(out)=0 I(L1)=0.5
struct IcCard {
  std::vector<IcEntry> entries;
  SourceSpan span;
};

// .options THETA=0.5 (also .option, .opt); flags without '=' get raw="" and no number;
// non-numeric values are kept raw ("method=event": raw.lower == "event", number empty).
struct OptionsCard {
  std::vector<Param> params;
  SourceSpan span;
};

// .op
struct OpCard {
  SourceSpan span;
};

// .step (LTspice), one sweep dimension; up to three cards nest, the first outermost:
//   .step [lin] param NAME start stop incr     .step dec|oct param NAME start stop points
//   .step param NAME list v1 v2 ...            (values in that order)
//   .step [...] SRC ...                        a V or I source's DC value
//   .step [...] MODEL(PARAM) ...               a parameter of a .model card
struct StepCard {
  enum class Scale { kList, kLin, kDec, kOct };
  enum class Target { kParam, kSource, kModel, kTemp };
  Scale scale = Scale::kLin;
  Target target = Target::kParam;
  Word name;                        // parameter, source or model name; "temp" for kTemp
  std::optional<Word> model_param;  // kModel: the model's parameter
  std::optional<Word> model_type;   // kModel in LTspice's spelling "NPN 2N2222(VAF)": the type
  // kList: the values; otherwise start, stop and the increment (lin) or the points per decade
  // or octave (dec, oct).
  std::vector<Value> values;
  SourceSpan span;
};

// .nodeset V(n1)=1 ...: same shape as .ic (a start guess for the operating point).
struct NodesetCard {
  std::vector<IcEntry> entries;
  SourceSpan span;
};

// .print [tran] sig... | .save sig... | .probe sig...
// signals: `lower` is the signal's name, without blanks: "v(a)", "v(a,b)", "i(vsrc)",
// "p(r1)", "all", "allv", "alli"; a bare node name "a" is stored as "v(a)", ngspice's "@d1[id]"
// as "i(d1)" and "@r1[p]" as "p(r1)". `text` is the signal as written; `span` points at it.
struct SaveCard {
  Word command;                  // ".print", ".save" or ".probe" as written
  std::optional<Word> analysis;  // .print's analysis keyword (tran, op, dc, ac), if written
  std::vector<Word> signals;
  SourceSpan span;
};

// .meas|.measure ANALYSIS NAME token...
// tokens: every item after NAME, blanks removed ("trig", "v(out)", "val=2.5", "rise=1");
// lower is the lower-cased text. After flatten, "{expr}" right-hand sides are numbers.
struct MeasCard {
  Word analysis;  // "tran", ...
  Word name;
  std::vector<Word> tokens;
  SourceSpan span;
};

// .dc SRC START STOP STEP [SRC2 START2 STOP2 STEP2]: sweeps[0] is the inner (fastest) sweep.
struct DcSweep {
  Word source;  // a V or I source (hierarchical after flatten), or a top-level .param
  Value start, stop, step;
  bool parameter = false;  // flat tree: `source` names a top-level .param
};
struct DcCard {
  std::vector<DcSweep> sweeps;  // 1 or 2
  SourceSpan span;
};

// .ac DEC|OCT|LIN N FSTART FSTOP
struct AcCard {
  Word variation;  // lower: "dec", "oct" or "lin"
  Value points;    // points per decade / octave, or in all (lin)
  Value fstart, fstop;
  SourceSpan span;
};

// .pss, two forms (docs/netlist.md, ".pss"):
//   ngspice:  .pss GFREQ TSTAB OSCNOB [PSSPOINTS [HARMS [SCITER [STEADY_COEFF]]]] [UIC]
//             (`positional` holds the numbers in that order, OSCNOB excepted; `node` OSCNOB)
//   nsspice:  .pss [TRIG signal [VAL=level] [RISE|FALL]] PERIOD=T|FREQ=F [TSTAB=t] [PERIODS=K]
//             [STEPS=N] [WARMUP=W] [MAXITER=N] [UIC]
//             (`params` the NAME=VALUE items, names checked by the parser; `trigger` the signal
//             without blanks, e.g. "v(cap)"; `falling` for FALL)
struct PssCard {
  bool ngspice = false;
  std::vector<Value> positional;
  std::optional<Word> node;
  std::vector<Param> params;
  std::optional<Word> trigger;
  bool falling = false;
  bool uic = false;
  SourceSpan span;
};

// ---- Parsed tree only (flatten() removes these) ----

// .param a=1 b={2*a}  (values are expressions even without braces: ".param c=a*2")
struct ParamCard {
  std::vector<Param> params;
  SourceSpan span;
};

// .func NAME(P1, ..., Pn) BODY   BODY: {expr}, 'expr', = {expr}, = 'expr' or a bare expression
// (ngspice, LTspice, HSPICE); a call NAME(A1, ..., An) in an expression of the same body (the
// netlist, or the subcircuit that holds the card) is replaced by BODY with each Pk := Ak.
struct FuncCard {
  Word name;
  std::vector<Word> params;  // distinct
  std::string body;          // the expression, without its delimiters
  SourceSpan span;
};

// Xname node... subckt [params:] [k=v ...]
struct InstanceCard {
  Word name;
  std::vector<Word> nodes;
  Word subckt;
  std::vector<Param> params;  // overrides, evaluated in the instantiating scope
  SourceSpan span;
};

// .include FILE | .inc FILE | .lib FILE SECTION   (FILE may be quoted)
struct IncludeCard {
  Word keyword;  // ".include" or ".lib" as written
  Word path;     // without quotes
  std::optional<Word> section;
  SourceSpan span;
};

// .global node...
struct GlobalCard {
  std::vector<Word> nodes;
  SourceSpan span;
};

using Card = std::variant<ElementCard, ModelCard, TranCard, IcCard, OptionsCard, OpCard,
                          NodesetCard, SaveCard, MeasCard, ParamCard, InstanceCard, IncludeCard,
                          GlobalCard, StepCard, DcCard, AcCard, PssCard, FuncCard>;

// .subckt NAME pin... [params:] [k=v ...] ... .ends [NAME]
struct SubcktDef {
  Word name;
  std::vector<Word> pins;
  std::vector<Param> params;  // defaults
  std::vector<Card> cards;
  std::vector<SubcktDef> subckts;  // definitions local to this subcircuit
  SourceSpan span;
};

// .lib NAME ... .endl [NAME]  (a section of a library file, used by ".lib FILE NAME")
struct LibSection {
  Word name;
  std::vector<Card> cards;
  std::vector<SubcktDef> subckts;
  SourceSpan span;
};

struct Netlist {
  std::string title;
  SourceSpan title_span;
  std::vector<Card> cards;
  bool has_end = false;
  std::vector<SubcktDef> subckts;  // top-level definitions (parsed tree only)
  std::vector<LibSection> libs;    // library sections (parsed tree only)
  // The file of a .control block's `wrdata FILE ...` or `write FILE ...` (the last one), as
  // written; the output destination of a run that names none.
  std::optional<Word> output_file;
};

}  // namespace nsspice::netlist
