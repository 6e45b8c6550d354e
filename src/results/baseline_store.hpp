#pragma once
// Baselines kept per machine class, so one repository serves several CI
// runner types:
//
//   results/baselines/NAME/<machine class id>/<run id>/{records.jsonl,meta.json,tables.md}
//
// A run is compared only with the class folder of its own machine class; a
// runner whose class has no folder gets an error naming the command that
// records one. Recorded baselines carry no paths of the machine that made
// them (absolute paths become file names).
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <vector>

#include "results/machine_class.hpp"

namespace moesweep {

struct BaselineClassDir {
  std::filesystem::path dir;
  MachineClass machine;  // from the newest run's meta.json in it
  int runs = 0;
};

// A directory of class folders, each a directory of run directories.
bool is_baseline_store(const std::filesystem::path& dir);
std::vector<BaselineClassDir> baseline_classes(const std::filesystem::path& store);
// The class folder of `machine`'s class; nullopt when the store has none.
std::optional<BaselineClassDir> find_baseline_class(const std::filesystem::path& store,
                                                    const MachineClass& machine);
// find_baseline_class, or a UserError (exit 2) listing the classes the store
// has and the command that records a baseline of this class.
std::filesystem::path require_baseline_class(const std::filesystem::path& store,
                                             const MachineClass& machine);

// Every string value that is an absolute path becomes its file name.
nlohmann::json strip_machine_paths(const nlohmann::json& j);

struct BaselineAdded {
  std::filesystem::path member;                // STORE/<class id>/<run id>
  int runs = 0;                                // runs the class holds now
  std::vector<std::filesystem::path> removed;  // older members dropped for --keep
  std::vector<std::string> notes;              // a torn last line left out, say
};

// Copies RUN_DIR's records.jsonl, meta.json (with "machine_class") and
// tables.md into STORE/<class id>/<run id>/, paths stripped (both files go
// through their typed readers; the run id must be one path component). Keeps
// at most `keep` runs of that class, the oldest others dropped first: the run
// just added is never one of them, even when it is older than the rest.
BaselineAdded record_baseline(const std::filesystem::path& run_dir,
                              const std::filesystem::path& store, int keep);

}  // namespace moesweep
