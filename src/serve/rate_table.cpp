#include "serve/rate_table.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "util/markdown_table.hpp"

namespace moesweep {
namespace {

std::string num(const nlohmann::json& v, int prec) {
  return v.is_number() ? fmt::format("{:.{}f}", v.get<double>(), prec) : "-";
}

std::string rate_cell(const nlohmann::json& r) {
  return r.is_string() ? r.get<std::string>() : fmt::format("{:.3g}", r.get<double>());
}

std::string slo_cell(const nlohmann::json& rate) {
  if (!rate.contains("slos_met")) return "-";
  std::string missed;
  for (const auto& c : rate["slos"])
    if (!c["met"].get<bool>()) {
      if (!missed.empty()) missed += ", ";
      missed += c["slo"].get<std::string>();
    }
  return rate["slos_met"].get<bool>() ? "met" : "missed " + missed;
}

std::string throughput_table(const nlohmann::json& rates) {
  MarkdownTable t({"rate req/s", "sent", "failed", "sent req/s", "lag p99 ms", "req/s", "in tok/s",
                   "out tok/s", "goodput req/s", "goodput tok/s", "SLOs", "cache hit %",
                   "server cache hit %"});
  for (const auto& r : rates) {
    const nlohmann::json none;
    const auto& g = r.contains("goodput") ? r["goodput"] : none;
    const auto pct = [](const nlohmann::json& v) {
      return v.is_number() ? fmt::format("{:.1f}", 100 * v.get<double>()) : "-";
    };
    t.add_row({rate_cell(r["rate"]), std::to_string(r["sent"].get<int>()),
               std::to_string(r["failed"].get<int>()), num(r["client"]["sent_rate"], 3),
               num(r["client"]["lag_ms"]["p99"], 1), num(r["requests_per_s"], 3),
               num(r["input_tokens_per_s"], 1), num(r["output_tokens_per_s"], 1),
               g.is_null() ? "-" : num(g["requests_per_s"], 3),
               g.is_null() ? "-" : num(g["output_tokens_per_s"], 1), slo_cell(r),
               pct(r["cache"]["hit_ratio"]),
               r["server_cache"].is_object() ? pct(r["server_cache"]["hit_ratio"]) : "-"});
  }
  return t.render();
}

std::string latency_table(const nlohmann::json& rates) {
  MarkdownTable t({"rate req/s", "metric", "n", "mean ms", "p50 ms", "p90 ms", "p95 ms", "p99 ms"});
  for (const auto& r : rates)
    for (const auto& [key, name] : {std::pair{"ttft_ms", "TTFT"},
                                    {"tpot_ms", "TPOT"},
                                    {"itl_ms", "ITL"},
                                    {"e2e_ms", "E2E"}}) {
      const auto& s = r[key];
      t.add_row({rate_cell(r["rate"]), name, std::to_string(s["n"].get<int>()), num(s["mean"], 1),
                 num(s["p50"], 1), num(s["p90"], 1), num(s["p95"], 1), num(s["p99"], 1)});
    }
  return t.render();
}

}  // namespace

std::string rate_tables(const nlohmann::json& s) {
  if (!s.contains("rates") || s["rates"].empty()) return "";
  std::string out =
      fmt::format("\n{}\n{}", throughput_table(s["rates"]), latency_table(s["rates"]));
  // Each note once, with the rates it came at.
  std::vector<std::pair<std::string, std::string>> notes;  // note, rates
  for (const auto& r : s["rates"])
    for (const auto& n : r["notes"]) {
      const std::string text = n.get<std::string>();
      auto it = std::find_if(notes.begin(), notes.end(), [&](auto& p) { return p.first == text; });
      if (it == notes.end()) it = notes.insert(notes.end(), {text, ""});
      if (!it->second.empty()) it->second += ", ";
      it->second += rate_cell(r["rate"]);
    }
  for (const auto& [text, rates] : notes) out += fmt::format("  at {} req/s: {}\n", rates, text);
  if (s.contains("capacity") && s["capacity"].is_object())
    out += fmt::format("  {}\n", s["capacity"]["text"].get<std::string>());
  return out;
}

std::string capacity_table(const std::vector<nlohmann::json>& summaries) {
  MarkdownTable t({"config", "workload", "capacity req/s", "interval", "probes", "SLOs"});
  for (const auto& s : summaries) {
    if (!s.contains("capacity") || !s["capacity"].is_object()) continue;
    const auto& c = s["capacity"];
    const auto& iv = c["interval_req_per_s"];
    t.add_row({s.value("config", "default"), s.value("workload", ""),
               num(c["estimate_req_per_s"], 3),
               fmt::format("[{}, {}]", num(iv[0], 3), num(iv[1], 3)),
               std::to_string(c.contains("probes") ? c["probes"].size() : 0), c.value("slos", "")});
  }
  return t.rows() ? "## capacity\n\n" + t.render() : "";
}

}  // namespace moesweep
