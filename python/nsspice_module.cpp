// nsspice._nsspice: the C++ side of the Python module (docs/python.md). It calls what
// `nsspice run` calls: load_netlist (parse, flatten, elaborate), make_sweep_plan and sweep_run
// for sweeps and Monte Carlo, run_to_file with a writer that keeps the columns in memory, and
// read_waveforms / read_raw_plots for files; python/nsspice/__init__.py wraps the plain dicts
// returned here into Result objects. The GIL is released from the parse to the last row, so
// Python threads simulate in parallel; the calling thread takes it back every 0.1 s to let
// Python see a Ctrl-C (which stops the runs after their current row and is raised here).
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <complex>
#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include "app/cli/report.hpp"
#include "app/cli/run_command.hpp"
#include "app/cli/run_plan.hpp"
#include "app/cli/simulation.hpp"
#include "app/cli/sweep_command.hpp"
#include "app/io/raw_reader.hpp"
#include "app/io/waveforms.hpp"
#include "app/sweep/run_pool.hpp"
#include "circuit/elaborate.hpp"
#include "netlist/parse.hpp"

namespace py = pybind11;
namespace app = nsspice::app;

namespace {

// A run's columns in memory.
class ColumnWriter : public app::WaveformWriter {
 public:
  bool open(const std::string&, const std::string& title,
            const std::vector<std::string>& names) override {
    waves.title = title;
    waves.names = names;
    waves.columns.assign(names.size(), {});
    return true;
  }
  void row(double t, std::span<const double> values) override {
    waves.time.push_back(t);
    for (size_t k = 0; k < values.size(); ++k) waves.columns[k].push_back(values[k]);
  }
  bool close() override { return true; }
  app::Waveforms waves;
};

// A NumPy array owning the vector's memory (no copy).
py::array_t<double> to_array(std::vector<double>&& v) {
  auto* heap = new std::vector<double>(std::move(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<double>*>(p); });
  return py::array_t<double>(static_cast<py::ssize_t>(heap->size()), heap->data(), owner);
}

double monotonic_now() {  // CLOCK_MONOTONIC, the clock of Python's time.monotonic()
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The stop predicate of the runs: the calling thread checks for Python signals every 0.1 s
// (with the GIL); a KeyboardInterrupt stops every run of the call after its current row and is
// raised when the call returns.
class PythonStop {
 public:
  int operator()() {
    if (std::this_thread::get_id() == caller_ && signal_ == 0) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_ > std::chrono::milliseconds(100)) {
        last_ = now;
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) {
          error_.emplace();  // takes the exception (KeyboardInterrupt) out of the interpreter
          signal_ = SIGINT;
        }
      }
    }
    return signal_.load();
  }
  void raise_if_stopped() {
    if (error_) throw std::move(*error_);
  }

 private:
  std::thread::id caller_ = std::this_thread::get_id();
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::atomic<int> signal_{0};
  std::optional<py::error_already_set> error_;
};

// The options of a call (already checked and converted by __init__.py).
struct Call {
  std::string source;  // a path, or the netlist's text
  bool is_text = false;
  bool sweep = false;  // nsspice.sweep(): always a list of runs
  app::RunOptions run;
  std::map<std::string, double> params;
  std::string run_range;  // run= ("K" or "A:B"), parsed without the GIL
};

template <class T>
void take(const py::dict& d, const char* key, T& into) {
  if (d.contains(key) && !d[key].is_none()) into = d[key].cast<T>();
}

Call read_call(const std::string& source, bool is_text, bool sweep, const py::dict& o) {
  Call c;
  c.source = source;
  c.is_text = is_text;
  c.sweep = sweep;
  app::RunOptions& r = c.run;
  r.netlist = is_text ? "<string>" : source;
  r.quiet = true;
  r.progress = false;
  take(o, "save", r.save);
  take(o, "meas", r.measures);
  take(o, "method", r.method);
  take(o, "lcp_solver", r.lcp_solver);
  take(o, "ideal", r.ideal);
  take(o, "step_param", r.step_params);
  take(o, "runs", r.runs);
  take(o, "seed", r.seed);
  take(o, "jobs", r.jobs);
  take(o, "params", c.params);
  take(o, "run", c.run_range);
  for (auto [key, field] :
       {std::pair{"step", &r.step}, std::pair{"theta", &r.theta}, std::pair{"grid", &r.grid},
        std::pair{"evrtol", &r.evrtol}, std::pair{"max_rows", &r.max_rows}})
    if (o.contains(key) && !o[key].is_none()) *field = o[key].cast<double>();
  return c;
}

