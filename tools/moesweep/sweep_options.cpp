#include "sweep_options.hpp"

#include "sweep/sweep_spec.hpp"

namespace moesweep::cli {
namespace {

struct ValueFlag {
  const char* names;  // CLI11 names
  const char* key;    // settings key = long name
  const char* help;
};

const ValueFlag kValueFlags[] = {
    {"-m,--model", "model",
     "GGUF file(s) or twin profile name(s), comma-separated (default kimi-k2.5 twin)"},
    {"-q,--quant", "quant", "twin quant type(s): Q4_K_S,Q4_K_M,Q6_K,Q8_0,F16,..."},
    {"--scale", "scale", "twin size preset: tiny, small, full"},
    {"--seed", "seed", "twin weight seed"},
    {"--layers", "layers", "twin override: layers"},
    {"--hidden", "hidden", "twin override: hidden size"},
    {"--experts", "experts", "twin override: routed experts"},
    {"--experts-used", "experts-used", "twin override: experts used per token"},
    {"--expert-ff", "expert-ff", "twin override: expert FFN size"},
    {"-t,--threads", "threads", "threads for generation: 16,14,13,12 or 12-16"},
    {"--threads-batch", "threads-batch", "threads for prefill (-tb), default = --threads"},
    {"-c,--ctx-size", "ctx-size",
     "context size(s) (default: deepest depth + PP + TG as llama-bench; 4096 for the open walk)"},
    {"-b,--batch-size", "batch-size", "logical batch size(s)"},
    {"--ubatch-size", "ubatch-size", "physical batch size(s) (-ub)"},
    {"--cache-type-k", "cache-type-k", "K cache type(s) (-ctk): f16, q8_0, q4_0, ..."},
    {"--cache-type-v", "cache-type-v", "V cache type(s) (-ctv); quantized V needs -fa on or auto"},
    {"--flash-attn", "flash-attn", "flash attention (-fa): auto, on, off or a list (default auto)"},
    {"-d,--depths,--n-depth", "depths",
     "N_KV depths: 0,512,1024 or 0-8192+1024 (default: sweep-bench walk)"},
    {"--depth-step", "depth-step", "depth step (default: ubatch)"},
    {"--depth-max", "depth-max", "deepest N_KV (default: as deep as ctx allows)"},
    {"-p,--n-prompt", "n-prompt", "PP tokens per measurement (default: one ubatch)"},
    {"-n,--n-gen", "n-gen", "TG tokens per measurement"},
    {"-r,--repetitions", "repetitions", "repetitions per point (the minimum with --target-ci)"},
    {"--target-ci", "target-ci",
     "repeat each point until the 95% CI half-width of its mean speed is within this percent"},
    {"--max-repetitions", "max-repetitions", "most repetitions per point with --target-ci (20)"},
    {"--token-seed", "token-seed", "seed of the random prompt tokens"},
    {"-C,--cpu-mask", "cpu-mask", "CPU mask(s): 0xffff or 0-15 (';' between alternatives)"},
    {"--poll", "poll", "threadpool polling level 0-100"},
    {"--numa", "numa", "NUMA strategy: disabled, distribute, isolate, numactl"},
    {"--load-mode", "load-mode",
     "how the engine loads the model (-lm): auto, none, mmap, mlock, mmap+mlock, dio (default "
     "auto)"},
    {"--mmap", "mmap", "older spelling (-mmp): on = -lm mmap, off = -lm none"},
    {"--n-gpu-layers", "n-gpu-layers",
     "layers to offload (-ngl; default -1 = all, as llama-bench; a CPU build keeps them on CPU)"},
    {"--n-cpu-moe", "n-cpu-moe", "keep the experts of the first N layers on CPU (axis)"},
    {"--counters", "counters", "hardware counters: auto, perf, likwid, none"},
    {"--name", "name", "run name (default: the profile's or 'adhoc')"},
};

const ValueFlag kBoolFlags[] = {
    {"--mlock", "mlock", "older spelling: lock the model in RAM (= -lm mmap+mlock)"},
    {"--cpu-strict", "cpu-strict", "strict CPU placement"},
    {"--allow-oversubscribe", "allow-oversubscribe", "allow more threads than logical CPUs"},
};

}  // namespace

void SweepOptions::add_to(CLI::App& cmd) {
  cmd.add_option("--profile", profile, "sweep profile: a name in profiles/sweeps or a JSON path");
  cmd.add_option("--out-dir", out_dir, "where run directories are made")->capture_default_str();
  cmd.add_option("--db", db, "SQLite results store")->capture_default_str();
  cmd.add_flag("--no-db", no_db, "do not write the SQLite store");
  cmd.add_option("--resume", resume, "continue an interrupted run (its directory)");
  cmd.add_flag("--dry-run", dry_run, "print the expanded plan and its estimated cost, run nothing");
  cmd.add_flag("--quiet", quiet, "no progress line on stderr");
  cmd.add_option("--keep-pp", keep_pp,
                 "sweet spot: fraction of the best S_PP to keep (0 ignores prefill)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--keep-tg", keep_tg,
                 "sweet spot: fraction of the best S_TG to keep (0 ignores decode)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  for (const ValueFlag& f : kValueFlags)
    value_options.push_back(cmd.add_option(f.names, values[f.key], f.help));
  value_options.push_back(cmd.add_option("--override-tensor", repeated["override-tensor"],
                                         "tensor buffer override (-ot), e.g. exps=CPU"));
  for (const ValueFlag& f : kBoolFlags)
    flag_options.push_back(cmd.add_flag(f.names, flags[f.key], f.help));
}

std::map<std::string, nlohmann::json> SweepOptions::merged_settings(std::string* origin) const {
  std::map<std::string, nlohmann::json> settings;
  *origin = "command line";
  if (!profile.empty()) settings = load_sweep_profile(profile, origin);
  settings.erase("description");
  for (const CLI::Option* opt : value_options) {
    if (opt->count() == 0) continue;
    const std::string key = opt->get_lnames().front();
    if (key == "override-tensor") {
      std::string joined;
      for (const std::string& v : repeated.at(key)) joined += (joined.empty() ? "" : ";") + v;
      settings[key] = joined;
    } else {
      settings[key] = values.at(key);
    }
  }
  for (const CLI::Option* opt : flag_options)
    if (opt->count() > 0) settings[opt->get_lnames().front()] = true;
  return settings;
}

std::vector<std::string> translate_llama_style_flags(int argc, char** argv) {
  static const std::map<std::string, std::string> aliases = {
      {"-tb", "--threads-batch"},   {"-ub", "--ubatch-size"},
      {"-ctk", "--cache-type-k"},   {"-ctv", "--cache-type-v"},
      {"-fa", "--flash-attn"},      {"-ngl", "--n-gpu-layers"},
      {"-ot", "--override-tensor"}, {"-ncmoe", "--n-cpu-moe"},
      {"-lm", "--load-mode"},       {"-mmp", "--mmap"}};
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const size_t eq = arg.find('=');
    auto it = aliases.find(arg.substr(0, eq));
    if (it != aliases.end()) arg = it->second + (eq == std::string::npos ? "" : arg.substr(eq));
    out.push_back(arg);
  }
  std::reverse(out.begin(), out.end());  // CLI11's parse(vector) takes arguments in reverse
  return out;
}

}  // namespace moesweep::cli
