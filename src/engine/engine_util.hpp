#pragma once
// Small engine-side facts moesweep checks before the engine sees a value.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/engine_types.hpp"

namespace moesweep {

uint64_t available_memory_bytes();  // MemAvailable
// "0x0f" or "0-3,8" -> mask; false on syntax error
bool parse_cpu_mask(const std::string& text, std::vector<bool>& mask);
// Whether two paths name one file (by identity, else by canonical path: a
// relative path, a symlink or ".." in either).
bool same_file(const std::string& a, const std::string& b);

}  // namespace moesweep
