#pragma once
// The settings whose value needs more than a list or a number read into one
// SweepSpec member (sweep_settings.cpp names them in its rows): a value of its
// own kind (-fa's words, a co-tenant, an engine name), one read together with
// another key (--model with --quant, --load-mode with the older --mmap and
// --mlock), a default that depends on another setting, or a check of what the
// member cannot hold. Each throws UserError naming the flag, what was
// expected and the fix.
#include <nlohmann/json.hpp>

#include "sweep/settings_reader.hpp"

namespace moesweep {

struct SweepSpec;

namespace spec_parsers {

// Readers: each sets its members of `spec` from `s`.
void models(const SettingsReader& s, SweepSpec& spec);   // --model with --quant
void experts(const SettingsReader& s, SweepSpec& spec);  // a list, or auto-l3:LO-HI[/N]
void routing_skew(const SettingsReader& s, SweepSpec& spec);
void load_mode(const SettingsReader& s, SweepSpec& spec);  // -lm, or --mmap/--mlock
void tensor_overrides(const SettingsReader& s, SweepSpec& spec);
void flash_attn(const SettingsReader& s, SweepSpec& spec);
void cotenants(const SettingsReader& s, SweepSpec& spec);
void max_repetitions(const SettingsReader& s, SweepSpec& spec);  // default: max(20, -r)
void engines(const SettingsReader& s, SweepSpec& spec);
void twin_for(const SettingsReader& s, SweepSpec& spec);
void fused_moe(const SettingsReader& s, SweepSpec& spec);
void run_time_repack(const SettingsReader& s, SweepSpec& spec);
void mla_use(const SettingsReader& s, SweepSpec& spec);
void attention_max_batch(const SettingsReader& s, SweepSpec& spec);

// Checks of a value read into its member.
void check_blocks(const SettingsReader& s, const SweepSpec& spec);
void check_numa(const SettingsReader& s, const SweepSpec& spec);
void check_cache_type_k(const SettingsReader& s, const SweepSpec& spec);
void check_cache_type_v(const SettingsReader& s, const SweepSpec& spec);
void check_target_mde(const SettingsReader& s, const SweepSpec& spec);
void check_min_sample_time(const SettingsReader& s, const SweepSpec& spec);  // <= 600 s
// --counters sim: one thread, and a valid --sim-cache; --sim-cache only with it.
void check_sim_counters(const SettingsReader& s, const SweepSpec& spec);
void check_token_times(const SettingsReader& s, const SweepSpec& spec);  // on, off or ab

// Writers of the spec's JSON where a member is not one value.
void write_models(const SweepSpec& spec, nlohmann::json& j);
void write_experts_auto_l3(const SweepSpec& spec, nlohmann::json& j);
void write_engine_opts(const SweepSpec& spec, nlohmann::json& j);

}  // namespace spec_parsers
}  // namespace moesweep
