#include "sweep/worker_facts_check.hpp"

#include <fmt/format.h>

namespace moesweep {

std::string worker_facts_problem(const ModelFacts& f, const GgufInspection& file) {
  const auto said = [&](const std::string& what, const std::string& worker,
                        const std::string& ours) {
    return fmt::format(
        "the engine worker describes the model as {} '{}', but the file's GGUF header says '{}': "
        "it did not load the file it was given",
        what, worker.substr(0, 200), ours);
  };
  if (f.arch != file.arch) return said("architecture", f.arch, file.arch);
  // Both engine kinds describe a model as "<architecture> <size> <file type>".
  if (f.description.rfind(file.arch + " ", 0) != 0)
    return said("description", f.description, file.arch + " ...");
  if (f.n_layer != file.n_layer)
    return said("layer count", std::to_string(f.n_layer), std::to_string(file.n_layer));
  return "";
}

}  // namespace moesweep
