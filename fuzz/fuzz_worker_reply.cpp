// The engine worker's answers as moesweep reads them (engine/worker_protocol.hpp):
// any bytes as what came down the worker's stdout, cut into lines as
// WorkerProcess does; an event line goes to the event reader, any other line
// to the ok/error check and to the reader of every reply kind. A broken
// answer may only be refused as the worker's failure (EngineError, which a
// ProtocolError is, or ProtocolError) or, for a reply {"ok":false,"kind":"input"},
// as the UserError it carries; anything else is a finding.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "engine/worker_protocol.hpp"
#include "fuzz_lines.hpp"
#include "util/error.hpp"

namespace {

using namespace moesweep;
namespace wp = worker_protocol;

template <typename F>
void expect_only_worker_errors(F&& read) {
  try {
    read();
  } catch (const wp::ProtocolError&) {
  } catch (const EngineError&) {
  } catch (const UserError& e) {
    if (e.exit_code() != exit_code::kBadInput) std::abort();
  }
}

void read_line(std::string_view line) {
  nlohmann::json msg;
  try {
    msg = wp::parse_line(line, "the engine worker's answer");
  } catch (const wp::ProtocolError&) {
    return;
  }
  if (wp::is_event(msg)) {
    expect_only_worker_errors([&] { wp::event_from(msg); });
    return;
  }
  expect_only_worker_errors([&] { wp::check_reply(msg); });
  expect_only_worker_errors([&] { wp::hello_reply_from(msg); });
  expect_only_worker_errors([&] { wp::decode<wp::OkReply>(msg); });
  expect_only_worker_errors([&] { wp::decode<wp::ErrorReply>(msg); });
  expect_only_worker_errors([&] { wp::decode<wp::LoadReply>(msg); });
  expect_only_worker_errors([&] { wp::decode<wp::ContextReply>(msg); });
  expect_only_worker_errors([&] { wp::decode<wp::ThreadsReply>(msg); });
  expect_only_worker_errors([&] { wp::decode<wp::DecodeReply>(msg); });
  expect_only_worker_errors([&] { wp::decode<wp::CachedReply>(msg); });
  expect_only_worker_errors([&] { wp::decode<wp::QuantizeReply>(msg); });
  expect_only_worker_errors([&] { wp::decode<wp::ExpertGemvReply>(msg); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  moesweep::fuzz::for_each_line(data, size, read_line);
  return 0;
}
