#include "engine/applied_settings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace moesweep {
namespace {

using nlohmann::json;

struct Sides {
  const ContextParams& plan;
  const ThreadSettings& threads;
  const AppliedContext& context;
  const AppliedThreads& applied_threads;
};

enum class Rule {
  kExact,       // any difference changes what the point measures
  kAtLeast,     // more is harmless (the engine rounds up); less changes the point
  kContextCap,  // capped at the context, or more, is harmless; less than that changes the point
  kBatchCap,    // the engine's cap (its batch, itself capped at the context) is harmless
  kUnlessSet,   // planned -1 (auto): what the engine chose; else exact
  kSwitch,      // ik_llama.cpp's: as kUnlessSet; no setting where neither set nor reported
};

// One setting the engine is given: how its planned and applied values read,
// and what a difference means.
struct Setting {
  const char* name;
  Rule rule;
  json (*planned)(const Sides&);
  json (*applied)(const Sides&);  // null: the engine did not report it
  const char* harmless;           // why an allowed difference (kAtLeast, a cap) does not matter
};

json reported(int value, int unreported) {
  return value == unreported ? json() : json(value);
}

json reported(const std::string& value) {
  return value.empty() ? json() : json(value);
}

const std::vector<Setting>& settings() {
  static const std::vector<Setting> table = {
      {"n_threads", Rule::kExact, [](const Sides& s) { return json(s.threads.n_threads); },
       [](const Sides& s) { return reported(s.applied_threads.n_threads, 0); }, ""},
      {"n_threads_batch", Rule::kExact,
       [](const Sides& s) { return json(s.threads.n_threads_batch); },
       [](const Sides& s) { return reported(s.applied_threads.n_threads_batch, 0); }, ""},
      {"n_ctx", Rule::kAtLeast, [](const Sides& s) { return json(s.plan.n_ctx); },
       [](const Sides& s) { return reported(s.context.n_ctx, 0); },
       "the engine rounds the context up to its cache's padding"},
      {"n_batch", Rule::kContextCap, [](const Sides& s) { return json(s.plan.n_batch); },
       [](const Sides& s) { return reported(s.context.n_batch, 0); },
       "the engine caps the batch at the context, and no decode of a sweep is larger"},
      {"n_ubatch", Rule::kBatchCap, [](const Sides& s) { return json(s.plan.n_ubatch); },
       [](const Sides& s) { return reported(s.context.n_ubatch, 0); },
       "the engine caps the ubatch at its batch, which it caps at the context"},
      {"type_k", Rule::kExact, [](const Sides& s) { return json(s.plan.type_k); },
       [](const Sides& s) { return reported(s.context.type_k); }, ""},
      {"type_v", Rule::kExact, [](const Sides& s) { return json(s.plan.type_v); },
       [](const Sides& s) { return reported(s.context.type_v); }, ""},
      {"flash_attn", Rule::kUnlessSet, [](const Sides& s) { return json(s.plan.flash_attn); },
       [](const Sides& s) { return reported(s.context.flash_attn, -1); }, ""},
      {"fused_moe", Rule::kSwitch, [](const Sides& s) { return json(s.plan.knobs.fused_moe); },
       [](const Sides& s) { return reported(s.context.fused_moe, -1); }, ""},
      {"mla", Rule::kSwitch, [](const Sides& s) { return json(s.plan.knobs.mla); },
       [](const Sides& s) { return reported(s.context.mla, -1); }, ""},
      {"attn_max_batch", Rule::kSwitch,
       [](const Sides& s) { return json(s.plan.knobs.attn_max_batch); },
       [](const Sides& s) { return reported(s.context.attn_max_batch, -1); }, ""},
  };
  return table;
}

// Whether `applied` is other than what `planned` asks under `rule` (null: unreported, no
// difference).
bool differs(Rule rule, const json& planned, const json& applied) {
  if (applied.is_null() || planned == applied) return false;
  if (rule == Rule::kUnlessSet || rule == Rule::kSwitch) return planned != json(-1);
  return true;
}

// The batch the engine caps the ubatch at: the one it reported, else the plan's
// capped at the context (llama.cpp: n_batch = min(n_ctx, n_batch)).
int64_t batch_cap(const Sides& s) {
  return s.context.n_batch > 0 ? s.context.n_batch : std::min(s.plan.n_batch, s.plan.n_ctx);
}

// The context the engine caps the batch at: the one asked for (llama.cpp caps
// before it pads the context), else the one it made.
int64_t context_cap(const Sides& s) {
  return s.plan.n_ctx > 0 ? s.plan.n_ctx : s.context.n_ctx;
}

bool changes_the_point(Rule rule, const json& planned, const json& applied, const Sides& s) {
  switch (rule) {
    case Rule::kBatchCap:
      return applied.get<int64_t>() != std::min<int64_t>(planned.get<int64_t>(), batch_cap(s));
    case Rule::kContextCap: {  // llama.cpp: n_batch = min(n_ctx, n_batch); a batch below that
      // (1 under a ubatch of 64) decodes the prefill in other pieces than planned
      const int64_t ctx = context_cap(s);
      const int64_t cap =
          ctx > 0 ? std::min<int64_t>(planned.get<int64_t>(), ctx) : planned.get<int64_t>();
      return applied.get<int64_t>() < cap;
    }
    case Rule::kExact:
    case Rule::kUnlessSet:
    case Rule::kSwitch:
      return true;
    case Rule::kAtLeast:
      return applied.get<int64_t>() < planned.get<int64_t>();
  }
  return true;
}

std::string value_text(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// The value after "<func>: <key> = " on a line of the engine's log, trimmed.
bool log_setting(const std::string& line, const std::string& key, std::string* value) {
  const size_t colon = line.find(": ");
  if (colon == std::string::npos) return false;
  const size_t eq = line.find('=', colon);
  if (eq == std::string::npos) return false;
  std::istringstream name(line.substr(colon + 2, eq - colon - 2)), rest(line.substr(eq + 1));
  std::string word;
  if (!(name >> word) || word != key || !(name >> std::ws).eof()) return false;
  return static_cast<bool>(rest >> *value);
}

// "<marker><type>)" -> type (the KV cache line: ", K (q8_0): 1.00 MiB").
void log_type(const std::string& line, const char* marker, std::string& type) {
  const size_t at = line.find(marker);
  if (at == std::string::npos || !type.empty()) return;
  const size_t from = at + std::string(marker).size();
  const size_t close = line.find(')', from);
  if (close != std::string::npos && close - from <= 32) type = line.substr(from, close - from);
}

int log_int(const std::string& value) {
  try {
    size_t used = 0;
    const int n = std::stoi(value, &used);
    return used == value.size() && n >= 0 ? n : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

void read_applied_from_log(const std::string& log, AppliedContext& a) {
  std::istringstream in(log);
  bool fa_auto = false;
  for (std::string line; std::getline(in, line);) {
    std::string v;
    if (log_setting(line, "flash_attn", &v)) {  // mainline: auto/enabled/disabled; ik: 0/1
      fa_auto = v == "auto";
      if (v == "enabled" || v == "1") a.flash_attn = 1;
      if (v == "disabled" || v == "0") a.flash_attn = 0;
    } else if (fa_auto && line.find("Flash Attention enabled") != std::string::npos) {
      a.flash_attn = 1;  // mainline's resolution of auto
    } else if (fa_auto && line.find("Flash Attention not supported") != std::string::npos) {
      a.flash_attn = 0;
    } else if (log_setting(line, "fused_moe", &v)) {
      a.fused_moe = log_int(v);
    } else if (log_setting(line, "mla_attn", &v)) {
      a.mla = log_int(v);
    } else if (log_setting(line, "attn_max_b", &v)) {
      a.attn_max_batch = log_int(v);
    }
    log_type(line, ", K (", a.type_k);  // both kinds' KV cache line
    log_type(line, ", V (", a.type_v);
    log_type(line, ", c^KV (", a.type_k);  // ik_llama.cpp's MLA cache
    log_type(line, ", kv^T (", a.type_v);
  }
}

AppliedCheck check_applied(const ContextParams& planned, const ThreadSettings& threads,
                           const AppliedContext& context, const AppliedThreads& applied_threads) {
  const Sides sides{planned, threads, context, applied_threads};
  AppliedCheck out;
  for (const Setting& s : settings()) {
    const json want = s.planned(sides);
    const json got = s.applied(sides);
    // A switch neither set nor reported (a mainline engine has none): not a setting here.
    if (s.rule == Rule::kSwitch && want == json(-1) && got.is_null()) continue;
    out.applied[s.name] = got;
    if (!differs(s.rule, want, got)) continue;
    if (changes_the_point(s.rule, want, got, sides))
      out.failures.push_back(fmt::format("the engine applied {} {} where the plan asked for {}",
                                         s.name, value_text(got), value_text(want)));
    else
      out.notes.push_back(fmt::format("{} {} (planned {}): {}", s.name, value_text(got),
                                      value_text(want), s.harmless));
  }
  return out;
}

}  // namespace moesweep
