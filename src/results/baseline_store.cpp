#include "results/baseline_store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "util/error.hpp"
#include "util/json_file.hpp"

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

nlohmann::ordered_json read_meta_ordered(const fs::path& dir) {
  std::ifstream in(dir / "meta.json");
  if (!in) return nlohmann::ordered_json::object();
  auto j = nlohmann::ordered_json::parse(in, nullptr, false);
  return j.is_object() ? j : nlohmann::ordered_json::object();
}

std::string class_list(const std::vector<BaselineClassDir>& classes) {
  std::string out;
  for (const auto& c : classes) out += (out.empty() ? "" : ", ") + c.dir.filename().string();
  return out.empty() ? "none" : out;
}

std::string copy_records_stripped(const fs::path& from, const fs::path& to) {
  std::ifstream in(from);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto j = nlohmann::ordered_json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;  // a torn last line of a killed run
    out += strip_machine_paths(j).dump() + "\n";
  }
  write_file_atomically(to, out);
  return out;
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
    const nlohmann::json meta = read_meta_ordered(runs.back());
    out.push_back({e.path(), machine_class_from_meta(meta), static_cast<int>(runs.size())});
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
      "a baseline recorded on this machine class (same CPU vendor/family/model, logical CPUs, "
      "L3, build CPU features and engine commit): speeds of another class are no reference",
      fmt::format("record one on this machine: scripts/regress --update (run it 3 times for a set "
                  "of 3), or moesweep baseline add RUN_DIR {}",
                  store.string()));
}

nlohmann::ordered_json strip_machine_paths(const nlohmann::ordered_json& j) {
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s.size() > 1 && s.front() == '/') return fs::path(s).filename().string();
    return j;
  }
  if (!j.is_structured()) return j;
  nlohmann::ordered_json out = j;
  for (auto it = out.begin(); it != out.end(); ++it) *it = strip_machine_paths(*it);
  return out;
}

fs::path record_baseline(const fs::path& run_dir, const fs::path& store, int keep) {
  if (!is_run_dir(run_dir)) {
    throw UserError(fmt::format("'{}' is not a run directory", run_dir.string()),
                    "a directory with records.jsonl and meta.json written by `moesweep sweep`",
                    "name the run directory the sweep printed");
  }
  nlohmann::ordered_json meta = read_meta_ordered(run_dir);
  const MachineClass machine = machine_class_from_meta(meta);
  if (!machine.known) {
    throw UserError(fmt::format("'{}' has no machine facts in meta.json", run_dir.string()),
                    "a run of `moesweep sweep` (meta.json with build and CPU facts)",
                    "record a baseline from a run made by this moesweep");
  }
  if (!meta.contains("machine_class")) meta["machine_class"] = to_json(machine);
  const std::string run_id = meta.value("run_id", run_dir.filename().string());
  const fs::path class_dir = store / machine_class_id(machine);
  const fs::path member = class_dir / run_id;
  fs::create_directories(member);
  copy_records_stripped(run_dir / "records.jsonl", member / "records.jsonl");
  write_file_atomically(member / "meta.json", strip_machine_paths(meta).dump(2) + "\n");
  std::error_code ec;
  if (fs::exists(run_dir / "tables.md", ec))
    fs::copy_file(run_dir / "tables.md", member / "tables.md",
                  fs::copy_options::overwrite_existing);
  const auto members = run_dirs_in(class_dir);
  for (size_t i = 0; keep > 0 && i + keep < members.size(); ++i) fs::remove_all(members[i]);
  return member;
}

}  // namespace moesweep
