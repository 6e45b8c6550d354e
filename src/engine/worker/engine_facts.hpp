#pragma once
// What this worker's engine build is: the hello reply.
#include <nlohmann/json.hpp>

namespace moesweep::worker {

// {"ok":true,"protocol":N,"engine":{...}}, or {"ok":false,...} when the
// engine library in use is not the release the worker was built against.
nlohmann::json hello_reply();

}  // namespace moesweep::worker
