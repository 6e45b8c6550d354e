#include "model/twin_builder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <vector>

#include "ggml.h"
#include "model/quant_types.hpp"
#include "model/twin_quantize.hpp"
#include "model/twin_routing.hpp"
#include "model/twin_skeleton.hpp"
#include "model/twin_space.hpp"
#include "util/error.hpp"
#include "util/paths.hpp"
#include "util/stop_signal.hpp"

namespace moesweep {
namespace {

int64_t peak_rss_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  return 0;
}

// Holds an exclusive flock for the lifetime of the object.
class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& path) {
    fd_ = ::open(path.c_str(), O_CREAT | O_RDWR, 0644);
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

void ensure_writable_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || ::access(dir.c_str(), W_OK) != 0) {
    throw UserError(fmt::format("cannot write to directory '{}'", dir.string()),
                    "a writable directory for the twin",
                    "choose another --out path or fix its permissions");
  }
}

void check_space(const TwinSpec& spec, const std::filesystem::path& dir) {
  const TwinSpaceCheck c = check_twin_space({spec}, dir);
  if (c.problem.empty()) return;
  throw UserError(fmt::format("twin {}: {}", spec.file_stem(), c.problem),
                  "a twin that fits on the disk",
                  "free disk space, point MOESWEEP_CACHE_DIR at a larger disk, or shrink the twin "
                  "(--scale, --experts, --expert-ff)");
}

void stop_point() {
  if (StopOnSignal::requested()) throw TwinBuildInterrupted();
}

}  // namespace

TwinBuildInterrupted::TwinBuildInterrupted()
    : UserError("the twin's build was interrupted (its temporary files are removed)",
                "a build left to finish", "run the same command again to build it",
                exit_code::kInterrupted) {}

std::filesystem::path twin_cache_dir() {
  return cache_dir() / "twins";
}

std::filesystem::path quantize_log_path(const std::filesystem::path& twin) {
  return twin.parent_path() / (twin.stem().string() + ".quantize.log");
}

void build_twin_file(const TwinSpec& spec, const std::filesystem::path& path,
                     const TwinProgress& progress) {
  const QuantType& quant = find_quant_type(spec.quant);
  ensure_writable_dir(path.parent_path().empty() ? "." : path.parent_path());
  const std::filesystem::path skeleton = path.string() + ".skeleton.tmp";
  const std::filesystem::path partial = path.string() + ".partial.tmp";
  auto say = [&](const std::string& s) {
    if (progress) progress(s);
  };
  RoutingSkew skew;
  if (spec.routing_skew > 0) {
    say(fmt::format("calibrating routing skew s={}", spec.routing_skew));
    skew = calibrate_routing_skew(spec.profile, spec.routing_skew);
  }
  // A skeleton finer than the target's bits where it has more than ~5 of them.
  const ggml_type weights = quant.approx_bpw > 5 ? GGML_TYPE_Q8_0 : GGML_TYPE_Q4_0;
  try {
    stop_point();
    say(fmt::format("writing random weights ({} skeleton)", ggml_type_name(weights)));
    write_twin_skeleton(spec, spec.routing_skew > 0 ? &skew : nullptr, weights, skeleton,
                        stop_point);
    stop_point();
    say(fmt::format("quantizing to {}", quant.name));
    quantize_twin(skeleton, partial, quant.ftype, quantize_log_path(path));
    stop_point();
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(skeleton, ec);
    std::filesystem::remove(partial, ec);
    if (StopOnSignal::requested()) {                         // whatever the engine said
      std::filesystem::remove(quantize_log_path(path), ec);  // of a twin that was not made
      throw TwinBuildInterrupted();
    }
    throw;
  }
  std::filesystem::remove(skeleton);
  std::filesystem::rename(partial, path);
}

TwinResult ensure_twin(const TwinSpec& spec, const std::filesystem::path& out, bool force,
                       const TwinProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  const std::filesystem::path dir = twin_cache_dir();
  ensure_writable_dir(dir);
  // Refuse an unwritable --out before the build, not after minutes of it.
  if (!out.empty()) ensure_writable_dir(out.parent_path().empty() ? "." : out.parent_path());
  const std::filesystem::path cached = dir / (spec.file_stem() + ".gguf");
  TwinResult result;
  {
    FileLock lock(dir / (spec.file_stem() + ".lock"));
    if (force || !std::filesystem::exists(cached)) {
      check_space(spec, dir);
      build_twin_file(spec, cached, progress);
      std::ofstream(dir / (spec.file_stem() + ".json")) << spec.to_json().dump(2) << "\n";
    } else {
      result.reused = true;
    }
  }
  result.path = cached;
  if (!out.empty()) {
    ensure_writable_dir(out.parent_path().empty() ? "." : out.parent_path());
    std::filesystem::copy_file(cached, out, std::filesystem::copy_options::overwrite_existing);
    result.path = out;
  }
  result.file_bytes = std::filesystem::file_size(result.path);
  result.build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.peak_rss_bytes = peak_rss_bytes();
  result.params = count_params(spec.profile);
  // Read back from the log, so a twin taken from the cache says it as well.
  if (std::ifstream log{quantize_log_path(cached)}) {
    result.engine_log = quantize_log_path(cached);
    const std::string text{std::istreambuf_iterator<char>(log), {}};
    result.quant_fallbacks = parse_quant_fallbacks(text);
  }
  return result;
}

}  // namespace moesweep
