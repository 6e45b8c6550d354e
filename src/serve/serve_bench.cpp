#include "serve/serve_bench.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>

#include "results/file_sinks.hpp"
#include "results/serve_store.hpp"
#include "run/run_lifecycle.hpp"
#include "serve/arrival_schedule.hpp"
#include "serve/page_cache.hpp"
#include "serve/prompt_pool.hpp"
#include "serve/rate_table.hpp"
#include "serve/serve_client.hpp"
#include "serve/serve_output.hpp"
#include "serve/server_process.hpp"
#include "serve/vllm_result.hpp"
#include "serve/workload_runner.hpp"
#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {
namespace {

bool has_flag(const std::vector<std::string>& args, std::initializer_list<const char*> names) {
  for (const std::string& a : args)
    for (const char* n : names)
      if (a == n || a.rfind(std::string(n) + "=", 0) == 0) return true;
  return false;
}

// The value of a numeric flag in llama-server's argv; `fallback` when absent
// or not a number (llama-server then refuses it itself).
int64_t flag_int(const std::vector<std::string>& args, std::initializer_list<const char*> names,
                 int64_t fallback) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    for (const char* n : names)
      if (args[i] == n) {
        char* end = nullptr;
        const long long v = std::strtoll(args[i + 1].c_str(), &end, 10);
        return end && *end == '\0' && end != args[i + 1].c_str() ? v : fallback;
      }
  return fallback;
}

// requests.jsonl: every request's line as it finishes.
class RequestLog : public RunListener {
 public:
  explicit RequestLog(const std::filesystem::path& path) : out_(path) {}
  void request(const nlohmann::json& record) override { out_.append_line(record.dump()); }

 private:
  DurableAppender out_;
};

struct Session {
  const ServeBenchOptions& o;
  ServeBenchListener& out;
  RunLifecycle& run;  // the directory, its lock, meta.json and the listeners' endings
  RunMeta& meta;      // run.meta(): "kind": "serve", the serve facts in meta.serve
  const RunDirectory& dir;
  ServerProcess server;
  std::vector<ServerConfig> configs;
  size_t config_index = 0;
  nlohmann::json settings = nlohmann::json::object();  // what the current server was given
  Api api = Api::kLlama;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  double since_start() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  const ServerConfig& config() const { return configs[config_index]; }
  std::string log_name() const {
    return configs.size() == 1 ? "server.log" : fmt::format("server-{}.log", config_index + 1);
  }
  std::string server_gone() {
    if (!o.url.empty() || server.running()) return "";
    return fmt::format("llama-server ended ({})", server.exit_text());
  }
  // A request's JSONL line / a workload's summary, with its server configuration.
  nlohmann::json tag(nlohmann::json j) const {
    j["config"] = config().label();
    j["server_settings"] = settings;
    return j;
  }
};

ServerAddress start_server(Session& s, bool (*interrupted)()) {
  const auto bin =
      find_llama_server(s.o.server_bin, [&s](const std::string& line) { s.out.note(line); });
  const int port = free_loopback_port();
  const auto args = llama_server_args(s.o, s.config(), port);
  s.settings = server_settings(args);
  ServeFacts& facts = *s.meta.serve;
  facts.server = {{"binary", bin.string()}, {"args", args},
                  {"log", s.log_name()},    {"config", s.config().label()},
                  {"settings", s.settings}, {"started_s", s.since_start()}};
  s.server.start(bin, args, s.dir.file(s.log_name()));
  s.out.note(fmt::format("llama-server pid {} on 127.0.0.1:{} (log {})", s.server.pid(), port,
                         s.dir.file(s.log_name()).string()));
  const double ready =
      s.server.wait_ready(port, std::chrono::seconds(s.o.ready_timeout_s), interrupted);
  facts.server["ready_s"] = ready;
  facts.server["pid"] = s.server.pid();
  facts.servers[s.config_index] = facts.server;
  s.run.save_meta();  // the pid, for whoever must find the server
  s.out.note(fmt::format("ready in {:.1f} s", ready));
  return {"127.0.0.1", port};
}

