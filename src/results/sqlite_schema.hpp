#pragma once
// The results database's schema and its migrations. The version lives in
// PRAGMA user_version: 0 is a new, empty file; each migration moves it up by
// one inside a transaction, so a crash mid-migration leaves the old version.
#include "results/sqlite_db.hpp"

namespace moesweep {

inline constexpr int kResultsSchemaVersion = 3;

// Checks that `db` is a readable SQLite file that this build understands,
// without writing anything. Throws UserError when the file is corrupt or was
// written by a newer moesweep, SqliteError when it cannot be read (busy,
// permissions). Returns the version found (0 for a new file).
int check_results_schema(SqliteDb& db);

// Brings a checked database up to kResultsSchemaVersion; safe to run from
// several processes at once (each step re-reads the version under the lock).
void migrate_results_schema(SqliteDb& db);

}  // namespace moesweep
