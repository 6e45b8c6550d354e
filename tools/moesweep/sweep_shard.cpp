#include "sweep_shard.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdlib>

#include "hw/build_info.hpp"
#include "hw/hardware_profile.hpp"
#include "machine_here.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep::cli {

void add_shard_option(CLI::App& cmd, std::string& shard) {
  cmd.add_option("--shard", shard,
                 "run one shard of `moesweep plan`: DIR/shard-I.json, or DIR with I from "
                 "SLURM_ARRAY_TASK_ID; continues an unfinished run of it under --out-dir");
}

void refuse_sweep_flags_with_shard(const SweepOptions& opts) {
  std::string given = opts.profile.empty() ? "" : "--profile";
  for (const auto* list : {&opts.value_options, &opts.flag_options})
    for (const CLI::Option* o : *list)
      if (o->count() > 0) given += (given.empty() ? "" : ", ") + o->get_name(false, true);
  if (!opts.resume.empty()) given += (given.empty() ? "" : ", ") + std::string("--resume");
  if (given.empty()) return;
  throw UserError(
      fmt::format("--shard runs the settings of its shard file, so {} would be ignored", given),
      "--shard with at most --out-dir, --db/--no-db, --quiet, --dry-run, --keep-pp/tg",
      "change the sweep with `moesweep plan` (new shard files), or drop those flags");
}

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

ShardStart shard_start(const std::string& arg, const std::filesystem::path& out_dir) {
  ShardStart s;
  s.file = read_shard_file(resolve_shard_arg(arg));
  const std::string machine = machine_class_id(this_machine_class());
  const NodeFacts node_here = node_facts();
  std::error_code ec;
  if (!std::filesystem::is_directory(out_dir, ec)) return s;
  std::string newest;  // run directories start with their time stamp
  for (const auto& e : std::filesystem::directory_iterator(out_dir, ec)) {
    if (!e.is_directory(ec)) continue;
    const std::optional<RunMeta> meta = readable_run(e.path(), s.skipped);
    if (!meta || !meta->shard || meta->shard->plan_id != s.file.plan_id ||
        meta->shard->index != s.file.index)
      continue;
    // A re-queued array task on another node type: that run's numbers are
    // another machine's, so this one starts afresh and leaves it as it is.
    const auto differences = hardware_differences(*meta, machine, node_here);
    if (!differences.empty()) {
      fmt::print(stderr,
                 "[sweep] not continuing shard {}/{} in {}: it was measured on other hardware "
                 "({}); starting a fresh run and leaving that one untouched\n",
                 s.file.index, s.file.count, e.path().string(), fmt::join(differences, "; "));
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

NodeFacts node_facts() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  const CpuInfo cpu = cpu_info();
  NodeFacts facts;
  facts.host = host;
  facts.cpu_model = cpu.model_name;
  facts.logical_cpus = cpu.logical_cpus;
  facts.hardware_profile = match_hardware_profile(cpu.model_name).name;
  nlohmann::json slurm = nlohmann::json::object();
  for (const char* var :
       {"SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_JOB_NODELIST",
        "SLURM_CLUSTER_NAME", "SLURM_JOB_PARTITION", "SLURM_RESTART_COUNT"})
    if (const char* v = std::getenv(var)) slurm[var] = v;
  if (!slurm.empty()) facts.other["slurm"] = slurm;
  return facts;
}

}  // namespace moesweep::cli
