#pragma once
// Axis values written the way llama-bench users write them:
//   "16,14,13,12"   a list          "12-16"      a range, step 1
//   "0-8192+1024"   a range, step   "512-8192*2" a range, multiplied
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace moesweep {

// More values than any sweep axis can use (GGML_MAX_N_THREADS is 512): a
// range like 1-1000000+1 is refused at once rather than expanded.
inline constexpr size_t kMaxListValues = 4096;

// Throws UserError naming `flag` when the text is not a list of integers or
// expands to more than kMaxListValues values.
std::vector<int64_t> parse_int_list(std::string_view text, std::string_view flag);
std::vector<std::string> split_list(std::string_view text, char sep = ',');
bool parse_bool_word(std::string_view text, std::string_view flag);  // on/off/1/0/true/false

}  // namespace moesweep
