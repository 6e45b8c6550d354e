#pragma once
// llama-bench-compatible output, so compare-llama-bench.py style tooling can
// read our runs. Field names, order and types follow llama-bench.cpp of the
// pinned engine (test::get_fields / get_field_type). One of our points holds
// two llama-bench tests: the PP one (n_prompt = pp, n_gen = 0) and the TG one
// (n_prompt = 0, n_gen = tg), both at n_depth = N_KV.
#include <nlohmann/json.hpp>

#include <string>

#include "results/run_source.hpp"

namespace moesweep {

// A JSON array like `llama-bench -o json` (fields, then samples_ns, samples_ts).
nlohmann::ordered_json llama_bench_json(const LoadedRun& run);
// `llama-bench -o sql`: CREATE TABLE IF NOT EXISTS llama_bench + one INSERT per test.
std::string llama_bench_sql(const LoadedRun& run);

}  // namespace moesweep
