#include "hw/machine_report.hpp"

#include "engine/engine.hpp"
#include "util/error.hpp"

namespace moesweep {

MachineReport describe_machine(const std::string& profile) {
  MachineReport r;
  r.cpu = cpu_info();
  r.engine = engine_facts();
  r.topology = probe_topology();
  r.profile =
      profile.empty() ? match_hardware_profile(r.cpu.model_name) : load_hardware_profile(profile);
  r.bandwidth = load_cached_bandwidth();
  r.cache = load_cached_cache_probe();
  try {
    r.noise = load_cached_noise_profile();
  } catch (const UserError& e) {
    r.noise_problem = e.what();  // `hw` says so; `hw --noise` measures again
  }
  return r;
}

nlohmann::json to_json(const MachineReport& r) {
  nlohmann::json j = {{"cpu",
                       {{"model_name", r.cpu.model_name},
                        {"vendor", r.cpu.vendor},
                        {"family", r.cpu.family},
                        {"model", r.cpu.model},
                        {"hypervisor", r.cpu.hypervisor}}},
                      {"cpu_features", r.engine.cpu_features},
                      {"engine", engine_json(r.engine)},
                      {"topology", to_json(r.topology)},
                      {"hardware_profile", to_json(r.profile)}};
  if (r.bandwidth) j["bandwidth"] = to_json(*r.bandwidth);
  if (r.cache) j["cache"] = to_json(*r.cache);
  if (r.noise) j["noise"] = to_json(*r.noise);
  if (!r.noise_problem.empty()) j["noise"] = {{"unavailable", r.noise_problem}};
  return j;
}

}  // namespace moesweep
