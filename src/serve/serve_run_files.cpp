#include "serve/serve_run_files.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "util/error.hpp"
#include "util/json_fields.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

constexpr double kMaxMs = 1e12;  // about 30 years: past that a time is no measurement
constexpr int64_t kMaxTokens = std::numeric_limits<int32_t>::max();

void check_numbers(const JsonFields& f, const char* key) {
  for (const auto& v : f.array(key))
    if (!v.is_number() || !std::isfinite(v.get<double>()))
      f.fail(key, "a list of numbers (milliseconds)");
}

}  // namespace

void check_request_line(const nlohmann::json& line, const std::string& origin) {
  const JsonFields f(line, origin);
  f.flag("ok", false);
  for (const char* key : {"config", "workload", "task", "error", "api", "stop_reason"}) f.text(key);
  for (const char* key :
       {"ttft_ms", "e2e_ms", "start_s", "prompt_ms", "predicted_ms", "itl_ms_mean", "itl_ms_p50",
        "itl_ms_p99", "tpot_ms", "scheduled_s", "lag_ms", "queued_ms"})
    f.number(key, -1, kMaxMs, 0);  // -1: the server did not report it
  for (const char* key :
       {"prompt_tokens", "generated", "cache_n", "prompt_n", "predicted_n", "usage_prompt_tokens",
        "usage_completion_tokens", "concurrency", "round", "index"})
    f.integer(key, -1, kMaxTokens, 0);
  check_numbers(f, "itl_ms");
  check_numbers(f, "token_ms");
  // open-loop lines: the offered rate (a number of requests/s, or "inf") and the phase
  if (f.has("request_rate") && !(line["request_rate"] == "inf"))
    f.number("request_rate", 0, 1e9, 0);
  const std::string phase = f.text("phase", "measure");
  if (phase != "measure" && phase != "warmup" && phase != "prime")
    f.fail("phase", "measure, warmup or prime");
}

ServeRequestsFile read_serve_requests(const std::filesystem::path& file) {
  JsonlFile lines = read_jsonl_file(file, "serve requests file");
  ServeRequestsFile out;
  out.torn = std::move(lines.torn);
  for (JsonlLine& line : lines.lines) {
    const std::string origin = fmt::format("{}:{}", file.string(), line.number);
    if (line.value.is_discarded()) {
      throw UserError(fmt::format("{} is not JSON (or nests too deep)", origin),
                      "one JSON object per line, as serve-bench writes them",
                      "fix or remove that line");
    }
    check_request_line(line.value, origin);
    out.lines.push_back(std::move(line.value));
  }
  return out;
}

void check_workload_summary(const nlohmann::json& summary, const std::string& origin,
                            const std::string& path) {
  const JsonFields f(summary, origin, path);
  for (const char* key : {"workload", "kind", "config"}) f.text(key);
  for (const char* key : {"requests", "ok", "failed"}) f.integer(key, 0, kMaxTokens, 0);
  for (const JsonFields& level : f.objects("levels")) {
    level.integer("concurrency", 1, 1 << 20, 1);
    level.number("output_tokens_per_s", 0, 1e12, 0);
  }
  // open-loop: each rate's figures the report draws (a null: none measured)
  for (const JsonFields& rate : f.objects("rates")) {
    if (!(rate.json().contains("rate") && rate.json()["rate"] == "inf"))
      rate.number("rate", 0, 1e9, 0);
    rate.number("requests_per_s", 0, 1e12, 0);
    for (const char* key : {"ttft_ms", "tpot_ms"}) {
      const JsonFields spread = rate.object(key);
      for (const char* stat : {"p50", "p99"}) spread.number(stat, 0, kMaxMs, 0);
    }
    rate.object("goodput").number("requests_per_s", 0, 1e12, 0);
  }
}

std::vector<nlohmann::json> read_serve_summary(const std::filesystem::path& file) {
  const nlohmann::json j = read_json_file(file, "serve summary");
  if (!j.is_array())
    throw UserError(fmt::format("'{}' is no list of workload summaries", file.string()),
                    "summary.json as serve-bench writes it (a JSON list)", "record the run again");
  std::vector<nlohmann::json> out;
  for (size_t i = 0; i < j.size(); ++i) {
    check_workload_summary(j[i], file.string(), fmt::format("[{}]", i));
    out.push_back(j[i]);
  }
  return out;
}

ServeFacts serve_facts_of(const RunMeta& meta) {
  ServeFacts s = meta.serve.value_or(ServeFacts{});
  const nlohmann::json j = {{"workloads", s.workloads}};
  const JsonFields f(j, meta.run_dir.empty() ? meta.run_id : meta.run_dir + "/meta.json");
  const nlohmann::json& workloads = f.array("workloads");
  for (size_t i = 0; i < workloads.size(); ++i)
    check_workload_summary(workloads[i], f.origin(), fmt::format("workloads[{}]", i));
  return s;
}

}  // namespace moesweep
