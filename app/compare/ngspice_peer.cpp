#include "app/compare/ngspice_peer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "app/io/signals.hpp"

namespace nsspice::app {
namespace {

// ngspice's columns renamed to nsspice's names (unmapped ones dropped).
Waveforms renamed(const Waveforms& ng, const Translation& tr) {
  Waveforms out;
  out.title = ng.title;
  out.time = ng.time;
  for (const auto& [ng_name, ns_name] : tr.names)
    if (auto k = ng.index(lower(ng_name))) {
      out.names.push_back(ns_name);
      out.columns.push_back(ng.columns[*k]);
    }
  return out;
}

PeerRun peer_of(const LadderResult& l) {
  PeerRun p;
  const Attempt& used = l.attempts[l.used];
  for (const auto& a : l.attempts) p.wall_seconds += a.wall_seconds;
  p.failed = !l.completed;
  p.t_end = l.data.time.empty() ? 0 : l.data.time.back();
  p.failure = used.failure;
  p.problems = used.problems;
  p.attempts = l.attempts;
  p.used_attempt = l.used;
  p.ladder_ended = l.ended;
  p.points = static_cast<long>(l.data.points());
  return p;
}

}  // namespace

std::optional<NgspicePeer> run_ngspice_peer(const circuit::Circuit& c,
                                            const TranslateOptions& translate,
                                            LadderOptions options, bool progress,
                                            LadderError& error) {
  if (progress && !options.on_attempt)
    options.on_attempt = [tag = options.tag](const Attempt& a) {
      if (!a.completed)
        fmt::print(stderr, "nsspice: {} attempt {}{}: {}{}\n", tag, a.number,
                   a.change.empty() ? "" : " (+ " + a.change + ")",
                   a.t_end > 0 ? fmt::format("stopped at t = {}: ", eng(a.t_end, "s")) : "",
                   a.failure);
    };
  auto l = run_ladder(c, translate, options, error);
  if (!l) return std::nullopt;
  NgspicePeer out;
  out.run = peer_of(*l);
  out.data = renamed(l->data, l->translation);
  out.translation = std::move(l->translation);
  return out;
}

double ngspice_tmax(const circuit::Circuit& c, const circuit::TransientResult& res) {
  const auto& t = *c.tran;
  if (res.step_rule.starts_with("fixed")) return res.h;
  if (t.tmax > 0) return t.tmax;
  const double span = t.tstop - t.tstart;
  return t.tstep > 0 ? std::min(t.tstep, span / 50) : span / 50;
}

}  // namespace nsspice::app