// --format vllm: each rate of an open-loop workload as vLLM bench serve's result file.
void write_vllm_files(Session& s, const WorkloadRun& run) {
  VllmRunInfo info;
  info.backend = s.api == Api::kLlama ? "llama.cpp" : api_name(s.api);
  info.label = fmt::format("moesweep {} {}", run.workload.name, s.config().label());
  info.model_id = s.o.gguf.empty() ? s.o.url : std::filesystem::path(s.o.gguf).filename().string();
  info.date = fmt::format("{:%Y%m%d-%H%M%S}", fmt::localtime(std::time(nullptr)));
  info.burstiness = s.o.traffic.burstiness;
  info.max_concurrency = s.o.traffic.max_concurrency;
  std::filesystem::create_directories(s.dir.file("vllm"));
  for (const nlohmann::json& rate : run.rates) {
    const int round = rate["round"].get<int>();
    std::vector<const RequestRecord*> recs;
    for (const RequestRecord& r : run.requests)
      if (r.arrival.round == round && r.arrival.phase == "measure") recs.push_back(&r);
    info.rate = rate["rate"].is_string() ? kInfiniteRate : rate["rate"].get<double>();
    info.duration_s = rate["wall_s"].get<double>();
    const std::string name = vllm_file_name(run.workload.name, info.rate, info.max_concurrency,
                                            s.config().label(), round);
    write_file_atomically(s.dir.file("vllm") / name,
                          vllm_result(recs, info, s.o.traffic.slos).dump(2) + "\n");
  }
}

void keep(Session& s, const WorkloadRun& run, const ServerAddress& addr, RunStatus status) {
  std::vector<nlohmann::json> rows;
  for (const auto& rec : run.requests) rows.push_back(s.tag(request_json(run.workload.name, rec)));
  const nlohmann::json summary = s.tag(workload_summary(run));
  s.meta.serve->workloads.push_back(summary);
  if (std::count(s.o.formats.begin(), s.o.formats.end(), "vllm") && !run.rates.empty())
    write_vllm_files(s, run);
  if (!s.o.no_db)
    store_serve_workload(
        s.o.db,
        {s.dir.run_id(), s.o.name, s.dir.path().string(), run_status_name(status), to_json(s.meta)},
        addr.text(), s.o.gguf, summary, rows);
}

// cold-start: the server restarted twice, first with the model dropped from
// the page cache, then with it still cached; time to ready and the first
// request of each.
WorkloadRun cold_start(Session& s, const Workload& w, ServerAddress& addr,
                       std::unique_ptr<ServeClient>& client, const RunHooks& hooks,
                       bool (*interrupted)()) {
  if (!s.o.url.empty()) {
    throw UserError("the cold-start workload was given with --url",
                    "a server serve-bench starts (it restarts it and drops the page cache)",
                    "drop --url, or run the other workloads against that server");
  }
  WorkloadRun run;
  run.workload = w;
  const auto parts = model_parts(s.o.gguf);
  for (const bool cold : {true, false}) {
    if (interrupted()) break;
    s.server.stop();
    nlohmann::json note = {{"phase", cold ? "cold" : "warm"}, {"config", s.config().label()}};
    if (cold) {
      note["resident_before"] = page_cache_fraction(parts);
      const std::string why = drop_page_cache(parts);
      note["dropped"] = why.empty();
      if (!why.empty()) {
        note["why_not"] = why;
        s.out.note("cold start is not cold: " + why);
      }
    }
    note["resident_at_start"] = page_cache_fraction(parts);
    addr = start_server(s, interrupted);
    client = std::make_unique<ServeClient>(addr, s.o.request_timeout_s, s.api, interrupted);
    const double ready = s.meta.serve->server["ready_s"].get<double>();
    note["ready_s"] = ready;
    const PromptPool pool(*client, w.seed, w.system_tokens + w.suffix_tokens);
    CompletionRequest req{fmt::format("{} start (ready {:.1f} s)", cold ? "cold" : "warm", ready),
                          pool.take(0, w.system_tokens + w.suffix_tokens), w.n_predict, false,
                          hooks.steer_token};
    run.requests.push_back({client->complete(req, interrupted), 1, {}});
    if (hooks.on_request) hooks.on_request(run.requests.back());
    s.meta.serve->cold_start.push_back(note);
  }
  run.interrupted = interrupted();
  return run;
}

struct Totals {
  int failed = 0;
  bool stopped = false;
  std::string tables, gone;
};

