#include "serve/prompts_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <limits>

#include "util/error.hpp"
#include "util/json_fields.hpp"
#include "util/jsonl_file.hpp"

namespace moesweep {
namespace {

namespace fs = std::filesystem;

fs::path inside_folder(const std::string& name, const fs::path& origin) {
  const fs::path rel(name);
  bool climbs = rel.empty() || rel.is_absolute();
  for (const auto& part : rel) climbs = climbs || part == "..";
  if (climbs) {
    throw UserError(fmt::format("{}: \"prompts_file\" '{}' leaves the workload's folder",
                                origin.string(), name),
                    "a path relative to the workload file's folder, without '..'",
                    "put the prompts file beside the workload file (or below it)");
  }
  return origin.parent_path() / rel;
}

FilePrompt read_line(const nlohmann::json& line, const std::string& where, int64_t max_tokens,
                     int max_output) {
  const JsonFields f(line, where);
  FilePrompt p;
  const nlohmann::json& ids = f.array("prompt");
  if (ids.empty() || static_cast<int64_t>(ids.size()) > max_tokens)
    f.fail("prompt", fmt::format("a list of 1 to {} token ids", max_tokens));
  p.tokens.reserve(ids.size());
  for (const auto& id : ids) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 ||
        id.get<int64_t>() > std::numeric_limits<int32_t>::max())
      f.fail("prompt", "token ids from 0 to 2^31-1");
    p.tokens.push_back(static_cast<int>(id.get<int64_t>()));
  }
  p.output_tokens = static_cast<int>(f.integer("output_tokens", 1, max_output, 0));
  return p;
}

}  // namespace

int64_t PromptsFile::longest() const {
  size_t n = 0;
  for (const auto& p : prompts) n = std::max(n, p.tokens.size());
  return static_cast<int64_t>(n);
}

int PromptsFile::most_output() const {
  int n = 0;
  for (const auto& p : prompts) n = std::max(n, p.output_tokens);
  return n;
}

PromptsFile read_prompts_file(const std::string& name, const fs::path& origin, int64_t max_tokens,
                              int max_output) {
  PromptsFile out;
  out.path = inside_folder(name, origin);
  std::error_code ec;
  const auto size = fs::file_size(out.path, ec);
  if (!ec && size > kMaxPromptsFileBytes) {
    throw UserError(fmt::format("prompts file {} is {} MiB", out.path.string(), size >> 20),
                    fmt::format("at most {} MiB", kMaxPromptsFileBytes >> 20),
                    "send fewer or shorter prompts");
  }
  const JsonlFile lines = read_jsonl_file(out.path, "prompts file");
  for (const JsonlLine& line : lines.lines) {
    const std::string where = fmt::format("{}:{}", out.path.string(), line.number);
    if (line.value.is_discarded() || out.prompts.size() >= kMaxPromptsFileLines) {
      throw UserError(
          fmt::format("{} is {}", where,
                      line.value.is_discarded() ? "not JSON" : "past the most lines read"),
          fmt::format("one JSON object per line, at most {} lines", kMaxPromptsFileLines),
          "fix or remove that line");
    }
    out.prompts.push_back(read_line(line.value, where, max_tokens, max_output));
  }
  if (out.prompts.empty() || lines.torn) {
    throw UserError(fmt::format("prompts file {} has {}", out.path.string(),
                                lines.torn ? "a last line cut short" : "no prompt"),
                    "one {\"prompt\": [ids...]} per line, each line whole", "write the file again");
  }
  return out;
}

}  // namespace moesweep
