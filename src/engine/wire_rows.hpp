#pragma once
// The worker protocol's field tables: one row per field of a message (its
// key, the member it fills, its range, whether an older peer may leave it
// out) in a Rows table (util/rows.hpp), and both directions generated from
// them, as FieldRow tables drive our files (util/json_fields.hpp). A message's rows are spelled
// once, in engine/worker_protocol.cpp; moesweep and the worker both write and read through them, so
// no field name is spelled twice.
//
// Reading checks every field's type, range and size through JsonFields and
// raises a ProtocolError naming the message, the field and what it should
// have been.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/engine_types.hpp"
#include "util/json_fields.hpp"

namespace moesweep::worker_protocol {

// A request or reply that breaks the protocol (wrong type, out of range,
// missing field): names the field and what it should have been. Seen from
// moesweep it is the engine's failure: the sweep fails those points and goes
// on, as for any EngineError.
class ProtocolError : public EngineError {
 public:
  using EngineError::EngineError;
};

// JsonFields' raise for a peer's message: a ProtocolError (the fix text is
// about files, not peers, and is dropped).
[[noreturn]] void raise_protocol_error(const std::string& problem, const std::string& expected,
                                       const std::string& fix);

// Required: a missing field is a ProtocolError. Optional: a field an older
// peer does not send; absent reads as the member's default.
enum class Presence { kRequired, kOptional };

template <typename S>
struct WireRow {
  const char* key;
  std::function<void(const S&, nlohmann::json&)> write;
  std::function<void(const JsonFields&, S&)> read;  // only called when the key is present
  Presence presence = Presence::kRequired;
};

template <typename S>
using WireRows = Rows<WireRow<S>>;

// `t` written through its rows into `j`.
template <typename T>
void write_message(const T& t, const WireRows<T>& rows, nlohmann::json& j) {
  for (const WireRow<T>& row : rows) row.write(t, j);
}

// The object `f` read through `rows`: every field checked, a required one
// that is missing raised.
template <typename T>
T read_message(const JsonFields& f, const WireRows<T>& rows) {
  T t{};
  for (const WireRow<T>& row : rows) {
    if (f.has(row.key))
      row.read(f, t);
    else if (row.presence == Presence::kRequired)
      f.fail(row.key, "present");
  }
  return t;
}

// The message `S` (its rows: S::rows()) as a JSON object, and back; `what`
// names the message in errors.
template <typename S>
nlohmann::json encode(const S& s) {
  nlohmann::json j = nlohmann::json::object();
  write_message(s, S::rows(), j);
  return j;
}

template <typename S>
S decode(const nlohmann::json& j, const std::string& what) {
  return read_message(JsonFields(j, what, "", raise_protocol_error), S::rows());
}

// --- Row factories: a key, a member and its checks --------------------------

// An integer member (int, int64_t or uint64_t) in [lo, hi].
template <typename S, typename T>
WireRow<S> int_row(const char* key, T S::*m, int64_t lo, int64_t hi,
                   Presence presence = Presence::kRequired) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  return {key, [=](const S& s, nlohmann::json& j) { j[key] = s.*m; },
          [=](const JsonFields& f, S& s) { s.*m = static_cast<T>(f.integer(key, lo, hi, 0)); },
          presence};
}

// A finite number member in [lo, hi].
template <typename S>
WireRow<S> number_row(const char* key, double S::*m, double lo, double hi) {
  return {key, [=](const S& s, nlohmann::json& j) { j[key] = s.*m; },
          [=](const JsonFields& f, S& s) { s.*m = f.number(key, lo, hi, 0); }};
}

template <typename S>
WireRow<S> flag_row(const char* key, bool S::*m, Presence presence = Presence::kRequired) {
  return {key, [=](const S& s, nlohmann::json& j) { j[key] = s.*m; },
          [=](const JsonFields& f, S& s) { s.*m = f.flag(key, false); }, presence};
}

