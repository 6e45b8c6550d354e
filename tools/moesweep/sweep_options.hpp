#pragma once
// `moesweep sweep` flags. Every axis flag's long name is also its key in a
// sweep profile (profiles/sweeps/*.json); flags given on the command line
// override the profile's values.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace moesweep::cli {

struct SweepOptions {
  std::string profile;
  std::string out_dir = "results/runs";
  std::string db = "results/moesweep.sqlite";
  std::string resume;
  bool dry_run = false;
  bool quiet = false;
  bool wide = false;  // stdout's tables with every column (tables.md's), not a terminal's 120
  bool no_db = false;
  // --trace-routing (cmd_sweep.cpp, experiments/run_dir_traces.hpp)
  bool trace_routing = false;
  double keep_pp = 0.90;  // sweet spot: fraction of the best S_PP to keep
  double keep_tg = 0.90;
  // axis flags: key -> value as typed (lists stay text: "16,14,13,12")
  std::map<std::string, std::string> values;
  std::map<std::string, std::vector<std::string>> repeated;  // -ot may repeat
  std::map<std::string, bool> flags;
  std::vector<CLI::Option*> value_options, flag_options;

  void add_to(CLI::App& cmd);
  // Profile settings (if any) overlaid with the flags actually given.
  std::map<std::string, nlohmann::json> merged_settings(std::string* origin) const;
};

// llama.cpp's single-dash long flags (-tb, -ub, -ctk, ...) rewritten to their
// long names before CLI11 parses (CLI11 allows one-letter short names only);
// arguments after "--" are left alone (sweep/flag_spellings.hpp).
std::vector<std::string> translate_llama_style_flags(int argc, char** argv);

}  // namespace moesweep::cli
