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
  // packaging 26: contains() of a lone pre-release admits it (no final to prefer); False refuses.
  EXPECT_TRUE(contains(">=2.6", "2.7.0.dev20250301"));
  EXPECT_FALSE(contains(">=2.6", "2.7.0.dev20250301", PreReleases::exclude));
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
  EXPECT_TRUE(s.contains(*parse_version("2.6.2rc1")));
  EXPECT_FALSE(s.contains(*parse_version("2.6.2rc1"), PreReleases::exclude));
  EXPECT_TRUE(s.contains(*parse_version("2.6.2rc1"), PreReleases::allow));
  EXPECT_FALSE(s.mentions_prerelease());
}

TEST(Specifier, PreReleasesInContains) {
  // packaging 26.x: a single version has no alternative, so contains() admits a pre-release
  // unless told prereleases=False; filter() is where pre-releases give way to finals.
  EXPECT_TRUE(contains(">=1.0", "1.1a1"));
  EXPECT_FALSE(contains(">=1.0", "1.1a1", PreReleases::exclude));
  EXPECT_FALSE(contains(">=1.0a1", "1.1a1", PreReleases::exclude));  // False wins over a named one
  EXPECT_TRUE(contains(">=1.0, !=1.5", "1.1a1", PreReleases::allow));
  EXPECT_TRUE(contains("!=1.0a1", "1.1a1"));
  EXPECT_TRUE(contains("==1.1a1", "1.1a1"));
  EXPECT_TRUE(contains("===1.1a1", "1.1a1"));
  EXPECT_TRUE(contains("", "1.1a1"));
  EXPECT_FALSE(contains("", "1.1a1", PreReleases::exclude));
  EXPECT_TRUE(contains("", "1.1"));
  EXPECT_TRUE(set(">=1.0a1, <2").mentions_prerelease());
  EXPECT_TRUE(set("<2.0a1").mentions_prerelease());  // 26.x: < and > name pre-releases too
  EXPECT_FALSE(set("!=1.0a1").mentions_prerelease());
  EXPECT_FALSE(set("==1.*").mentions_prerelease());
}

TEST(Specifier, ExclusiveOrderedComparisons) {
  EXPECT_FALSE(contains("<2.6", "2.6.0rc1", PreReleases::allow));  // a pre of 2.6 is not < 2.6
  EXPECT_TRUE(contains("<2.6", "2.5.9rc1", PreReleases::allow));
  EXPECT_TRUE(contains("<2.6rc2", "2.6.0rc1"));
  EXPECT_TRUE(contains("<2.6rc2", "2.6.0rc1", PreReleases::allow));
  // <V.postN stops at V.postN.dev0, so V's pre-releases are below it (26.x).
  EXPECT_TRUE(contains("<2.6.post1", "2.6rc1"));
  EXPECT_FALSE(contains("<2.6.post1", "2.6.post1.dev0"));
  EXPECT_FALSE(contains("<0", "0.dev0"));       // nothing sorts below 0.dev0
  EXPECT_FALSE(contains(">2.6", "2.6.post1"));  // a post of 2.6 is not > 2.6
  EXPECT_TRUE(contains(">2.6.post1", "2.6.post2"));
  EXPECT_FALSE(contains(">2.6", "2.6+cpu"));  // nor a local build of it
  EXPECT_TRUE(contains(">2.6", "2.6.1+cpu"));
  // 26.x: >V skips only V's own post-releases and local builds, not those of a later pre-release
  // or of the final after a pre-release V.
  EXPECT_TRUE(contains(">2.6rc1", "2.6+cpu"));
  EXPECT_TRUE(contains(">2.6rc1", "2.6rc2.post1"));
  EXPECT_FALSE(contains(">2.6rc1", "2.6rc1.post1"));
  EXPECT_TRUE(contains(">2.6.dev1", "2.6+cpu"));
  EXPECT_FALSE(contains(">2.6.post1", "2.6.post1+cpu"));
  EXPECT_TRUE(contains(">2.6.post1", "2.6.post2+cpu"));
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
  // packaging 26.x: ==V.* is [V.dev0, next.dev0), epoch included.
  EXPECT_TRUE(contains("==1!2.0.*", "1!2"));
  EXPECT_TRUE(contains("==1!2.*", "1!2.0.1"));
  EXPECT_FALSE(contains("==1!2.*", "2.0"));
  EXPECT_FALSE(contains("==2.6.*", "2.7.dev0"));
  EXPECT_TRUE(contains("==18446744073709551615.*", "18446744073709551615.3"));
  EXPECT_FALSE(contains("==18446744073709551615.*", "18446744073709551616"));
}

