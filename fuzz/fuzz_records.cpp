// records.jsonl (results/run_source.hpp) and the JSON lines reader under it:
// any bytes as the file's contents, read through the stream reader that
// read_records_file(path) calls once it has opened the file.
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_input.hpp"
#include "results/run_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace moesweep;
  fuzz::expect_only_user_errors([&] {
    std::istringstream file(std::string(reinterpret_cast<const char*>(data), size));
    const RecordsFile f = read_records(file, "records.jsonl");
    for (const Record& r : f.records) r.params.key_string();
  });
  return 0;
}
