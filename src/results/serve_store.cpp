#include "results/serve_store.hpp"

#include <chrono>
#include <ctime>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "results/sqlite_open.hpp"

namespace moesweep {
namespace {

std::string utc_now_text() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

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
  const std::string now = utc_now_text();
  auto up = db.prepare(
      "INSERT INTO runs (run_id, name, run_dir, status, started_at, finished_at, meta_json) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6) ON CONFLICT(run_id) DO UPDATE SET "
      "status = excluded.status, finished_at = excluded.finished_at, "
      "meta_json = excluded.meta_json");
  up.bind(1, run.run_id).bind(2, run.name).bind(3, run.run_dir).bind(4, run.status);
  up.bind(5, now).bind(6, run.meta.dump()).run();
  const std::string wl = s.value("workload", "");
  auto del = db.prepare("DELETE FROM serve_workloads WHERE run_id = ?1 AND workload = ?2");
  del.bind(1, run.run_id).bind(2, wl).run();
  auto ws = db.prepare(
      "INSERT INTO serve_workloads (run_id, workload, kind, server, model, requests, failed, "
      "wall_s, summary_json, recorded_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  ws.bind(1, run.run_id).bind(2, wl).bind(3, s.value("kind", "")).bind(4, server).bind(5, model);
  ws.bind(6, s.value("requests", 0)).bind(7, s.value("failed", 0));
  ws.bind(8, s.value("wall_s", 0.0)).bind(9, s.dump()).bind(10, now).run();
  auto rq = db.prepare(
      "INSERT INTO serve_requests (run_id, workload, idx, task, ok, error, concurrency, "
      "prompt_tokens, generated, cache_n, prompt_n, prompt_ms, predicted_n, predicted_ms, "
      "ttft_ms, itl_mean_ms, itl_p50_ms, itl_p99_ms, e2e_ms, start_s) VALUES (?1, ?2, ?3, ?4, "
      "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)");
  static const char* const kCols[] = {"concurrency", "prompt_tokens", "generated",   "cache_n",
                                      "prompt_n",    "prompt_ms",     "predicted_n", "predicted_ms",
                                      "ttft_ms",     "itl_ms_mean",   "itl_ms_p50",  "itl_ms_p99",
                                      "e2e_ms",      "start_s"};
  for (size_t i = 0; i < requests.size(); ++i) {
    const nlohmann::json& r = requests[i];
    rq.bind(1, run.run_id).bind(2, wl).bind(3, static_cast<int64_t>(i));
    rq.bind(4, r.value("task", "")).bind(5, r.value("ok", false));
    bind_or_null(rq, 6, r, "error");
    int col = 7;
    for (const char* c : kCols) bind_or_null(rq, col++, r, c);
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
