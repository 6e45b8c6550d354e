#include "sweep/run_directory.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <ctime>

#include "util/error.hpp"
#include "util/json_file.hpp"

namespace moesweep {

RunDirectory RunDirectory::create(const std::filesystem::path& root, const std::string& name) {
  std::string safe = name;
  for (char& c : safe)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  const std::time_t now = std::time(nullptr);
  const std::string stamp = fmt::format("{:%Y%m%d-%H%M%S}", fmt::localtime(now));
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  RunDirectory rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string id = attempt == 0 ? fmt::format("{}-{}", stamp, safe)
                                        : fmt::format("{}-{}-{}", stamp, safe, attempt);
    if (std::filesystem::create_directory(root / id, ec)) {
      rd.dir_ = root / id;
      rd.run_id_ = id;
      return rd;
    }
  }
  throw UserError(fmt::format("cannot create a run directory under '{}'", root.string()),
                  "a writable directory", "choose another --out-dir or fix its permissions");
}

RunDirectory RunDirectory::open(const std::filesystem::path& dir) {
  if (!std::filesystem::exists(dir / "meta.json")) {
    throw UserError(
        fmt::format("'{}' is not a moesweep run directory (no meta.json)", dir.string()),
        "a directory under results/runs/",
        "pass the run directory printed by the interrupted sweep");
  }
  RunDirectory rd;
  rd.dir_ = dir;
  rd.run_id_ = dir.filename().string();
  return rd;
}

void RunDirectory::write_meta(const nlohmann::json& meta) const {
  write_file_atomically(dir_ / "meta.json", meta.dump(2) + "\n");
}

nlohmann::json RunDirectory::read_meta() const {
  return read_json_file(dir_ / "meta.json", "run metadata");
}

void SampleLog::on_sample(const PlannedPoint& point, const char* phase, int rep, double seconds,
                          int tokens) {
  out_.append_line(nlohmann::json({{"point", point.index},
                                   {"key", point.params.key_string()},
                                   {"phase", phase},
                                   {"rep", rep},
                                   {"seconds", seconds},
                                   {"tokens", tokens},
                                   {"tokens_per_s", tokens / seconds}})
                       .dump());
}

}  // namespace moesweep
