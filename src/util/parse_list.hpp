#pragma once
// Axis values written the way llama-bench users write them:
//   "16,14,13,12"   a list          "12-16"      a range, step 1
//   "0-8192+1024"   a range, step   "512-8192*2" a range, multiplied
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace moesweep {

// Throws UserError naming `flag` when the text is not a list of integers.
std::vector<int64_t> parse_int_list(std::string_view text, std::string_view flag);
std::vector<std::string> split_list(std::string_view text, char sep = ',');
bool parse_bool_word(std::string_view text, std::string_view flag);  // on/off/1/0/true/false

}  // namespace moesweep
