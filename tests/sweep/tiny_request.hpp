#pragma once
// A sweep of the tiny twin small enough for a unit test: one thread, ctx 512,
// ubatch 64, two generated tokens, one repetition, no counters, a database
// in `dir`; a second or two per point.
#include <filesystem>
#include <string>

#include "sweep/run_session.hpp"

namespace moesweep::test {

inline RunRequest tiny_request(const std::filesystem::path& dir, const std::string& models,
                               const std::string& depths, const std::string& name) {
  RunRequest req;
  req.settings = {{"model", models},    {"threads", "1"},      {"depths", depths},
                  {"ctx-size", "512"},  {"ubatch-size", "64"}, {"n-gen", "2"},
                  {"repetitions", "1"}, {"counters", "none"},  {"name", name}};
  req.origin = "test";
  req.out_dir = dir / "runs";
  req.database = {(dir / "results.sqlite").string(), true, false};
  req.logical_cpus = 1;
  return req;
}

}  // namespace moesweep::test
