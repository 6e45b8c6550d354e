// moesweep-worker: one engine build behind moesweep's worker protocol
// (src/engine/worker_protocol.hpp). moesweep starts it; it is not a tool for
// people, except `--hello`, which prints what engine build it is.
#include <cstring>

#include "engine/worker/worker_loop.hpp"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--hello") == 0) return moesweep::worker::print_hello();
  return moesweep::worker::serve_requests();
}
