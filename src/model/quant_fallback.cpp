#include "model/quant_fallback.hpp"

#include <fmt/format.h>

#include <map>
#include <regex>

#include "model/arch_tensors.hpp"

namespace moesweep {

std::vector<QuantFallback> parse_quant_fallbacks(const std::string& engine_log) {
  // llama-quant.cpp writes the warning in pieces; together they form one line.
  static const std::regex line(
      R"(warning:\s+(\S+)\s+- ncols\s+\d+ not divisible by\s+\d+ \(required for type\s+(\S+)\)[^\n]*?-> falling back to\s+(\S+))");
  std::vector<QuantFallback> out;
  for (std::sregex_iterator it(engine_log.begin(), engine_log.end(), line), end; it != end; ++it)
    out.push_back({(*it)[1], (*it)[2], (*it)[3]});
  return out;
}

std::string quant_fallback_summary(const std::vector<QuantFallback>& fallbacks) {
  if (fallbacks.empty()) return "";
  std::map<std::string, int> count;  // "pattern (wanted -> used" -> tensors
  std::vector<std::string> order;
  for (const auto& f : fallbacks) {
    const std::string key = fmt::format("{} ({} -> {}", layer_pattern(f.tensor), f.wanted, f.used);
    if (count[key]++ == 0) order.push_back(key);
  }
  std::string out = fmt::format("{} tensor{}:", fallbacks.size(), fallbacks.size() == 1 ? "" : "s");
  for (size_t i = 0; i < order.size(); ++i)
    out += fmt::format("{} {}, x{})", i ? "," : "", order[i], count[order[i]]);
  return out;
}

}  // namespace moesweep
