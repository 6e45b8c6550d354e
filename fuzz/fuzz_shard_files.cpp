// A plan's files (cluster/shard_plan.hpp): shard-I.json and plan.json, both
// from one input.
#include <cstdint>

#include "cluster/shard_plan.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  const auto file = fuzz::input_file(data, size, "shard.json");
  fuzz::expect_only_user_errors([&] {
    const ShardFile f = read_shard_file(file);
    if (f.index < 0 || f.index >= f.count) std::abort();  // the reader's promise
    shard_from_meta(shard_meta(f));
  });
  fuzz::expect_only_user_errors([&] {
    const PlanIndex p = read_plan_index(file);
    if (p.shard_count < 1 || p.max_threads < 1) std::abort();
  });
  return 0;
}
