// The built-in rules' Hyperscan database is built into the binary at build time and loaded, not
// compiled, by every process; other rule sets are compiled as before.
#include <gtest/gtest.h>

#include "triage/compiled_rules.hpp"
#include "triage/hyperscan_set.hpp"
#include "triage/raw_prefilter.hpp"

namespace relforge::triage {
namespace {

TEST(PrecompiledRules, TheBuiltInRulesLoadTheDatabaseBuiltIntoTheBinary) {
  if (!HyperscanSet::available()) GTEST_SKIP() << "built without Hyperscan: nothing to load";
  const auto rules = default_rules();
  ASSERT_TRUE(rules.has_value()) << rules.error().describe();
  ASSERT_NE((*rules)->raw_prefilter, nullptr);
  const HyperscanSet& database = (*rules)->raw_prefilter->database();
  EXPECT_TRUE(database.loaded_from_binary());
  ASSERT_EQ(precompiled_databases().size(), 1u);
  EXPECT_EQ(precompiled_databases()[0].key, database.key());
}

// The bytes in the binary are what compiling the same patterns gives now: a stale table (rules or
// the pattern translation changed without a rebuild of it) cannot be what a process loads.
TEST(PrecompiledRules, TheBuiltInBytesAreTheCompileOfTheSamePatterns) {
  if (!HyperscanSet::available()) GTEST_SKIP() << "built without Hyperscan: nothing to load";
  ASSERT_EQ(precompiled_databases().size(), 1u);
  const auto& built_in = precompiled_databases()[0];
  const std::string fresh = HyperscanSet::serialize_portable(std::string(built_in.key));
  ASSERT_FALSE(fresh.empty());
  EXPECT_TRUE(fresh == built_in.bytes)
      << "built-in " << built_in.bytes.size() << " bytes, fresh " << fresh.size();
}

TEST(PrecompiledRules, OtherRulesAreCompiledAndAPatternWithANulIsRefused) {
  if (!HyperscanSet::available()) GTEST_SKIP() << "built without Hyperscan";
  const auto set = HyperscanSet::compile({"error: (\\w+) not found", "FAILED"}, HyperscanSet::Mode::set);
  ASSERT_NE(set, nullptr);
  EXPECT_FALSE(set->loaded_from_binary());
  HyperscanSet::Scanner scanner(set);
  std::vector<int> hits;
  ASSERT_TRUE(scanner.scan("x\nerror: libfoo not found\n", hits));
  EXPECT_EQ(hits, std::vector<int>{0});
  // The key separates patterns with NUL: one holding a NUL could alias another set's key.
  EXPECT_EQ(HyperscanSet::compile({std::string("a\0b", 3)}), nullptr);
  EXPECT_NE(HyperscanSet::key_of({"ab"}, HyperscanSet::Mode::set),
            HyperscanSet::key_of({"a", "b"}, HyperscanSet::Mode::set));
  EXPECT_NE(HyperscanSet::key_of({"ab"}, HyperscanSet::Mode::set),
            HyperscanSet::key_of({"ab"}, HyperscanSet::Mode::ends));
}

}  // namespace
}  // namespace relforge::triage