// The client for one server: the API (auto: /tokenize answers or not), its
// /health, and the twin's steered token.
std::unique_ptr<ServeClient> connect(Session& s, const ServerAddress& addr, RunHooks& hooks) {
  // A server at --url: healthy first (a dead one is named as such, not after
  // the API detection's timeouts), waiting out a model that is still loading.
  if (!s.o.url.empty())
    ServeClient::wait_healthy(
        addr, std::chrono::seconds(s.o.ready_timeout_s), hooks.interrupted, [&] {
          s.out.note(
              fmt::format("the server at {} is loading its model (GET /health: HTTP "
                          "503); waiting up to --ready-timeout {} s",
                          addr.text(), s.o.ready_timeout_s));
        });
  s.api = s.o.url.empty() && s.o.api == "auto"
              ? Api::kLlama
              : ServeClient::detect_api(addr, s.o.api, hooks.interrupted);
  auto client =
      std::make_unique<ServeClient>(addr, s.o.request_timeout_s, s.api, hooks.interrupted);
  if (s.o.url.empty()) client->check_reachable();
  // A server at --url: its slots must hold every request, checked before the first.
  if (!s.o.url.empty()) {
    if (const auto per_slot = client->slot_context())
      check_workloads_fit(s.o.workloads, *per_slot, fmt::format("the server at {}", addr.text()));
    else
      s.out.note(fmt::format(
          "the server at {} does not say its slot size (GET /props has no positive integer "
          "default_generation_settings.n_ctx), so the workloads' request sizes are not checked "
          "against it: a request past it fails on its own",
          addr.text()));
  }
  s.meta.serve->api = api_name(s.api);
  s.meta.serve->prompt_tokens_exact = client->exact_tokens();
  if (!client->exact_tokens())
    s.out.note(fmt::format(
        "--api {}: no /tokenize, so prompt lengths are approximate (prompt_tokens counts words; "
        "the server's usage.prompt_tokens is recorded)",
        api_name(s.api)));
  if (s.o.twin) hooks.steer_token = client->tokenize(" the").at(0);
  s.meta.serve->steer_token = hooks.steer_token;
  return client;
}

// One workload on the current server: cold-start and open-loop restart it
// (a server started here), the others run on it as it is.
WorkloadRun run_one(Session& s, const Workload& w, ServerAddress& addr,
                    std::unique_ptr<ServeClient>& client, RunHooks& hooks, bool (*interrupted)()) {
  if (w.kind == "cold-start") return cold_start(s, w, addr, client, hooks, interrupted);
  if (!w.open_loop()) return run_workload(w, *client, hooks);
  RestartServer restart;
  if (s.o.url.empty())
    restart = [&]() -> const ServeClient* {
      s.server.stop();
      addr = start_server(s, interrupted);
      client = std::make_unique<ServeClient>(addr, s.o.request_timeout_s, s.api, interrupted);
      return client.get();
    };
  return run_open_loop_workload(w, s.o.traffic, client.get(), hooks, restart);
}

// A workload's text: its per-request table (open-loop: its rate tables), its summary.
std::string workload_text(const Session& s, const WorkloadRun& run, bool exact) {
  const Workload& w = run.workload;
  const nlohmann::json summary = workload_summary(run);
  return fmt::format("## {} ({}{})\n\n{}{}\n{}{}\n", w.name, w.kind,
                     s.configs.size() > 1 ? fmt::format(", server {}", s.config().label()) : "",
                     exact ? "" : "prompt lengths approximate (words, no /tokenize)\n\n",
                     w.open_loop() ? "" : request_table(run), summary_text(summary),
                     rate_tables(summary));
}

// One server configuration: its own llama-server (or the --url server), every
// workload, then the server stopped before the next configuration starts.
void run_config(Session& s, RunHooks& hooks, std::string& current, Totals& t,
                bool (*interrupted)()) {
  if (s.configs.size() > 1)
    s.out.note(fmt::format("server configuration {}/{}: {}", s.config_index + 1, s.configs.size(),
                           s.config().label()));
  ServerAddress addr = s.o.url.empty() ? start_server(s, interrupted) : parse_server_url(s.o.url);
  auto client = connect(s, addr, hooks);
  for (const Workload& w : s.o.workloads) {
    if (interrupted()) break;
    current = w.name;
    const WorkloadRun run = run_one(s, w, addr, client, hooks, interrupted);
    const std::string text = workload_text(s, run, client->exact_tokens());
    s.out.workload_done(text);
    t.tables += text;
    t.failed += run.failed();
    t.stopped = t.stopped || run.interrupted;
    t.gone = s.server_gone();
    keep(s, run, addr,
         t.stopped  ? RunStatus::kInterrupted
         : t.failed ? RunStatus::kPointsFailed
                    : RunStatus::kComplete);
    if (!t.gone.empty()) break;
  }
  if (!t.gone.empty()) return;
  s.server.stop();
  if (s.o.url.empty()) {  // for the record: each server was gone before the next started
    s.meta.serve->servers[s.config_index]["stopped_s"] = s.since_start();
    s.run.save_meta();
  }
}