// What the GIL-free part of a call produces.
struct Done {
  std::string error;  // bad input: the diagnostics or the message (raised)
  bool netlist_error = false;
  std::string warnings;  // the netlist's warnings as printed
  bool is_sweep = false;
  std::optional<app::SweepPlan> plan;
  std::vector<app::RunOutcome> outcomes;
  std::vector<ColumnWriter> writers;
  std::vector<std::string> diagnostics;  // per run
  std::vector<double> started, finished;
};

// Parses (the text, or the file), flattens and elaborates the nominal netlist.
std::unique_ptr<app::LoadedNetlist> load(const Call& c, Done& done) {
  app::LoadOptions lo;
  lo.params = c.params;
  if (c.run.runs > 0) lo.draw = [](bool) { return 0.0; };  // the runs draw; the nominal is silent
  lo.diagnostics = &done.warnings;
  app::LoadedNetlist text;
  if (c.is_text) {
    nsspice::netlist::Diagnostics diags;
    nsspice::netlist::ParseOptions po;
    po.location = (std::filesystem::current_path() / "<string>").string();  // .include from here
    text.parsed = nsspice::netlist::parse_string(c.source, "<string>", text.sources, diags, po);
    done.warnings += diags.all().empty() ? std::string() : diags.format(text.sources);
    if (diags.has_errors()) {
      done.netlist_error = true;
      done.error = std::move(done.warnings);
      return nullptr;
    }
    lo.reuse = &text;
  }
  auto loaded = app::load_netlist(c.run.netlist, lo);
  if (!loaded) {
    done.netlist_error = true;
    done.error = std::move(done.warnings);
    return nullptr;
  }
  if (c.is_text) loaded->parsed = std::move(text.parsed);  // the runs of a sweep flatten it
  if (c.run.ideal) nsspice::circuit::idealize_diodes(loaded->circuit);
  return loaded;
}

// The plan of the nominal netlist: every option checked before a run (as `run` does).
bool options_fit(const Call& c, const app::LoadedNetlist& loaded, Done& done) {
  const auto assembled = nsspice::circuit::assemble(loaded.circuit);
  const auto signals = nsspice::circuit::make_signals(loaded.circuit, assembled);
  return app::make_run_plan(c.run, loaded, signals.names, done.error).has_value();
}

void run_one(const Call& c, const app::LoadedNetlist& loaded, PythonStop& stop, Done& done) {
  done.writers.resize(1);
  done.diagnostics.resize(1);
  done.started.push_back(monotonic_now());
  done.outcomes.push_back(app::run_to_file(
      c.run, loaded, [&] { return stop(); }, &done.writers[0]));
  done.finished.push_back(monotonic_now());
}

void run_sweep(const Call& c, const app::LoadedNetlist& nominal, PythonStop& stop, Done& done) {
  std::string printed;
  done.plan = app::make_sweep_plan(c.run, nominal, printed);
  if (!done.plan) {
    constexpr std::string_view kPrefix = "nsspice: error: ";
    done.netlist_error = printed.rfind(kPrefix, 0) != 0;
    done.error = done.netlist_error ? printed : printed.substr(kPrefix.size());
    return;
  }
  done.plan->params = c.params;
  const std::size_t n = done.plan->runs.size();
  done.is_sweep = true;
  done.outcomes.resize(n);
  done.writers.resize(n);
  done.diagnostics.resize(n);
  done.started.resize(n);
  done.finished.resize(n);
  const app::SweepShare shared(nominal, *done.plan);  // flattened once, restamped on its pattern
  const app::RunShare share = shared.share();
  std::atomic<std::size_t> next{0};
  const std::size_t jobs =
      std::min(c.run.jobs > 0 ? static_cast<std::size_t>(c.run.jobs) : app::default_jobs(), n);
  app::run_on_threads(
      jobs,
      [&]() -> std::optional<std::size_t> {
        const std::size_t k = next++;
        if (k >= n || stop() != 0) return std::nullopt;
        return k;
      },
      [&](std::size_t k) {
        done.started[k] = monotonic_now();
        done.outcomes[k] = app::sweep_run(
            c.run, nominal, *done.plan, k, [&] { return stop(); }, done.diagnostics[k],
            &done.writers[k], &share);
        done.finished[k] = monotonic_now();
      });
}

