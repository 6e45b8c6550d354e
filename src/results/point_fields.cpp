#include "results/point_fields.hpp"

#include <fmt/format.h>

#include "results/sqlite_db.hpp"

namespace moesweep {
namespace {

using P = PointParams;

std::string fa_label(const PointParams& p) {
  return flash_attn_name(p.flash_attn);
}

std::string cotenant_field_label(const PointParams& p) {
  return cotenant_label(p.cotenant);
}

}  // namespace

const Rows<PointField>& point_fields() {
  // Designated initializers: a row names only what differs from "not there".
  // clang-format off
  static const Rows<PointField> table = {
      {.member = &P::model_name, .key = "model", .json = "model", .label = "model", .csv = true, .sql = true},
      // The engine build (sweep --engine, issue 19): compare joins two engines' points on the rest.
      {.member = &P::engine, .key = "engine", .json = "engine", .label = "engine", .csv = true,
       .key_only_when_set = true},
      // ik_llama.cpp's -fmoe/-rtr/-mla/-amb: a different engine configuration, so part of the key.
      {.member = &P::engine_opts, .key = "engine_opts", .json = "engine_opts", .label = "engine_opts",
       .csv = true, .key_only_when_set = true},
      {.member = &P::model_path, .key = nullptr, .json = "model_path"},
      {.member = &P::model_type, .key = nullptr, .json = "model_type"},
      {.member = &P::quant, .key = "quant", .json = "quant", .label = "quant", .csv = true, .sql = true},
      {.member = &P::load_mode, .key = "load_mode", .json = "load_mode", .label = "load_mode"},
      {.member = &P::n_gpu_layers, .key = "ngl", .json = nullptr, .sweep_bench = "n_gpu_layers",
       .sweep_bench_pos = 5, .label = "ngl", .absent_is_blank = true},
      {.member = &P::tensor_overrides, .key = "ot", .json = "tensor_overrides", .label = "ot"},
      {.member = &P::experts, .key = "experts", .json = "experts", .label = "experts", .csv = true,
       .key_only_when_set = true},
      {.member = &P::expert_ff, .key = "expert_ff", .json = "expert_ff", .label = "expert_ff",
       .csv = true, .key_only_when_set = true},
      {.member = &P::routing_skew, .key = "skew", .json = "routing_skew", .label = "skew",
       .csv = true, .key_only_when_set = true},
      {.member = &P::block, .key = "block", .json = "block", .label = "block", .csv = true,
       .key_only_when_set = true},
      {.member = &P::l3_ways, .key = "l3_ways", .json = "l3_ways", .label = "l3_ways",
       .csv = true, .key_only_when_set = true},
      {.member = &P::mem_bw_percent, .key = "mem_bw", .json = "mem_bw_percent", .label = "mem_bw",
       .csv = true, .key_only_when_set = true},
      {.member = &P::n_ctx, .key = "n_ctx", .json = "n_ctx", .sweep_bench = "n_kv_max",
       .sweep_bench_pos = 1, .label = "n_ctx", .csv = true, .sql = true},
      {.member = &P::n_batch, .key = "n_batch", .json = nullptr, .sweep_bench = "n_batch",
       .sweep_bench_pos = 2, .label = "b", .csv = true, .sql = true},
      {.member = &P::n_ubatch, .key = "n_ubatch", .json = nullptr, .sweep_bench = "n_ubatch",
       .sweep_bench_pos = 3, .label = "ub", .csv = true, .sql = true},
      {.member = &P::type_k, .key = "type_k", .json = "type_k", .label = "ctk", .csv = true, .sql = true},
      {.member = &P::type_v, .key = "type_v", .json = "type_v", .label = "ctv", .csv = true, .sql = true},
      {.member = &P::flash_attn, .key = "fa", .json = nullptr, .sweep_bench = "flash_attn",
       .sweep_bench_pos = 4, .label = "fa", .csv = true, .sql = true, .absent_is_blank = true,
       .label_value = fa_label},
      {.member = &P::n_threads, .key = "threads", .json = nullptr, .sweep_bench = "n_threads",
       .sweep_bench_pos = 6, .label = "threads", .csv = true, .sql = true, .threads_axis = true},
      {.member = &P::n_threads_batch, .key = "threads_batch", .json = nullptr,
       .sweep_bench = "n_threads_batch", .sweep_bench_pos = 7, .label = "threads_batch",
       .csv = true, .sql = true, .threads_axis = true},
      {.member = &P::cpu_mask, .key = "cpu_mask", .json = "cpu_mask", .label = "cpu_mask", .csv = true},
      {.member = &P::cpu_strict, .key = "strict", .json = "cpu_strict", .label = "strict"},
      {.member = &P::poll, .key = "poll", .json = "poll", .label = "poll"},
      {.member = &P::numa, .key = "numa", .json = "numa", .label = "numa"},
      {.member = &P::cotenant, .key = "cotenant", .json = "cotenant", .label = "cotenant",
       .csv = true, .key_only_when_set = true, .label_value = cotenant_field_label},
      {.member = &P::pp, .key = "pp", .json = nullptr, .sweep_bench = "pp", .sweep_bench_pos = 8,
       .label = "pp", .csv = true, .sql = true, .cell = true},
      {.member = &P::tg, .key = "tg", .json = nullptr, .sweep_bench = "tg", .sweep_bench_pos = 9,
       .label = "tg", .csv = true, .sql = true, .cell = true},
      // The cell's depth: the x axis of depth charts, so never in a label.
      {.member = &P::n_kv, .key = "n_kv", .json = nullptr, .sweep_bench = "n_kv",
       .sweep_bench_pos = 10, .csv = true, .sql = true, .cell = true},
  };
  // clang-format on
  return table;
}

std::string field_text(const PointField& f, const PointParams& p) {
  return visit_member(p, f.member, [](const auto& v) { return fmt::format("{}", v); });
}

std::string field_label(const PointField& f, const PointParams& p) {
  if (f.label_value) return f.label_value(p);
  if (auto m = std::get_if<bool PointParams::*>(&f.member)) return std::to_string(p.**m ? 1 : 0);
  return field_text(f, p);
}

bool field_is_blank(const PointField& f, const PointParams& p) {
  return visit_member(p, f.member,
                      [](const auto& v) { return v == std::remove_cvref_t<decltype(v)>{}; });
}

void blank_field(const PointField& f, PointParams& p) {
  visit_member(p, f.member, [](auto& v) { v = {}; });
}

void field_to_json(const PointField& f, const PointParams& p, nlohmann::ordered_json& j,
                   const char* name) {
  visit_member(p, f.member, [&](const auto& v) { j[name] = v; });
}

void field_from_json(const PointField& f, const nlohmann::json& j, PointParams& p) {
  const char* name = f.sweep_bench && j.contains(f.sweep_bench) ? f.sweep_bench : f.json;
  if (!name) name = f.sweep_bench;
  static const PointParams defaults;
  visit_member(p, defaults, f.member, [&](auto& v, const auto& fallback) {
    using T = std::remove_reference_t<decltype(v)>;
    v = j.value(name, f.absent_is_blank ? T{} : fallback);
  });
}

void bind_field(const PointField& f, const PointParams& p, SqliteStmt& st, int index) {
  visit_member(p, f.member, [&](const auto& v) { st.bind(index, v); });
}

const char* column_name(const PointField& f) {
  return f.json ? f.json : f.sweep_bench;
}

const PointField* field_by_key(const std::string& key) {
  return point_fields().find(key);
}

}  // namespace moesweep
