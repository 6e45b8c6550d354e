#pragma once
// Opening the results database: the path checks that turn a user's mistake
// (an empty path, a device, a read-only file, a directory that cannot be
// made) into a clear message before SQLite sees it; a retry while another
// sweep sets up the same new file; a read-only fallback for readers of a file
// this user cannot write; and SQLite's environment failures (disk full,
// read-only, locked, I/O) as UserError with exit 2.
#include <filesystem>
#include <memory>

#include "results/sqlite_db.hpp"

namespace moesweep {

struct OpenedResultsDb {
  std::unique_ptr<SqliteDb> db;
  int version = 0;  // schema version found before any migration
};

// Opens `path` and checks its schema (UserError for a corrupt, foreign or
// newer file, left untouched). `writable`: created if missing, switched to
// WAL and migrated to the current schema; else opened read-only as it is.
OpenedResultsDb open_results_db(const std::filesystem::path& path, bool writable);

// Throws the UserError a user can act on for an SQLite failure caused by the
// environment (disk full, read-only, locked, I/O error, not a database);
// rethrows `e` itself when it is none of those (a bug of ours).
[[noreturn]] void throw_as_user_error(const std::filesystem::path& path, const SqliteError& e);

}  // namespace moesweep