void simulate_without_gil(Call& c, PythonStop& stop, Done& done) {
  if (const std::string why = c.run.validate(); !why.empty()) {
    done.error = why;
    return;
  }
  if (!c.run_range.empty() && !(c.run.run_range = app::parse_run_range(c.run_range, done.error))) {
    done.error = "run=" + done.error;  // "run='3:1': expected ..."
    return;
  }
  auto loaded = load(c, done);
  if (!loaded || !options_fit(c, *loaded, done)) return;
  const bool sweep = c.sweep || c.run.runs > 0 || !c.run.step_params.empty() ||
                     !loaded->steps.empty() || c.run.run_range;
  if (sweep)
    run_sweep(c, *loaded, stop, done);
  else
    run_one(c, *loaded, stop, done);
}

const char* status_of(int code) {
  if (code == 0) return "ok";
  if (code == app::kSimulationFailed) return "stopped";
  return code > 128 ? "interrupted" : "failed";
}

py::dict report_of(const app::RunOutcome& o, double started, double finished) {
  const auto& r = o.transient;
  const auto& s = r.stats;
  py::dict d;
  d["status"] = status_of(o.code);
  d["message"] = o.message;
  d["rows"] = o.rows;
  d["t_end"] = o.t_end;
  d["method"] = r.method == nsspice::circuit::TranMethod::kEvent ? "event" : "theta";
  d["theta"] = r.theta;
  d["step_rule"] = r.step_rule;
  // A sweep's run: "restamped" on the nominal circuit's pattern or "rebuilt"; "" alone.
  d["assembly"] = o.assembly == app::RunAssembly::kRestamped ? "restamped"
                  : o.assembly == app::RunAssembly::kRebuilt ? "rebuilt"
                                                             : "";
  d["shared_analysis"] = o.shared_analysis;
  d["flatten"] = o.flatten == app::RunFlatten::kTemplate ? "template"
                 : o.flatten == app::RunFlatten::kAnew   ? "anew"
                                                         : "";
  d["steps"] = s.steps;
  d["rejected_steps"] = s.rejected_steps;
  d["restart_steps"] = s.restart_steps;
  d["breakpoints"] = s.breakpoints;
  d["lcp_solves"] = s.lemke_calls;
  d["pivots"] = s.pivots;
  d["mode_changes"] = s.mode_changes;
  d["factorizations"] = s.factorizations;
  d["refactorizations"] = s.refactorizations;
  d["cache_hits"] = s.cache_hits;
  d["cache_misses"] = s.cache_misses;
  d["max_dense_order"] = s.max_dense_order;
  d["dense_allocations"] = s.dense_allocations;
  d["low_rank_modes"] = s.low_rank_modes;
  d["low_rank_solves"] = s.low_rank_solves;
  d["held_solves"] = s.held_solves;
  d["transform_hits"] = s.transform_hits;
  d["answer_reuses"] = s.answer_reuses;
  d["singular_answers"] = s.singular_answers;
  d["factor_peak_bytes"] = s.factor_peak_bytes;
  d["max_residual"] = s.max_residual;
  d["events"] = r.event_stats.events;
  d["stepping_seconds"] = o.stepping_seconds;
  d["started"] = started;  // time.monotonic() at the start and the end of the run
  d["finished"] = finished;
  d["warnings"] = o.warnings;
  d["text"] = app::format_report(r, finished - started, o.stepping_seconds, "(in memory)", o.rows);
  return d;
}

