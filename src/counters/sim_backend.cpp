#include "counters/sim_backend.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <system_error>

#include "util/error.hpp"
#include "util/parse_list.hpp"
#include "util/temporary_folder.hpp"

namespace moesweep::counters {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr size_t kMaxDumpsListed = 100000;  // a folder of ours; more means something is wrong

// The part number of "callgrind.out.<pid>.<part>", or -1 for another name.
long part_of(const std::string& name, const std::string& prefix) {
  if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size()) return -1;
  const std::string digits = name.substr(prefix.size());
  if (digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      }))
    return -1;
  return std::stol(digits);
}

}  // namespace

fs::path find_valgrind() {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  for (const std::string& dir : split_list(path, ':')) {
    if (dir.empty() || dir.front() != '/') continue;  // only absolute entries
    const fs::path candidate = fs::path(dir) / "valgrind";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

fs::path last_kept_dump(const json& phase_counters) {
  if (!phase_counters.is_object()) return {};
  const auto sim = phase_counters.find("simulated");
  if (sim == phase_counters.end() || !sim->is_object()) return {};
  const auto dumps = sim->find("dumps");
  if (dumps == sim->end() || !dumps->is_array() || dumps->empty() || !dumps->back().is_string())
    return {};
  const std::string& text = dumps->back().get_ref<const std::string&>();
  if (text.find('\0') != std::string::npos) return {};
  const fs::path name = fs::path(text).lexically_normal();
  if (name.parent_path() != kKeptDumpFolder || !name.has_filename()) return {};
  return name;
}

SimBackend::SimBackend(const SimCacheConfig& cache, bool per_token, bool keep_dumps)
    : cache_(cache), per_token_(per_token), keep_dumps_(keep_dumps), valgrind_(find_valgrind()) {
  if (valgrind_.empty())
    throw UserError("--counters sim needs valgrind, and there is none on PATH",
                    "valgrind 3.x (its callgrind tool simulates the caches)",
                    "install it: sudo apt-get install valgrind (scripts/setup --for test does), "
                    "then rebuild with scripts/setup so the worker marks its phases");
  dump_dir_ = std::make_unique<TemporaryFolder>("moesweep-sim", "--counters sim");
}

SimBackend::~SimBackend() = default;

std::vector<std::string> SimBackend::worker_launcher() const {
  std::vector<std::string> argv = {valgrind_.string(), "--tool=callgrind", "--cache-sim=yes"};
  // valgrind hands its environment to the worker (engine/worker/context_decode.cpp reads it)
  if (per_token_) argv.insert(argv.begin(), {"/usr/bin/env", "MOESWEEP_SIM_TOKEN_DUMPS=1"});
  for (const std::string& a : valgrind_cache_args(cache_)) argv.push_back(a);
  argv.push_back("--callgrind-out-file=" + (dump_dir_->path() / "callgrind.out.%p").string());
  // Names compressed across a process's dumps leave a later dump unreadable alone
  // (callgrind_annotate puts all its cost in one function): kept dumps carry them.
  if (keep_dumps_) argv.push_back("--compress-strings=no");
  // -q: valgrind's own messages only when something is wrong. (Lines about the host's
  // caches still come, one to three per worker: "warning: L3 cache found, using its
  // data for the LL simulation", and where a VM reports an L3 valgrind cannot simulate,
  // the geometry it would use instead; valgrind prints them while it reads the host's
  // caches, before --I1/--D1/--LL replace them. The dumps name the caches simulated.)
  argv.push_back("-q");
  // No gdbserver: its pipes in $TMPDIR would outlive a killed worker.
  argv.push_back("--vgdb=no");
  return argv;
}

std::vector<fs::path> SimBackend::dumps_of(int pid) const {
  const std::string prefix = fmt::format("callgrind.out.{}.", pid);
  std::vector<std::pair<long, fs::path>> parts;
  for (const fs::directory_entry& e : fs::directory_iterator(dump_dir_->path())) {
    if (parts.size() >= kMaxDumpsListed) break;
    const long part = part_of(e.path().filename().string(), prefix);
    if (part >= 0 && e.is_regular_file()) parts.emplace_back(part, e.path());
  }
  std::sort(parts.begin(), parts.end());
  std::vector<fs::path> out;
  for (auto& [part, path] : parts) out.push_back(std::move(path));
  return out;
}

void SimBackend::discard_dumps(int pid) const {
  for (const fs::path& p : dumps_of(pid)) {
    std::error_code ec;
    fs::remove(p, ec);
  }
}

SimBackend::Disposed SimBackend::dispose_dump(const fs::path& dump, const std::string& name) const {
  std::error_code ec;
  if (run_dir_.empty() || !keep_dumps_) {
    fs::remove(dump, ec);
    return {};
  }
  const fs::path relative = fs::path(kKeptDumpFolder) / name, kept = run_dir_ / relative;
  fs::create_directories(kept.parent_path(), ec);
  if (!ec) fs::rename(dump, kept, ec);
  if (ec) {  // the private folder is in $TMPDIR, often another file system than the run's
    ec.clear();
    fs::copy_file(dump, kept, fs::copy_options::overwrite_existing, ec);
  }
  std::error_code removed;
  fs::remove(dump, removed);
  if (ec)
    return {"",
            fmt::format("callgrind's dump was not kept as {}: {}", kept.string(), ec.message())};
  return {relative.string(), ""};
}

json SimBackend::describe() const {
  json metrics = json::object();
  for (const std::string& name : simulated_metric_names()) metrics[name] = "measurable";
  return {
      {"backend", "sim"},
      {"why", "requested with --counters sim: the engine worker runs under valgrind's callgrind"},
      {"valgrind", valgrind_.string()},
      {"cache", sim_cache_label(cache_)},
      {"per_token", per_token_},
      {"dumps_kept", run_dir_.empty() ? json(nullptr) : json(kKeptDumpFolder)},
      {"caches", sim_cache_text(cache_)},
      {"source", "simulated"},
      {"slowdown",
       fmt::format("about {:.0f}x slower than native (docs/counters.md)", kSimulatedSlowdown)},
      {"metrics", metrics},
      {"advice", json::array()}};
}

}  // namespace moesweep::counters
