#include "cluster/shard_resume.hpp"

#include <fmt/format.h>

#include "util/error.hpp"

namespace moesweep {
namespace {

// How the machine an earlier run measured on differs from this one, by its
// meta.json: the machine class, and the node's CPU model, hardware profile
// and CPU count (facts a run lacks are not compared). Empty: same hardware.
std::vector<std::string> hardware_differences(const RunMeta& meta, const std::string& machine_here,
                                              const NodeFacts& node_here) {
  std::vector<std::string> out;
  const std::string machine = meta.machine_class ? machine_class_id(*meta.machine_class) : "";
  if (machine != machine_here)
    out.push_back(fmt::format("machine class {} -> {}", machine, machine_here));
  if (!meta.node) return out;
  const NodeFacts& node = *meta.node;
  if (!node.cpu_model.empty() && node.cpu_model != node_here.cpu_model)
    out.push_back(fmt::format("cpu_model \"{}\" -> \"{}\"", node.cpu_model, node_here.cpu_model));
  if (!node.hardware_profile.empty() && node.hardware_profile != node_here.hardware_profile)
    out.push_back(fmt::format("hardware_profile \"{}\" -> \"{}\"", node.hardware_profile,
                              node_here.hardware_profile));
  if (node.logical_cpus > 0 && node.logical_cpus != node_here.logical_cpus)
    out.push_back(fmt::format("logical_cpus {} -> {}", node.logical_cpus, node_here.logical_cpus));
  return out;
}

// The run under `dir`, when its meta.json reads; else why not (in `skipped`).
std::optional<RunMeta> readable_run(const std::filesystem::path& dir,
                                    std::vector<std::string>& skipped) {
  try {
    return read_run_meta_if_present(dir);
  } catch (const UserError& e) {  // a broken run is not ours to continue
    skipped.push_back(e.problem());
    return std::nullopt;
  }
}

}  // namespace

ShardStart shard_start(const ShardFile& file, const std::filesystem::path& out_dir,
                       const std::string& machine_here, const NodeFacts& node_here) {
  ShardStart s;
  s.file = file;
  std::error_code ec;
  if (!std::filesystem::is_directory(out_dir, ec)) return s;
  std::string newest;  // run directories start with their time stamp
  for (const auto& e : std::filesystem::directory_iterator(out_dir, ec)) {
    if (!e.is_directory(ec)) continue;
    const std::optional<RunMeta> meta = readable_run(e.path(), s.skipped);
    if (!meta || !meta->shard || meta->shard->plan_id != file.plan_id ||
        meta->shard->index != file.index)
      continue;
    // A re-queued array task on another node type: that run's numbers are
    // another machine's, so this one starts afresh and leaves it as it is.
    const auto differences = hardware_differences(*meta, machine_here, node_here);
    if (!differences.empty()) {
      s.left_alone.push_back({e.path(), differences});
      continue;
    }
    const std::string name = e.path().filename().string();
    if (name < newest) continue;
    newest = name;
    s.earlier_run = e.path();
    s.earlier_complete = meta->status == RunStatus::kComplete;
  }
  return s;
}

}  // namespace moesweep
