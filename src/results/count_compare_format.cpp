// The exact gate's report: Markdown for people, JSON for CI (count_compare.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "results/count_compare.hpp"
#include "util/terminal_text.hpp"

namespace moesweep {
namespace {

std::string count_text(double v) {
  return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v);
}

std::string change_text(const CountCell& c) {
  if (c.verdict == CountVerdict::kMissing) return "-";
  return fmt::format("{:+.4f}%", 100 * (c.ratio - 1));
}

std::string tolerance_text(const CountComparison& c) {
  return c.tolerance > 0 ? fmt::format("{:.3g}%", 100 * c.tolerance)
                         : fmt::format("the tolerance ({:.3g}% for work, {:.3g}% for misses)",
                                       100 * kWorkCountTolerance, 100 * kMissCountTolerance);
}

std::string summary_line(const CountComparison& c) {
  const std::string tol = tolerance_text(c);
  if (c.more > 0)
    return fmt::format("**{} count(s) grew by more than {} per token: more work (exit 4).**",
                       c.more, tol);
  if (c.exit_status() != 0)
    return fmt::format(
        "**Inconclusive: no count grew by more than {}, but {} count(s) and {} "
        "point(s) were on one side only (listed above) and could not be seen.**",
        tol, c.missing, c.only_in_base.size() + c.only_in_new.size());
  return fmt::format("No count grew by more than {} per token in {} comparison(s){}.", tol,
                     c.compared, c.fewer > 0 ? fmt::format(" ({} fell by more)", c.fewer) : "");
}

// "n_kv=0 threads=1": the fields of a key that tell the compared points apart
// (a whole key is hundreds of columns: a terminal's heading names these).
std::string short_key(const std::string& key, const std::vector<CountPoint>& points) {
  auto fields = [](const std::string& k) {
    std::vector<std::pair<std::string, std::string>> out;
    for (size_t at = 0; at <= k.size();) {
      const size_t end = std::min(k.find(';', at), k.size());
      const std::string part = k.substr(at, end - at);
      const size_t eq = part.find('=');
      out.emplace_back(part.substr(0, eq), eq == std::string::npos ? "" : part.substr(eq + 1));
      at = end + 1;
    }
    return out;
  };
  std::string out;
  for (const auto& [name, value] : fields(key)) {
    bool varies = name == "n_kv";
    for (const CountPoint& p : points)
      for (const auto& [other, v] : fields(p.key))
        if (other == name && v != value) varies = true;
    if (varies) out += (out.empty() ? "" : " ") + name + "=" + value;
  }
  return out;
}

}  // namespace

std::string count_comparison_markdown(const CountComparison& c, TableWidth width) {
  const bool wide = width == TableWidth::kWide;
  std::string out = fmt::format("# Counts per token: {} -> {}\n\n", c.base_label, c.new_label);
  out += fit(fmt::format("Simulated caches (valgrind callgrind): {}. A count within its tolerance "
                         "is the same.{}",
                         c.base_cache, wide ? "" : " Whole keys: --wide or --json."),
             width) +
         "\n\n";
  for (const CountPoint& p : c.points) {
    out += fmt::format(
        "### `{}`\n\n| phase | count per token | base | new | change | tolerance | verdict |\n"
        "|---|---|--:|--:|--:|--:|---|\n",
        wide ? p.key : short_key(p.key, c.points));
    for (const CountCell& cell : p.cells) {
      const bool missing = cell.verdict == CountVerdict::kMissing;
      std::string verdict =
          cell.verdict == CountVerdict::kMore ? "**MORE WORK**" : count_verdict_name(cell.verdict);
      if (!cell.why.empty()) verdict += " (" + cell.why + ")";
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", cell.phase, cell.metric,
                         missing ? "-" : count_text(cell.base),
                         missing ? "-" : count_text(cell.fresh), change_text(cell),
                         missing ? "-" : fmt::format("{:.3g}%", 100 * cell.tolerance), verdict);
    }
    out += "\n";
  }
  for (const std::string& key : c.only_in_base)
    out += fit(fmt::format("- only in base: `{}`", wide ? key : short_key(key, c.points)), width,
               "  ") +
           "\n";
  for (const std::string& key : c.only_in_new)
    out += fit(fmt::format("- only in new: `{}`", wide ? key : short_key(key, c.points)), width,
               "  ") +
           "\n";
  return out + "\n" + fit(summary_line(c), width) + "\n";
}

nlohmann::json count_comparison_json(const CountComparison& c) {
  nlohmann::json points = nlohmann::json::array();
  for (const CountPoint& p : c.points) {
    nlohmann::json cells = nlohmann::json::array();
    for (const CountCell& cell : p.cells)
      cells.push_back({{"phase", cell.phase},
                       {"metric", cell.metric},
                       {"base", cell.base},
                       {"new", cell.fresh},
                       {"ratio", cell.ratio},
                       {"tolerance", cell.tolerance},
                       {"verdict", count_verdict_name(cell.verdict)},
                       {"why", cell.why}});
    points.push_back({{"key", p.key}, {"cells", cells}});
  }
  return {
      {"base", c.base_label},         {"new", c.new_label},      {"caches", c.base_cache},
      {"tolerance", c.tolerance},     {"points", points},        {"only_in_base", c.only_in_base},
      {"only_in_new", c.only_in_new}, {"more", c.more},          {"fewer", c.fewer},
      {"not_compared", c.missing},    {"exit", c.exit_status()}, {"summary", summary_line(c)}};
}

}  // namespace moesweep
