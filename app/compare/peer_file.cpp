#include "app/compare/peer_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "app/compare/compare_report.hpp"
#include "app/io/signals.hpp"

namespace nsspice::app {
namespace {

std::string squeeze(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return lower(out);
}

// LTspice's "a:b" hierarchy → nsspice's "x.a" with the instance (a name starting with 'x')
// first: "x1:n3" → "x1.n3", "r1:x1" → "x1.r1", "x2:x1:r1" → "x2.x1.r1".
std::string hierarchy(const std::string& inner) {
  if (inner.find(':') == std::string::npos) return inner;
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t k = 0; k <= inner.size(); ++k)
    if (k == inner.size() || inner[k] == ':') {
      parts.push_back(inner.substr(start, k - start));
      start = k + 1;
    }
  // The element or node is the one part that is not an instance; instances keep their order.
  std::vector<std::string> instances, rest;
  for (const auto& p : parts) (p.starts_with('x') ? instances : rest).push_back(p);
  if (rest.size() != 1) {
    std::string out = parts.front();
    for (size_t k = 1; k < parts.size(); ++k) out += "." + parts[k];
    return out;
  }
  std::string out;
  for (const auto& i : instances) out += i + ".";
  return out + rest.front();
}

// ngspice's instance prefix: "v.x1.vs" → "x1.vs" (a device letter, a dot, an instance).
std::string drop_instance_prefix(const std::string& inner) {
  if (inner.size() > 3 && std::isalpha(static_cast<unsigned char>(inner[0])) && inner[1] == '.' &&
      inner[2] == 'x')
    return inner.substr(2);
  return inner;
}

}  // namespace

std::string map_peer_name(const std::string& name) {
  std::string s = squeeze(name);
  if (const auto hash = s.find("#branch"); hash != std::string::npos)
    return "i(" + drop_instance_prefix(s.substr(0, hash)) + ")";
  if (s.starts_with('@')) {  // @d1[id], @r1[i]
    const auto bracket = s.find('[');
    return "i(" + drop_instance_prefix(s.substr(1, bracket - 1)) + ")";
  }
  const auto open = s.find('(');
  if (open == std::string::npos || s.back() != ')') return drop_instance_prefix(s);
  const std::string kind = s.substr(0, open);
  std::string inner = s.substr(open + 1, s.size() - open - 2);
  if (kind == "ix") return s;  // a subcircuit pin current
  if (kind != "v" && kind != "i") return s;
  if (inner.find(',') == std::string::npos) inner = hierarchy(drop_instance_prefix(inner));
  return kind + "(" + inner + ")";
}

PeerRun file_peer_run(const PeerFile& file, const std::string& path, double t_stop,
                      std::vector<std::string>& notes) {
  PeerRun p;
  p.points = static_cast<long>(file.data.points());
  p.t_end = file.data.time.back();
  if (!file.data.note.empty()) notes.push_back(fmt::format("{}: {}", path, file.data.note));
  if (!file.unmatched.empty()) {
    std::string list;
    for (const auto& n : file.unmatched) list += (list.empty() ? "" : ", ") + n;
    notes.push_back(
        fmt::format("signals of the file with no nsspice signal of that name (map them with --map "
                    "'FILE_NAME=NSSPICE_NAME'): {}",
                    list));
  }
  if (p.t_end < t_stop * (1 - 1e-9)) {
    p.failed = true;
    p.failure = fmt::format("the file ends at t = {}, before TSTOP = {}", eng(p.t_end, "s"),
                            eng(t_stop, "s"));
  }
  return p;
}

std::optional<std::pair<std::string, std::string>> parse_map(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos) return std::nullopt;
  std::string a = squeeze(text.substr(0, eq)), b = squeeze(text.substr(eq + 1));
  if (a.empty() || b.empty()) return std::nullopt;
  return std::pair(std::move(a), std::move(b));
}

std::optional<PeerFile> read_peer_file(const std::string& path,
                                       const std::vector<std::string>& reference,
                                       const std::vector<std::pair<std::string, std::string>>& map,
                                       std::string& error) {
  auto data = read_waveforms(path, error);
  if (!data) return std::nullopt;
  if (error = needs_time_scale(*data, path, "compare --against"); !error.empty())
    return std::nullopt;
  if (data->time.empty()) {
    error = fmt::format("'{}' holds no time points", path);
    return std::nullopt;
  }
  PeerFile out;
  auto known = [&](const std::string& n) {
    return std::find(reference.begin(), reference.end(), n) != reference.end();
  };
  for (auto& name : data->names) {
    const std::string read = name;
    const auto given = std::find_if(map.begin(), map.end(),
                                    [&](const auto& m) { return m.first == squeeze(read); });
    std::string mapped = given != map.end() ? given->second : map_peer_name(read);
    if (!known(mapped) && known("v(" + mapped + ")")) mapped = "v(" + mapped + ")";
    if (!known(mapped)) out.unmatched.push_back(read);
    name = mapped;
  }
  out.data = std::move(*data);
  return out;
}

}  // namespace nsspice::app