// The checks of the factories below (engine/wire_rows.cpp).
std::string read_text(const JsonFields& f, const char* key, size_t max_bytes);
std::vector<std::string> read_texts(const JsonFields& f, const char* key, size_t max_items,
                                    size_t max_bytes);
// int32 ids in [lo, hi), at most `max_count` of them.
std::vector<int32_t> read_ids(const JsonFields& f, const char* key, int64_t lo, int64_t hi,
                              size_t max_count);

// A string member of at most `max_bytes`.
template <typename S>
WireRow<S> text_row(const char* key, std::string S::*m, size_t max_bytes,
                    Presence presence = Presence::kRequired) {
  return {key, [=](const S& s, nlohmann::json& j) { j[key] = s.*m; },
          [=](const JsonFields& f, S& s) { s.*m = read_text(f, key, max_bytes); }, presence};
}

// A list of strings: at most `max_items`, each at most `max_bytes`.
template <typename S>
WireRow<S> texts_row(const char* key, std::vector<std::string> S::*m, size_t max_items,
                     size_t max_bytes, Presence presence = Presence::kRequired) {
  return {key, [=](const S& s, nlohmann::json& j) { j[key] = s.*m; },
          [=](const JsonFields& f, S& s) { s.*m = read_texts(f, key, max_items, max_bytes); },
          presence};
}

// A list of int32 ids in [lo, hi), at most `max_count`.
template <typename S>
WireRow<S> ids_row(const char* key, std::vector<int32_t> S::*m, int64_t lo, int64_t hi,
                   size_t max_count) {
  return {key, [=](const S& s, nlohmann::json& j) { j[key] = s.*m; },
          [=](const JsonFields& f, S& s) { s.*m = read_ids(f, key, lo, hi, max_count); }};
}

// A list of int64 counts in [lo, hi], at most `max_count`; absent reads as empty
// when optional.
template <typename S>
WireRow<S> counts_row(const char* key, std::vector<int64_t> S::*m, int64_t lo, int64_t hi,
                      size_t max_count, Presence presence = Presence::kRequired) {
  return {key, [=](const S& s, nlohmann::json& j) { j[key] = s.*m; },
          [=](const JsonFields& f, S& s) { s.*m = f.integers(key, lo, hi, max_count); }, presence};
}

// A member that is itself a message with its own rows (a struct of
// engine_types.hpp, whose rows worker_protocol.cpp declares).
template <typename S, typename T>
WireRow<S> object_row(const char* key, T S::*m, const WireRows<T>& (*rows)(),
                      Presence presence = Presence::kRequired) {
  return {key,
          [=](const S& s, nlohmann::json& j) {
            nlohmann::json o = nlohmann::json::object();
            write_message(s.*m, rows(), o);
            j[key] = std::move(o);
          },
          [=](const JsonFields& f, S& s) { s.*m = read_message(f.object(key), rows()); }, presence};
}

// The rows of `T` as rows of `S`, reading and writing its member `m`: a
// struct whose fields sit at the top level of a message (an expert GEMV's
// shape in its request).
template <typename S, typename T>
WireRows<S> lifted_rows(T S::*m, const WireRows<T>& rows) {
  std::vector<WireRow<S>> out;
  for (const WireRow<T>& row : rows)
    out.push_back({row.key, [m, w = row.write](const S& s, nlohmann::json& j) { w(s.*m, j); },
                   [m, r = row.read](const JsonFields& f, S& s) { r(f, s.*m); }, row.presence});
  return WireRows<S>(std::move(out));
}

// A field that holds one fixed value: a message's "op", "event" or "ok".
template <typename S>
WireRow<S> constant_row(const char* key, nlohmann::json value) {
  return {key, [=](const S&, nlohmann::json& j) { j[key] = value; },
          [=](const JsonFields& f, S&) {
            if (f.json().at(key) != value) f.fail(key, value.dump());
          }};
}

}  // namespace moesweep::worker_protocol
