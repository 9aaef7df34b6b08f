// VersionKey and KeyPacker against Version's own order (which version_oracle_test pins to
// packaging 26.3): every pair of a tricky set, and generated versions at a fixed seed.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "packaging/version.hpp"
#include "packaging/version_key.hpp"
#include "tests/support/splitmix64.hpp"

namespace relforge::packaging {
namespace {

const std::vector<std::string> k_tricky = {"0",
                                           "0.0",
                                           "1",
                                           "1.0",
                                           "1.0.0.0",
                                           "1.0.0.0.0.0",
                                           "1.0.1",
                                           "1.0a",
                                           "1.0a0",
                                           "1.0a1",
                                           "1.0alpha2",
                                           "1.0b1",
                                           "1.0c1",
                                           "1.0rc1",
                                           "1.0pre2",
                                           "1.0.dev0",
                                           "1.0.dev1",
                                           "1.0a1.dev1",
                                           "1.0.post0",
                                           "1.0-1",
                                           "1.0.post1.dev2",
                                           "1.0.post1",
                                           "1.0+0",
                                           "1.0+a",
                                           "1.0+a.1",
                                           "1.0+a.b",
                                           "1.0+1",
                                           "1.0+01",
                                           "1.0+abcdefg",
                                           "1.0+abcdef",
                                           "1.0+abcdeg",
                                           "1.0+1.a",
                                           "1.0+cpu",
                                           "1.0+cu126",
                                           "1.0+rocm7.2",
                                           "1!0",
                                           "1!1.0",
                                           "2.0",
                                           "2.0rc1+cpu",
                                           "10.0",
                                           "1.2.3.4",
                                           "1.2.3.4.0",
                                           "1.2.3.5",
                                           "v1.0-RC1",
                                           "1.0.DEV3",
                                           "18446744073709551614",
                                           "1.0.post18446744073709551614",
                                           "1.0.dev18446744073709551615",
                                           "1.0a1152921504606846976",
                                           "1.0+72057594037927935"};

int sign(std::strong_ordering order) {
  return order < 0 ? -1 : order > 0 ? 1 : 0;
}

int sign_of(const std::array<std::uint64_t, 3>& a, const std::array<std::uint64_t, 3>& b) {
  return a < b ? -1 : b < a ? 1 : 0;
}

// Keys order as versions; packed keys too when `packed` (the columns then fit in 192 bits).
void expect_same_order(const std::vector<std::string>& texts, bool packed) {
  std::vector<Version> versions;
  std::vector<VersionKey> keys;
  VersionKey columns;
  for (const auto& text : texts) {
    auto version = parse_version(text);
    ASSERT_TRUE(version) << text;
    auto key = parse_version_key(text);
    ASSERT_TRUE(key) << text;
    EXPECT_EQ(version_key(*version)->words, key->words) << text;
    for (std::size_t i = 0; i < columns.words.size(); ++i) columns.words[i] |= key->words[i];
    versions.push_back(*version);
    keys.push_back(*key);
  }
  const KeyPacker packer(columns);
  ASSERT_EQ(packer.fits(), packed);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    for (std::size_t j = 0; j < texts.size(); ++j) {
      const int expected = sign(versions[i] <=> versions[j]);
      ASSERT_EQ(sign(keys[i] <=> keys[j]), expected) << texts[i] << " vs " << texts[j];
      if (!packed) continue;
      ASSERT_EQ(sign_of(packer.pack(keys[i]), packer.pack(keys[j])), expected)
          << texts[i] << " vs " << texts[j];
    }
  }
}

TEST(VersionKey, OrdersEveryTrickyPairAsVersionDoes) {
  // The large numbers (up to 2^64 - 1) need more than 192 bits together.
  expect_same_order(k_tricky, false);
  std::vector<std::string> small(k_tricky.begin(), k_tricky.end());
  std::erase_if(small, [](const std::string& text) {
    return text.find("7205") != std::string::npos || text.find("1152") != std::string::npos ||
           text.find("1844") != std::string::npos;
  });
  expect_same_order(small, true);
}

TEST(VersionKey, OrdersGeneratedVersionsAsVersionDoes) {
  test::SplitMix64 random(42);
  auto next = [&random] { return random.next(); };
  const std::array<const char*, 6> pre = {"", "a", "b", "rc", ".dev", ".post"};
  const std::array<const char*, 7> local = {"", "+cpu", "+cu126", "+1", "+cu126.1", "+a.b", "+z9"};
  std::vector<std::string> texts;
  for (int i = 0; i < 600; ++i) {
    std::string text = next() % 10 == 0 ? "1!" : "";
    const std::size_t parts = 1 + next() % 6;  // 5 or 6 fit when they end in zeros
    for (std::size_t p = 0; p < parts; ++p) text += (p ? "." : "") + std::to_string(p < 4 ? next() % 4 : 0);
    const auto* suffix = pre[next() % pre.size()];
    if (*suffix) text += suffix + std::to_string(next() % 3);
    if (std::string(suffix) != ".dev" && next() % 3 == 0) text += ".dev" + std::to_string(next() % 2);
    text += local[next() % local.size()];
    texts.push_back(text);
  }
  expect_same_order(texts, true);
}

TEST(VersionKey, RefusesWhatDoesNotFit) {
  EXPECT_FALSE(parse_version_key("1.2.3.4.5"));
  EXPECT_TRUE(parse_version_key("1.2.3.4.0.0"));
  EXPECT_FALSE(parse_version_key("1+a.b.c"));
  EXPECT_FALSE(parse_version_key("1+abcdefgh"));
  EXPECT_FALSE(parse_version_key("1+72057594037927936"));
  EXPECT_FALSE(parse_version_key("18446744073709551616"));
  EXPECT_FALSE(parse_version_key("1.0.post18446744073709551615"));
  EXPECT_FALSE(parse_version_key("not a version"));
  EXPECT_FALSE(parse_version_key(""));
}

TEST(VersionKey, UnpackUndoesPackAndHoldsTellsWhatFits) {
  std::vector<VersionKey> keys;
  VersionKey columns;
  for (const char* text : {"0", "1.0a1.dev1+cpu", "2!1.2.3.4.post7+cu126.1", "1.0+72057594037927935"}) {
    keys.push_back(*parse_version_key(text));
    for (std::size_t i = 0; i < columns.words.size(); ++i) columns.words[i] |= keys.back().words[i];
  }
  for (const auto& packer : {KeyPacker(columns), KeyPacker::with_room(columns)}) {
    ASSERT_TRUE(packer.fits());
    for (const auto& key : keys) {
      EXPECT_TRUE(packer.holds(key));
      EXPECT_EQ(packer.unpack(packer.pack(key)).words, key.words);
    }
  }
  const KeyPacker small(keys[0]);
  EXPECT_TRUE(small.holds(keys[0]));
  EXPECT_FALSE(small.holds(keys[1]));
}

TEST(VersionKey, RoomyPackerRoundsWidthsUpOnlyWhileTheyFit) {
  VersionKey columns;
  columns.words[1] = 5;  // 3 bits, 4 with room
  const auto roomy = KeyPacker::with_room(columns);
  VersionKey wider;
  wider.words[1] = 15;
  EXPECT_TRUE(roomy.holds(wider));
  EXPECT_FALSE(KeyPacker(columns).holds(wider));
  // 3 x 50 bits fit exactly; rounded up to 64 they would not, so the exact widths are kept.
  VersionKey tight;
  for (std::size_t i = 1; i <= 3; ++i) tight.words[i] = (std::uint64_t{1} << 50) - 1;
  EXPECT_TRUE(KeyPacker::with_room(tight).fits());
}

TEST(VersionKey, PackerRefusesColumnsWiderThanThreeWords) {
  VersionKey wide;
  wide.words.fill(UINT64_MAX);
  EXPECT_FALSE(KeyPacker(wide).fits());
}

}  // namespace
}  // namespace relforge::packaging
