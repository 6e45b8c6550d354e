#include "results/sqlite_db.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace moesweep {

SqliteDb::SqliteDb(const std::string& path, int flags) : path_(path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    const int code = db_ ? sqlite3_extended_errcode(db_) : rc;
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw SqliteError(fmt::format("cannot open SQLite database '{}': {}", path, msg), code);
  }
  sqlite3_extended_result_codes(db_, 1);
  // A second writer (another sweep on the same file) waits instead of failing at once.
  sqlite3_busy_timeout(db_, 10000);
}

SqliteDb::~SqliteDb() {
  sqlite3_close_v2(db_);
}

std::string SqliteDb::last_error() const {
  return db_ ? sqlite3_errmsg(db_) : "no connection";
}

int SqliteDb::last_code() const {
  return db_ ? sqlite3_extended_errcode(db_) : SQLITE_MISUSE;
}

void SqliteDb::exec(std::string_view sql) {
  char* err = nullptr;
  std::string text(sql);
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : last_error();
    sqlite3_free(err);
    throw SqliteError(fmt::format("SQLite '{}' on '{}': {}", text.substr(0, 60), path_, msg),
                      last_code());
  }
}

SqliteStmt SqliteDb::prepare(std::string_view sql) {
  return SqliteStmt(*this, sql);
}

int64_t SqliteDb::pragma_int(std::string_view pragma) {
  SqliteStmt st(*this, fmt::format("PRAGMA {}", pragma));
  return st.step() ? st.column_int(0) : 0;
}

SqliteStmt::SqliteStmt(SqliteDb& db, std::string_view sql) : db_(&db), sql_(sql) {
  if (sqlite3_prepare_v2(db.handle(), sql_.data(), static_cast<int>(sql_.size()), &stmt_,
                         nullptr) != SQLITE_OK) {
    throw SqliteError(
        fmt::format("SQLite prepare '{}' on '{}': {}", sql_, db.path(), db.last_error()),
        db.last_code());
  }
}

SqliteStmt::~SqliteStmt() {
  sqlite3_finalize(stmt_);
}

SqliteStmt::SqliteStmt(SqliteStmt&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), sql_(std::move(other.sql_)) {
  other.stmt_ = nullptr;
}

namespace {
void check_bind(int rc, SqliteDb& db, const std::string& sql) {
  if (rc != SQLITE_OK) {
    throw SqliteError(fmt::format("SQLite bind in '{}': {}", sql, db.last_error()), db.last_code());
  }
}
}  // namespace

SqliteStmt& SqliteStmt::bind(int index, int64_t value) {
  check_bind(sqlite3_bind_int64(stmt_, index, value), *db_, sql_);
  return *this;
}
SqliteStmt& SqliteStmt::bind(int index, double value) {
  check_bind(sqlite3_bind_double(stmt_, index, value), *db_, sql_);
  return *this;
}
SqliteStmt& SqliteStmt::bind(int index, std::string_view value) {
  check_bind(sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                               SQLITE_TRANSIENT),
             *db_, sql_);
  return *this;
}
SqliteStmt& SqliteStmt::bind_null(int index) {
  check_bind(sqlite3_bind_null(stmt_, index), *db_, sql_);
  return *this;
}
SqliteStmt& SqliteStmt::bind_optional(int index, const std::optional<double>& value) {
  return value ? bind(index, *value) : bind_null(index);
}

bool SqliteStmt::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw SqliteError(
      fmt::format("SQLite step '{}' on '{}': {}", sql_, db_->path(), db_->last_error()),
      db_->last_code());
}

void SqliteStmt::run() {
  while (step()) {
  }
  reset();
}

void SqliteStmt::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t SqliteStmt::column_int(int index) const {
  return sqlite3_column_int64(stmt_, index);
}
std::string SqliteStmt::column_text(int index) const {
  const unsigned char* text = sqlite3_column_text(stmt_, index);
  return text ? std::string(reinterpret_cast<const char*>(text),
                            static_cast<size_t>(sqlite3_column_bytes(stmt_, index)))
              : std::string();
}

SqliteTransaction::SqliteTransaction(SqliteDb& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE");
}

SqliteTransaction::~SqliteTransaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) {  // a failed rollback leaves SQLite's own recovery to the next open
    }
  }
}

void SqliteTransaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace moesweep
