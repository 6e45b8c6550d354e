#pragma once
// tokens.jsonl: a run's per-token decode times (issue 46). One JSON line per
// generation call of a TG sample (a TokenCallEvent), never in records.jsonl:
//   {"point":3,"key":"...","kind":"timed","rep":0,"call":0,"pos0":512,
//    "tokens":[...],"ns":[...],"inputs":"<hex>",
//    "trace":{"file":"routing-c0-<model>.trace.zst","step":1234},   (--trace-routing)
//    "sim":{"ll_misses":[...],"instructions":[...]}}                  (--sim-per-token)
// "kind" is "timed" (a call of the sample the record's S_TG comes from) or
// "routing" (--trace-routing's traced pass of the same tokens at the same
// positions: its times are the tap's, its routing is in the trace from
// "step" on). "ns" is empty for a call timed whole only (--token-times off or
// ab), which has a line only for --trace-routing or --sim-per-token.
// The reader checks every field (types, ranges, one time per token, a trace
// file name that stays inside the run) and is bounded: a line of at most
// kMaxTokensPerCall tokens, a file of at most kMaxTokensPerFile; anything
// else is a UserError naming the file and line (exit 2).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "results/file_sinks.hpp"
#include "results/sink.hpp"
#include "util/jsonl_file.hpp"

namespace moesweep {

inline constexpr const char* kTokenFileName = "tokens.jsonl";
inline constexpr size_t kMaxTokensPerCall = size_t{1} << 20;
inline constexpr size_t kMaxTokensPerFile = size_t{1} << 26;

struct TokenCall {
  int point = 0;
  std::string key;             // the point's key string
  std::string kind = "timed";  // "timed" or "routing"
  int rep = 0, call = 0, pos0 = 0;
  std::vector<int32_t> tokens;
  std::vector<int64_t> ns;  // one per token, or empty (not timed token by token)
  std::string inputs;
  std::string trace_file;  // a file name in the run directory, or empty
  int64_t trace_step = -1;
  std::vector<double> sim_ll_misses, sim_instructions;  // one per token, or empty
  bool timed() const { return kind == "timed"; }
};

// The line of one call.
nlohmann::json token_call_json(const TokenCallEvent& e);
// One line read back; `where` ("FILE:LINE") names it in errors.
TokenCall token_call_from_json(const nlohmann::json& j, const std::string& where);

struct TokenFile {
  std::vector<TokenCall> calls;  // in the file's order
  std::optional<TornLine> torn;  // a last line a killed sweep left (left out)
};
TokenFile read_token_file(const std::filesystem::path& path);

// `moesweep export RUN --format tokens-csv`: one row per token,
//   point,key,kind,rep,call,n_kv,index,position,token,ns[,sim_ll_misses,sim_instructions]
// (n_kv: the call's first position, the depth; index: the token's place in its
// call; ns empty for a call timed whole only; the sim columns only when a
// call has them).
std::string tokens_csv(const TokenFile& file);

// The writer: a listener of the sweep (run_directory.hpp's point files).
class TokenLog : public RunListener {
 public:
  explicit TokenLog(const std::filesystem::path& path) : out_(path) {}
  void token_call(const TokenCallEvent& e) override;

 private:
  DurableAppender out_;
};

}  // namespace moesweep
