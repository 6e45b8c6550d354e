#pragma once
// One callgrind output file (valgrind --tool=callgrind), read as outside
// data: only its header, which holds what --counters sim needs (the event
// names, their totals on the `summary:` line, the simulated caches and what
// triggered the dump). Bounded: at most kMaxCallgrindHeaderBytes are read,
// lines of at most 4 KiB, at most 64 events, counts that fit 64 bits. Anything
// else is a UserError (exit 2) naming the file and line.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "counters/sim_cache.hpp"

namespace moesweep::counters {

inline constexpr size_t kMaxCallgrindHeaderBytes = 64 * 1024;

struct CallgrindDump {
  std::string creator;  // "callgrind-3.19.0"
  int64_t pid = 0;
  int64_t part = 0;                         // the dump's number within the process
  std::string trigger;                      // "Client Request: <label>", "Program termination", ...
  std::map<std::string, uint64_t> totals;   // event (Ir, Dr, DLmr, ...) -> count
  std::optional<CacheGeometry> i1, d1, ll;  // as valgrind simulated them
  // The label of a client request dump (CALLGRIND_DUMP_STATS_AT), "" otherwise.
  std::string label() const;
};

// `where` names the text in errors (a file path).
CallgrindDump parse_callgrind_dump(std::string_view text, const std::string& where);
CallgrindDump read_callgrind_dump(const std::filesystem::path& file);

}  // namespace moesweep::counters