// Every server configuration in turn, until the last, a server gone or Ctrl-C.
void run_configs(Session& s, RunHooks& hooks, std::string& current, Totals& t,
                 bool (*interrupted)()) {
  for (s.config_index = 0; s.config_index < s.configs.size(); ++s.config_index) {
    if (interrupted()) break;
    try {
      run_config(s, hooks, current, t, interrupted);
    } catch (const UserError& e) {  // Ctrl-C inside an exchange: finish the run as interrupted
      if (e.exit_code() != exit_code::kInterrupted) throw;
      t.stopped = true;
      break;
    }
    if (!t.gone.empty()) break;
  }
}

// The run's files, its final status and the exit code.
int finish(Session& s, Totals& t, bool stopped) {
  const std::string capacities =
      capacity_table(s.meta.serve->workloads.get<std::vector<nlohmann::json>>());
  if (!capacities.empty() && s.configs.size() > 1) {
    s.out.workload_done(capacities + "\n");
    t.tables += capacities + "\n";
  }
  write_file_atomically(s.dir.file("tables.md"), t.tables);
  write_file_atomically(s.dir.file("summary.json"), s.meta.serve->workloads.dump(2) + "\n");
  s.run.end(stopped    ? RunStatus::kInterrupted
            : t.failed ? RunStatus::kPointsFailed
                       : RunStatus::kComplete);
  if (!t.gone.empty()) {
    s.out.server_lost(
        fmt::format("{} during the run; {} requests failed; its log's last lines:\n{}"
                    "  expected: a server that stays up for the whole workload\n"
                    "  fix: read {} (out of memory? killed?); the failed requests are recorded",
                    t.gone, t.failed, s.server.log_tail(8), s.dir.file(s.log_name()).string()));
    return exit_code::kPointsFailed;
  }
  if (stopped) return exit_code::kInterrupted;
  return t.failed ? exit_code::kPointsFailed : exit_code::kOk;
}

}  // namespace

void check_serve_bench_options(const ServeBenchOptions& o) {
  check_passthrough_args(o.server_args);
  if (!o.url.empty() && !o.server_args.empty()) {
    throw UserError("llama-server flags after -- were given with --url",
                    "flags after -- only when serve-bench starts the server",
                    "drop --url to start llama-server here, or drop the flags");
  }
  if (!o.url.empty() && !o.axes.empty()) {
    throw UserError(
        fmt::format("the server axis --{} was given with --url", o.axes.begin()->first),
        "-t, -c, --parallel and --cache-ram only when serve-bench starts (and restarts) "
        "llama-server itself; a server at --url is someone else's to configure",
        "drop --url to let serve-bench start one server per configuration, or drop the axes");
  }
  check_axes_against_passthrough(o.axes, o.server_args);
  if (o.api != "auto") parse_api(o.api);  // a bad --api before anything starts
  check_traffic_options(o.traffic, o.workloads);
  for (const std::string& f : o.formats)
    if (f != "vllm" || !o.traffic.active())
      throw UserError(fmt::format("--format '{}'{}", f,
                                  f == "vllm" ? " without an open-loop rate to write" : ""),
                      "vllm, with --request-rate or --find-capacity (each open-loop rate as "
                      "vLLM bench serve's --save-result JSON)",
                      "pass --format vllm with a rate, or leave it out");
  for (const Workload& w : o.workloads)
    if (w.open_loop() && w.flush == "restart" && !o.url.empty())
      throw UserError(fmt::format("workload {} flushes the cache by a restart, with --url", w.name),
                      "a server serve-bench starts (it restarts it before each rate)",
                      "drop --url, or set \"flush\": \"unique\" in the workload's cache_protocol");
  for (auto [flag, seconds] : {std::pair{"--ready-timeout", o.ready_timeout_s},
                               std::pair{"--request-timeout", o.request_timeout_s}})
    if (seconds <= 0 || seconds > kMaxTimeoutS)
      throw UserError(fmt::format("{} {} is not a time to wait", flag, seconds),
                      fmt::format("seconds from 1 to {} (a week)", kMaxTimeoutS),
                      fmt::format("pass {} 300", flag));
  for (const ServerConfig& c : server_configs(o.axes))  // every request fits its slot
    if (o.url.empty()) llama_server_args(o, c, 0);
}

