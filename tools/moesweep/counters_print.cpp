#include "counters_print.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

std::vector<std::string> split_reason(const std::string& reason) {
  std::vector<std::string> parts;
  for (size_t start = 0; start <= reason.size();) {
    const size_t end = std::min(reason.find("; ", start), reason.size());
    parts.push_back(reason.substr(start, end - start));
    start = end + 2;
  }
  return parts;
}

}  // namespace

std::string status_text(const nlohmann::json& status) {
  if (status.is_string()) return status.get<std::string>();
  if (status.is_object() && status.contains("unavailable"))
    return "unavailable: " + status["unavailable"].get<std::string>();
  return status.dump();
}

namespace {

// The parts ("; "-separated) of a reason that at least two unavailable
// metrics share: the hardware probe's failure, said once under the list.
std::vector<std::string> shared_parts(const nlohmann::json& metrics) {
  std::map<std::string, int> seen;
  for (const auto& [name, status] : metrics.items())
    if (status.is_object() && status.contains("unavailable"))
      for (const std::string& part : split_reason(status["unavailable"].get<std::string>()))
        ++seen[part];
  std::vector<std::string> out;
  for (const auto& [part, count] : seen)
    if (count > 1 && part.size() > 60) out.push_back(part);
  return out;
}

}  // namespace

// One line per metric (wrapped to 120 columns); a long reason that several
// metrics share is said once, after them.
void print_metrics(const nlohmann::json& metrics) {
  const std::vector<std::string> shared = shared_parts(metrics);
  for (const auto& [name, status] : metrics.items()) {
    std::string text = status_text(status);
    if (status.is_object() && status.contains("unavailable")) {
      std::string own;
      for (const std::string& part : split_reason(status["unavailable"].get<std::string>()))
        if (std::find(shared.begin(), shared.end(), part) == shared.end())
          own += (own.empty() ? "" : "; ") + part;
      text = "unavailable" + (own.empty() ? std::string() : ": " + own) +
             (own.size() < status["unavailable"].get<std::string>().size() ? " *" : "");
    }
    fmt::print("{}\n", wrap_words(fmt::format("  {:<22} {}", name, text), kTerminalWidth,
                                  std::string(25, ' ')));
  }
  for (const std::string& part : shared)
    fmt::print("{}\n", wrap_words("  *: " + part, kTerminalWidth, "    "));
}

}  // namespace moesweep::cli
