#include "sweep/point_watch.hpp"

#include <algorithm>

#include "engine/engine_types.hpp"
#include "engine/engine_util.hpp"
#include "sweep/cotenant.hpp"

namespace moesweep {

PointWatch::PointWatch(const PointParams& point, const std::string& cotenant_cpus, pid_t engine_pid,
                       const std::atomic<bool>& stop)
    : pp_energy_(rapl_), tg_energy_(rapl_) {
  const std::vector<int> cpus = cpus_of_mask_text(point.cpu_mask);
  std::vector<pid_t> own = {engine_pid};
  if (!point.cotenant.empty()) {
    std::string why;
    const std::vector<int> free = cotenant_cpus_for(point.cpu_mask, cotenant_cpus, &why);
    if (free.empty()) throw EngineError("co-tenant: " + why);
    cotenant_ = std::make_unique<CotenantProcess>(point.cotenant, free, self_executable(), &stop);
    // Planned: its time on the point's CPUs (when they overlap) is no intruder's.
    const bool shares = cpus.empty() || std::any_of(free.begin(), free.end(), [&](int c) {
                          return std::find(cpus.begin(), cpus.end(), c) != cpus.end();
                        });
    if (shares) own.push_back(cotenant_->pid());
  }
  noise_.emplace(cpus, own);
  noise_->start();
}

PointWatch::~PointWatch() = default;  // a running co-tenant is stopped by its destructor

PhaseEnergy& PointWatch::energy(const std::string& phase) {
  return phase == "pp" ? pp_energy_ : tg_energy_;
}

void PointWatch::phase_begin(const std::string& phase) {
  energy(phase).begin();
}

void PointWatch::phase_end(const std::string& phase) {
  energy(phase).end();
}

void PointWatch::finish(Record& rec) {
  rec.noise = noise_->finish().to_json();
  if (cotenant_) {
    rec.cotenant = cotenant_->stop();
    cotenant_.reset();
  }
  const auto tokens = [](const PhaseResult& p, int per_run) {
    return static_cast<int64_t>(p.seconds.size()) * per_run;
  };
  for (auto [phase, energy, per_run] :
       {std::tuple{&rec.pp, &pp_energy_, rec.params.pp}, {&rec.tg, &tg_energy_, rec.params.tg}}) {
    if (phase->seconds.empty()) continue;
    if (!phase->counters.is_object()) phase->counters = nlohmann::json::object();
    phase->counters.update(energy->to_json(tokens(*phase, per_run)));
  }
}

}  // namespace moesweep
