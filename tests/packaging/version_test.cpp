#include "packaging/version.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace relforge::packaging {
namespace {

Version v(std::string_view text) {
  auto parsed = parse_version(text);
  EXPECT_TRUE(parsed.has_value()) << text << ": " << (parsed ? "" : parsed.error().message());
  return parsed ? *parsed : Version{};
}

std::string normal(std::string_view text) {
  return v(text).to_string();
}

TEST(Version, ReferenceOrderChain) {
  const std::vector<std::string> chain = {"2.6.0.dev20250101+cu126",
                                          "2.6.0a1.dev1",
                                          "2.6.0rc1",
                                          "2.6.0",
                                          "2.6.0+cpu",
                                          "2.6.0+cu126",
                                          "2.6.0.post1",
                                          "2.7.0.dev20250301"};
  for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
    EXPECT_LT(v(chain[i]), v(chain[i + 1])) << chain[i] << " < " << chain[i + 1];
    EXPECT_GT(v(chain[i + 1]), v(chain[i]));
    EXPECT_NE(v(chain[i]), v(chain[i + 1]));
  }
  std::vector<Version> shuffled;
  for (const std::size_t i : {5, 2, 7, 0, 3, 6, 1, 4}) shuffled.push_back(v(chain[i]));
  std::sort(shuffled.begin(), shuffled.end());
  for (std::size_t i = 0; i < chain.size(); ++i) EXPECT_EQ(shuffled[i].to_string(), chain[i]);
}

TEST(Version, ReferenceNormalisations) {
  EXPECT_EQ(normal("1.0-RC1"), "1.0rc1");
  EXPECT_EQ(normal("v1.0"), "1.0");
  EXPECT_EQ(normal("1.0.0-dev3"), "1.0.0.dev3");
  EXPECT_EQ(normal("1.0-1"), "1.0.post1");
  EXPECT_EQ(normal("1!2.0"), "1!2.0");
}

TEST(Version, AlternativeSpellings) {
  EXPECT_EQ(normal("1.0alpha2"), "1.0a2");
  EXPECT_EQ(normal("1.0.BETA"), "1.0b0");
  EXPECT_EQ(normal("1.0c1"), "1.0rc1");
  EXPECT_EQ(normal("1.0-pre_3"), "1.0rc3");
  EXPECT_EQ(normal("1.0preview"), "1.0rc0");
  EXPECT_EQ(normal("1.0-r4"), "1.0.post4");
  EXPECT_EQ(normal("1.0.rev"), "1.0.post0");
  EXPECT_EQ(normal("1.0_POST-2"), "1.0.post2");
  EXPECT_EQ(normal("1.0dev"), "1.0.dev0");
  EXPECT_EQ(normal("1.0a."), "1.0a0");
  EXPECT_EQ(normal("1.0a-1"), "1.0a1");
  EXPECT_EQ(normal("1.0rdev"), "1.0.post0.dev0");
  EXPECT_EQ(normal(" \t1.0.0\n"), "1.0.0");
  EXPECT_EQ(normal("\xE3\x80\x80"
                   "1.0\xC2\xA0"),
            "1.0");  // Unicode spaces, as Python's \s
  EXPECT_EQ(normal("01.002.0"), "1.2.0");
  EXPECT_EQ(normal("00!1"), "1");
  EXPECT_EQ(normal("V2.6.0+CU126"), "2.6.0+cu126");
  EXPECT_EQ(normal("1.0+abc.007"), "1.0+abc.7");
  EXPECT_EQ(normal("1.0+1_2-3"), "1.0+1.2.3");
}

