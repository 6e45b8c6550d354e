#pragma once
// A worker's account of the model it loaded, checked against our own GGUF
// reader before it names the model anywhere (meta.json, the records' model
// type): another architecture or layer count than the file's is a worker that
// loaded something else, or lies. Its path is checked where it is read
// (LoadedModel: the file it was asked to load, by canonical path).
#include <string>

#include "engine/engine_types.hpp"
#include "model/gguf_inspect.hpp"

namespace moesweep {

// "" when the facts agree with the file; else what differs.
std::string worker_facts_problem(const ModelFacts& facts, const GgufInspection& file);

}  // namespace moesweep
