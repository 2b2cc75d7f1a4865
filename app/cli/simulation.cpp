#include "app/cli/simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>

#include "app/compare/compare_report.hpp"
#include "app/sweep/model_tolerances.hpp"
#include "circuit/elaborate.hpp"
#include "netlist/flatten.hpp"
#include "netlist/parse.hpp"

namespace nsspice::app {

void print_error(const std::string& message) {
  fmt::print(stderr, "nsspice: error: {}\n", message);
}

void netlist_warning(const LoadedNetlist& loaded, netlist::SourceSpan span, std::string message) {
  netlist::Diagnostics diags;
  diags.warning(span, std::move(message));
  std::cerr << diags.format(loaded.sources);
}

std::optional<std::vector<MeasureSpec>> all_measures(const LoadedNetlist& loaded,
                                                     const std::vector<std::string>& texts) {
  std::vector<MeasureSpec> specs = loaded.measures;
  std::string error;
  for (const auto& text : texts) {
    auto spec = parse_measure(text, error);
    if (!spec) {
      print_error(error);
      return std::nullopt;
    }
    specs.push_back(std::move(*spec));
  }
  return specs;
}

namespace {

// The values a sweep point or a Monte Carlo run gives to sources and model parameters, written
// into the flat cards; an unknown source or model is an error at the .step card (or, from the
// command line, without a place).
void apply_overrides(netlist::Netlist& flat, const LoadOptions& o, netlist::Diagnostics& diags) {
  std::map<std::string, double> sources = o.source_values;
  auto models = o.model_params;
  for (auto& card : flat.cards) {
    if (auto* e = std::get_if<netlist::ElementCard>(&card)) {
      auto it = sources.find(e->name.lower);
      if (it == sources.end()) continue;
      for (const auto& fn : e->functions)
        if (fn.kind.lower == "sin" || fn.kind.lower == "pulse" || fn.kind.lower == "pwl" ||
            fn.kind.lower == "exp" || fn.kind.lower == "sffm")
          diags.warning(e->span, fmt::format("stepped source '{}' has a {}(...) waveform: the DC "
                                             "value the step sets ({:g}) is not used by .tran; "
                                             "step a .param of the waveform instead",
                                             e->name.text, fn.kind.text, it->second));
      e->value = netlist::Value{it->second, e->span, ""};
      sources.erase(it);
    } else if (auto* m = std::get_if<netlist::ModelCard>(&card)) {
      for (auto it = models.begin(); it != models.end();) {
        if (it->first.first != m->name.lower) {
          ++it;
          continue;
        }
        auto p = std::find_if(m->params.begin(), m->params.end(), [&](const netlist::Param& q) {
          return q.name.lower == it->first.second;
        });
        if (p == m->params.end()) {
          netlist::Word w{it->first.second, it->first.second, m->span};
          m->params.push_back(netlist::Param{w, w, std::nullopt, m->span});
          p = m->params.end() - 1;
        }
        p->number = it->second;
        p->raw.text = p->raw.lower = fmt::format("{:.17g}", it->second);
        it = models.erase(it);
      }
    }
  }
  if (o.temp) {  // after every .temp and .options card: this one counts
    netlist::OptionsCard card;
    card.span = flat.title_span;
    const netlist::Word name{"temp", "temp", flat.title_span};
    card.params.push_back(
        netlist::Param{name, netlist::Word{fmt::format("{:.17g}", *o.temp), "", flat.title_span},
                       *o.temp, flat.title_span});
    flat.cards.emplace_back(std::move(card));
  }
  // The .step card that names the target (else the title line: a --step-param has no card).
  auto card_of = [&](const std::string& name) {
    netlist::SourceSpan at = flat.title_span;
    for (const auto& c : flat.cards)
      if (const auto* st = std::get_if<netlist::StepCard>(&c); st && st->name.lower == name)
        at = st->span;
    return at;
  };
  for (const auto& [name, v] : sources) {
    diags.error(card_of(name), fmt::format("stepped source '{}' is not in the netlist", name));
    if (o.missing_targets != nullptr) o.missing_targets->push_back(name);
  }
  for (const auto& [key, v] : models) {
    diags.error(card_of(key.first),
                fmt::format("stepped model '{}' is not in the netlist", key.first));
    if (o.missing_targets != nullptr) o.missing_targets->push_back(key.first);
  }
}

// LTspice's ".step NPN 2N2222(VAF) ...": the model must be of the type written.
void check_step_model_types(const netlist::Netlist& flat, netlist::Diagnostics& diags) {
  for (const auto& c : flat.cards) {
    const auto* st = std::get_if<netlist::StepCard>(&c);
    if (st == nullptr || !st->model_type) continue;
    for (const auto& m : flat.cards) {
      const auto* model = std::get_if<netlist::ModelCard>(&m);
      if (model == nullptr || model->name.lower != st->name.lower ||
          model->type.lower == st->model_type->lower)
        continue;
      diags.error(st->model_type->span,
                  fmt::format(".step {} {}({}): model '{}' is of type {}, not {}",
                              st->model_type->text, st->name.text, st->model_param->text,
                              model->name.text, model->type.text, st->model_type->text));
    }
  }
}

}  // namespace

namespace {

// Prints (or keeps) the diagnostics of loading `path`; the netlist, or nullptr after an error
// or (no_tran) without a .tran card.
std::unique_ptr<LoadedNetlist> report_load(const netlist::Diagnostics& diags,
                                           std::unique_ptr<LoadedNetlist> loaded,
                                           const LoadOptions& options, const std::string& path,
                                           bool no_tran) {
  std::string text = diags.all().empty() ? std::string() : diags.format(loaded->sources);
  if (diags.has_errors())
    text += fmt::format("{} error(s); nothing simulated\n", diags.error_count());
  else if (no_tran)
    text += fmt::format(
        "nsspice: error: '{}' has no .tran card: nothing to simulate (add e.g. '.tran 1u 1m')\n",
        path);
  if (options.diagnostics != nullptr)
    *options.diagnostics += text;
  else
    std::cerr << text;
  if (diags.has_errors() || no_tran) return nullptr;
  return loaded;
}

}  // namespace

std::unique_ptr<LoadedNetlist> load_netlist(const std::string& path, bool require_tran) {
  LoadOptions o;
  o.require_tran = require_tran;
  return load_netlist(path, o);
}

std::unique_ptr<LoadedNetlist> load_netlist(const std::string& path, const LoadOptions& options) {
  auto loaded = std::make_unique<LoadedNetlist>();
  netlist::Diagnostics diags;
  netlist::Netlist own;
  const netlist::Netlist* parsed = &own;
  if (options.flat != nullptr) {
    loaded->sources = options.flat->sources();
  } else if (options.reuse != nullptr && options.reuse->parsed) {
    loaded->sources = options.reuse->sources;
    parsed = &*options.reuse->parsed;
  } else {
    own = netlist::parse_file(path, loaded->sources, diags);
  }
  netlist::FlattenOptions flatten_options;
  flatten_options.params = options.params;
  flatten_options.temperature = options.temp;  // .step temp: temper in expressions too
  flatten_options.draw = options.draw;
  if (options.drawn != nullptr)
    flatten_options.drawn = [&options](const std::string& name, double value) {
      options.drawn->emplace_back(name, value);
    };
  std::optional<netlist::Netlist> replayed;
  if (options.flat != nullptr) {
    replayed = options.flat->flatten(diags, flatten_options);
    if (!replayed) {
      if (options.flat_failed != nullptr) *options.flat_failed = true;
      return report_load(diags, std::move(loaded), options, path, false);
    }
  }
  netlist::Netlist flat = replayed
                              ? std::move(*replayed)
                              : netlist::flatten(*parsed, loaded->sources, diags, flatten_options);
  check_step_model_types(flat, diags);
  apply_overrides(flat, options, diags);
  apply_model_tolerances(flat, options.draw, diags, flatten_options.drawn);  // PSpice's DEV/LOT
  // Elaborate even after syntax errors (the bad cards were skipped) so that every problem of
  // the netlist is reported in one run.
  loaded->circuit = circuit::elaborate(flat, diags, options.models, options.pwl_refit);
  if (flat.output_file) loaded->output_file = flat.output_file->text;
  if (parsed == &own) loaded->parsed = std::move(own);
  std::vector<std::string> meas_errors;
  for (const auto& card : flat.cards) {
    if (const auto* step = std::get_if<netlist::StepCard>(&card)) loaded->steps.push_back(*step);
    if (const auto* save = std::get_if<netlist::SaveCard>(&card)) {
      for (const auto& w : save->signals)
        if (std::none_of(loaded->saved.begin(), loaded->saved.end(),
                         [&](const netlist::Word& s) { return s.lower == w.lower; }))
          loaded->saved.push_back(w);
    }
    const auto* meas = std::get_if<netlist::MeasCard>(&card);
    if (meas == nullptr) continue;
    const std::string& analysis = meas->analysis.lower;
    if (!analysis.empty() && analysis != "tran" && analysis != "dc" && analysis != "ac") {
      diags.warning(meas->span, fmt::format("measurement '{}' of .{} ignored: nsspice measures "
                                            ".tran, .dc and .ac runs (.meas tran|dc|ac ...)",
                                            meas->name.lower, analysis));
      continue;
    }
    std::vector<std::string> tokens;
    for (const auto& w : meas->tokens) tokens.push_back(w.text);
    std::string error;
    size_t at = 0;
    auto spec = parse_measure(tokens, meas->name.lower, error, &at);
    if (!spec) {  // at the word at fault
      diags.error(at < meas->tokens.size() ? meas->tokens[at].span : meas->span, error);
      continue;
    }
    spec->analysis = analysis;
    if (analysis != "dc" && analysis != "ac") {
      loaded->measures.push_back(*spec);
      loaded->measure_spans.push_back(meas->span);
    }
    if (analysis != "tran") {
      loaded->sweep_measures.push_back(std::move(*spec));
      loaded->sweep_measure_spans.push_back(meas->span);
    }
  }
  const bool no_tran = options.require_tran && !loaded->circuit.tran;
  return report_load(diags, std::move(loaded), options, path, no_tran);
}

bool refit_ranges(const circuit::TransientResult& result, int pass,
                  std::map<std::string, circuit::PwlRefit>& refit,
                  std::vector<std::string>* notes) {
  std::map<std::string, circuit::PwlRefit> grown;
  std::map<std::string, std::vector<std::string>> met;
  for (const auto& miss : result.range_misses) {
    if (miss.user_range) continue;
    circuit::PwlRefit& r = grown[miss.model];
    r.imin = r.imax == 0 ? miss.imin : std::min(r.imin, miss.imin);
    r.imax = std::max(r.imax, miss.imax);
    met[miss.model].push_back(miss.met);
  }
  bool changed = false;
  const auto say = [&](std::string note) {
    if (notes != nullptr)
      notes->push_back(std::move(note));
    else
      fmt::print(stderr, "nsspice: note: {}\n", note);
  };
  for (auto& [model, r] : grown) {
    circuit::PwlRefit& old = refit[model];  // imax 0: no range refit yet
    if (old.imax > 0) {
      r.imin = std::min(r.imin, old.imin);
      r.imax = std::max(r.imax, old.imax);
      if (!(r.imin < old.imin) && !(r.imax > old.imax)) continue;
    }
    std::string what;
    for (const auto& m : met[model]) what += (what.empty() ? "" : "; ") + m;
    say(fmt::format(
        "model '{}' left the estimated current range of its PWL fit ({}): it is fitted again "
        "over {}–{} and the simulation repeated ({} of at most {})",
        model, what, eng(r.imin, "A"), eng(r.imax, "A"), pass + 1, kPwlRuns));
    old.why = (old.why.empty() ? std::string() : old.why + "; ") +
              fmt::format("simulation {}: {}", pass, what);
    old.imin = r.imin, old.imax = r.imax;
    changed = true;
  }
  // Junction charges off SPICE's (circuit::JunctionChargeMiss): in segments over the voltages
  // met with a quarter more room (a faithful charge changes the swing: an LC ring on a junction
  // goes from −10 V to −12.2 V), and again over a wider swing if a later run goes lower.
  for (const auto& miss : result.charge_misses) {
    auto& charges = refit[miss.model].charge;
    const auto old = charges.find(miss.device);
    if (old != charges.end() && !(miss.lowest < old->second)) continue;
    const double lowest = 1.25 * miss.lowest;
    charges[miss.device] = lowest;
    say(fmt::format(
        "{} '{}' (model '{}'): {}: its charge is fitted again in segments over {:.3g}…0 V "
        "and the simulation repeated ({} of at most {})",
        miss.kind, miss.device, miss.model, miss.met, lowest, pass + 1, kPwlRuns));
    changed = true;
  }
  // LAMBDA factors off the run's charge-weighted 1 + λ·|v_ds| (circuit::LambdaMiss): that
  // average becomes the device's factor (the check asks only when it moves F by more than its
  // tolerance, so the runs stop when it settles).
  for (const auto& miss : result.lambda_misses) {
    refit[miss.model].lambda[miss.device] = miss.factor;
    say(fmt::format(
        "MOSFET '{}' (model '{}'): {}: LAMBDA's factor is set to that average, {:.5g}, and the "
        "simulation repeated ({} of at most {})",
        miss.device, miss.model, miss.met, miss.factor, pass + 1, kPwlRuns));
    changed = true;
  }
  return changed;
}

std::unique_ptr<LoadedNetlist> load_refitted(const std::string& path, const LoadedNetlist& loaded,
                                             const std::map<std::string, circuit::PwlRefit>& refit,
                                             bool ideal) {
  LoadOptions again;
  again.require_tran = false;
  again.reuse = &loaded;
  std::string same;  // the netlist's diagnostics, printed by the first load already
  again.diagnostics = &same;
  again.pwl_refit = refit;
  auto refitted = load_netlist(path, again);
  if (!refitted) {
    print_error("the netlist did not load again with the refitted models:\n" + same);
    return nullptr;
  }
  if (ideal) circuit::idealize_diodes(refitted->circuit);
  return refitted;
}

std::vector<double> source_breakpoints(const circuit::Assembled& assembled, double t_stop) {
  std::vector<double> out;
  for (const auto& wave : assembled.sources) {
    double t = -std::numeric_limits<double>::min();
    for (int guard = 0; guard < 10'000'000; ++guard) {
      t = circuit::waveform_next_breakpoint(wave, t);
      if (!(t <= t_stop)) break;
      out.push_back(t);
    }
  }
  return out;
}

namespace {

// FNV-1a over 64-bit words (a double's bits are one word): a byte-wise FNV-1a was 5 % of a
// 200 000-step run whose rows hold one signal.
void hash_word(std::uint64_t& h, double v) {
  std::uint64_t w = 0;
  std::memcpy(&w, &v, sizeof w);
  h = (h ^ w) * 1099511628211ULL;
}

void hash_row(std::uint64_t& h, double t, const std::vector<double>& values) {
  hash_word(h, t);
  for (const double v : values) hash_word(h, v);
}

}  // namespace

Simulated simulate(const circuit::Circuit& circuit, const circuit::Assembled& assembled,
                   const circuit::SignalTable& signals, const circuit::TransientOptions& options,
                   RowSink& sink, const std::function<void(double)>& progress,
                   std::span<const size_t> only, const std::function<bool()>& stop) {
  const auto start = std::chrono::steady_clock::now();
  Simulated out;
  std::vector<double> values;
  out.result =
      circuit::run_transient(circuit, assembled, options,
                             [&](double t, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda,
                                 const Eigen::VectorXd& xdot) {
                               if (only.empty())
                                 signals.evaluate(x, lambda, values);
                               else
                                 signals.evaluate(x, lambda, xdot, only, values);
                               sink.row(t, values);
                               hash_row(out.rows_hash, t, values);
                               ++out.rows;
                               out.t_last = t;
                               if (progress) progress(t);
                               return !(stop && stop());
                             });
  out.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace nsspice::app
