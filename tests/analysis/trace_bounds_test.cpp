// A routing trace is read as it is decompressed (issue 20, defects 2 and 5):
// the header line and each step are checked against caps and against the
// model facts before their bytes are read, so a zstd bomb, /dev/zero or an
// impossible step costs no memory; the header's facts are typed and ranged.
#include <gtest/gtest.h>
#include <zstd.h>

#include <cstring>
#include <fstream>
#include <string>

#include "analysis/hand_trace.hpp"
#include "analysis/routing_trace.hpp"
#include "support/test_support.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

const std::string kMagic = "MOESWEEP-ROUTING-TRACE 1\n";

std::string header_of(const RoutingTrace& t) {
  const std::string raw = serialize_routing_trace(t);
  return raw.substr(0, raw.find('\n', kMagic.size()) + 1);
}

std::string step(uint8_t phase, uint8_t n_used, uint16_t layer, uint32_t n_tokens) {
  std::string s(8, '\0');
  s[0] = static_cast<char>(phase);
  s[1] = static_cast<char>(n_used);
  std::memcpy(s.data() + 2, &layer, 2);
  std::memcpy(s.data() + 4, &n_tokens, 4);
  return s;
}

// `n` zero bytes after `prefix`, compressed as they are made (never held whole).
std::filesystem::path zero_bomb(const std::string& prefix, uint64_t n) {
  const auto path = test::scratch_dir() / "bomb.trace.zst";
  std::ofstream out(path, std::ios::binary);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
  std::string block(1 << 20, '\0'), packed(ZSTD_CStreamOutSize(), '\0');
  auto put = [&](const char* data, size_t size, ZSTD_EndDirective mode) {
    ZSTD_inBuffer in{data, size, 0};
    size_t left = 1;
    while (in.pos < in.size || (mode == ZSTD_e_end && left != 0)) {
      ZSTD_outBuffer o{packed.data(), packed.size(), 0};
      left = ZSTD_compressStream2(cctx, &o, &in, mode);
      out.write(packed.data(), static_cast<std::streamsize>(o.pos));
    }
  };
  put(prefix.data(), prefix.size(), ZSTD_e_continue);
  for (uint64_t done = 0; done < n; done += block.size())
    put(block.data(), block.size(), ZSTD_e_continue);
  put(nullptr, 0, ZSTD_e_end);
  ZSTD_freeCCtx(cctx);
  return path;
}

TEST(TraceBounds, AStepPastTheCapsIsRefusedBeforeItsIdsAreRead) {
  const RoutingTrace t = test::one_expert_per_token({0, 1});
  const std::string head = header_of(t);
  // 2^24 + 1 tokens of 1 expert: more than any micro-batch.
  EXPECT_NE(test::refused([&] {
              parse_routing_trace(head + step(1, 1, 1, (1u << 24) + 1), "big");
            }).find("has a broken step at byte"),
            std::string::npos);
  // n_used above n_expert, a layer past n_layer, a phase that is none.
  for (const std::string& s : {step(1, 5, 1, 1), step(1, 1, 2, 1), step(7, 1, 1, 1)})
    EXPECT_NE(test::refused([&] {
                parse_routing_trace(head + s + std::string(10, '\0'), "bad");
              }).find("broken step"),
              std::string::npos);
}

// fuzz/regressions/trace/step-without-tokens: a step of 0 tokens first read
// its 0 ids by memcpy into an empty vector's null data (UBSan's nonnull
// check). It reads as a step with no ids, in a decompressed trace and in a file.
TEST(TraceBounds, AStepWithoutTokensReadsAsAnEmptyStep) {
  const RoutingTrace t = test::one_expert_per_token({0, 1});
  const std::string raw = header_of(t) + step(0, 1, 1, 0);
  const RoutingTrace r = parse_routing_trace(raw, "empty step");
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].n_tokens, 0u);
  EXPECT_TRUE(r.ids.empty());
  std::string packed(ZSTD_compressBound(raw.size()), '\0');
  packed.resize(ZSTD_compress(packed.data(), packed.size(), raw.data(), raw.size(), 1));
  const auto path = test::scratch_dir() / "empty-step.trace.zst";
  std::ofstream(path, std::ios::binary) << packed;
  EXPECT_EQ(read_routing_trace(path).steps.size(), 1u);
}