TEST(Version, Parts) {
  const Version x = v("1!2.6.0rc1.post2.dev3+Ubuntu.5");
  EXPECT_EQ(x.epoch, 1u);
  EXPECT_EQ(x.release, (std::vector<VersionNumber>{2, 6, 0}));
  ASSERT_TRUE(x.pre.has_value());
  EXPECT_EQ(x.pre->kind, PreReleaseKind::rc);
  EXPECT_EQ(x.pre->number, 1u);
  EXPECT_EQ(x.post, 2u);
  EXPECT_EQ(x.dev, 3u);
  ASSERT_EQ(x.local.size(), 2u);
  EXPECT_EQ(x.local[0].word, "ubuntu");
  EXPECT_EQ(x.local[1].number, 5u);
  EXPECT_EQ(x.to_string(), "1!2.6.0rc1.post2.dev3+ubuntu.5");
  EXPECT_EQ(x.public_string(), "1!2.6.0rc1.post2.dev3");
  EXPECT_EQ(x.base_string(), "1!2.6.0");
  EXPECT_EQ(x.local_string(), "ubuntu.5");
  EXPECT_TRUE(x.is_prerelease());
  EXPECT_TRUE(x.is_postrelease());
  EXPECT_TRUE(v("1.0.dev1").is_prerelease());
  EXPECT_FALSE(v("1.0.post1").is_prerelease());
}

TEST(Version, EpochsDominate) {
  EXPECT_LT(v("2025.1"), v("1!0.1"));
  EXPECT_EQ(v("0!1.0"), v("1.0"));
  EXPECT_LT(v("1!1.0"), v("2!0.0.1"));
}

TEST(Version, TrailingZerosCompareEqual) {
  EXPECT_EQ(v("1.0"), v("1.0.0"));
  EXPECT_EQ(v("1"), v("1.0.0.0"));
  EXPECT_EQ(v("1.0rc1"), v("1.0.0rc1"));
  EXPECT_LT(v("1.0"), v("1.0.0.1"));
  EXPECT_EQ(normal("1.0.0"), "1.0.0");  // equal, but printed as written
  EXPECT_TRUE(same_base(v("1.0.post1"), v("1.0.0a1")));
}

TEST(Version, PreDevPostOrder) {
  EXPECT_LT(v("1.0.dev1"), v("1.0a1.dev1"));
  EXPECT_LT(v("1.0a1.dev1"), v("1.0a1"));
  EXPECT_LT(v("1.0a1"), v("1.0a1.post1.dev1"));
  EXPECT_LT(v("1.0a1.post1"), v("1.0b1"));
  EXPECT_LT(v("1.0b2"), v("1.0rc1"));
  EXPECT_LT(v("1.0"), v("1.0.post1.dev1"));
  EXPECT_LT(v("1.0.post1.dev1"), v("1.0.post1"));
  EXPECT_EQ(v("1.0c1"), v("1.0rc1"));
}

TEST(Version, LocalLabelsCompareSegmentWise) {
  EXPECT_LT(v("1.0"), v("1.0+a"));
  EXPECT_LT(v("1.0+abc"), v("1.0+abd"));
  EXPECT_LT(v("1.0+9"), v("1.0+10"));           // numbers as numbers
  EXPECT_LT(v("1.0+zzz"), v("1.0+0"));          // any number above any word
  EXPECT_LT(v("1.0+cu126"), v("1.0+cu126.1"));  // a prefix sorts first
  EXPECT_EQ(v("1.0+ABC"), v("1.0+abc"));        // words lower-cased
  EXPECT_EQ(v("1.0+abc-1"), v("1.0+abc.1"));    // separators equivalent
  EXPECT_EQ(v("1.0+007"), v("1.0+7"));
  EXPECT_LT(v("1.0+cpu"), v("1.0+cu126"));
  EXPECT_LT(v("1.0+cu126"), v("1.0.post1"));
}

