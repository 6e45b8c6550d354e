// Raw configs encoded through recorded sysfs format files must equal the
// configs the kernel documents (perf's JSON event files, the uncore drivers):
// these are the numbers a bare-metal run would hand to perf_event_open.
#include <gtest/gtest.h>

#include "support/test_support.hpp"

#include <map>
#include <stdexcept>

#include "counter_test_data.hpp"
#include "counters/counter_profile.hpp"
#include "counters/cpu_identity.hpp"
#include "counters/sysfs_pmu.hpp"
#include "util/paths.hpp"

namespace moesweep::counters {
namespace {

PmuInfo recorded_pmu(const std::string& machine, const std::string& pmu) {
  const auto found = SysfsPmus(kSysfs / machine).find(pmu);
  if (!found) throw std::runtime_error("recorded PMU missing: " + machine + "/" + pmu);
  return *found;
}

std::uint64_t config_of(const std::string& machine, const std::string& pmu,
                        const std::map<std::string, std::uint64_t>& fields) {
  return encode_raw_config(recorded_pmu(machine, pmu), fields).config;
}

TEST(SysfsFormat, ParsesSplitRangesAndSingleBits) {
  const FieldFormat f = parse_field_format("config:0-7,32-35");
  EXPECT_EQ(f.word, "config");
  ASSERT_EQ(f.ranges.size(), 2u);
  EXPECT_EQ(f.ranges[1], std::make_pair(32, 35));
  EXPECT_EQ(f.width(), 12);
  EXPECT_EQ(parse_field_format("config:46").width(), 1);
  EXPECT_EQ(parse_field_format("config1:0-63").word, "config1");
  EXPECT_THROW(parse_field_format("config0-7"), std::invalid_argument);
  EXPECT_THROW(parse_field_format("config:7-0"), std::invalid_argument);
  EXPECT_THROW(parse_field_format("config:0-64"), std::invalid_argument);
  EXPECT_THROW(parse_field_format("cfg:0-7"), std::invalid_argument);
}

TEST(SysfsFormat, CpuListsExpandRanges) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_TRUE(parse_cpu_list("").empty());
}

TEST(RecordedSysfs, Zen5AmdL3LookupsHitsMisses) {
  EXPECT_EQ(config_of("amd-zen5", "amd_l3", {{"event", 0x04}, {"umask", 0xff}}), 0xff04u);
  EXPECT_EQ(config_of("amd-zen5", "amd_l3", {{"event", 0x04}, {"umask", 0xfe}}), 0xfe04u);
  EXPECT_EQ(config_of("amd-zen5", "amd_l3", {{"event", 0x04}, {"umask", 0x01}}), 0x0104u);
}

TEST(RecordedSysfs, Zen4AmdL3SameEncodingAsZen5) {
  EXPECT_EQ(config_of("amd-zen4", "amd_l3", {{"event", 0x04}, {"umask", 0xff}}), 0xff04u);
}

TEST(RecordedSysfs, Zen5UmcCasReadAndWrite) {
  EXPECT_EQ(config_of("amd-zen5", "amd_umc_0", {{"event", 0x0a}, {"rdwrmask", 1}}), 0x10au);
  EXPECT_EQ(config_of("amd-zen5", "amd_umc_1", {{"event", 0x0a}, {"rdwrmask", 2}}), 0x20au);
}

TEST(RecordedSysfs, Zen4DfReadBeatsUseTheSplitUmask) {
  // umask 0x7fe: bits 0-7 go to config 8-15, bits 8-11 to config 24-27.
  EXPECT_EQ(config_of("amd-zen4", "amd_df", {{"event", 0x1f}, {"umask", 0x7fe}}), 0x0700FE1Fu);
  // cs4: event 0x11f, whose bit 8 lands in config bit 32.
  EXPECT_EQ(config_of("amd-zen4", "amd_df", {{"event", 0x11f}, {"umask", 0x7fe}}), 0x10700FE1Full);
  EXPECT_EQ(config_of("amd-zen4", "amd_df", {{"event", 0x1f}, {"umask", 0x7ff}}), 0x0700FF1Fu);
}

TEST(RecordedSysfs, Zen3DfChannelEventHighBits) {
  // dram_channel_data_controller_4: event 0x107 umask 0x38, event bit 8 -> config bit 32.
  EXPECT_EQ(config_of("amd-zen3", "amd_df", {{"event", 0x107}, {"umask", 0x38}}), 0x100003807ull);
}

TEST(RecordedSysfs, SprImcCasReadWrite) {
  EXPECT_EQ(config_of("intel-spr", "uncore_imc_0", {{"event", 0x05}, {"umask", 0xcf}}), 0xcf05u);
  EXPECT_EQ(config_of("intel-spr", "uncore_imc_1", {{"event", 0x05}, {"umask", 0xf0}}), 0xf005u);
  EXPECT_EQ(config_of("intel-gnr", "uncore_imc_0", {{"event", 0x06}, {"umask", 0xcf}}), 0xcf06u);
}

TEST(RecordedSysfs, IntelCoreEventsAndConfig1) {
  EXPECT_EQ(config_of("intel-spr", "cpu", {{"event", 0x2e}, {"umask", 0x41}}), 0x412eu);
  const RawConfig raw = encode_raw_config(
      recorded_pmu("intel-spr", "cpu"), {{"event", 0xb7}, {"umask", 1}, {"offcore_rsp", 0x10001}});
  EXPECT_EQ(raw.config, 0x01b7u);
  EXPECT_EQ(raw.config1, 0x10001u);
}

TEST(RecordedSysfs, RejectsUnknownFieldsAndOverwideValues) {
  const PmuInfo l3 = recorded_pmu("amd-zen5", "amd_l3");
  EXPECT_THROW(encode_raw_config(l3, {{"rdwrmask", 1}}), std::invalid_argument);
  EXPECT_THROW(encode_raw_config(l3, {{"umask", 0x1ff}}), std::invalid_argument);
}

TEST(RecordedSysfs, GlobMatchesNumberedInstancesOnly) {
  const SysfsPmus pmus(kSysfs / "amd-zen5");
  const auto umcs = pmus.match("amd_umc_*");
  ASSERT_EQ(umcs.size(), 12u);  // EPYC 9175F: 12 memory channels
  EXPECT_EQ(umcs[0].name, "amd_umc_0");
  EXPECT_EQ(umcs[0].cpumask, std::vector<int>{0});
  EXPECT_EQ(pmus.find("amd_l3")->cpumask.size(), 16u);
  EXPECT_TRUE(pmus.match("uncore_imc_*").empty());
}

struct MachineCase {
  const char* machine;
  const char* profile;
};

class RecordedMachine : public ::testing::TestWithParam<MachineCase> {};

// The profile chosen from the recorded cpuinfo, and every event of it encodes
// on that machine's recorded PMUs: the profile's field names match the kernel's.
TEST_P(RecordedMachine, ProfileMatchesCpuAndEveryEventEncodes) {
  const auto [machine, expected] = GetParam();
  const CpuIdentity cpu = read_cpu_identity(kSysfs / machine / "proc-cpuinfo");
  const auto profile = find_counter_profile(profiles_dir() / "counters", cpu);
  ASSERT_TRUE(profile) << machine;
  EXPECT_EQ(profile->name, expected);
  const SysfsPmus pmus(kSysfs / machine);
  for (const auto& [name, event] : profile->events) {
    const auto instances = pmus.match(event.pmu);
    ASSERT_FALSE(instances.empty()) << machine << " lacks " << event.pmu << " for " << name;
    for (const auto& fields : event.sum_of)
      EXPECT_NO_THROW(encode_raw_config(instances.front(), fields)) << machine << " " << name;
  }
}

INSTANTIATE_TEST_SUITE_P(AllFamilies, RecordedMachine,
                         ::testing::Values(MachineCase{"amd-zen3", "amd-zen3"},
                                           MachineCase{"amd-zen4", "amd-zen4"},
                                           MachineCase{"amd-zen5", "amd-zen5"},
                                           MachineCase{"intel-spr", "intel-spr"},
                                           MachineCase{"intel-gnr", "intel-gnr"}));

TEST(CounterProfiles, UnknownCpuHasNoProfile) {
  CpuIdentity cpu;
  cpu.vendor = "GenuineIntel";
  cpu.family = 6;
  cpu.model = 85;  // Skylake-SP: no profile shipped
  EXPECT_FALSE(find_counter_profile(profiles_dir() / "counters", cpu));
}

// Family 0x19 as the kernel splits it (arch/x86/kernel/cpu/amd.c): Zen 3 is
// 0x00-0x0f, 0x20-0x2f and 0x40-0x5f; 0x30-0x3f belongs to Zen 4.
TEST(CounterProfiles, Family19ModelsMapToZen3OrZen4AsTheKernelDoes) {
  const std::map<int, std::string> expected = {
      {0x01, "amd-zen3"}, {0x08, "amd-zen3"}, {0x21, "amd-zen3"}, {0x2f, "amd-zen3"},
      {0x44, "amd-zen3"}, {0x50, "amd-zen3"}, {0x11, "amd-zen4"}, {0x18, "amd-zen4"},
      {0x30, "amd-zen4"}, {0x3f, "amd-zen4"}, {0x61, "amd-zen4"}, {0x74, "amd-zen4"},
      {0xa0, "amd-zen4"}, {0xaf, "amd-zen4"}};
  for (const auto& [model, name] : expected) {
    CpuIdentity cpu;
    cpu.vendor = "AuthenticAMD";
    cpu.family = 25;
    cpu.model = model;
    const auto profile = find_counter_profile(profiles_dir() / "counters", cpu);
    ASSERT_TRUE(profile) << std::hex << model;
    EXPECT_EQ(profile->name, name) << "model 0x" << std::hex << model;
  }
}

TEST(RecordedSysfs, Zen4DfRemoteReadAndWriteBeats) {
  // remote_processor_{read,write}_data_beats_cs0: umask 0xbfe / 0xbff.
  EXPECT_EQ(config_of("amd-zen4", "amd_df", {{"event", 0x1f}, {"umask", 0xbfe}}), 0x0B00FE1Fu);
  EXPECT_EQ(config_of("amd-zen4", "amd_df", {{"event", 0x2df}, {"umask", 0xbff}}), 0x20B00FFDFull);
}

TEST(CounterProfiles, ZenProfilesNeverUseGenericCacheEventsForL3) {
  for (const char* name : {"amd-zen3", "amd-zen4", "amd-zen5"}) {
    const CounterProfile p =
        load_counter_profile(profiles_dir() / "counters" / (std::string(name) + ".json"));
    for (const auto& [event, def] : p.events)
      if (event.rfind("L3_", 0) == 0) {
        EXPECT_EQ(def.pmu, "amd_l3") << name << " " << event;
      }
  }
}

}  // namespace
}  // namespace moesweep::counters
