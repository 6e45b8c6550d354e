// The quant types twins are made in, and the twin spec's identity: the cache
// key changes with everything that changes the file's bytes, and only then.
#include <gtest/gtest.h>

#include "model/quant_types.hpp"
#include "model/twin_spec.hpp"
#include "util/error.hpp"

namespace moesweep {
namespace {

TEST(QuantTypes, TheSeedsTypesAreAvailable) {
  for (const char* name : {"F16", "Q8_0", "Q6_K", "Q4_K_M", "Q4_K_S"}) {
    SCOPED_TRACE(name);
    const QuantType& q = find_quant_type(name);
    EXPECT_EQ(q.name, name);
    EXPECT_EQ(quant_name_of(q.ftype), name);
    EXPECT_GT(q.approx_bpw, 0.0);
  }
  EXPECT_EQ(find_quant_type("Q4_K_S").ftype, 14);
  EXPECT_EQ(find_quant_type("Q4_K_M").ftype, 15);
}

TEST(QuantTypes, LookupIgnoresCase) {
  EXPECT_EQ(find_quant_type("q4_k_s").name, "Q4_K_S");
  EXPECT_EQ(find_quant_type("f16").ftype, 1);
}

TEST(QuantTypes, UnknownTypeListsTheValidOnes) {
  try {
    find_quant_type("Q9_9");
    ADD_FAILURE() << "Q9_9 accepted";
  } catch (const UserError& e) {
    EXPECT_NE(e.problem().find("unknown quant type 'Q9_9'"), std::string::npos) << e.problem();
    EXPECT_NE(e.expected().find("Q4_K_S"), std::string::npos) << e.expected();
  }
  EXPECT_THROW(find_quant_type("IQ2_XS"), UserError);  // needs an importance matrix
}

TwinSpec tiny_spec() {
  TwinSpec s;
  s.profile = scale_profile(load_model_profile("kimi-k2.5"), "tiny", {});
  s.scale = "tiny";
  s.quant = "Q4_K_S";
  s.seed = 42;
  return s;
}

TEST(TwinSpec, SameSpecGivesTheSameKey) {
  EXPECT_EQ(tiny_spec().cache_key(), tiny_spec().cache_key());
  EXPECT_EQ(tiny_spec().cache_key().size(), 12u);
}

TEST(TwinSpec, SeedQuantAndShapeChangeTheKey) {
  const std::string base = tiny_spec().cache_key();
  TwinSpec seed = tiny_spec();
  seed.seed = 43;
  TwinSpec quant = tiny_spec();
  quant.quant = "Q8_0";
  TwinSpec shape = tiny_spec();
  shape.profile.shape.experts = 64;
  EXPECT_NE(seed.cache_key(), base);
  EXPECT_NE(quant.cache_key(), base);
  EXPECT_NE(shape.cache_key(), base);
}

TEST(TwinSpec, FileStemNamesModelScaleQuantSeedAndKey) {
  const TwinSpec s = tiny_spec();
  EXPECT_EQ(s.file_stem(), "kimi-k2.5-tiny-Q4_K_S-s42-" + s.cache_key());
}

}  // namespace
}  // namespace moesweep
