#include "engine/worker/engine_facts.hpp"

#include <fmt/format.h>

#include "engine/worker/llama_backend.hpp"
#include "engine/worker_protocol.hpp"
#include "llama.h"
#include "util/error.hpp"
#include "util/parse_list.hpp"

namespace moesweep::worker {

nlohmann::json hello_reply() {
  init_engine_backends();
  EngineFacts f;
  f.protocol = worker_protocol::kVersion;
  f.kind = engine_kind();
  f.release = MOESWEEP_ENGINE_RELEASE;
  f.commit = MOESWEEP_ENGINE_COMMIT;
  f.build = MOESWEEP_ENGINE_BUILD;
  f.library = llama_library_path();
  check_engine_library(f.library, f.release);
  f.cpu_variant = cpu_variant();
  f.cpu_features = cpu_backend_features();
  f.system_info = llama_print_system_info();
  f.api = engine_api_variants();
  for (const std::string& r : split_list(MOESWEEP_ENGINE_READS)) f.reads.push_back(r);
  f.max_experts = MOESWEEP_ENGINE_MAX_EXPERTS;
  return worker_protocol::encode(worker_protocol::HelloReply{worker_protocol::kVersion, f});
}

}  // namespace moesweep::worker