TEST(Specifier, CompatibleUsesTheParsedVersion) {
  EXPECT_TRUE(contains("~=2.2.0rc1", "2.2.5"));
  EXPECT_FALSE(contains("~=2.2.0rc1", "2.3"));
  EXPECT_TRUE(contains("~=2.2rc1", "2.9"));
  // packaging 26.x: ~=V is [V, next.dev0) of the parsed V, so every spelling agrees.
  EXPECT_TRUE(contains("~=2.2.RC1", "2.9"));
  EXPECT_TRUE(contains("~=2.2.RC1", "2.2.1"));
  EXPECT_TRUE(contains("~=1.0.post1", "1.5"));
  EXPECT_TRUE(contains("~=1.0.rev1", "1.5"));
  EXPECT_FALSE(contains("~=2.2", "3.0.dev0"));
  EXPECT_FALSE(contains("~=2.2", "3.0a1", PreReleases::allow));
}

TEST(Specifier, ArbitraryEquality) {
  EXPECT_TRUE(contains("===2.6.0+cu126", "2.6.0+cu126"));
  EXPECT_TRUE(contains("===2.6.0+CU126", "2.6.0+cu126"));
  EXPECT_FALSE(contains("===2.6", "2.6.0"));  // plain string equality with the normal form
  // 26.x: a string item is compared as written, a Version in its normal form.
  EXPECT_TRUE(set("===v2.6").contains_text("V2.6"));
  EXPECT_FALSE(set("===2.6").contains_text("2.6.0"));
  EXPECT_TRUE(set("===foo").contains_text("FOO"));
  EXPECT_FALSE(set(">=1, ===foo").contains_text("foo"));  // foo is no version for >=1
  EXPECT_FALSE(set(">=1").contains_text("foo"));
  EXPECT_TRUE(set("").contains_text("foo"));  // the empty set keeps what it cannot parse
  EXPECT_FALSE(contains("===v2.6", "2.6"));
  EXPECT_FALSE(contains("===foo", "1.0", PreReleases::allow));
  EXPECT_FALSE(set("===foo").mentions_prerelease());
  EXPECT_EQ(set("=== foo").to_string(), "===foo");
}

TEST(Specifier, DuplicatesKeepTheFirstInSortedOrder) {
  // packaging 26.x sorts by text, then keeps the first of each group of equal specifiers.
  EXPECT_EQ(set("==1.0, ==1.0.0").to_string(), "==1.0");
  EXPECT_EQ(set("==1.0.0, ==1.0").to_string(), "==1.0");
  EXPECT_EQ(set("~=1.0, ~=1.0.0").to_string(), "~=1.0,~=1.0.0");  // ~= keeps trailing zeros in its key
  // === is kept as written, so "===1.0" and "===1.0.0" both stay and no version meets both.
  EXPECT_EQ(set("===1.0.0, ===1.0").to_string(), "===1.0,===1.0.0");
  EXPECT_FALSE(contains("===1.0, ===1.0.0", "1.0"));
}

TEST(Specifier, Filter) {
  std::vector<Version> versions;
  for (const char* text : {"1.0", "2.0a1", "2.0", "2.1.dev1"}) versions.push_back(*parse_version(text));
  EXPECT_EQ(set(">=1.5").filter(versions), (std::vector<std::size_t>{2}));
  EXPECT_EQ(set(">=1.5").filter(versions, PreReleases::allow), (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_EQ(set(">=2.0a1").filter(versions), (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_EQ(set("").filter(versions), (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(set(">=1.5").filter(versions, PreReleases::exclude), (std::vector<std::size_t>{2}));
  const std::vector<Version> only_pre = {versions[1], versions[3]};
  // With no final release to prefer, filter() yields the pre-releases (26.x: any set, not only "").
  EXPECT_EQ(set("").filter(only_pre), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(set(">=1.0").filter(only_pre), (std::vector<std::size_t>{0, 1}));
  EXPECT_TRUE(set(">=1.0").filter(only_pre, PreReleases::exclude).empty());
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
