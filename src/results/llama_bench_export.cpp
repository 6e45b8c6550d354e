#include "results/llama_bench_export.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <numeric>

#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep {
namespace {

enum class FieldType { kString, kBool, kInt, kFloat };

// One llama-bench test built from one phase of one of our points.
struct BenchTest {
  std::vector<std::pair<std::string, std::string>> values;  // in llama-bench's field order
  std::vector<uint64_t> samples_ns;
  std::vector<double> samples_ts;
};

// llama-bench.cpp test::get_field_type, same rules.
FieldType field_type(const std::string& f) {
  static const std::vector<std::string> ints = {
      "build_number", "n_batch",        "n_ubatch",     "n_threads", "poll",
      "model_size",   "model_n_params", "n_gpu_layers", "main_gpu",  "n_prompt",
      "n_gen",        "n_depth",        "avg_ns",       "stddev_ns", "no_op_offload",
      "n_cpu_moe",    "fit_target",     "fit_min_ctx",  "flash_attn"};
  static const std::vector<std::string> bools = {"no_kv_offload", "cpu_strict", "embeddings",
                                                 "no_host"};
  for (const auto& i : ints) {
    if (f == i) return FieldType::kInt;
  }
  for (const auto& b : bools) {
    if (f == b) return FieldType::kBool;
  }
  if (f == "avg_ts" || f == "stddev_ts") return FieldType::kFloat;
  return FieldType::kString;
}

// meta.json's layout belongs to the sweep; look in the places it may keep a fact.
std::string meta_text(const nlohmann::json& meta, std::initializer_list<const char*> pointers,
                      const std::string& fallback) {
  for (const char* ptr : pointers) {
    const nlohmann::json::json_pointer p(ptr);
    if (!meta.contains(p)) continue;
    const auto& v = meta.at(p);
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
    if (v.is_number()) return fmt::format("{:.0f}", v.get<double>());
  }
  return fallback;
}

// llama-bench's stdev: sample standard deviation, 0 for one sample.
template <typename T>
double sample_sd(const std::vector<T>& v) {
  if (v.size() <= 1) return 0;
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double sq = 0;
  for (T x : v) sq += (static_cast<double>(x) - mean) * (static_cast<double>(x) - mean);
  return std::sqrt(sq / static_cast<double>(v.size() - 1));
}

// meta.json's "models" entry for the file this point loaded (size, params, description).
nlohmann::json model_entry(const nlohmann::json& meta, const PointParams& p) {
  if (!meta.contains("models") || !meta["models"].is_array()) return nlohmann::json::object();
  for (const auto& entry : meta["models"]) {
    if (entry.is_object() && entry.value("path", "") == p.model_path) return entry;
  }
  return meta["models"].size() == 1 ? meta["models"][0] : nlohmann::json::object();
}

// Our tensor_overrides text carries -ncmoe as "n-cpu-moe=N" after the -ot
// patterns; llama-bench keeps the two apart (n_cpu_moe, tensor_buft_overrides).
std::pair<std::string, int> split_overrides(const std::string& joined) {
  std::string rest;
  int n_cpu_moe = 0;
  for (const std::string& part : split_list(joined, ';')) {
    if (part.rfind("n-cpu-moe=", 0) == 0)
      n_cpu_moe = std::atoi(part.c_str() + 10);
    else if (!part.empty())
      rest += (rest.empty() ? "" : ";") + part;
  }
  return {rest, n_cpu_moe};
}

using Fields = std::vector<std::pair<std::string, std::string>>;

double mean_of(const auto& values) {
  return values.empty() ? 0
                        : std::accumulate(values.begin(), values.end(), 0.0) /
                              static_cast<double>(values.size());
}

// llama-bench's build and model columns, from meta.json.
Fields build_and_model_fields(const nlohmann::json& m, const PointParams& p) {
  const nlohmann::json model = model_entry(m, p);
  // llama-bench's model_type is the engine's description ("deepseek2 671B Q4_K - Small").
  const std::string model_type =
      meta_text(model, {"/description"}, p.model_type.empty() ? p.quant : p.model_type);
  return {
      // llama-bench writes the engine tree's `git rev-parse --short HEAD`; meta.json the full hash.
      {"build_commit",
       meta_text(m, {"/build/engine/commit", "/engine/commit"}, "unknown").substr(0, 7)},
      {"build_number", meta_text(m, {"/build/engine/build_number", "/engine/build_number"}, "0")},
      {"cpu_info", meta_text(m, {"/build/cpu/model_name", "/cpu/model_name"}, "")},
      {"gpu_info", ""},
      // llama-bench names the registered non-CPU backends, else "CPU"; the
      // engine moesweep links registers the CPU backend only.
      {"backends", meta_text(m, {"/build/engine/backends"}, "CPU")},
      {"model_filename", p.model_path.empty() ? p.model_name : p.model_path},
      {"model_type", model_type},
      {"model_size", meta_text(model, {"/size_bytes", "/file_size"}, "0")},
      {"model_n_params", meta_text(model, {"/n_params"}, "0")},
  };
}

// llama-bench's parameter columns, in its order.
Fields parameter_fields(const PointParams& p, bool prompt_phase) {
  const int threads = prompt_phase && p.n_threads_batch > 0 ? p.n_threads_batch : p.n_threads;
  const auto [overrides, n_cpu_moe] = split_overrides(p.tensor_overrides);
  return {
      {"n_batch", std::to_string(p.n_batch)},
      {"n_ubatch", std::to_string(p.n_ubatch)},
      {"n_threads", std::to_string(threads)},
      {"cpu_mask", p.cpu_mask.empty() ? "0x0" : p.cpu_mask},
      {"cpu_strict", p.cpu_strict ? "1" : "0"},
      {"poll", std::to_string(p.poll)},
      {"type_k", p.type_k},
      {"type_v", p.type_v},
      {"n_gpu_layers", std::to_string(p.n_gpu_layers)},
      {"n_cpu_moe", std::to_string(n_cpu_moe)},
      {"split_mode", "layer"},
      {"main_gpu", "0"},
      {"no_kv_offload", "0"},
      {"flash_attn", std::to_string(p.flash_attn)},  // (int) llama_flash_attn_type: -1 = auto
      {"devices", "auto"},
      {"tensor_split", "0.00"},
      {"tensor_buft_overrides", overrides.empty() ? "none" : overrides},
      {"load_mode", p.load_mode},  // llama_load_mode_name: "auto" stays "auto" as in llama-bench
      {"lazy_mode", "auto"},
      {"embeddings", "0"},
      {"no_op_offload", "0"},
      {"no_host", "0"},
      {"fit_target", "0"},
      {"fit_min_ctx", "0"},
      {"n_prompt", std::to_string(prompt_phase ? p.pp : 0)},
      {"n_gen", std::to_string(prompt_phase ? 0 : p.tg)},
      {"n_depth", std::to_string(p.n_kv)},
  };
}

// `meta`: the run's meta.json as the typed writer writes it ({} without one).
BenchTest make_test(const nlohmann::json& meta, const Record& r, bool prompt_phase) {
  const PointParams& p = r.params;
  const PhaseResult& phase = prompt_phase ? r.pp : r.tg;
  BenchTest t;
  for (double s : phase.seconds)
    t.samples_ns.push_back(static_cast<uint64_t>(std::llround(s * 1e9)));
  t.samples_ts = phase.tokens_per_s;
  t.values = build_and_model_fields(meta, p);
  const Fields params = parameter_fields(p, prompt_phase);
  t.values.insert(t.values.end(), params.begin(), params.end());
  const Fields timing = {
      {"test_time", meta_text(meta, {"/started_at"}, "")},
      {"avg_ns", fmt::format("{:.0f}", mean_of(t.samples_ns))},
      {"stddev_ns", fmt::format("{:.0f}", sample_sd(t.samples_ns))},
      {"avg_ts", fmt::format("{:.6f}", mean_of(t.samples_ts))},
      {"stddev_ts", fmt::format("{:.6f}", sample_sd(t.samples_ts))},
  };
  t.values.insert(t.values.end(), timing.begin(), timing.end());
  return t;
}

std::vector<BenchTest> tests_of(const LoadedRun& run) {
  std::vector<BenchTest> tests;
  const nlohmann::json meta = run.meta ? to_json(*run.meta) : nlohmann::json::object();
  for (const Record& r : run.records) {
    if (!r.ok) continue;  // llama-bench has no way to say "failed"; the Markdown report does
    if (r.params.pp > 0 && !r.pp.seconds.empty()) tests.push_back(make_test(meta, r, true));
    if (r.params.tg > 0 && !r.tg.seconds.empty()) tests.push_back(make_test(meta, r, false));
  }
  return tests;
}

// A number field's text as a number; a run's meta.json may carry text there
// (a fact the typed reader keeps as it is): named, never an exception.
template <typename T>
T number_of(const std::string& field, const std::string& value) {
  T v{};
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size()) {
    throw UserError(
        fmt::format("llama-bench field '{}' would be '{:.40}', not a number", field, value),
        "a number (it comes from the run's meta.json or records)",
        "correct that fact in the run's meta.json");
  }
  return v;
}

