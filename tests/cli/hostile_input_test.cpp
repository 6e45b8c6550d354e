// Hostile values through the real CLI: each once crashed (exit 139), hung, or
// ran something other than what it recorded. Each must now be refused before
// anything runs, with the three-part message and exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "support/test_support.hpp"

namespace moesweep {
namespace {

using test::CommandResult;

// A dry run plans without running, and --no-db keeps the store out of it.
const std::string kDry = " --depths 0 -c 1024 -ub 64 -n 2 --dry-run --no-db";

void expect_refused(const CommandResult& r, const std::string& in_problem) {
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(in_problem), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fix: "), std::string::npos) << r.err;
}

TEST(HostileInput, DeeplyNestedProfileIsRefusedNotAStackOverflow) {
  const std::filesystem::path profile = test::scratch_dir() / "deep.json";
  {
    std::ofstream out(profile);
    out << "{\"threads\": " << std::string(100000, '[') << std::string(100000, ']') << "}";
  }
  expect_refused(test::run_cli("sweep --profile '" + profile.string() + "'" + kDry),
                 "nests arrays/objects 100001 levels deep");
}

// Issue 44, item 15: hex text was read as a number (--threshold 0x10 was 16%,
// --request-rate 0x10 16 req/s), an integer's "010" as octal 8, and "inf" or
// "nan" reached typed options. Every number on the command line is decimal:
// the typed options (one transform over every option, cli_checks.hpp) and the
// lists and percentages moesweep parses itself alike.
TEST(HostileInput, NumbersOnTheCommandLineAreDecimalOnly) {
  const std::string dir = test::scratch_dir().string();
  const std::pair<std::string, std::string> cases[] = {
      {"compare --threshold 0x10 a b", "--threshold '0x10' is not a percentage"},
      {"compare --alpha 0x0.1p0 a b", "'0x0.1p0' is not a number (decimal digits only)"},
      {"serve-bench --url http://127.0.0.1:9 --no-db --request-rate 0x10 --out-dir " + dir,
       "--request-rate '0x10' is not a rate"},
      {"serve-bench --url http://127.0.0.1:9 --no-db --request-timeout 0x10 --out-dir " + dir,
       "'0x10' is not a number (decimal digits only"},
      {"serve-bench --url http://127.0.0.1:9 --no-db --slo ttft_p99=0x10s --out-dir " + dir,
       "ttft_p99=0x10s"},
      {"hw --noise --noise-gap-tg 0x40", "'0x40' is not a number (decimal digits only"},
      {"hw --noise --noise-gaps 0x1", "'0x1' is not a number of seconds"},
      {"hw --noise --noise-repetitions inf", "'inf' is not a number (decimal digits only"},
      {"sweep --max-time 0x10" + kDry, "'0x10' is not a number"},
      {"sweep --min-sample-time nan" + kDry, "'nan' is not a number"},
      {"sweep -t 0x2" + kDry, "'0x2' is not a number"},
      {"predict --bandwidth 0x10 -m kimi-k2.5", "'0x10' is not a number (decimal digits only"}};
  for (const auto& [args, says] : cases) {
    SCOPED_TRACE(args);
    expect_refused(test::run_cli(args), says);
  }
  // A leading zero is decimal, not octal: 010 repetitions are ten.
  const CommandResult r = test::run_cli("sweep -t 1 -r 010" + kDry);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("TG 2 x10\n"), std::string::npos) << r.out;
}

TEST(HostileInput, HugeBatchIsRefusedAtSpecTime) {
  expect_refused(test::run_cli("sweep -b 2147483647" + kDry), "value 2147483647 is too large");
  expect_refused(test::run_cli("sweep -ub 2147483647 --depths 0 -n 2 --dry-run --no-db"),
                 "value 2147483647 is too large");
  expect_refused(test::run_cli("sweep -c 2147483647 --depths 0 --dry-run --no-db"),
                 "value 2147483647 is too large");
}

TEST(HostileInput, ThreadsBeyondTheEnginesThreadpoolAreRefusedEvenWhenOversubscribing) {
  const CommandResult r = test::run_cli("sweep -t 100000 --allow-oversubscribe" + kDry);
  expect_refused(r, "value 100000 is too large");
  EXPECT_NE(r.err.find("values <= 512 (the engine's GGML_MAX_N_THREADS)"), std::string::npos)
      << r.err;
  // 2^32 + 1 must not wrap to 1 thread.
  expect_refused(test::run_cli("sweep -t 4294967297" + kDry), "value 4294967297 is too large");
}

TEST(HostileInput, MillionValueRangeIsRefusedAtOnceInsteadOfExpanded) {
  const CommandResult r = test::run_cli("sweep -t 1-1000000+1" + kDry);
  expect_refused(r, "'1-1000000+1' expands to more than 4096 values");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(HostileInput, TooManyPointsAreRefusedBeforeThePlanIsExpanded) {
  expect_refused(test::run_cli("sweep -t 1-512 -ub 1-256 -c 4096 --depths 0 --dry-run --no-db"),
                 "make more than 100000 points");
}

TEST(HostileInput, EmptyCpuMaskIsRefusedNotZeroPoints) {
  expect_refused(test::run_cli("sweep -C ''" + kDry), "(--cpu-mask): no value given");
  expect_refused(test::run_cli("sweep -C 0x0" + kDry), "--cpu-mask '0x0' names no CPU");
}

TEST(HostileInput, CpuMaskNamingACpuThisMachineLacksIsRefused) {
  // CPU 1000: no machine this runs on has it (the engine pins CPUs < 512 only).
  const std::string mask = "0x1" + std::string(250, '0');
  const CommandResult dry = test::run_cli("sweep -C " + mask + kDry);
  ASSERT_EQ(dry.exit_code, 0) << dry.err;  // a plan for another machine: a warning
  EXPECT_NE(dry.out.find("names CPU(s) 1000 that this process cannot be pinned to"),
            std::string::npos)
      << dry.out;
  const std::filesystem::path out = test::scratch_dir() / "runs";
  const CommandResult run = test::run_cli(
      "sweep -C 1000 --depths 0 -c 1024 -ub 64 -n 2 --no-db --out-dir '" + out.string() + "'");
  expect_refused(run, "--cpu-mask '1000' names CPU(s) 1000");
  EXPECT_FALSE(std::filesystem::exists(out)) << "refused after making a run directory";
}

TEST(HostileInput, CpuMaskAlternativesAreSeparatedBySemicolons) {
  const CommandResult r = test::run_cli("sweep -C '0;0,0'" + kDry);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("threads (gen/batch): 1/1@0 1/1@0,0\n"), std::string::npos) << r.out;
}

TEST(HostileInput, BatchLargerThanAnExplicitContextIsRefused) {
  expect_refused(test::run_cli("sweep -c 1024 -b 4096 --depths 0 -ub 64 -n 2 --dry-run --no-db"),
                 "-b 4096 is larger than -c 1024");
}

TEST(HostileInput, HugeGenerationCountIsRefusedNotAnInternalError) {
  expect_refused(test::run_cli("sweep -n 2147483647 --depths 0 -c 1024 --dry-run --no-db"),
                 "(--n-gen): value 2147483647 is too large");
  // The largest accepted value still fails the fits-in-context check honestly.
  expect_refused(test::run_cli("sweep -n 16777216 --depths 0 -c 1024 --dry-run --no-db"),
                 "do not fit in ctx 1024");
}

TEST(HostileInput, EmptyModelNamesTheFlag) {
  expect_refused(test::run_cli("sweep -m ''" + kDry), "(--model): no value given");
  expect_refused(test::run_cli("sweep -q ''" + kDry), "(--quant): no value given");
}

TEST(HostileInput, SynthLayersZeroIsRefusedNotIgnored) {
  expect_refused(test::run_cli("synth --layers 0"), "--layers 0");
  expect_refused(test::run_cli("synth --experts-used -1"), "--experts-used -1");
  expect_refused(test::run_cli("sweep --layers 0" + kDry), "(--layers): value 0 is too small");
  expect_refused(test::run_cli("synth --layers 100000"), "100000 layers");
}

TEST(HostileInput, OutOfRangeNumbersAreShownAsWritten) {
  const CommandResult r = test::run_cli("sweep -r 18446744073709551615" + kDry);
  expect_refused(r, "18446744073709551615 is out of range");
  EXPECT_EQ(r.err.find("-1"), std::string::npos) << r.err;
}

// Issue 35, D11 and D23: every numeric flag's range check is one validator
// (tools/moesweep/cli_checks.hpp): NaN and the infinities fail each one, and
// no limit is printed as a 309-digit number.
TEST(HostileInput, NanAndInfinityFailEveryRangeCheckWithCompactLimits) {
  const std::string dry = " --dry-run --no-db --depths 0 -c 1024 -ub 64 -n 2";
  const std::string cases[] = {
      "sweep --keep-pp nan" + dry,
      "sweep --keep-tg inf" + dry,
      "sweep --keep-pp -0.5" + dry,
      "plan --shards nan --out x",
      "l3-run --repetitions nan",
      "l3-run --blocks inf",
      "trace --gen nan",
      "trace --threads -inf",
      "predict --hardware epyc-9175f --model kimi-k2.5 --depth nan",
  };
  for (const std::string& c : cases) {
    const CommandResult r = test::run_cli(c);
    EXPECT_EQ(r.exit_code, 2) << c << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("is not a number"), std::string::npos) << c << "\n" << r.err;
    EXPECT_FALSE(std::regex_search(r.err, std::regex("[0-9]{20}"))) << c << "\n" << r.err;
  }
}

// Issue 35, D20: l3-run checks every setting before it measures the cache,
// builds a twin or writes a pilot folder.
TEST(HostileInput, L3RunRefusesABadSettingBeforeAnything) {
  const std::filesystem::path out = test::scratch_dir() / "runs";
  for (const std::string flags :
       {"--block-seed -1", "--block-seed 4294967296", "--block-seed nan", "--blocks 2"}) {
    const CommandResult r = test::run_cli("l3-run " + flags + " --out-dir '" + out.string() + "'");
    EXPECT_EQ(r.exit_code, 2) << flags << "\n" << r.out << r.err;
    EXPECT_EQ(r.out.find("measuring"), std::string::npos) << flags << "\n" << r.out;
    EXPECT_EQ(r.out.find("pilot"), std::string::npos) << flags << "\n" << r.out;
    EXPECT_FALSE(std::filesystem::exists(out)) << flags;
  }
}

}  // namespace
}  // namespace moesweep