TEST(Version, InvalidInputsExplainThemselves) {
  const auto message = [](std::string_view text) {
    auto parsed = parse_version(text);
    EXPECT_FALSE(parsed.has_value()) << text;
    EXPECT_TRUE(parsed || parsed.error().category() == ErrorCategory::invalid_input);
    return parsed ? std::string() : parsed.error().message();
  };
  const std::string hint = "; a PEP 440 version looks like 1.0, 2.6.0rc1, 1!2.0.post1.dev3 or 2.6.0+cu126";
  EXPECT_EQ(message(""), "invalid version '': the version is empty" + hint);
  EXPECT_EQ(message("  "), "invalid version '  ': the version is empty" + hint);
  EXPECT_EQ(message("foo"), "invalid version 'foo': expected a release number at column 1, found 'f'" + hint);
  EXPECT_EQ(
      message("1.0+"),
      "invalid version '1.0+': expected a local label (letters and digits) after '+' at column 5, found "
      "the end of the text" +
          hint);
  EXPECT_EQ(message("1.0-"), "invalid version '1.0-': unexpected '-' at column 4" + hint);
  EXPECT_EQ(message("1.0.dev1.post1"), "invalid version '1.0.dev1.post1': unexpected '.' at column 9" + hint);
  EXPECT_EQ(message("1!"),
            "invalid version '1!': expected a release number at column 3, found the end of the text" + hint);
  EXPECT_EQ(message("1.0.*"), "invalid version '1.0.*': unexpected '.' at column 4" + hint);
  EXPECT_EQ(message("1.0+K\xE2\x84\xAA"),
            "invalid version '1.0+K\xE2\x84\xAA': unexpected byte 0xe2 at column 6" + hint);
  const std::string too_long = "1." + std::string(4301, '7');
  EXPECT_EQ(message(too_long),
            "invalid version '" + too_long +
                "': the number at column 3 has more than 4300 digits (Python's int() limit)" + hint);
  for (const char* bad :
       {"1..0", ".1", "1.", "1.0+abc-", "1.0+a..b", "1.0a1b2", "+1.0", "1!2!3", "1.0 0", "v"}) {
    message(bad);
  }
  EXPECT_TRUE(parse_version("1." + std::string(4300, '7')).has_value());  // the longest int() takes
}

TEST(Version, NumbersOfAnySize) {
  // packaging 26.3 takes any size (Python int); the machine word is only the fast path.
  const auto v = [](std::string_view text) { return *parse_version(text); };
  EXPECT_EQ(v("18446744073709551616").to_string(), "18446744073709551616");
  EXPECT_EQ(v("00018446744073709551616").to_string(), "18446744073709551616");
  EXPECT_LT(v("18446744073709551615"), v("18446744073709551616"));
  EXPECT_LT(v("99999999999999999999"), v("100000000000000000000"));
  EXPECT_EQ(v("1.0.18446744073709551616.0"), v("1.0.18446744073709551616"));
  EXPECT_LT(v("1.0a18446744073709551616"), v("1.0a18446744073709551617"));
  EXPECT_LT(v("1.0+18446744073709551616"), v("1.0+18446744073709551617"));
  EXPECT_LT(v("1.0+zzz"), v("1.0+18446744073709551617"));
  EXPECT_EQ(v("18446744073709551616!1.post99999999999999999999.dev0").to_string(),
            "18446744073709551616!1.post99999999999999999999.dev0");
  EXPECT_EQ(VersionNumber(UINT64_MAX).plus_one().to_string(), "18446744073709551616");
  EXPECT_EQ(VersionNumber::from_digits("99999999999999999999").plus_one().to_string(),
            "100000000000000000000");
  EXPECT_TRUE(VersionNumber::from_digits("0018446744073709551615").is_small());
}

TEST(Version, PythonSpace) {
  EXPECT_EQ(python_space_length("\x1c", 0), 1u);
  EXPECT_EQ(python_space_length("\xE2\x80\xAF", 0), 3u);  // U+202F
  EXPECT_EQ(python_space_length("\xE2\x80\x8B", 0), 0u);  // U+200B is not a space
  EXPECT_EQ(strip_python_space("\xC2\x85 x\xE1\x9A\x80"), "x");
}

}  // namespace
}  // namespace relforge::packaging
