#pragma once
// The one clock text our files carry: UTC, ISO 8601, to the second
// ("2026-12-03T09:21:14Z"): meta.json's and the probes' measured_at, the
// results store's created/updated columns.
#include <string>

namespace moesweep {

std::string utc_now_iso8601();
// The same without separators, for a folder's name: "20261203T092114Z".
std::string utc_now_compact();

}  // namespace moesweep
