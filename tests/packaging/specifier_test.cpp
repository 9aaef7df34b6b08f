#include "packaging/specifier.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace relforge::packaging {
namespace {

SpecifierSet set(std::string_view text) {
  auto parsed = parse_specifier_set(text);
  EXPECT_TRUE(parsed.has_value()) << text << ": " << (parsed ? "" : parsed.error().describe());
  return parsed ? *parsed : SpecifierSet{};
}

bool contains(std::string_view spec, std::string_view version, PreReleases pre = PreReleases::by_specifier) {
  auto parsed = parse_version(version);
  EXPECT_TRUE(parsed.has_value()) << version;
  return parsed && set(spec).contains(*parsed, pre);
}

TEST(Specifier, ReferenceExamples) {
  EXPECT_TRUE(contains("==2.6.0", "2.6.0+cu126"));
  EXPECT_FALSE(contains(">2.6.0", "2.6.0+cu126"));
  EXPECT_FALSE(contains(">=2.6", "2.7.0.dev20250301"));
  EXPECT_TRUE(contains(">=2.6", "2.7.0.dev20250301", PreReleases::allow));
  EXPECT_TRUE(contains("==2.6.*", "2.6.3"));
  EXPECT_TRUE(contains("==2.6.*", "2.6"));
  EXPECT_FALSE(contains("==2.6.*", "2.7.0"));
  EXPECT_TRUE(contains("~=2.2", "2.9"));
  EXPECT_FALSE(contains("~=2.2", "3.0"));
  EXPECT_TRUE(contains("~=2.2.1", "2.2.5"));
  EXPECT_FALSE(contains("~=2.2.1", "2.3.0"));
}

TEST(Specifier, TaskSpecifierSet) {
  const SpecifierSet s = set("==2.6.*, !=2.6.1, >=1.0, ~=2.2, <3, >2, <=3");
  EXPECT_EQ(s.size(), 7u);
  EXPECT_EQ(s.to_string(), "!=2.6.1,<3,<=3,==2.6.*,>2,>=1.0,~=2.2");
  EXPECT_TRUE(s.contains(*parse_version("2.6.0")));
  EXPECT_FALSE(s.contains(*parse_version("2.6.1")));
  EXPECT_TRUE(s.contains(*parse_version("2.6.2+cpu")));
  EXPECT_FALSE(s.contains(*parse_version("2.6.2rc1")));
  EXPECT_TRUE(s.contains(*parse_version("2.6.2rc1"), PreReleases::allow));
  EXPECT_FALSE(s.mentions_prerelease());
}

TEST(Specifier, PreReleasesOnlyWhenNamed) {
  EXPECT_FALSE(contains(">=1.0", "1.1a1"));
  EXPECT_TRUE(contains(">=1.0a1", "1.1a1"));  // the set names a pre-release
  EXPECT_TRUE(contains(">=1.0, !=1.5", "1.1a1", PreReleases::allow));
  EXPECT_FALSE(contains("!=1.0a1", "1.1a1"));  // != never opts in
  EXPECT_FALSE(contains("<2.0a1", "1.1a1"));   // nor do < and >
  EXPECT_TRUE(contains("==1.1a1", "1.1a1"));
  EXPECT_TRUE(contains("===1.1a1", "1.1a1"));
  EXPECT_FALSE(contains("", "1.1a1"));
  EXPECT_TRUE(contains("", "1.1"));
  EXPECT_TRUE(contains("", "1.1a1", PreReleases::allow));
  EXPECT_TRUE(set(">=1.0a1, <2").mentions_prerelease());
}

TEST(Specifier, ExclusiveOrderedComparisons) {
  EXPECT_FALSE(contains("<2.6", "2.6.0rc1", PreReleases::allow));  // a pre of 2.6 is not < 2.6
  EXPECT_TRUE(contains("<2.6", "2.5.9rc1", PreReleases::allow));
  EXPECT_FALSE(contains("<2.6rc2", "2.6.0rc1"));  // < never opts in to pre-releases
  EXPECT_TRUE(contains("<2.6rc2", "2.6.0rc1", PreReleases::allow));
  EXPECT_FALSE(contains(">2.6", "2.6.post1"));  // a post of 2.6 is not > 2.6
  EXPECT_TRUE(contains(">2.6.post1", "2.6.post2"));
  EXPECT_FALSE(contains(">2.6", "2.6+cpu"));  // nor a local build of it
  EXPECT_TRUE(contains(">2.6", "2.6.1+cpu"));
  EXPECT_TRUE(contains(">=2.6", "2.6.0+cpu"));
  EXPECT_TRUE(contains("<=2.6", "2.6.0+cpu"));
}

TEST(Specifier, LocalLabels) {
  EXPECT_TRUE(contains("==2.6.0+cu126", "2.6.0+cu126"));
  EXPECT_FALSE(contains("==2.6.0+cu126", "2.6.0+cpu"));
  EXPECT_FALSE(contains("==2.6.0+cu126", "2.6.0"));
  EXPECT_FALSE(contains("!=2.6.0", "2.6.0+cpu"));
  EXPECT_TRUE(contains("!=2.6.0+cu126", "2.6.0+cpu"));
}

TEST(Specifier, PrefixMatching) {
  EXPECT_TRUE(contains("==2.6.0.*", "2.6"));
  EXPECT_TRUE(contains("==2.6.*", "2.6.0+cu126"));
  EXPECT_TRUE(contains("==2.6.*", "2.6.0rc1", PreReleases::allow));
  EXPECT_FALSE(contains("==2.*", "20.0"));
  EXPECT_TRUE(contains("!=2.6.*", "2.7"));
  EXPECT_TRUE(contains("== V2.6.*", "2.6.1"));
  // packaging 23.0 keeps the epoch glued to the first item, so padding never happens with one.
  EXPECT_FALSE(contains("==1!2.0.*", "1!2"));
  EXPECT_TRUE(contains("==1!2.*", "1!2.0.1"));
}

TEST(Specifier, CompatibleUsesTheSpecAsWritten) {
  EXPECT_TRUE(contains("~=2.2.0rc1", "2.2.5"));
  EXPECT_FALSE(contains("~=2.2.0rc1", "2.3"));
  EXPECT_TRUE(contains("~=2.2rc1", "2.9"));
  // packaging splits the raw string: "RC1" is not recognised as a suffix, so the prefix is 2.2.*
  EXPECT_FALSE(contains("~=2.2.RC1", "2.9"));
  EXPECT_TRUE(contains("~=2.2.RC1", "2.2.1"));
  EXPECT_TRUE(contains("~=1.0.post1", "1.5"));
  EXPECT_FALSE(contains("~=1.0.rev1", "1.5"));  // "rev1" is not a suffix to packaging either
}

TEST(Specifier, ArbitraryEquality) {
  EXPECT_TRUE(contains("===2.6.0+cu126", "2.6.0+cu126"));
  EXPECT_TRUE(contains("===2.6.0+CU126", "2.6.0+cu126"));
  EXPECT_FALSE(contains("===2.6", "2.6.0"));  // plain string equality with the normal form
  EXPECT_FALSE(contains("===v2.6", "2.6"));
  EXPECT_FALSE(contains("===foo", "1.0", PreReleases::allow));
  EXPECT_FALSE(set("===foo").mentions_prerelease());
  EXPECT_EQ(set("=== foo").to_string(), "===foo");
}

TEST(Specifier, DuplicatesKeepTheFirstSpelling) {
  EXPECT_EQ(set("==1.0, ==1.0.0").to_string(), "==1.0");
  EXPECT_EQ(set("==1.0.0, ==1.0").to_string(), "==1.0.0");
  EXPECT_EQ(set("~=1.0, ~=1.0.0").size(), 2u);  // ~= keeps trailing zeros in its key
  // So "===1.0.0" disappears behind "===1.0", and the set matches 1.0.
  EXPECT_TRUE(contains("===1.0, ===1.0.0", "1.0"));
  EXPECT_FALSE(contains("===1.0.0, ===1.0", "1.0"));
}

TEST(Specifier, Filter) {
  std::vector<Version> versions;
  for (const char* text : {"1.0", "2.0a1", "2.0", "2.1.dev1"}) versions.push_back(*parse_version(text));
  EXPECT_EQ(set(">=1.5").filter(versions), (std::vector<std::size_t>{2}));
  EXPECT_EQ(set(">=1.5").filter(versions, PreReleases::allow), (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_EQ(set(">=2.0a1").filter(versions), (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_EQ(set("").filter(versions), (std::vector<std::size_t>{0, 2}));
  const std::vector<Version> only_pre = {versions[1], versions[3]};
  EXPECT_EQ(set("").filter(only_pre), (std::vector<std::size_t>{0, 1}));  // the empty set falls back
  EXPECT_TRUE(set(">=1.0").filter(only_pre).empty());                     // a non-empty one does not
}

TEST(Specifier, SetSyntax) {
  EXPECT_EQ(set("").size(), 0u);
  EXPECT_EQ(set(" , ,>=1.0,, ").to_string(), ">=1.0");
  EXPECT_EQ(set(">= 1.0 ,< 2").to_string(), "<2,>=1.0");
  EXPECT_EQ(set(">=1.0rc1").specifiers()[0].version_text(), "1.0rc1");
  EXPECT_EQ(set("~=2.2").specifiers()[0].op(), SpecifierOperator::compatible);
}

TEST(Specifier, InvalidSpecifiersExplainThemselves) {
  const auto message = [](std::string_view text) {
    auto parsed = parse_specifier_set(text);
    EXPECT_FALSE(parsed.has_value()) << text;
    EXPECT_TRUE(parsed || parsed.error().category() == ErrorCategory::invalid_input);
    return parsed ? std::string() : parsed.error().describe();
  };
  const std::string hint = "; write it like >=2.6, ==2.6.*, !=2.6.1, ~=2.2, <3 or ===2.6.0+cu126";
  EXPECT_EQ(message("2.6"),
            "invalid specifier '2.6': it does not start with a comparison operator (~= == != <= >= < > ===)" +
                hint);
  EXPECT_EQ(message(">=2.6.*"),
            "invalid specifier '>=2.6.*': a '.*' wildcard is only allowed with == and !=" + hint);
  EXPECT_EQ(
      message("==2.6rc1.*"),
      "invalid specifier '==2.6rc1.*': '.*' must directly follow the release numbers, as in ==2.6.*" + hint);
  EXPECT_EQ(message("~=2"),
            "invalid specifier '~=2': ~= needs at least two release numbers (~=2.2, not ~=2)" + hint);
  EXPECT_EQ(message("<=2.6+cpu"),
            "invalid specifier '<=2.6+cpu': a local label (+...) is only allowed with == and !=" + hint);
  EXPECT_EQ(message("===a b"),
            "invalid specifier '===a b': the value after === must not contain whitespace, ';' or ')'" + hint);
  EXPECT_EQ(
      message(">=1.0, <foo"),
      "specifier set '>=1.0, <foo': invalid specifier '<foo': invalid version 'foo': expected a release "
      "number at column 1, found 'f'; a PEP 440 version looks like 1.0, 2.6.0rc1, 1!2.0.post1.dev3 or "
      "2.6.0+cu126");
  for (const char* bad : {"=>1.0", "= 1.0", "> = 1.0", "==", "~=1.0.*", "==1.0 .*", "~=1.0+local", "<1.0;"}) {
    message(bad);
  }
  EXPECT_FALSE(parse_specifier("").has_value());
}

}  // namespace
}  // namespace relforge::packaging
