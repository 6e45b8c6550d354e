#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace moesweep {

// sha256 of a file's bytes, lowercase hex; streams the file, so a 500 GiB model
// costs time but no memory. Throws UserError when the file cannot be read.
std::string sha256_file(const std::filesystem::path& path);
std::string sha256_hex(std::string_view bytes);
// Stable across compilers and runs (std::hash is not): seeds and cache keys.
uint64_t fnv1a64(std::string_view bytes, uint64_t seed = 0xcbf29ce484222325ULL);

// SplitMix64: the next value of a tiny fixed-seed generator (twin weights,
// routing calibration), the same on every compiler and CPU.
inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace moesweep

namespace moesweep {
// Identity of a model file for meta.json and resume: the full sha256 up to
// 8 GiB; above that "sha256-head-tail:" + sha256 of the size and the first and
// last 256 MiB (hashing 500 GiB would take longer than many sweeps).
// Cached per (path, size, mtime) in the user cache dir.
std::string model_fingerprint(const std::filesystem::path& path);
std::string compute_model_fingerprint(const std::filesystem::path& path);  // uncached
}  // namespace moesweep
