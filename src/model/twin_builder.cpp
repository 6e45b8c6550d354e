#include "model/twin_builder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "gguf.h"
#include "llama.h"
#include "model/quant_types.hpp"
#include "model/twin_fill.hpp"
#include "model/twin_routing.hpp"
#include "model/twin_vocab.hpp"
#include "util/error.hpp"
#include "util/paths.hpp"

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

}  // namespace

std::filesystem::path twin_cache_dir() {
  return cache_dir() / "twins";
}

std::filesystem::path quantize_log_path(const std::filesystem::path& twin) {
  return twin.parent_path() / (twin.stem().string() + ".quantize.log");
}

void build_twin_file(const TwinSpec& spec, const std::filesystem::path& path,
                     const TwinProgress& progress) {
  static const bool engine_ready = [] {
    llama_backend_init();  // the skeleton is made in-process (until the GGUF writer)
    return true;
  }();
  (void)engine_ready;
  const QuantType& quant = find_quant_type(spec.quant);
  ensure_writable_dir(path.parent_path().empty() ? "." : path.parent_path());
  const std::string skeleton = path.string() + ".skeleton.tmp";
  const std::string partial = path.string() + ".partial.tmp";
  auto say = [&](const std::string& s) {
    if (progress) progress(s);
  };

  say("filling random weights (Q4_0 skeleton)");
  gguf_context* meta = make_twin_metadata(spec);
  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  mp.load_mode = LLAMA_LOAD_MODE_NONE;
  mp.use_extra_bufts = false;  // repacked buffers cannot be read back for saving
  RoutingSkew skew;
  if (spec.routing_skew > 0) {
    say(fmt::format("calibrating routing skew s={}", spec.routing_skew));
    skew = calibrate_routing_skew(spec.profile, spec.routing_skew);
  }
  TwinFillContext fill{spec.seed, spec.routing_skew > 0 ? &skew : nullptr};
  llama_model* model = llama_model_init_from_user(meta, fill_twin_tensor, &fill, mp);
  gguf_free(meta);
  if (!model) {
    throw UserError(
        fmt::format("the engine refused the twin shape of '{}'", spec.profile.name),
        "a shape the engine's arch code accepts",
        "run with MOESWEEP_ENGINE_LOG=info to see the engine's reason; check the profile");
  }
  llama_model_save_to_file(model, skeleton.c_str());
  llama_model_free(model);

  say(fmt::format("quantizing to {}", quant.name));
  std::string log;
  try {
    // In the engine worker: its warnings (per-tensor fallbacks) come back as text.
    log = quantize_in_worker(skeleton, partial, static_cast<int>(quant.ftype), 0);
  } catch (...) {
    std::filesystem::remove(skeleton);
    std::filesystem::remove(partial);
    throw;
  }
  std::ofstream(quantize_log_path(path)) << log;
  std::filesystem::remove(skeleton);
  if (!spec.tokenizer.empty()) add_chat_template(partial);
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
