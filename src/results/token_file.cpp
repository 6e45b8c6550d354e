#include "results/token_file.hpp"

#include <fmt/format.h>

#include "util/error.hpp"
#include "util/json_fields.hpp"
#include "util/paths.hpp"

namespace moesweep {
namespace {

constexpr int64_t kMaxTokenNs = int64_t{1} << 50;  // 13 days: no token takes longer
constexpr int64_t kMaxPosition = int64_t{1} << 30;
constexpr int64_t kMaxIndex = int64_t{1} << 30;
constexpr size_t kMaxKey = 4096;

UserError bad_file(const std::string& where, const std::string& problem) {
  return UserError(fmt::format("{}: {}", where, problem),
                   "a tokens.jsonl written by `moesweep sweep` (one line per TG call)",
                   "check that it is the run you meant; a damaged line cannot be repaired");
}

// The trace's file name: a plain name of the run directory, as the sweep writes it.
std::string trace_name(const JsonFields& t, const std::string& where) {
  const std::string name = t.text("file");
  if (!is_path_component(name) || name.rfind("routing-c", 0) != 0)
    throw bad_file(where, fmt::format("'trace.file' '{}' is not a routing trace of the run",
                                      name.substr(0, 80)));
  return name;
}

// Per-token simulated counts, one per token or none.
void read_sim(const JsonFields& f, TokenCall& c, const std::string& where) {
  if (!f.has("sim")) return;
  const JsonFields sim = f.object("sim");
  c.sim_ll_misses = sim.numbers("ll_misses", 0, 1e18, kMaxTokensPerCall);
  c.sim_instructions = sim.numbers("instructions", 0, 1e18, kMaxTokensPerCall);
  for (const auto* v : {&c.sim_ll_misses, &c.sim_instructions})
    if (!v->empty() && v->size() != c.tokens.size())
      throw bad_file(where, "'sim' does not have one count per token");
}

}  // namespace

nlohmann::json token_call_json(const TokenCallEvent& e) {
  nlohmann::json j = {{"point", e.point},
                      {"key", e.params ? e.params->key_string() : ""},
                      {"kind", e.kind},
                      {"rep", e.rep},
                      {"call", e.call},
                      {"pos0", e.pos0},
                      {"tokens", e.tokens ? *e.tokens : std::vector<int32_t>{}},
                      {"ns", e.ns ? *e.ns : std::vector<int64_t>{}},
                      {"inputs", e.inputs}};
  if (!e.trace_file.empty()) j["trace"] = {{"file", e.trace_file}, {"step", e.trace_step}};
  if (!e.sim.is_null()) j["sim"] = e.sim;
  return j;
}

TokenCall token_call_from_json(const nlohmann::json& j, const std::string& where) {
  const JsonFields f(j, where);
  TokenCall c;
  c.point = static_cast<int>(f.integer("point", 0, kMaxIndex, -1));
  c.key = f.text("key");
  c.kind = f.text("kind");
  if (c.point < 0 || c.key.empty() || c.key.size() > kMaxKey)
    throw bad_file(where, "a line without its point's index and key");
  if (c.kind != "timed" && c.kind != "routing") f.fail("kind", "\"timed\" or \"routing\"");
  c.rep = static_cast<int>(f.integer("rep", 0, kMaxIndex, 0));
  c.call = static_cast<int>(f.integer("call", 0, kMaxIndex, 0));
  c.pos0 = static_cast<int>(f.integer("pos0", 0, kMaxPosition, 0));
  for (int64_t t : f.integers("tokens", 0, INT32_MAX, kMaxTokensPerCall))
    c.tokens.push_back(static_cast<int32_t>(t));
  c.ns = f.integers("ns", 1, kMaxTokenNs, kMaxTokensPerCall);
  if (c.tokens.empty()) throw bad_file(where, "a call of no tokens");
  if (!c.ns.empty() && c.ns.size() != c.tokens.size())
    throw bad_file(where, fmt::format("{} times for {} tokens", c.ns.size(), c.tokens.size()));
  c.inputs = f.text("inputs");
  if (c.inputs.size() > 16) f.fail("inputs", "at most 16 hex digits");
  if (f.has("trace")) {
    const JsonFields t = f.object("trace");
    c.trace_file = trace_name(t, where);
    c.trace_step = t.integer("step", 0, int64_t{1} << 40, -1);
    if (c.trace_step < 0) t.fail("step", "a step count from 0");
  }
  read_sim(f, c, where);
  return c;
}

TokenFile read_token_file(const std::filesystem::path& path) {
  TokenFile out;
  size_t tokens = 0;
  out.torn = for_each_jsonl_line(path, "tokens file", [&](JsonlLine&& line) {
    const std::string where = fmt::format("{}:{}", path.string(), line.number);
    if (line.value.is_discarded()) throw bad_file(where, "not JSON");
    TokenCall c = token_call_from_json(line.value, where);
    tokens += c.tokens.size();
    if (tokens > kMaxTokensPerFile)
      throw bad_file(where, fmt::format("more than {} tokens in the file", kMaxTokensPerFile));
    out.calls.push_back(std::move(c));
  });
  return out;
}

std::string tokens_csv(const TokenFile& file) {
  bool sim = false;
  for (const TokenCall& c : file.calls) sim = sim || !c.sim_ll_misses.empty();
  std::string out = "point,key,kind,rep,call,n_kv,index,position,token,ns";
  out += sim ? ",sim_ll_misses,sim_instructions\n" : "\n";
  for (const TokenCall& c : file.calls) {
    const std::string head =
        fmt::format("{},{},{},{},{},{}", c.point, csv_quote(c.key), c.kind, c.rep, c.call, c.pos0);
    for (size_t i = 0; i < c.tokens.size(); ++i) {
      out += fmt::format("{},{},{},{},{}", head, i, c.pos0 + static_cast<int64_t>(i), c.tokens[i],
                         c.ns.empty() ? std::string() : std::to_string(c.ns[i]));
      if (sim)
        out += c.sim_ll_misses.empty()
                   ? std::string(",,")
                   : fmt::format(",{:.0f},{:.0f}", c.sim_ll_misses[i], c.sim_instructions[i]);
      out += '\n';
    }
  }
  return out;
}

void TokenLog::token_call(const TokenCallEvent& e) {
  out_.append_line(token_call_json(e).dump());
}

}  // namespace moesweep
