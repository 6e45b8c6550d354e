#include "results/point_extras.hpp"

#include <functional>
#include <limits>
#include <type_traits>

#include "util/rows.hpp"

namespace moesweep {
namespace {

using nlohmann::json;

// One key of an extra object: how its value reads into the member (false:
// not of the member's type, kept untyped) and writes back (nothing when absent).
template <typename S>
struct ExtraRow {
  const char* key;
  std::function<bool(const json&, S&)> read;
  std::function<void(const S&, json&)> write;
};

template <typename S>
using ExtraRows = Rows<ExtraRow<S>>;

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

// `v` as a T, when it is one (a number in range, a list of texts).
template <typename T>
std::optional<T> value_as(const json& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (v.is_string()) return v.get<std::string>();
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    if (!v.is_array()) return std::nullopt;
    for (const json& e : v)
      if (!e.is_string()) return std::nullopt;
    return v.get<std::vector<std::string>>();
  } else if constexpr (std::is_same_v<T, int>) {
    if (v.is_number_integer() && v.get<int64_t>() >= std::numeric_limits<int>::min() &&
        v.get<int64_t>() <= std::numeric_limits<int>::max())
      return static_cast<int>(v.get<int64_t>());
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    if (v.is_number_unsigned()) return v.get<uint64_t>();
  } else {
    static_assert(std::is_same_v<T, double>, "a member type without a reader");
    if (v.is_number()) return v.get<double>();
  }
  return std::nullopt;
}

// A member of a plain type: texts and lists (absent: empty), or optional
// values; `null_when_absent`: an unknown value is written as null (extra.applied).
template <typename S, typename T>
ExtraRow<S> value_row(const char* key, T S::*m, bool null_when_absent = false) {
  return {key,
          [=](const json& v, S& s) {
            if (v.is_null()) return null_when_absent;
            if constexpr (IsOptional<T>::value) {
              s.*m = value_as<typename T::value_type>(v);
              return (s.*m).has_value();
            } else {
              const std::optional<T> read = value_as<T>(v);
              if (read) s.*m = *read;
              return read.has_value();
            }
          },
          [=](const S& s, json& j) {
            if constexpr (IsOptional<T>::value) {
              if (s.*m)
                j[key] = *(s.*m);
              else if (null_when_absent)
                j[key] = nullptr;
            } else {
              if (!(s.*m).empty()) j[key] = s.*m;
            }
          }};
}

// A member kept whole (an object shown as it is).
template <typename S>
ExtraRow<S> whole_row(const char* key, json S::*m) {
  return {key,
          [=](const json& v, S& s) {
            s.*m = v;
            return !v.is_null();
          },
          [=](const S& s, json& j) {
            if (!(s.*m).is_null()) j[key] = s.*m;
          }};
}

// The object `j` into `s` through `rows`; what no row reads stays in s.untyped.
template <typename S>
void read_object(const json& j, S& s, const ExtraRows<S>& rows) {
  if (!j.is_object()) return;
  for (const auto& [key, value] : j.items()) {
    const ExtraRow<S>* row = rows.find(key);
    if (!row || !row->read(value, s)) s.untyped[key] = value;
  }
}

template <typename S>
json write_object(const S& s, const ExtraRows<S>& rows) {
  json j = s.untyped.is_object() ? s.untyped : json::object();
  for (const ExtraRow<S>& row : rows)
    if (!j.contains(row.key)) row.write(s, j);  // a value kept as read stays
  return j;
}

// A member that is an object with rows of its own; absent: nullopt.
template <typename S, typename T>
ExtraRow<S> object_row(const char* key, std::optional<T> S::*m, const ExtraRows<T>& (*rows)()) {
  return {key,
          [=](const json& v, S& s) {
            if (!v.is_object()) return false;
            T t;
            read_object(v, t, rows());
            s.*m = std::move(t);
            return true;
          },
          [=](const S& s, json& j) {
            if (s.*m) j[key] = write_object(*(s.*m), rows());
          }};
}

const ExtraRows<EngineStamp>& engine_rows() {
  using E = EngineStamp;
  static const ExtraRows<E> rows = {
      value_row("kind", &E::kind),       value_row("tool", &E::tool),
      value_row("release", &E::release), value_row("commit", &E::commit),
      value_row("build", &E::build),     value_row("cpu_variant", &E::cpu_variant),
      value_row("name", &E::name),       value_row("build_flags", &E::build_flags),
      value_row("opts", &E::opts),
  };
  return rows;
}

const ExtraRows<AppliedSettings>& applied_rows() {
  using A = AppliedSettings;
  static const ExtraRows<A> rows = {
      value_row("n_threads", &A::n_threads, true),
      value_row("n_threads_batch", &A::n_threads_batch, true),
      value_row("n_ctx", &A::n_ctx, true),
      value_row("n_batch", &A::n_batch, true),
      value_row("n_ubatch", &A::n_ubatch, true),
      value_row("type_k", &A::type_k, true),
      value_row("type_v", &A::type_v, true),
      value_row("flash_attn", &A::flash_attn, true),
      value_row("fused_moe", &A::fused_moe),
      value_row("mla", &A::mla),
      value_row("attn_max_batch", &A::attn_max_batch),
  };
  return rows;
}

const ExtraRows<PointRoofline>& roofline_rows() {
  using R = PointRoofline;
  static const ExtraRows<R> rows = {
      value_row("active_bytes_per_token", &R::active_bytes_per_token),
      value_row("bandwidth_gbps", &R::bandwidth_gbps),
      value_row("bandwidth_gbps_at_threads", &R::bandwidth_gbps_at_threads),
      value_row("bandwidth_source", &R::bandwidth_source),
      value_row("roofline_tg", &R::roofline_tg),
      value_row("efficiency_tg", &R::efficiency_tg),
      value_row("roofline_pp", &R::roofline_pp),
      value_row("efficiency_pp", &R::efficiency_pp),
      value_row("active_weight_bytes_per_token", &R::active_weight_bytes_per_token),
      value_row("kv_bytes_read_per_token", &R::kv_bytes_read_per_token),
      value_row("routed_expert_bytes_per_layer", &R::routed_expert_bytes_per_layer),
      value_row("routed_expert_bytes_total", &R::routed_expert_bytes_total),
      value_row("routed_bytes_per_token", &R::routed_bytes_per_token),
      value_row("hot_bytes_per_token", &R::hot_bytes_per_token),
      value_row("l3_bytes", &R::l3_bytes),
      value_row("l3_effective_bytes", &R::l3_effective_bytes),
      value_row("kernel_gemv_out_of_cache_gbps", &R::kernel_gemv_out_of_cache_gbps),
      value_row("kernel_gemv_in_cache_gbps", &R::kernel_gemv_in_cache_gbps),
  };
  return rows;
}

const ExtraRows<PublishedReference>& reference_rows() {
  using P = PublishedReference;
  static const ExtraRows<P> rows = {
      value_row("table", &P::table),       value_row("hardware", &P::hardware),
      value_row("source", &P::source),     value_row("engine", &P::engine),
      value_row("settings", &P::settings), value_row("note", &P::note),
      value_row("lcp", &P::lcp),           value_row("n_kv_published", &P::n_kv_published),
  };
  return rows;
}

const ExtraRows<PointExtras>& extra_rows() {
  using X = PointExtras;
  static const ExtraRows<X> rows = {
      object_row("engine", &X::engine, engine_rows),
      object_row("applied", &X::applied, applied_rows),
      value_row("applied_notes", &X::applied_notes),
      object_row("roofline", &X::roofline, roofline_rows),
      value_row("roofline_error", &X::roofline_error),
      object_row("reference", &X::reference, reference_rows),
      whole_row("engine_failure", &X::engine_failure),
      whole_row("ingested", &X::ingested),
      whole_row("token_times", &X::token_times),
      whole_row("routing_pass", &X::routing_pass),
  };
  return rows;
}

}  // namespace

json extras_to_json(const PointExtras& e) {
  return write_object(e, extra_rows());
}

PointExtras extras_from_json(const json& j) {
  PointExtras e;
  read_object(j, e, extra_rows());
  return e;
}

AppliedSettings applied_from_json(const json& j) {
  AppliedSettings a;
  read_object(j, a, applied_rows());
  return a;
}

std::optional<PointRoofline> roofline_or_flat(const PointExtras& e) {
  if (e.roofline) return e.roofline;
  PointRoofline flat;
  read_object(e.untyped, flat, roofline_rows());
  if (!flat.active_bytes_per_token && !flat.efficiency_tg && !flat.roofline_tg) return std::nullopt;
  return flat;
}

double or_value(const std::optional<uint64_t>& v, double fallback) {
  return v ? static_cast<double>(*v) : fallback;
}

double or_value(const std::optional<double>& v, double fallback) {
  return v.value_or(fallback);
}

}  // namespace moesweep
