#pragma once
// SweepRunner: walks the plan. Loads each model once, creates each context
// once, hands each context to a KV walk, and turns every finished or failed
// point into a Record for the listener. A failing point is recorded with its
// reason and the sweep goes on; Ctrl-C (the `stop` flag) ends it after the
// current sample with everything finished already in the listener.
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "counters/counter_backend.hpp"
#include "engine/engine.hpp"
#include "results/sink.hpp"
#include "sweep/plan.hpp"
#include "sweep/roofline_annotator.hpp"
#include "sweep/routing_trace_factory.hpp"

namespace moesweep {

class MemoryWatch;      // sweep/memory_watch.hpp
class RepetitionRule;   // sweep/repetition_rule.hpp
class SampleLength;     // sweep/sample_length.hpp
struct MemoryShape;     // sweep/memory_plan.hpp
struct GgufInspection;  // model/gguf_inspect.hpp

struct RunOutcome {
  RunStatus status = RunStatus::kComplete;
  int ok_points = 0;
  int failed_points = 0;
  int skipped_points = 0;                           // already done (resume)
  nlohmann::json models = nlohmann::json::array();  // facts of each model loaded
};

class SweepRunner {
 public:
  // `listener` gets notes, models, samples and points; begin and end are
  // the caller's (RunSession's).
  SweepRunner(Plan& plan, RunListener& listener, counters::CounterBackend& counters,
              std::string run_id);
  ~SweepRunner();
  // Points whose key_string() is in `done` are not measured again (resume).
  void skip_points(std::set<std::string> done) { done_ = std::move(done); }
  // Adds active bytes, roofline and efficiency to every ok record.
  void annotate_with(RooflineAnnotator* annotator) { annotator_ = annotator; }
  // Records routing traces of every context (nullptr: none, the default).
  void trace_routing_with(RoutingTraceFactory* traces) { traces_ = traces; }
  // How long every sample lasts (sweep/sample_length.hpp: --min-sample-time
  // and the decisions a resumed run kept); by default one call of -n (-p).
  void sample_lengths(const SampleLength& lengths);
  RunOutcome run(const std::atomic<bool>& stop);

 private:
  struct EngineModel;  // one engine's worker holding this model group's model
  struct Lane;         // one engine's walk over one context (runner.cpp)
  const std::vector<EngineChoice>& engines() const;
  void run_model(size_t model_index, const std::atomic<bool>& stop, RunOutcome& out);
  bool load_models(size_t model_index, std::vector<EngineModel>& models, MemoryShape& shape,
                   RunOutcome& out);
  std::unique_ptr<LoadedModel> load_model(size_t model_index, size_t engine,
                                          const GgufInspection& file, MemoryWatch& memory,
                                          RunOutcome& out);
  void run_context(size_t model_index, size_t context_index, std::vector<EngineModel>& models,
                   const MemoryShape& shape, const std::atomic<bool>& stop, RunOutcome& out);
  void open_lane(Lane& lane, const MemoryShape& shape, const std::vector<int32_t>& tokens,
                 const std::atomic<bool>& stop);
  void step_lane(Lane& lane, const MemoryShape& shape, const std::vector<int32_t>& tokens,
                 const std::atomic<bool>& stop, RunOutcome& out);
  void step_exec_lane(Lane& lane, const std::atomic<bool>& stop, RunOutcome& out);
  void lane_crashed(Lane& lane, const EngineCrash& crash, RunOutcome& out);
  void lane_refused(Lane& lane, const WorkerRefusal& refusal, RunOutcome& out);
  const PlannedPoint* point_failing_now(const Lane& lane) const;
  void fail_crashed(const PlannedPoint& point, const EngineCrash& crash, RunOutcome& out);
  std::vector<const PlannedPoint*> points_of(size_t model_index, std::optional<size_t> context,
                                             std::optional<size_t> engine = std::nullopt) const;
  void fail_points(const std::vector<const PlannedPoint*>& points, const std::string& reason,
                   RunOutcome& out);
  void emit(Record&& rec, RunOutcome& out);
  UserError named(const UserError& e, size_t engine) const;
  std::string resolve_model_path(ModelGroup& mg);
  bool wanted(const PlannedPoint& p) const;

  Plan& plan_;
  RunListener& listener_;
  counters::CounterBackend& counters_;
  std::string run_id_;
  std::set<std::string> done_;
  std::set<int> finished_;  // point indices recorded in this run
  RooflineAnnotator* annotator_ = nullptr;
  RoutingTraceFactory* traces_ = nullptr;
  std::unique_ptr<RepetitionRule> reps_;     // made when the run starts: --max-time counts from it
  std::unique_ptr<SampleLength> lengths_;    // one decision per cell for every engine
  const std::atomic<bool>* stop_ = nullptr;  // run()'s: every worker call looks at it
};

// Fixed-seed random tokens in [0, n_vocab): realistic expert routing (a
// constant token would route to the same experts every time).
std::vector<int32_t> random_tokens(uint64_t seed, int n_vocab, size_t count);

}  // namespace moesweep
