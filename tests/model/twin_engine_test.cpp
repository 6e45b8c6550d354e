// Synthetic twins through the real CLI and the real engine: the tiny twin
// loads and decodes, the same spec and seed give the same bytes, and bad input
// gives a clear "error:" and a non-zero exit before anything is built.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <utility>
#include <vector>

#include "engine/engine.hpp"
#include "model/model_profile.hpp"
#include "model/quant_fallback.hpp"
#include "support/engine_fixtures.hpp"
#include "support/test_support.hpp"
#include "util/hash.hpp"

namespace moesweep {
namespace {

using test::CommandResult;

TEST(TinyTwin, EngineLoadsItWithTheTwinsShape) {
  const std::filesystem::path path = test::tiny_twin();
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  const uint64_t size = std::filesystem::file_size(path);
  EXPECT_GT(size, 50u << 20);  // "tiny" is ~100-300 MB at Q4_K_S
  EXPECT_LT(size, 300u << 20);

  const LoadedModel model(test::load_params(path.string()));
  const ModelFacts& f = model.facts();
  const ModelProfile tiny = scale_profile(load_model_profile("kimi-k2.5"), "tiny", {});
  EXPECT_EQ(f.arch, "deepseek2");
  EXPECT_EQ(f.n_layer, tiny.shape.layers);
  EXPECT_EQ(f.n_vocab, tiny.shape.vocab);
  EXPECT_NE(f.description.find("Q4_K - Small"), std::string::npos) << f.description;
  // The engine's own parameter count agrees with the profile arithmetic
  // (which leaves out a few small vectors such as the router bias).
  const double ours = static_cast<double>(count_params(tiny).total);
  EXPECT_NEAR(static_cast<double>(f.n_params), ours, 0.01 * ours);
}

TEST(TinyTwin, DecodesPromptAndGeneratedTokens) {
  const LoadedModel model(test::load_params(test::tiny_twin().string()));
  ContextParams cp;
  cp.n_ctx = 256;
  cp.n_batch = 64;
  cp.n_ubatch = 64;
  LiveContext ctx(model, cp);
  ctx.set_threads(test::threads(1));
  EXPECT_EQ(ctx.n_ctx(), 256);
  EXPECT_EQ(ctx.cached_tokens(), 0);
  const std::vector<int32_t> prompt = {1, 17, 300, 42, 5, 767, 99, 250, 12, 600};
  EXPECT_GT(ctx.prefill(prompt, 0), 0.0);
  EXPECT_EQ(ctx.cached_tokens(), 10);
  EXPECT_GT(ctx.generate({7, 8, 9, 10}, 10), 0.0);
  EXPECT_EQ(ctx.cached_tokens(), 14);
}

// A twin small enough to build three times in a few seconds; same code path
// (skeleton, random fill, save, quantize) as the tiny preset.
std::string small_spec(uint64_t seed, const std::string& quant = "Q4_K_S") {
  return "synth --model kimi-k2.5 --scale tiny --hidden 256 --experts 16 --quant " + quant +
         " --seed " + std::to_string(seed);
}

CommandResult synth_into(const std::filesystem::path& cache, const std::string& args) {
  return test::run_shell("MOESWEEP_CACHE_DIR='" + cache.string() + "' " +
                         std::string(MOESWEEP_CLI) + " " + args);
}

TEST(TwinDeterminism, SameSpecAndSeedGiveIdenticalBytesDifferentSeedDoesNot) {
  const std::filesystem::path dir = test::scratch_dir();
  const CommandResult a =
      synth_into(dir / "cache-a", small_spec(7) + " --out " + (dir / "a.gguf").string());
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const CommandResult b =
      synth_into(dir / "cache-b", small_spec(7) + " --out " + (dir / "b.gguf").string());
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const CommandResult c =
      synth_into(dir / "cache-c", small_spec(8) + " --out " + (dir / "c.gguf").string());
  ASSERT_EQ(c.exit_code, 0) << c.err;
  // Both builds really happened (no shared cache).
  EXPECT_NE(a.out.find("built in"), std::string::npos) << a.out;
  EXPECT_NE(b.out.find("built in"), std::string::npos) << b.out;
  const std::string ha = sha256_file(dir / "a.gguf");
  EXPECT_EQ(ha, sha256_file(dir / "b.gguf"));
  EXPECT_NE(ha, sha256_file(dir / "c.gguf"));
}

// The cached twin's identity: inode and modification time of the only GGUF in
// the cache (a rebuild writes a new file and renames it into place).
std::pair<ino_t, int64_t> cached_twin_identity(const std::filesystem::path& cache) {
  std::vector<std::filesystem::path> twins;
  for (const auto& e : std::filesystem::directory_iterator(cache / "twins"))
    if (e.path().extension() == ".gguf") twins.push_back(e.path());
  EXPECT_EQ(twins.size(), 1u);
  if (twins.empty()) return {0, 0};
  struct stat st {};
  EXPECT_EQ(::stat(twins.front().c_str(), &st), 0) << twins.front();
  return {st.st_ino, int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec};
}

TEST(TwinCache, SecondSynthReusesTheCachedFileForceRebuildsIt) {
  const std::filesystem::path cache = test::scratch_dir() / "cache";
  const CommandResult first = synth_into(cache, small_spec(3));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto built = cached_twin_identity(cache);
  const CommandResult second = synth_into(cache, small_spec(3));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(cached_twin_identity(cache), built) << "the cached twin was written again";
  EXPECT_NE(second.out.find("reused from cache"), std::string::npos) << second.out;  // the wording
  const CommandResult forced = synth_into(cache, small_spec(3) + " --force");
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(cached_twin_identity(cache).first, built.first) << "--force kept the old file";
}

TEST(SynthSummary, PrintsShapeSizeAndParameterCounts) {
  const CommandResult r = synth_into(test::scratch_dir() / "cache", small_spec(5));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* part : {"twin       kimi-k2.5", "file       ", "size       ",
                           "deepseek2: 2 layers", "16 routed, 8 used, 1 shared", "params     total",
                           "active per token", "real model total 1.03T"})
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
}

// The engine warns once per tensor it cannot quantize to the asked type; those
// lines go to the twin's quantize log, and the summary names them once.
TEST(SynthSummary, NamesTheTensorsThatFellBackWithoutTheEnginesWarnings) {
  const std::filesystem::path cache = test::scratch_dir() / "cache";
  const CommandResult r = synth_into(cache, small_spec(6));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string* stream : {&r.out, &r.err}) {
    EXPECT_EQ(stream->find("falling back to"), std::string::npos) << *stream;
    EXPECT_EQ(stream->find("not divisible by"), std::string::npos) << *stream;
  }
  const size_t at = r.out.find("fallback   ");
  ASSERT_NE(at, std::string::npos) << "the tiny twin has tensors narrower than a K-quant block:\n"
                                   << r.out;
  // The line, its continuations (indented where a terminal's width wrapped it) joined.
  std::string line;
  for (size_t from = at;;) {
    const size_t end = r.out.find('\n', from);
    line += r.out.substr(from, end - from);
    if (end == std::string::npos || end + 1 >= r.out.size() || r.out[end + 1] != ' ') break;
    from = r.out.find_first_not_of(' ', end + 1);
    line += ' ';
  }
  EXPECT_NE(line.find(" tensors: blk.*."), std::string::npos) << line;
  EXPECT_NE(line.find("q4_K -> "), std::string::npos) << line;
  // The log the line names holds the engine's own words.
  const size_t log_at = line.find("engine log ");
  ASSERT_NE(log_at, std::string::npos) << line;
  const std::string log_path = line.substr(log_at + 11, line.size() - log_at - 12);
  std::ifstream log(log_path);
  const std::string text{std::istreambuf_iterator<char>(log), {}};
  EXPECT_NE(text.find("falling back to"), std::string::npos) << log_path;
  EXPECT_EQ(parse_quant_fallbacks(text).size(), static_cast<size_t>(std::stoi(line.substr(11))));
  // Taken from the cache, the twin still says it.
  const CommandResult again = synth_into(cache, small_spec(6));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const std::string first_line = r.out.substr(at, r.out.find('\n', at) - at);
  EXPECT_NE(again.out.find(first_line), std::string::npos) << again.out;
}

