// records.jsonl (results/run_source.hpp read_records_file) and the JSON
// lines reader under it: any bytes as a file.
#include <cstdint>

#include "fuzz_input.hpp"
#include "results/run_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  fuzz::expect_only_user_errors([&] {
    const RecordsFile f = read_records_file(fuzz::input_file(data, size, "records.jsonl"));
    for (const Record& r : f.records) r.params.key_string();
  });
  return 0;
}
