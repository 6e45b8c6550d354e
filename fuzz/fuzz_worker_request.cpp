// The requests the engine worker reads from moesweep (engine/worker_protocol.hpp,
// engine/worker/worker_loop.cpp): any bytes as what came down its stdin, cut
// into lines as the worker's loop does; each line that is a JSON object goes
// to the "op" reader and to the reader of every request kind (the worker
// picks one by "op"; each must hold up on any object). A broken request may
// only be refused with a ProtocolError, which the worker answers as
// {"ok":false,"kind":"engine"}; anything else is a finding.
#include <cstdint>
#include <string_view>

#include "engine/worker_protocol.hpp"
#include "fuzz_lines.hpp"

namespace {

using namespace moesweep;
namespace wp = worker_protocol;

template <typename F>
void expect_only_protocol_errors(F&& read) {
  try {
    read();
  } catch (const wp::ProtocolError&) {
  }
}

void read_line(std::string_view line) {
  nlohmann::json req;
  try {
    req = wp::parse_line(line, "request");
  } catch (const wp::ProtocolError&) {
    return;
  }
  expect_only_protocol_errors([&] { wp::request_op(req); });
  expect_only_protocol_errors([&] { wp::decode<wp::HelloRequest>(req); });
  expect_only_protocol_errors([&] { wp::decode<wp::LoadRequest>(req); });
  expect_only_protocol_errors([&] { wp::decode<wp::ContextRequest>(req); });
  expect_only_protocol_errors([&] { wp::decode<wp::FreeRequest>(req); });
  expect_only_protocol_errors([&] { wp::decode<wp::CachedRequest>(req); });
  expect_only_protocol_errors([&] { wp::decode<wp::ThreadsRequest>(req); });
  expect_only_protocol_errors([&] { wp::decode<wp::DecodeRequest>(req); });
  expect_only_protocol_errors([&] { wp::decode<wp::RewindRequest>(req); });
  expect_only_protocol_errors([&] { wp::decode<wp::QuantizeRequest>(req); });
  expect_only_protocol_errors([&] { wp::decode<wp::ExpertGemvRequest>(req); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  moesweep::fuzz::for_each_line(data, size, read_line);
  return 0;
}
