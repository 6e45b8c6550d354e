#pragma once
// An open-loop workload's prompts from a file of token ids (JSON lines), for
// traffic that must be exact: one request per line, in order and round again,
//   {"prompt": [128000, 791, 4062, ...], "output_tokens": 64}
// ("output_tokens" optional: the workload's output length then). The file is
// input like any other: bounded in size and lines, every id and count checked,
// and it stays in the workload file's folder.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace moesweep {

inline constexpr uint64_t kMaxPromptsFileBytes = 256ull << 20;
inline constexpr size_t kMaxPromptsFileLines = 100000;

struct FilePrompt {
  std::vector<int> tokens;
  int output_tokens = 0;  // 0: the workload's own
};

struct PromptsFile {
  std::filesystem::path path;
  std::vector<FilePrompt> prompts;
  int64_t longest() const;  // the longest prompt's tokens
  int most_output() const;  // the largest output_tokens (0: none given)
};

// `name` as written in workload `origin` (a path relative to its folder,
// without ".."); each prompt 1 to `max_tokens` tokens, each output 1 to
// `max_output`. UserError (exit 2) naming the file and line otherwise.
PromptsFile read_prompts_file(const std::string& name, const std::filesystem::path& origin,
                              int64_t max_tokens, int max_output);

}  // namespace moesweep
