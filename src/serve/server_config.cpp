#include "serve/server_config.hpp"

#include <fmt/format.h>

#include "sweep/sweep_spec.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep {
namespace {

// The flag's position in argv (also "--flag=value"), or npos.
size_t find_flag(const std::vector<std::string>& argv, const std::vector<std::string>& names,
                 std::string* value) {
  for (size_t i = 0; i < argv.size(); ++i)
    for (const std::string& n : names) {
      if (argv[i] == n) {
        if (value) *value = i + 1 < argv.size() ? argv[i + 1] : "";
        return i;
      }
      if (argv[i].rfind(n + "=", 0) == 0) {
        if (value) *value = argv[i].substr(n.size() + 1);
        return i;
      }
    }
  return std::string::npos;
}

std::vector<int> own_list(const std::string& key, const std::string& text, int lo, int hi) {
  std::vector<int> out;
  for (int64_t v : parse_int_list(text, "--" + key)) {
    if (v < lo || v > hi) {
      throw UserError(fmt::format("serve-bench --{}: value {} is out of range", key, v),
                      fmt::format("values from {} to {}", lo, hi), fmt::format("fix --{}", key));
    }
    out.push_back(static_cast<int>(v));
  }
  return out;
}

}  // namespace

const std::vector<ServerAxis>& server_axes() {
  // clang-format off
  static const std::vector<ServerAxis> axes = {
      {"threads", "-t", "--threads", "t", "-t, e.g. 1,2 or 1-4", true, 0, 0},
      {"ctx-size", "-c", "--ctx-size", "c",
       "-c, e.g. 4096,8192 (default: sized for the workloads)", true, 0, 0},
      {"parallel", "--parallel", "-np", "np",
       "slots (--parallel), e.g. 1,4 (default: the workloads' most clients)", false, 1, 512},
      // MiB; -1 = no limit, 0 = no prompt cache in RAM (llama-server's meaning)
      {"cache-ram", "--cache-ram", "-cram", "cram",
       "prompt-cache RAM limit in MiB (--cache-ram; -1 no limit, 0 off)", false, -1, 1 << 24},
  };
  // clang-format on
  return axes;
}

namespace {
// Both of llama-server's spellings of the axis's flag.
std::vector<std::string> spellings(const std::string& key) {
  for (const ServerAxis& a : server_axes())
    if (key == a.key) return {a.server_flag, a.other_flag};
  return {};
}
}  // namespace

ServerAxisValues parse_server_axes(const std::map<std::string, std::string>& given) {
  ServerAxisValues out;
  // The sweep's own settings (threads, ctx-size): its parser, its bounds.
  std::map<std::string, nlohmann::json> sweep_keys;
  for (const ServerAxis& a : server_axes()) {
    if (!given.count(a.key)) continue;
    if (a.sweep_setting)
      sweep_keys[a.key] = given.at(a.key);
    else
      out[a.key] = own_list(a.key, given.at(a.key), a.lo, a.hi);
  }
  if (sweep_keys.empty()) return out;
  const SweepSpec spec = spec_from_settings(sweep_keys, "serve-bench");
  if (sweep_keys.count("threads")) out["threads"] = spec.threads;
  if (sweep_keys.count("ctx-size")) out["ctx-size"] = spec.n_ctx;
  return out;
}

std::optional<int> ServerConfig::get(const std::string& key) const {
  const auto it = values.find(key);
  return it == values.end() ? std::nullopt : std::optional<int>(it->second);
}

std::string ServerConfig::label() const {
  std::string out;
  for (const ServerAxis& a : server_axes())
    if (auto v = get(a.key)) out += fmt::format("{}{}={}", out.empty() ? "" : " ", a.label, *v);
  return out.empty() ? "default" : out;
}

std::vector<ServerConfig> server_configs(const ServerAxisValues& axes) {
  std::vector<ServerConfig> out = {ServerConfig{}};
  for (const ServerAxis& a : server_axes()) {
    const auto it = axes.find(a.key);
    if (it == axes.end()) continue;
    std::vector<ServerConfig> next;
    for (const ServerConfig& c : out)
      for (int v : it->second) {
        ServerConfig n = c;
        n.values[a.key] = v;
        next.push_back(n);
      }
    out = std::move(next);
  }
  return out;
}

void check_axes_against_passthrough(const ServerAxisValues& axes,
                                    const std::vector<std::string>& passthrough) {
  for (const auto& [key, values] : axes) {
    const size_t at = find_flag(passthrough, spellings(key), nullptr);
    if (at == std::string::npos) continue;
    throw UserError(
        fmt::format("--{} is given as a serve-bench axis and '{}' as a llama-server flag after --",
                    key, passthrough[at]),
        "each server setting once: as an axis before -- (a list is allowed) or after --",
        fmt::format("drop '{}' after --, or drop --{}", passthrough[at], key));
  }
}

nlohmann::json server_settings(const std::vector<std::string>& argv) {
  nlohmann::json out = nlohmann::json::object();
  for (const ServerAxis& a : server_axes()) {
    std::string value;
    out[a.key] = nullptr;
    if (find_flag(argv, {a.server_flag, a.other_flag}, &value) == std::string::npos) continue;
    try {
      out[a.key] = std::stoi(value);
    } catch (const std::exception&) {  // not a number: llama-server refuses it itself
    }
  }
  return out;
}

}  // namespace moesweep
