#include "sweep/memory_watch.hpp"

#include <fmt/format.h>

#include "hw/process_memory.hpp"
#include "results/memory_fields.hpp"

namespace moesweep {
namespace {

// The field's JSONL name: the key of its reason in MemoryFacts::unavailable.
const char* key_of(std::optional<uint64_t> MemoryFacts::*member) {
  for (const MemoryField& f : memory_fields())
    if (f.member == member) return f.json;
  return "?";
}

void take(MemoryFacts& m, std::optional<uint64_t> MemoryFacts::*member, const MemoryReading& r) {
  m.*member = r.bytes;
  if (r.bytes)
    m.unavailable.erase(std::string(key_of(member)));
  else
    m.unavailable[key_of(member)] = r.unavailable;
}

MemoryReading engine_figure(uint64_t bytes, const EngineMemoryFigures& e, const char* what) {
  if (e.lines > 0) return {bytes, ""};
  return {std::nullopt, fmt::format("the engine logged no buffer sizes while {}", what)};
}

}  // namespace

MemoryWatch::MemoryWatch(pid_t engine_pid, std::filesystem::path proc)
    : pid_(engine_pid), proc_(std::move(proc)) {}

void MemoryWatch::before_load() {
  take(base_, &MemoryFacts::available_before_load, read_mem_available(proc_ / "meminfo"));
}

void MemoryWatch::after_load(const std::filesystem::path& model_file,
                             const EngineMemoryFigures& engine) {
  model_file_ = model_file;
  take(base_, &MemoryFacts::available_after_load, read_mem_available(proc_ / "meminfo"));
  take(base_, &MemoryFacts::model_buffers,
       engine_figure(engine.model_other_bytes, engine, "loading the model"));
  take(base_, &MemoryFacts::model_mapped_engine,
       engine_figure(engine.model_mapped_bytes, engine, "loading the model"));
}

void MemoryWatch::context_created(const EngineMemoryFigures& engine, uint64_t kv_expected) {
  take(base_, &MemoryFacts::kv, engine_figure(engine.kv_bytes, engine, "creating the context"));
  take(base_, &MemoryFacts::compute,
       engine_figure(engine.compute_bytes, engine, "creating the context"));
  base_.kv_expected = kv_expected;
  std::string why;
  if (!reset_peak_rss(pid_, &why, proc_))
    base_.unavailable["peak_rss_scope"] = why + "; the peak spans the whole process";
}

MemoryFacts MemoryWatch::after_point() const {
  MemoryFacts m = base_;
  take(m, &MemoryFacts::peak_rss, read_process_status(pid_, proc_).peak_rss);
  take(m, &MemoryFacts::rss_rollup, read_smaps_rollup_rss(pid_, proc_));
  std::string why;
  const std::optional<FileMapping> file = read_file_mapping(pid_, model_file_, &why, proc_);
  if (file && file->mappings > 0) {
    m.model_mapped = file->mapped_bytes;
    m.model_resident = file->resident_bytes;
  } else {
    const std::string reason =
        file ? "the engine's process does not map the model file (read into buffers)" : why;
    m.unavailable[key_of(&MemoryFacts::model_mapped)] = reason;
    m.unavailable[key_of(&MemoryFacts::model_resident)] = reason;
  }
  return m;
}

}  // namespace moesweep
