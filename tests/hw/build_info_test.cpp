#include "hw/build_info.hpp"

#include <gtest/gtest.h>

#include <string>

namespace moesweep {
namespace {

// The compiler recorded in meta.json names the compiler that built this test
// and its version as that compiler spells it in __VERSION__ ("12.2.0" for GCC,
// "Debian Clang 14.0.6" for clang). clang also defines __GNUC__ as 4.2.1, so a
// build by clang recorded from __GNUC__ would fail here under the sanitizer build.
TEST(BuildInfo, NamesTheCompilerThatBuiltIt) {
  const std::string compiler = build_info().compiler;
#if defined(__clang__)
  const std::string name = "clang ";
#else
  const std::string name = "gcc ";
#endif
  ASSERT_EQ(compiler.rfind(name, 0), 0u) << compiler;
  const std::string version = compiler.substr(name.size());
  EXPECT_NE(std::string(__VERSION__).find(version), std::string::npos)
      << "recorded " << compiler << ", __VERSION__ is " << __VERSION__;
}

}  // namespace
}  // namespace moesweep