TEST(QuantFallback, ParsesTheEnginesWarningAndFoldsLayers) {
  // As llama-quant.cpp writes it: in pieces, one of them the F16 last resort.
  const std::string log =
      "warning: blk.0.ffn_down_exps.weight          - ncols    128 not divisible by 256 "
      "(required for type    q4_K) -> falling back to    q5_0\n"
      "warning: blk.1.ffn_down_exps.weight          - ncols    128 not divisible by 256 "
      "(required for type    q4_K) -> falling back to    q5_0\n"
      "warning: output.weight                       - ncols     20 not divisible by 256 "
      "(required for type    q6_K) (WARNING: must use F16 due to unusual shape) -> falling "
      "back to     f16\n"
      "llama_model_quantize_impl: WARNING: 3 of 40 tensor(s) required fallback quantization\n";
  const auto found = parse_quant_fallbacks(log);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].tensor, "blk.0.ffn_down_exps.weight");
  EXPECT_EQ(found[0].wanted, "q4_K");
  EXPECT_EQ(found[0].used, "q5_0");
  EXPECT_EQ(found[2].used, "f16");
  EXPECT_EQ(quant_fallback_summary(found),
            "3 tensors: blk.*.ffn_down_exps.weight (q4_K -> q5_0, x2), output.weight (q6_K -> "
            "f16, x1)");
  EXPECT_EQ(quant_fallback_summary({}), "");
}

