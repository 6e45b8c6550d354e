#pragma once
// One row table for every "one row per member" list of the code: FieldRow
// (our files), WireRow (the worker protocol), SweepSetting (the sweep's
// settings), PointField (a point's parameters), MemoryField and ExtraRow (what
// a point carries beyond its parameters). A row names its key and member and
// keeps its dialect's own columns (ranges, flag help, SQL columns) as data;
// Rows<Row> finds rows by key, lists the keys, refuses a key spelled twice,
// and visit_member hands a row's member to generic code once for every dialect.
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace moesweep {

// A member of S of one of the types Ts (a row's `member` column).
template <typename S, typename... Ts>
using MemberOf = std::variant<Ts S::*...>;

// f(obj.*m) for the alternative `member` holds: generic code over a row's
// member of any of its types, const or not as `obj` is.
template <typename Obj, typename Member, typename F>
decltype(auto) visit_member(Obj& obj, const Member& member, F&& f) {
  return std::visit([&](auto m) -> decltype(auto) { return f(obj.*m); }, member);
}

// f(a.*m, b.*m): one member of two objects of one type (a value and its default).
template <typename Obj, typename Other, typename Member, typename F>
decltype(auto) visit_member(Obj& a, Other& b, const Member& member, F&& f) {
  return std::visit([&](auto m) -> decltype(auto) { return f(a.*m, b.*m); }, member);
}

// A row's key: its `key` column (nullptr: a row without one, never found).
template <typename Row>
const char* row_key(const Row& row) {
  return row.key;
}

template <typename Row>
class Rows {
 public:
  Rows() = default;
  Rows(std::initializer_list<Row> rows) : Rows(std::vector<Row>(rows)) {}
  // Throws std::logic_error when two rows share a key: the table is code, and
  // its tests build every table.
  explicit Rows(std::vector<Row> rows) : rows_(std::move(rows)) {
    for (size_t i = 0; i < rows_.size(); ++i)
      for (size_t k = 0; k < i; ++k)
        if (row_key(rows_[i]) && row_key(rows_[k]) &&
            std::string_view(row_key(rows_[i])) == row_key(rows_[k]))
          throw std::logic_error(std::string("row table: key spelled twice: ") + row_key(rows_[i]));
  }

  auto begin() const { return rows_.begin(); }
  auto end() const { return rows_.end(); }
  size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  const Row& operator[](size_t i) const { return rows_[i]; }
  const std::vector<Row>& list() const { return rows_; }

  // The row whose key is `key`, or nullptr.
  const Row* find(std::string_view key) const {
    for (const Row& row : rows_)
      if (row_key(row) && key == row_key(row)) return &row;
    return nullptr;
  }
  // `more` first, then every row's key in order (rows without one left out).
  std::vector<std::string> keys(std::initializer_list<const char*> more = {}) const {
    std::vector<std::string> out(more.begin(), more.end());
    for (const Row& row : rows_)
      if (row_key(row)) out.emplace_back(row_key(row));
    return out;
  }
  // These rows, then `tail`'s (a message made of a common head and its own fields).
  Rows joined(const Rows& tail) const {
    std::vector<Row> out = rows_;
    out.insert(out.end(), tail.begin(), tail.end());
    return Rows(std::move(out));
  }

 private:
  std::vector<Row> rows_;
};

}  // namespace moesweep
