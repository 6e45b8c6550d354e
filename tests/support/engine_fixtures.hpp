#pragma once
// Engine parameter shorthands shared by the tests that drive LoadedModel and
// LiveContext directly.
#include <string>

#include "engine/engine_types.hpp"

namespace moesweep::test {

inline ModelLoadParams load_params(const std::string& path) {
  ModelLoadParams p;
  p.path = path;
  return p;
}

inline ThreadSettings threads(int n) {
  ThreadSettings t;
  t.n_threads = t.n_threads_batch = n;
  return t;
}

}  // namespace moesweep::test
