#pragma once
// A thin RAII layer over the SQLite C API: one connection, prepared
// statements, and a transaction guard that rolls back unless committed. Every
// SQLite failure becomes an SqliteError naming the statement and the file and
// carrying SQLite's result code, so the store above can turn the ones a user
// can fix (disk full, read-only, locked) into UserError.
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace moesweep {

class SqliteError : public std::runtime_error {
 public:
  SqliteError(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }            // extended result code
  int primary() const { return code_ & 0xff; }  // SQLITE_FULL, SQLITE_BUSY, ...

 private:
  int code_;
};

class SqliteStmt;

class SqliteDb {
 public:
  // flags: SQLITE_OPEN_READONLY or SQLITE_OPEN_READWRITE [| SQLITE_OPEN_CREATE].
  SqliteDb(const std::string& path, int flags);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  void exec(std::string_view sql);  // one or more statements, no results
  SqliteStmt prepare(std::string_view sql);
  int64_t pragma_int(std::string_view pragma);  // e.g. "user_version"
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  std::string last_error() const;
  int last_code() const;  // extended result code of the last failure

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class SqliteStmt {
 public:
  SqliteStmt(SqliteDb& db, std::string_view sql);
  ~SqliteStmt();
  SqliteStmt(SqliteStmt&& other) noexcept;
  SqliteStmt(const SqliteStmt&) = delete;
  SqliteStmt& operator=(const SqliteStmt&) = delete;

  // Bind by 1-based position; returns *this so calls chain.
  SqliteStmt& bind(int index, int64_t value);
  SqliteStmt& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  SqliteStmt& bind(int index, bool value) { return bind(index, static_cast<int64_t>(value)); }
  SqliteStmt& bind(int index, double value);
  SqliteStmt& bind(int index, std::string_view value);
  SqliteStmt& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  SqliteStmt& bind(int index, const std::string& value) {
    return bind(index, std::string_view(value));
  }
  SqliteStmt& bind_null(int index);
  SqliteStmt& bind_optional(int index, const std::optional<double>& value);

  bool step();  // true while a row is available
  void run();   // step to completion, then reset for reuse
  void reset();

  int64_t column_int(int index) const;
  std::string column_text(int index) const;

 private:
  SqliteDb* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

// BEGIN IMMEDIATE on construction (takes the write lock up front so a busy
// database fails here, not half way), ROLLBACK on destruction unless commit().
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDb& db);
  ~SqliteTransaction();
  void commit();

 private:
  SqliteDb& db_;
  bool done_ = false;
};

}  // namespace moesweep