std::vector<std::string> llama_server_args(const ServeBenchOptions& o, const ServerConfig& config,
                                           int port) {
  std::vector<std::string> args = o.server_args;
  for (const ServerAxis& a : server_axes())
    if (auto v = config.get(a.key)) args.insert(args.end(), {a.server_flag, std::to_string(*v)});
  int64_t most_clients = 1, per_slot = 0;  // 64 bits: the workloads' sizes multiply
  for (const Workload& w : o.workloads) {
    most_clients = std::max<int64_t>(most_clients,
                                     *std::max_element(w.concurrency.begin(), w.concurrency.end()));
    if (w.open_loop())  // the requests in flight at once, within reason
      most_clients = std::max<int64_t>(most_clients,
                                       o.traffic.max_concurrency > 0
                                           ? std::min(o.traffic.max_concurrency, kMaxOpenLoopSlots)
                                           : kDefaultOpenLoopSlots);
    per_slot = std::max(per_slot, w.context_tokens() + 256);
  }
  int64_t parallel = flag_int(args, {"--parallel", "-np"}, 0);
  if (parallel <= 0) {
    parallel = most_clients;
    args.insert(args.end(), {"--parallel", std::to_string(parallel)});
  }
  if (!has_flag(args, {"-c", "--ctx-size"})) {
    const int64_t ctx = (per_slot + 255) / 256 * 256 * parallel;  // every slot holds a whole prompt
    if (ctx > kMaxServeContext)
      throw UserError(fmt::format("the workloads need a context of {} tokens ({} slots of {})", ctx,
                                  parallel, per_slot),
                      fmt::format("at most {} tokens", kMaxServeContext),
                      "run fewer concurrent clients or smaller workloads");
    args.insert(args.end(), {"-c", std::to_string(ctx)});
  }
  // A -c given (axis or after --): every request must fit its slot, checked
  // before the server starts (0: the model's trained context, unknown here).
  if (const int64_t ctx = flag_int(args, {"-c", "--ctx-size"}, 0); ctx > 0)
    check_workloads_fit(o.workloads, ctx / parallel,
                        fmt::format("llama-server -c {} --parallel {}", ctx, parallel));
  args.insert(args.end(),
              {"-m", o.gguf, "--host", "127.0.0.1", "--port", std::to_string(port), "--metrics"});
  return args;
}

int run_serve_bench(const ServeBenchOptions& o, bool (*interrupted)(),
                    ServeBenchListener& listener) {
  check_serve_bench_options(o);
  RunLifecycle run(RunDirectory::create(o.out_dir, o.name));
  Session s{o, listener, run, run.meta(), run.dir(), {}, server_configs(o.axes)};
  s.meta.kind = RunKind::kServe;
  s.meta.name = o.name;
  ServeFacts& facts = s.meta.serve.emplace();
  facts.model = o.gguf, facts.url = o.url;
  for (const ServerConfig& c : s.configs) facts.server_configs.push_back(c.label());
  facts.servers = facts.workloads = nlohmann::json::array();
  // requests.jsonl, a line per request as it finishes (a kill keeps it),
  // then the caller's listener
  run.guarded([&] { run.listen(std::make_unique<RequestLog>(run.dir().file("requests.jsonl"))); });
  run.listen(listener);
  // An error from here on (a --url that does not answer, a server that never
  // gets ready) leaves meta.json "failed" with the reason, never "running";
  // the requests recorded so far stay.
  run.begin();
  RunHooks hooks;
  hooks.interrupted = interrupted;
  hooks.token_times = o.traffic.save_tokens;
  hooks.server_gone = [&s] { return s.server_gone(); };
  std::string current;  // the workload running, for its requests' lines
  Totals t;
  hooks.on_request = [&s, &current](const RequestRecord& rec) {
    s.run.listeners().request(s.tag(request_json(current, rec)));
  };
  run.guarded([&] { run_configs(s, hooks, current, t, interrupted); });
  s.config_index = std::min(s.config_index, s.configs.size() - 1);  // log_name() in finish
  int code = exit_code::kOk;
  run.guarded([&] { code = finish(s, t, t.stopped || interrupted()); });
  return code;
}

}  // namespace moesweep
