#pragma once
// serve-bench's server-level axes: threads, context size, parallel slots and
// the prompt-cache RAM limit. Each takes a list as the sweep's axes do
// ("1,2", "1-4", "0-1024+256"); every combination is one fresh llama-server,
// run one after the other, as the sweep makes one context per value.
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace moesweep {

// The one list of the server axes: serve-bench's options, their parsing, the
// llama-server flags, the labels and the recorded settings all come from it.
struct ServerAxis {
  const char* key;          // the serve-bench flag's long name = the key in records
  const char* server_flag;  // what llama-server is given (-t, -c, --parallel, --cache-ram)
  const char* other_flag;   // llama-server's other spelling of it (a conflict after -- too)
  const char* label;        // short name in configuration labels
  const char* help;         // serve-bench's help, after "server axis: llama-server "
  bool sweep_setting;       // the sweep's own setting (its spelling, lists, bounds)
  int lo = 0, hi = 0;       // bounds of a list of the server's own (not a sweep setting)
};
// threads, ctx-size, parallel, cache-ram in that order.
const std::vector<ServerAxis>& server_axes();

// The values given per axis (key -> list); an axis left out is not varied.
using ServerAxisValues = std::map<std::string, std::vector<int>>;

// Parses the flags as typed (key -> "1,2"); threads and ctx-size through the
// sweep's own settings (same lists, same bounds). UserError names the flag.
ServerAxisValues parse_server_axes(const std::map<std::string, std::string>& given);

struct ServerConfig {
  std::map<std::string, int> values;  // axis key -> value, only the axes given
  std::optional<int> get(const std::string& key) const;
  // "t=2 np=4" (only the axes given, so a one-axis run reads short); "default".
  std::string label() const;
};

// The product of the lists, first axis outermost; one empty config when no
// axis is given.
std::vector<ServerConfig> server_configs(const ServerAxisValues& axes);

// The axes and the llama-server flags after -- must not set the same thing:
// UserError naming both.
void check_axes_against_passthrough(const ServerAxisValues& axes,
                                    const std::vector<std::string>& passthrough);

// What the server was really given (from its argv): threads, ctx-size,
// parallel, cache-ram; null where the server's own default applies.
nlohmann::json server_settings(const std::vector<std::string>& server_argv);

}  // namespace moesweep
