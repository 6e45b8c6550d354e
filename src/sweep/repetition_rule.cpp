#include "sweep/repetition_rule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "results/compare.hpp"
#include "results/power.hpp"
#include "results/stats.hpp"

namespace moesweep {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The paired t test's MDE on the first `n` pairs of two engines' samples.
double paired_mde(const std::vector<double>& a, const std::vector<double>& b, size_t n,
                  double alpha) {
  if (n < 2 || a.size() < n || b.size() < n) return kInf;
  const std::vector<double> first_a(a.begin(), a.begin() + n), first_b(b.begin(), b.begin() + n);
  const Stats d = Stats::of(pair_log_ratios(first_a, first_b));
  if (d.n < 2) return kInf;
  const double dof = d.n - 1;
  return cell_mde(TestKind::kPairedT,
                  {d.sd / std::sqrt(static_cast<double>(d.n)), dof, static_cast<size_t>(d.n),
                   static_cast<size_t>(d.n)},
                  alpha);
}

// One engine alone: the MDE against a baseline of the same spread and count,
// with compare's unpaired auto test.
double self_mde(const std::vector<double>& speeds, double alpha) {
  std::vector<double> logs;
  for (double v : speeds)
    if (v > 0) logs.push_back(std::log(v));
  const Stats s = Stats::of(logs);
  if (s.n < 2) return kInf;
  const size_t n = static_cast<size_t>(s.n);
  const TestKind test = resolve_test_kind(TestKind::kAuto, n, n);
  return cell_mde(test, {s.sd * std::sqrt(2.0 / s.n), 2.0 * (s.n - 1), n, n}, alpha);
}

}  // namespace

int compared_tests(const Plan& plan) {
  int tests = 0;
  for (const PlannedPoint& p : plan.points) {
    if (p.engine != 0) continue;
    const ContextGroup& cg = plan.models[p.model].contexts[p.context];
    tests += (plan.spec.n_gen > 0) + (cg.n_prompt > 0);
  }
  return std::max(1, tests);
}

double compared_cell_alpha(const Plan& plan) {
  return cell_alpha_of(CompareOptions{}, compared_tests(plan));
}

std::string cell_key(const PointParams& params) {
  PointParams p = params;
  p.engine.clear();
  p.engine_opts.clear();
  return p.key_string();
}

bool ci_target_met(const SweepSpec& spec, const Record& rec) {
  for (const PhaseResult* phase : {&rec.pp, &rec.tg}) {
    if (phase->tokens_per_s.empty()) continue;
    const Stats s = Stats::of(phase->tokens_per_s);
    if (s.n < 2 || s.ci95_pct() > spec.target_ci_pct) return false;
  }
  return true;
}

bool needs_another_repetition(const SweepSpec& spec, const Record& rec, int done) {
  if (done < spec.repetitions) return true;
  if (spec.target_ci_pct <= 0 || done >= spec.max_repetitions) return false;
  return !ci_target_met(spec, rec);
}

RepetitionRule::RepetitionRule(const Plan& plan, Clock::time_point start)
    : spec_(plan.spec), start_(start) {
  alpha_ = compared_cell_alpha(plan);
  std::set<std::string> cells;
  for (const PlannedPoint& p : plan.points) cells.insert(cell_key(p.params));
  cells_total_ = static_cast<int>(cells.size());
}

double RepetitionRule::cell_mde(const PlannedPoint& point, int done) const {
  const auto it = samples_.find(cell_key(point.params));
  if (it == samples_.end()) return kInf;
  const std::map<size_t, Samples>& engines = it->second;
  double worst = 0;
  const auto first = engines.find(0);
  for (auto phase : {&Samples::pp, &Samples::tg}) {
    const std::vector<double>& mine = engines.at(point.engine).*phase;
    if (mine.empty()) continue;
    if (engines.size() < 2 || first == engines.end()) {  // one engine (or its partner failed)
      worst = std::max(worst, self_mde(mine, alpha_));
      continue;
    }
    // The pairs complete now, against the first engine (what the side-by-side table compares).
    for (const auto& [engine, s] : engines) {
      if (engine == 0) continue;
      const std::vector<double>& a = first->second.*phase;
      const std::vector<double>& b = s.*phase;
      const size_t n = std::min({a.size(), b.size(), static_cast<size_t>(done)});
      worst = std::max(worst, paired_mde(a, b, n, alpha_));
    }
  }
  return worst;
}

// Past --max-time, or past this cell's share: the time left when it started
// over the cells left then.
bool RepetitionRule::out_of_time(const std::string& cell) const {
  if (spec_.max_time_s <= 0) return false;
  const Clock::time_point now = Clock::now();
  if (std::chrono::duration<double>(now - start_).count() >= spec_.max_time_s) return true;
  const auto& [when, left] = started_.at(cell);
  const double at_start = std::chrono::duration<double>(when - start_).count();
  return std::chrono::duration<double>(now - when).count() >= (spec_.max_time_s - at_start) / left;
}

// The cell's --target-mde decision after `done` repetitions: made once, by the
// first engine to ask, and followed by every engine of the cell.
bool RepetitionRule::mde_wants_more(const std::string& cell, const PlannedPoint& point, int done) {
  const auto key = std::make_pair(cell, done);
  if (const auto it = decided_.find(key); it != decided_.end()) return it->second;
  const bool met = mde_slowdown(cell_mde(point, done)) * 100 <= spec_.target_mde_pct + 1e-9;
  if (met) met_.insert(cell);
  return decided_[key] = !met && !out_of_time(cell);
}

bool RepetitionRule::more(const PlannedPoint& point, const Record& rec, int done) {
  const std::string cell = cell_key(point.params);
  samples_[cell][point.engine] = {rec.pp.tokens_per_s, rec.tg.tokens_per_s};
  const int left = std::max(1, cells_total_ - static_cast<int>(finished_.size()));
  started_.emplace(cell, std::make_pair(Clock::now(), left));
  if (done < spec_.repetitions) return true;
  bool another = false;
  if (done < spec_.max_repetitions) {
    const bool mde_more = spec_.target_mde_pct > 0 && mde_wants_more(cell, point, done);
    const bool ci_more = spec_.target_ci_pct > 0 && !ci_target_met(spec_, rec);
    another = mde_more || (ci_more && !out_of_time(cell));
  }
  if (!another) finished_.insert(cell);
  return another;
}

bool RepetitionRule::met(const PlannedPoint& point, const Record& rec) const {
  const bool ci = spec_.target_ci_pct <= 0 || ci_target_met(spec_, rec);
  const bool mde = spec_.target_mde_pct <= 0 || met_.count(cell_key(point.params)) > 0;
  return ci && mde;
}

}  // namespace moesweep