// Complex data (an AC analysis's raw file): re + i·im as a complex128 array.
py::array_t<std::complex<double>> to_complex_array(const std::vector<double>& re,
                                                   const std::vector<double>& im) {
  py::array_t<std::complex<double>> out(static_cast<py::ssize_t>(re.size()));
  auto z = out.mutable_unchecked<1>();
  for (std::size_t i = 0; i < re.size(); ++i)
    z(static_cast<py::ssize_t>(i)) = {re[i], i < im.size() ? im[i] : 0.0};
  return out;
}

py::dict waveforms_dict(app::Waveforms&& w) {
  py::dict d;
  d["title"] = w.title;
  d["names"] = w.names;
  d["scale"] = w.scale_name;  // "time"; "frequency" (AC); a DC sweep's "v(v-sweep)"
  d["note"] = w.note;         // what the reader left out (a stepped LTspice run's other runs)
  d["time"] = to_array(std::move(w.time));
  py::list columns;
  for (std::size_t k = 0; k < w.columns.size(); ++k)
    if (w.complex)
      columns.append(to_complex_array(w.columns[k], w.imag[k]));
    else
      columns.append(to_array(std::move(w.columns[k])));
  d["columns"] = columns;
  return d;
}

py::dict result_of(Done& done, std::size_t k) {
  app::RunOutcome& o = done.outcomes[k];
  py::dict d = waveforms_dict(std::move(done.writers[k].waves));
  py::dict meas, failures;
  for (const auto& m : o.measures) {
    meas[py::str(m.name)] = m.value ? py::object(py::float_(*m.value)) : py::object(py::none());
    if (!m.failure.empty()) failures[py::str(m.name)] = m.failure;
  }
  d["meas"] = meas;
  py::dict report = report_of(o, done.started[k], done.finished[k]);
  report["meas_failures"] = failures;
  d["report"] = report;
  d["diagnostics"] = done.diagnostics[k];
  py::dict values;
  if (done.plan) {
    const auto& run = done.plan->runs[k];
    for (std::size_t j = 0; j < done.plan->dims.size(); ++j)
      values[py::str(done.plan->dims[j].label)] = run.values[j];
    for (const auto& [name, value] : o.drawn) values[py::str(name)] = value;
    d["trial"] = done.plan->monte_carlo ? py::object(py::int_(run.trial + 1)) : py::none();
  }
  d["values"] = values;
  d["run"] = done.plan ? done.plan->runs[k].index + 1 : k + 1;
  return d;
}

// {"error": text, "netlist_error": bool} or {"warnings": text, "sweep": bool, "runs": [...]}.
py::dict simulate(const std::string& source, bool is_text, bool sweep, const py::dict& options) {
  Call call = read_call(source, is_text, sweep, options);
  PythonStop stop;
  Done done;
  {
    py::gil_scoped_release free;
    simulate_without_gil(call, stop, done);
  }
  stop.raise_if_stopped();
  py::dict out;
  if (!done.error.empty()) {
    out["error"] = done.error;
    out["netlist_error"] = done.netlist_error;
    return out;
  }
  out["warnings"] = done.warnings;
  out["sweep"] = done.is_sweep;
  py::list runs;
  for (std::size_t k = 0; k < done.outcomes.size(); ++k) runs.append(result_of(done, k));
  out["runs"] = runs;
  return out;
}

// Every plot of a raw file (one per run of a sweep) or the one table of a CSV.
py::list read_file(const std::string& path, bool raw) {
  std::string error;
  std::vector<app::Waveforms> plots;
  {
    py::gil_scoped_release free;
    if (raw) {
      if (auto p = app::read_raw_plots(path, error)) plots = std::move(*p);
    } else if (auto w = app::read_waveforms(path, error)) {
      plots.push_back(std::move(*w));
    }
  }
  if (plots.empty())
    throw py::value_error(error.empty() ? "no waveforms in '" + path + "'" : error);
  py::list out;
  for (auto& w : plots) out.append(waveforms_dict(std::move(w)));
  return out;
}

}  // namespace

PYBIND11_MODULE(_nsspice, m) {
  m.doc() = "nsspice's simulation library (use the nsspice package, not this module)";
  m.def("simulate", &simulate, py::arg("source"), py::arg("is_text"), py::arg("sweep"),
        py::arg("options"));
  m.def("read_file", &read_file, py::arg("path"), py::arg("raw"));
}
