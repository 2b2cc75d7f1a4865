#pragma once
// Waveforms in memory (what `plot` and `compare` work on) and the writer interface that `run`
// streams into. A column per signal, one shared time axis.
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace nsspice::app {

// What the first variable of a file (Waveforms::time) holds.
enum class Scale {
  kTime,       // a transient: non-decreasing (a jump repeats a time)
  kFrequency,  // an AC analysis
  kSweep,      // a DC sweep's (inner) source or parameter: any order; a nested sweep starts again
};

struct Waveforms {
  std::string title;
  std::string date;                          // raw files only
  std::vector<std::string> names;            // without the scale; lower case
  std::vector<double> time;                  // the scale's values (the x axis), see `scale`
  std::vector<std::vector<double>> columns;  // columns[k][i]: names[k] at time[i] (real part)
  // Complex data (an AC analysis): imag[k][i] is the imaginary part of columns[k][i]; empty
  // when the data is real.
  std::vector<std::vector<double>> imag;
  bool complex = false;
  Scale scale = Scale::kTime;
  std::string scale_name = "time";  // as the file names it: "frequency", "v(v-sweep)", "v-sweep"
  std::string scale_unit = "s";     // "Hz", "V", "A"; "" unknown (a swept parameter)
  // What a reader left out ("a stepped run of 3 runs: the first one is read (200 of 600
  // points)"); the commands print it.
  std::string note;
  std::optional<size_t> index(const std::string& name) const;
  size_t points() const { return time.size(); }
};

// Empty when `w` holds waveforms over time; else why `what` (a command: "compare --against",
// "view") cannot take the file `path`, and what takes it instead.
std::string needs_time_scale(const Waveforms& w, const std::string& path, const std::string& what);

// Reads a SPICE raw file (ASCII or binary, ngspice's, LTspice's or ours) or a CSV (written by
// `run`, or any table with a time column), by extension (.raw, .csv; otherwise by content). nullopt
// with `error` set on failure.
std::optional<Waveforms> read_waveforms(const std::string& path, std::string& error);

// Linear interpolation of (t, y) at time `at`; after a jump (repeated time) the later value.
// Constant extrapolation outside [t.front(), t.back()].
double interpolate(const std::vector<double>& t, const std::vector<double>& y, double at);

// Where rows go: a file writer, a resampler in front of one, a collector in memory.
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual void row(double t, std::span<const double> values) = 0;
  // No more rows (flushes what a resampler holds). Idempotent.
  virtual void finish() {}
};

// Keeps every row in memory (compare's in-process run).
class WaveformCollector : public RowSink {
 public:
  explicit WaveformCollector(Waveforms& target) : target_(target) {}
  void row(double t, std::span<const double> values) override;

 private:
  Waveforms& target_;
};

// A file of waveforms: header, rows, close. Closing (or any flush) leaves a valid file.
// Every write, flush and close is checked: the first failure's errno is kept (error_number()),
// and failed() turns true as soon as a buffer could not be written, so that a run can stop at
// once instead of computing rows for a full disk.
class WaveformWriter : public RowSink {
 public:
  // Opens (truncates) the file and writes the header; returns false with errno set on failure.
  virtual bool open(const std::string& path, const std::string& title,
                    const std::vector<std::string>& names) = 0;
  // Flushes and closes; returns false if any write failed (now or before).
  virtual bool close() = 0;
  void finish() override { close(); }
  bool failed() const { return error_ != 0; }
  int error_number() const { return error_; }  // errno of the first failure; 0: none

 protected:
  // Records errno (EIO if errno says nothing) unless a failure is recorded already.
  void fail();
  // The close of a buffered writer (CSV and raw alike): write out what is buffered (`flush`),
  // fclose, forget the handle. False if anything failed, now or before.
  template <class Flush>
  bool close_buffered(std::FILE*& file, Flush flush) {
    if (file == nullptr) return !failed();
    flush();
    if (std::fclose(file) != 0) fail();
    file = nullptr;
    return !failed();
  }

 private:
  int error_ = 0;
};

}  // namespace nsspice::app