// Every bad input: exit 2 (bad input), "error:" with the named problem, and no
// twin left in the cache.
void expect_bad_input(const std::string& args, const std::string& problem) {
  const std::filesystem::path cache = test::scratch_dir() / "cache";
  const CommandResult r = synth_into(cache, args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_NE(r.err.find("error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(problem), std::string::npos) << "wanted '" << problem << "' in:\n" << r.err;
  EXPECT_NE(r.err.find("fix: "), std::string::npos) << r.err;
  bool built = false;
  if (std::filesystem::exists(cache / "twins"))
    for (const auto& e : std::filesystem::directory_iterator(cache / "twins"))
      built |= e.path().extension() == ".gguf";
  EXPECT_FALSE(built) << "a twin was built for bad input: " << args;
}

TEST(SynthBadInput, UnknownProfile) {
  expect_bad_input("synth --model kimi-k9 --scale tiny", "unknown model profile 'kimi-k9'");
}

TEST(SynthBadInput, UnknownQuantType) {
  expect_bad_input(small_spec(1, "Q9_9"), "unknown quant type 'Q9_9'");
}

TEST(SynthBadInput, ProfileWithAMissingField) {
  nlohmann::json profile = nlohmann::json::parse(
      std::ifstream(std::string(MOESWEEP_SOURCE_DIR) + "/profiles/models/kimi-k2.5.json"));
  profile["shape"].erase("experts_used");
  const std::filesystem::path file = test::scratch_dir() / "no-experts-used.json";
  std::ofstream(file) << profile.dump(2);
  expect_bad_input("synth --model '" + file.string() + "' --scale tiny",
                   "required field 'experts_used' is missing");
}

TEST(SynthBadInput, MalformedProfileJson) {
  const std::filesystem::path file = test::scratch_dir() / "broken.json";
  std::ofstream(file) << "{\"name\": \"broken\", \"arch\": ";
  expect_bad_input("synth --model '" + file.string() + "'", "is not valid JSON");
}

TEST(SynthBadInput, UnknownScalePreset) {
  expect_bad_input("synth --model kimi-k2.5 --scale huge", "no scale preset 'huge'");
}

TEST(SynthBadInput, UnwritableOutputPathFailsBeforeBuilding) {
  expect_bad_input(small_spec(1) + " --out /proc/nope/x.gguf",
                   "cannot write --out '/proc/nope/x.gguf'");
}

}  // namespace
}  // namespace moesweep
