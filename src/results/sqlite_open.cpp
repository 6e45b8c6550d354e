#include "results/sqlite_open.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "results/sqlite_schema.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

const char* kNoDb = "--no-db keeps no database";

UserError read_only_error(const std::filesystem::path& path, const std::string& why) {
  return UserError(
      fmt::format("results database '{}' is read-only for this user ({})", path.string(), why),
      fmt::format("write access to the file and its directory (SQLite keeps '{0}-wal' and "
                  "'{0}-shm' beside it)",
                  path.filename().string()),
      fmt::format("fix the permissions, or pass --db with a writable path ({})", kNoDb));
}

const char* file_kind(std::filesystem::file_type type) {
  switch (type) {
    case std::filesystem::file_type::directory:
      return "a directory";
    case std::filesystem::file_type::character:
    case std::filesystem::file_type::block:
      return "a device";
    case std::filesystem::file_type::fifo:
      return "a pipe";
    case std::filesystem::file_type::socket:
      return "a socket";
    default:
      return "not a plain file";
  }
}

// The mistakes SQLite would report late or misleadingly (/dev/null "opens"
// and then fails with a disk I/O error), checked before it sees the path.
void check_path(const std::filesystem::path& path, bool writable) {
  if (path.empty()) {
    throw UserError("the results database path is empty (--db '')",
                    "a file path, e.g. results/moesweep.sqlite",
                    fmt::format("pass --db PATH ({})", kNoDb));
  }
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  const bool exists = std::filesystem::exists(status);
  if (exists && !std::filesystem::is_regular_file(status)) {
    throw UserError(
        fmt::format("results database '{}' is {}", path.string(), file_kind(status.type())),
        "an SQLite file, or a path that does not exist yet",
        fmt::format("pass --db with a file path ({})", kNoDb));
  }
  if (!writable) return;
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  if (!exists) {
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      throw UserError(fmt::format("cannot create directory '{}' for results database '{}': {}",
                                  dir.string(), path.string(), ec.message()),
                      "a directory that exists or can be created by this user",
                      fmt::format("create it, fix its parent's permissions, or pass --db with "
                                  "another path ({})",
                                  kNoDb));
    }
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw read_only_error(path, fmt::format("directory '{}': {}", dir.string(), strerror(errno)));
  }
  if (exists && ::access(path.c_str(), W_OK) != 0) throw read_only_error(path, strerror(errno));
}

// "file:" URI of `path` with everything but unreserved characters escaped.
std::string immutable_uri(const std::filesystem::path& path) {
  std::string uri = "file:";
  for (unsigned char c : path.string()) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '-' || c == '_' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      uri += fmt::format("%{:02X}", c);
    }
  }
  return uri + "?immutable=1";
}

bool is_permission_failure(const SqliteError& e) {
  return e.primary() == SQLITE_READONLY || e.primary() == SQLITE_CANTOPEN ||
         e.primary() == SQLITE_PERM;
}

void set_up_for_writing(SqliteDb& db) {
  // WAL: readers (compare, report) work while a sweep writes. Switched only
  // when not WAL yet: the switch needs an exclusive lock, so a second sweep
  // opening a file the first already switched does not contend for it.
  bool wal = false;
  {
    SqliteStmt mode(db, "PRAGMA journal_mode");
    wal = mode.step() && mode.column_text(0) == "wal";
  }
  if (!wal) db.exec("PRAGMA journal_mode = WAL");
  // synchronous=FULL: each point's commit is on disk before the next point
  // starts, so even a power cut loses only the point in flight; one fsync per
  // point is nothing next to the seconds a point takes to measure.
  db.exec("PRAGMA synchronous = FULL");
  migrate_results_schema(db);
}

OpenedResultsDb open_once(const std::filesystem::path& path, bool writable) {
  OpenedResultsDb out;
  out.db = std::make_unique<SqliteDb>(
      path.string(), writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY);
  if (writable && sqlite3_db_readonly(out.db->handle(), "main") == 1) {
    throw read_only_error(path, "SQLite could open it for reading only");
  }
  try {
    // Checked before any pragma that writes (journal_mode=WAL rewrites the header).
    out.version = check_results_schema(*out.db);
  } catch (const SqliteError& e) {
    std::error_code ec;
    const auto wal_file = std::filesystem::path(path.string() + "-wal");
    if (writable || !is_permission_failure(e) || std::filesystem::exists(wal_file, ec)) throw;
    // A reader that may not write the directory cannot make the -shm file a
    // WAL database needs. With no -wal file, the main file holds every
    // commit: read it as immutable.
    out.db =
        std::make_unique<SqliteDb>(immutable_uri(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
    out.version = check_results_schema(*out.db);
  }
  out.db->exec("PRAGMA foreign_keys = ON");
  if (writable) set_up_for_writing(*out.db);
  return out;
}

}  // namespace

OpenedResultsDb open_results_db(const std::filesystem::path& path, bool writable) {
  check_path(path, writable);
  // Two sweeps creating the same new file at once: SQLite answers some lock
  // upgrades (the WAL switch) with SQLITE_BUSY at once instead of waiting, so
  // the whole open is retried for a while before calling the file locked.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (int attempt = 1;; ++attempt) {
    try {
      return open_once(path, writable);
    } catch (const SqliteError& e) {
      const bool busy = e.primary() == SQLITE_BUSY || e.primary() == SQLITE_LOCKED;
      if (!busy || std::chrono::steady_clock::now() > deadline) throw_as_user_error(path, e);
      std::this_thread::sleep_for(std::chrono::milliseconds(5 * std::min(attempt, 20)));
    }
  }
}

void throw_as_user_error(const std::filesystem::path& path, const SqliteError& e) {
  const std::string db = path.string();
  const std::string other = fmt::format("pass --db with another path ({})", kNoDb);
  switch (e.primary()) {
    case SQLITE_FULL:
      throw UserError(
          fmt::format("the disk holding results database '{}' is full ({})", db, e.what()),
          "free space for the database to grow (a few kB per point)",
          "free space on that disk, or pass --db with a path on another disk; a stopped sweep "
          "continues with `moesweep sweep --resume RUN_DIR`");
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      throw read_only_error(path, e.what());
    case SQLITE_CANTOPEN:
      throw UserError(fmt::format("cannot open results database '{}' ({})", db, e.what()),
                      "a path this user can read (and, for a sweep, write) in a directory "
                      "that exists",
                      "check the path and its directory's permissions, or " + other);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw UserError(
          fmt::format("results database '{}' stayed locked by another program ({})", db, e.what()),
          "no other program holding a write transaction on it for long",
          "wait for the other program to finish, or " + other);
    case SQLITE_IOERR:
      throw UserError(fmt::format("I/O error on results database '{}' ({})", db, e.what()),
                      "a file on a working, mounted disk",
                      "check the disk (dmesg shows why), or " + other);
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      throw UserError(
          fmt::format("results database '{}' is not a readable SQLite database ({})", db, e.what()),
          "a database written by moesweep, or a path that does not exist yet",
          "move it aside and pass --db with a new path (the runs' records.jsonl files hold the "
          "same records)");
    default:
      throw e;
  }
}

}  // namespace moesweep
