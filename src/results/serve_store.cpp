#include "results/serve_store.hpp"

#include <chrono>
#include <ctime>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "results/sqlite_open.hpp"
#include "util/utc_time.hpp"

namespace moesweep {
namespace {

void bind_or_null(SqliteStmt& st, int i, const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null() || (j[key].is_string() && j[key].empty())) {
    st.bind_null(i);
  } else if (j[key].is_number_integer()) {
    const int64_t v = j[key].get<int64_t>();
    if (v < 0)
      st.bind_null(i);  // -1: the server did not report it
    else
      st.bind(i, v);
  } else if (j[key].is_number()) {
    const double v = j[key].get<double>();
    if (v < 0)
      st.bind_null(i);
    else
      st.bind(i, v);
  } else {
    st.bind(i, j[key].is_string() ? j[key].get<std::string>() : j[key].dump());
  }
}

void write_rows(SqliteDb& db, const ServeRunRow& run, const std::string& server,
                const std::string& model, const nlohmann::json& s,
                const std::vector<nlohmann::json>& requests) {
  const std::string now = utc_now_iso8601();
  auto up = db.prepare(
      "INSERT INTO runs (run_id, name, run_dir, status, started_at, finished_at, meta_json) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6) ON CONFLICT(run_id) DO UPDATE SET "
      "status = excluded.status, finished_at = excluded.finished_at, "
      "meta_json = excluded.meta_json");
  up.bind(1, run.run_id).bind(2, run.name).bind(3, run.run_dir).bind(4, run.status);
  up.bind(5, now).bind(6, run.meta.dump()).run();
  const std::string wl = s.value("workload", "");
  const std::string config = s.value("config", "default");
  auto del =
      db.prepare("DELETE FROM serve_workloads WHERE run_id = ?1 AND config = ?2 AND workload = ?3");
  del.bind(1, run.run_id).bind(2, config).bind(3, wl).run();
  auto ws = db.prepare(
      "INSERT INTO serve_workloads (run_id, config, workload, kind, server, model, threads, "
      "ctx_size, parallel, cache_ram, requests, failed, wall_s, summary_json, recorded_at) VALUES "
      "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
  ws.bind(1, run.run_id).bind(2, config).bind(3, wl).bind(4, s.value("kind", ""));
  ws.bind(5, server).bind(6, model);
  const nlohmann::json settings = s.value("server_settings", nlohmann::json::object());
  int col = 7;
  for (const char* key : {"threads", "ctx-size", "parallel", "cache-ram"}) {
    if (settings.contains(key) && settings[key].is_number_integer())
      ws.bind(col++, settings[key].get<int64_t>());  // cache-ram -1 is a value: no limit
    else
      ws.bind_null(col++);
  }
  ws.bind(11, s.value("requests", 0)).bind(12, s.value("failed", 0));
  ws.bind(13, s.value("wall_s", 0.0)).bind(14, s.dump()).bind(15, now).run();
  auto rq = db.prepare(
      "INSERT INTO serve_requests (run_id, config, workload, idx, task, ok, error, concurrency, "
      "prompt_tokens, generated, cache_n, prompt_n, prompt_ms, predicted_n, predicted_ms, "
      "ttft_ms, itl_mean_ms, itl_p50_ms, itl_p99_ms, e2e_ms, start_s, usage_prompt_tokens, "
      "usage_completion_tokens, prompt_tokens_exact) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
      "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)");
  static const char* const kCols[] = {
      "concurrency", "prompt_tokens", "generated",           "cache_n",
      "prompt_n",    "prompt_ms",     "predicted_n",         "predicted_ms",
      "ttft_ms",     "itl_ms_mean",   "itl_ms_p50",          "itl_ms_p99",
      "e2e_ms",      "start_s",       "usage_prompt_tokens", "usage_completion_tokens"};
  for (size_t i = 0; i < requests.size(); ++i) {
    const nlohmann::json& r = requests[i];
    rq.bind(1, run.run_id).bind(2, config).bind(3, wl).bind(4, static_cast<int64_t>(i));
    rq.bind(5, r.value("task", "")).bind(6, r.value("ok", false));
    bind_or_null(rq, 7, r, "error");
    int c = 8;
    for (const char* key : kCols) bind_or_null(rq, c++, r, key);
    rq.bind(c, r.value("prompt_tokens_exact", true));
    rq.run();
  }
}

}  // namespace

void store_serve_workload(const std::filesystem::path& path, const ServeRunRow& run,
                          const std::string& server, const std::string& model,
                          const nlohmann::json& summary,
                          const std::vector<nlohmann::json>& requests) {
  OpenedResultsDb opened = open_results_db(path, /*writable=*/true);
  try {
    SqliteTransaction tx(*opened.db);
    write_rows(*opened.db, run, server, model, summary, requests);
    tx.commit();
  } catch (const SqliteError& e) {
    throw_as_user_error(path, e);
  }
}

}  // namespace moesweep