TEST(TraceBounds, AHeaderLineWithoutEndIsRefusedAtTheCap) {
  EXPECT_NE(test::refused([&] {
              parse_routing_trace(kMagic + std::string(2u << 20, 'a'), "h");
            }).find("has a header line longer than 1024 KiB"),
            std::string::npos);
}

TEST(TraceBounds, ZstdBombsAndDevZeroCostNoMemory) {
  // A GiB of zeros in a few dozen KiB: refused at the first bytes, whether
  // the zeros stand for the header or for the steps.
  EXPECT_NE(test::refused([] {
              read_routing_trace(zero_bomb("", 1ull << 30));
            }).find("does not start with the trace header"),
            std::string::npos);
  const std::string head = header_of(test::one_expert_per_token({0}));
  EXPECT_NE(test::refused([&] {
              read_routing_trace(zero_bomb(head, 1ull << 30));
            }).find("has a broken step at byte"),
            std::string::npos);
  EXPECT_NE(test::refused([] { read_routing_trace("/dev/zero"); }).find("is not a regular file"),
            std::string::npos);
}

TEST(TraceBounds, AFileCutShortSaysSoNotThatItIsNoTrace) {
  // A copy that stopped early: the zstd frame ends inside the header. Was
  // "does not start with the trace header", which sends the user to the
  // wrong cause; an empty file is told apart the same way.
  const auto whole = test::scratch_dir() / "whole.trace.zst";
  write_routing_trace(test::one_expert_per_token({0, 1, 2}), whole);
  std::ifstream in(whole, std::ios::binary);
  const std::string packed((std::istreambuf_iterator<char>(in)), {});
  for (const size_t keep : {size_t{0}, size_t{12}, packed.size() / 2}) {
    const auto cut = test::scratch_dir() / "cut.trace.zst";
    std::ofstream(cut, std::ios::binary) << packed.substr(0, keep);
    const std::string why = test::refused([&] { read_routing_trace(cut); });
    EXPECT_EQ(why.find("does not start with the trace header"), std::string::npos) << why;
    EXPECT_NE(why.find("cut short"), std::string::npos) << keep << ": " << why;
  }
}

TEST(TraceBounds, HeaderFactsAreTypedAndRanged) {
  const RoutingTrace good = test::one_expert_per_token({0, 1});
  const std::string raw = serialize_routing_trace(good);
  const std::string rest = raw.substr(header_of(good).size());
  struct Case {
    const char* key;
    nlohmann::json value;
    const char* says;
  };
  const Case cases[] = {
      {"n_expert_used", 5, "field 'header.n_expert_used' is 5"},
      {"n_layer", 4294967298ull, "field 'header.n_layer' is 4294967298"},
      {"n_expert", 0, "field 'header.n_expert' is 0"},
      {"expert_bytes", {0, -5}, "field 'header.expert_bytes'"},
      {"expert_bytes", {0, 18000000000000000000ull}, "field 'header.expert_bytes'"},
      {"expert_bytes", {0, 1.5e30}, "field 'header.expert_bytes'"},
      {"expert_bytes", {0, 1u << 30}, "field 'header.expert_bytes' is [0,1073741824]"},
      {"hot_bytes", "3", "field 'header.hot_bytes'"},
      {"routed_bytes_total", 1.8e19, "field 'header.routed_bytes_total'"},
  };
  for (const Case& c : cases) {
    nlohmann::json h = to_json(good.model);
    h[c.key] = c.value;
    const std::string problem =
        test::refused([&] { parse_routing_trace(kMagic + h.dump() + "\n" + rest, "t"); });
    EXPECT_NE(problem.find(c.says), std::string::npos) << c.key << ": " << problem;
  }
}

}  // namespace
}  // namespace moesweep
