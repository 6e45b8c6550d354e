#pragma once
// Shared by the libFuzzer targets (fuzz/README.md): the input as a file for
// readers that take a path, and the one rule every target checks: a parser
// of outside data may refuse its input only with a UserError (exit 2); any
// other exception, a crash, a sanitizer report or a hang is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "util/error.hpp"

namespace moesweep::fuzz {

// A file of this process (tmpfs when there is one) holding `data`.
inline std::filesystem::path input_file(const uint8_t* data, size_t size,
                                        const std::string& name = "input") {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path base =
        std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
    std::filesystem::path d = base / ("moesweep-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  const std::filesystem::path p = dir / name;
  std::ofstream(p, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return p;
}

// Runs `parse`; a UserError is the parser's refusal, anything else escapes
// (and libFuzzer reports it as a crash with the input).
template <typename F>
void expect_only_user_errors(F&& parse) {
  try {
    parse();
  } catch (const UserError& e) {
    if (e.exit_code() != exit_code::kBadInput) std::abort();  // refusals are exit 2
  }
}

}  // namespace moesweep::fuzz