nlohmann::ordered_json typed_value(const std::string& field, const std::string& value) {
  switch (field_type(field)) {
    case FieldType::kString:
      return value;
    case FieldType::kBool:
      return value != "0";
    case FieldType::kInt:
      return number_of<int64_t>(field, value);
    case FieldType::kFloat:
      return number_of<double>(field, value);
  }
  return value;
}

std::string sql_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace

nlohmann::ordered_json llama_bench_json(const LoadedRun& run) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const BenchTest& t : tests_of(run)) {
    nlohmann::ordered_json j;
    for (const auto& [field, value] : t.values) j[field] = typed_value(field, value);
    j["samples_ns"] = t.samples_ns;
    j["samples_ts"] = t.samples_ts;
    out.push_back(std::move(j));
  }
  return out;
}

std::string llama_bench_sql(const LoadedRun& run) {
  const std::vector<BenchTest> tests = tests_of(run);
  // The column list comes from a test; build one from an empty record when there is none.
  const BenchTest shape =
      tests.empty() ? make_test(nlohmann::json::object(), Record{}, true) : tests.front();
  std::string out = "CREATE TABLE IF NOT EXISTS llama_bench (\n";
  for (size_t i = 0; i < shape.values.size(); ++i) {
    const std::string& f = shape.values[i].first;
    const FieldType type = field_type(f);
    const char* sql_type = type == FieldType::kString  ? "TEXT"
                           : type == FieldType::kFloat ? "REAL"
                                                       : "INTEGER";
    out += fmt::format("  {} {}{}\n", f, sql_type, i + 1 < shape.values.size() ? "," : "");
  }
  out += ");\n\n";
  std::string columns;
  for (const auto& [field, value] : shape.values) columns += (columns.empty() ? "" : ", ") + field;
  for (const BenchTest& t : tests) {
    std::string values;
    for (const auto& [field, value] : t.values) {
      values += (values.empty() ? "" : ", ") + sql_quote(value);
    }
    out += fmt::format("INSERT INTO llama_bench ({}) VALUES ({});\n", columns, values);
  }
  return out;
}

}  // namespace moesweep
