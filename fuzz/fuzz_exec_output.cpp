// Another program's benchmark output (engine/exec_tool.hpp parse_exec_output,
// what a sweep reads from an `engine add --exec` tool): the first byte picks
// the tool ('S' llama-sweep-bench, else llama-bench), the rest is its stdout
// and stderr. Every row accepted holds what a record can: tokens within the
// bound, positive finite times.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "engine/exec_tool.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  if (size == 0) return 0;
  const ExecTool tool = data[0] == 'S' ? ExecTool::kSweepBench : ExecTool::kLlamaBench;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  fuzz::expect_only_user_errors([&] {
    for (const ExecRow& row : parse_exec_output(tool, text, "tool output"))
      for (const ExecPhase* phase : {&row.pp, &row.tg}) {
        if (phase->tokens < 0 || row.n_kv < 0) std::abort();
        for (double s : phase->seconds)
          if (!std::isfinite(s) || s <= 0) std::abort();
      }
  });
  return 0;
}
