// A fleet whose hosts ran different engine builds (a native engine here, the
// portable AVX2 one carried to another machine) says so: their speeds mix the
// hardware with the build. Runs from before the target was recorded compare by
// release and commit alone.
#include <gtest/gtest.h>

#include "report/fleet_table.hpp"

namespace moesweep {
namespace {

FleetMember member(const std::string& host, int cpus, const std::string& commit,
                   const char* target) {
  FleetMember m;
  nlohmann::json meta = {{"schema_version", 3},
                         {"node", {{"host", host}, {"logical_cpus", cpus}}},
                         {"build", {{"engine", {{"release", "v0.4.0"}, {"commit", commit}}}}}};
  if (target) meta["build"]["engine_target"] = target;
  m.meta = run_meta_from_json(meta, "test meta.json");
  return m;
}

TEST(FleetEngineNote, OneBuildSaysNothing) {
  EXPECT_EQ(fleet_engine_note({member("a", 2, "80fb11ac73", "GGML_NATIVE"),
                               member("b", 16, "80fb11ac73", "GGML_NATIVE")}),
            "");
}

TEST(FleetEngineNote, NativeAndPortableEnginesAreNamedPerHost) {
  const std::string note =
      fleet_engine_note({member("a", 2, "80fb11ac73", "GGML_NATIVE"),
                         member("b", 16, "80fb11ac73", "portable AVX2 (GGML_NATIVE off)")});
  EXPECT_NE(note.find("a (2 CPUs): v0.4.0 80fb11a GGML_NATIVE"), std::string::npos) << note;
  EXPECT_NE(note.find("b (16 CPUs): v0.4.0 80fb11a portable AVX2"), std::string::npos) << note;
}

TEST(FleetEngineNote, OtherCommitsDifferEvenWithoutARecordedTarget) {
  EXPECT_NE(fleet_engine_note(
                {member("a", 2, "80fb11ac73", nullptr), member("b", 16, "1234567abc", nullptr)}),
            "");
}

}  // namespace
}  // namespace moesweep
