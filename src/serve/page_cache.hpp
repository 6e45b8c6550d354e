#pragma once
// The cold-start workload's page-cache control: how much of the model's
// files the kernel holds, and dropping them (posix_fadvise DONTNEED on every
// part of a split GGUF) while no server maps them.
#include <filesystem>
#include <string>
#include <vector>

namespace moesweep {

// The model's files: all parts of a split GGUF (-00001-of-000NN.gguf), else the file.
std::vector<std::filesystem::path> model_parts(const std::filesystem::path& model);

// Resident share of the parts' pages (mincore), 0..1; -1 when unreadable.
double page_cache_fraction(const std::vector<std::filesystem::path>& parts);

// Asks the kernel to drop the parts from the page cache; "" when it did,
// else why it cannot work (tmpfs holds the file in memory; fadvise failed;
// the pages stayed, e.g. another process maps or locks them).
std::string drop_page_cache(const std::vector<std::filesystem::path>& parts);

}  // namespace moesweep
