#pragma once
// The worker's request loop (engine/worker_protocol.hpp): reads requests from
// stdin, answers on stdout, until stdin closes.
namespace moesweep::worker {

int serve_requests();
// `moesweep-worker --hello`: the hello reply on stdout (what `engine list` shows).
int print_hello();

}  // namespace moesweep::worker
