#include "results/baseline_store.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "results/run_meta.hpp"
#include "results/run_source.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"
#include "util/paths.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

bool is_run_dir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && fs::exists(dir / "records.jsonl", ec);
}

// Subdirectories that are run directories, oldest first (run ids start with their time).
std::vector<fs::path> run_dirs_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (is_run_dir(e.path())) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string class_list(const std::vector<BaselineClassDir>& classes) {
  std::string out;
  for (const auto& c : classes) out += (out.empty() ? "" : ", ") + c.dir.filename().string();
  return out.empty() ? "none" : out;
}

// The records, checked by the records reader (a line that is no record is
// refused, naming it), as lines without machine paths; a torn last line is
// left out. Read whole before anything is written.
struct StrippedRecords {
  std::string text;
  std::optional<TornLine> torn;
};
StrippedRecords stripped_records(const fs::path& from) {
  StrippedRecords out{{}, read_records_file(from).torn};
  for (const JsonlLine& line : read_jsonl_file(from, "records file").lines)
    out.text += strip_machine_paths(line.value).dump() + "\n";
  return out;
}

// Oldest first, the members past `keep` other than the one just added.
void prune_class(const fs::path& class_dir, const fs::path& added, int keep,
                 std::vector<fs::path>& removed) {
  std::vector<fs::path> members = run_dirs_in(class_dir);
  size_t left = members.size();
  for (const fs::path& m : members) {
    if (keep <= 0 || left <= static_cast<size_t>(keep)) break;
    if (m == added) continue;
    fs::remove_all(m);
    removed.push_back(m);
    --left;
  }
}

}  // namespace

bool is_baseline_store(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec) || fs::exists(dir / "records.jsonl", ec)) return false;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_directory() && !is_run_dir(e.path()) && !run_dirs_in(e.path()).empty()) return true;
  return false;
}

std::vector<BaselineClassDir> baseline_classes(const fs::path& store) {
  std::vector<BaselineClassDir> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(store, ec)) {
    if (!e.is_directory() || is_run_dir(e.path())) continue;
    const auto runs = run_dirs_in(e.path());
    if (runs.empty()) continue;
    const std::optional<RunMeta> meta = read_run_meta_if_present(runs.back());
    out.push_back(
        {e.path(), meta ? machine_class_of(*meta) : MachineClass{}, static_cast<int>(runs.size())});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.dir < b.dir; });
  return out;
}

std::optional<BaselineClassDir> find_baseline_class(const fs::path& store,
                                                    const MachineClass& machine) {
  if (!machine.known) return std::nullopt;
  for (const auto& c : baseline_classes(store))
    if (c.machine.known && machine_class_differences(c.machine, machine).empty()) return c;
  return std::nullopt;
}

fs::path require_baseline_class(const fs::path& store, const MachineClass& machine) {
  if (auto found = find_baseline_class(store, machine)) return found->dir;
  throw UserError(
      fmt::format("the baseline store '{}' has no baseline of machine class {} (it has: {})",
                  store.string(), machine_class_id(machine), class_list(baseline_classes(store))),
      fmt::format("runs recorded on this machine class ({}): speeds of another class are no "
                  "reference",
                  kMachineClassFacts),
      fmt::format("record one on this machine: moesweep gate --update --baseline {0} (run it 3 "
                  "times for a set of 3), or moesweep baseline add RUN_DIR {0}; or gate without "
                  "a baseline, against a second engine on this machine: moesweep gate --base "
                  "3.21.1",
                  store.string()));
}

nlohmann::json strip_machine_paths(const nlohmann::json& j) {
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s.size() > 1 && s.front() == '/') return fs::path(s).filename().string();
    return j;
  }
  if (!j.is_structured()) return j;
  nlohmann::json out = j;
  for (auto it = out.begin(); it != out.end(); ++it) *it = strip_machine_paths(*it);
  return out;
}

BaselineAdded record_baseline(const fs::path& run_dir, const fs::path& store, int keep) {
  if (!is_run_dir(run_dir)) {
    throw UserError(fmt::format("'{}' is not a run directory", run_dir.string()),
                    "a directory with records.jsonl and meta.json written by `moesweep sweep`",
                    "name the run directory the sweep printed");
  }
  RunMeta meta = read_run_meta(run_dir);
  const MachineClass machine = machine_class_of(meta);
  if (!machine.known) {
    throw UserError(fmt::format("'{}' has no machine facts in meta.json", run_dir.string()),
                    "a run of `moesweep sweep` (meta.json with build and CPU facts)",
                    "record a baseline from a run made by this moesweep");
  }
  if (!meta.machine_class) meta.machine_class = machine;
  // The run id names the member's folder: it must stay inside the class folder.
  check_path_component(meta.run_id, "run id", (run_dir / "meta.json").string());
  const StrippedRecords records = stripped_records(run_dir / "records.jsonl");
  BaselineAdded added;
  const fs::path class_dir = store / machine_class_id(machine);
  added.member = class_dir / meta.run_id;
  fs::create_directories(added.member);
  write_file_atomically(added.member / "records.jsonl", records.text);
  if (records.torn) added.notes.push_back(torn_line_note(run_dir / "records.jsonl", *records.torn));
  write_file_atomically(added.member / "meta.json",
                        strip_machine_paths(to_json(meta)).dump(2) + "\n");
  std::error_code ec;
  if (fs::exists(run_dir / "tables.md", ec))
    fs::copy_file(run_dir / "tables.md", added.member / "tables.md",
                  fs::copy_options::overwrite_existing);
  prune_class(class_dir, added.member, keep, added.removed);
  added.runs = static_cast<int>(run_dirs_in(class_dir).size());
  return added;
}

}  // namespace moesweep
