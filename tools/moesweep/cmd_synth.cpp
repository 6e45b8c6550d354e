// `moesweep synth`: make (or reuse) a synthetic twin and describe it.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "commands.hpp"
#include "model/twin_builder.hpp"
#include "model/twin_vocab.hpp"
#include "twin_options.hpp"
#include "util/error.hpp"
#include "util/parse_list.hpp"
#include "util/stop_signal.hpp"
#include "util/terminal_text.hpp"

namespace moesweep::cli {
namespace {

struct SynthOptions {
  TwinOptions twin;
  std::string quant = "Q4_K_S";
  std::string out;
  bool force = false;
  bool json = false;
  bool servable = false;
};

void print_summary(const TwinSpec& spec, const TwinResult& r, const ModelProfile& real) {
  const ModelShape& m = spec.profile.shape;
  const ParamCount& c = r.params;
  const ParamCount rc = count_params(real);
  auto share = [](int64_t part, int64_t whole) { return whole ? 100.0 * part / whole : 0.0; };
  fmt::print("twin       {} ({}, {}, seed {})\n", spec.profile.name, spec.scale, spec.quant,
             spec.seed);
  fmt::print("file       {}\n", r.path.string());
  fmt::print(
      "size       {} ({} bytes){}\n", human_bytes(r.file_bytes), r.file_bytes,
      r.reused ? ", reused from cache" : fmt::format(", built in {:.1f} s", r.build_seconds));
  fmt::print("arch       {}: {} layers ({} dense lead), hidden {}, {} heads", spec.profile.arch,
             m.layers, m.dense_lead_layers, m.hidden, m.heads);
  if (m.is_mla())
    fmt::print(" (MLA q_lora {}, kv_lora {}, qk {}+{}, v {})\n", m.q_lora_rank, m.kv_lora_rank,
               m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim);
  else
    fmt::print(" ({} KV heads, head dim {})\n", m.kv_heads, m.head_dim);
  fmt::print("experts    {} routed, {} used, {} shared; expert ff {}, dense ff {}, vocab {}\n",
             m.experts, m.experts_used, m.shared_experts, m.expert_ff, m.dense_ff, m.vocab);
  fmt::print("params     total {} | active per token {}\n", human_count(c.total),
             human_count(c.active));
  fmt::print(
      "           attention {:.1f}% of active (real {}: {:.1f}%), routed experts {:.1f}% of total "
      "(real {:.1f}%)\n",
      share(c.attention, c.active), real.name, share(rc.attention, rc.active),
      share(c.routed_experts, c.total), share(rc.routed_experts, rc.total));
  fmt::print("real model total {} | active per token {}\n", human_count(rc.total),
             human_count(rc.active));
  fmt::print("peak RSS   {}\n", human_bytes(static_cast<uint64_t>(r.peak_rss_bytes)));
  if (!r.quant_fallbacks.empty())  // the engine's per-tensor warnings went to the log
    fmt::print("{}\n", wrap_words(fmt::format("fallback   {} (row length not a multiple of the {} "
                                              "block; engine log {})",
                                              quant_fallback_summary(r.quant_fallbacks), spec.quant,
                                              r.engine_log.string()),
                                  kTerminalWidth, std::string(11, ' ')));
}

// Refuses an --out that cannot be written before minutes of building. The
// file is opened for real: access() lets root "write" to /proc.
void check_out_file(const std::string& out) {
  if (out.empty()) return;
  std::error_code ec;
  const bool existed = std::filesystem::exists(out, ec);
  const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw UserError(fmt::format("cannot write --out '{}': {}", out, std::strerror(errno)),
                    "a file path in a directory this user can write",
                    "choose another --out path or fix the directory's permissions");
  }
  ::close(fd);
  if (!existed) std::filesystem::remove(out, ec);
}

}  // namespace

void add_synth_command(CLI::App& app, CommandRunner& run) {
  auto opts = std::make_shared<SynthOptions>();
  CLI::App* cmd =
      app.add_subcommand("synth", "make a synthetic twin GGUF of a real MoE architecture");
  opts->twin.add_to(*cmd);
  cmd->add_option("--quant,-q", opts->quant,
                  "quant type(s), comma-separated: F16,Q8_0,Q6_K,Q4_K_M,Q4_K_S,...")
      ->capture_default_str();
  cmd->add_option("--out,-o", opts->out, "also write the twin here (default: only the cache)");
  cmd->add_flag("--force", opts->force, "rebuild even when the cache has it");
  cmd->add_flag("--servable", opts->servable,
                "give the twin its family's real tokenizer and a chat template (llama-server "
                "can serve it; the vocabulary becomes the tokenizer's)");
  cmd->callback([opts, &run] {
    run = [opts] {
      const StopOnSignal stop;  // Ctrl-C or SIGTERM: the build's .tmp files are removed, exit 130
      const ModelProfile real = load_model_profile(opts->twin.model);
      check_out_file(opts->out);
      for (const std::string& quant : split_list(opts->quant)) {
        TwinSpec spec = opts->twin.spec_for(quant);
        if (opts->servable) make_servable(spec);
        auto progress = [](const std::string& stage) { fmt::print(stderr, "[synth] {}\n", stage); };
        const TwinResult r = ensure_twin(spec, opts->out, opts->force, progress);
        print_summary(spec, r, real);
      }
      return 0;
    };
  });
}

}  // namespace moesweep::cli
