#pragma once
// The disk a twin takes, checked before it is built: a twin of
// `--expert-ff 100000000` is 63,060 GiB, and building it would fill the disk
// for hours before failing. The estimate is the plan's (parameters x the
// quant type's bits per weight); a build needs, at its peak, the skeleton
// and the quantized file side by side (twin_builder.cpp), plus a margin for
// the estimate's error.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/twin_spec.hpp"

namespace moesweep {

// The twin's file: parameters x the quant type's approximate bits per weight.
uint64_t estimated_twin_bytes(const TwinSpec& spec);
// The most disk its build holds at once, margin included.
uint64_t twin_build_peak_bytes(const TwinSpec& spec);
// Bytes this user may still write on the file system of `dir` (statvfs; of
// its nearest existing parent when `dir` is not made yet); nullopt when that
// cannot be read.
std::optional<uint64_t> free_disk_bytes(const std::filesystem::path& dir);

// The disk that building `twins` one after the other into `dir` needs, and
// "" when the file system has it, else why not (sizes and the fix).
struct TwinSpaceCheck {
  uint64_t needed = 0;
  std::optional<uint64_t> free;
  std::string problem;
};
TwinSpaceCheck check_twin_space(const std::vector<TwinSpec>& twins,
                                const std::filesystem::path& dir);

std::string gib_text(uint64_t bytes);  // "63,060.4 GiB", "0.25 GiB"

}  // namespace moesweep
