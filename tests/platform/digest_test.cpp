#include "platform/digest.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace relforge::platform {
namespace {

// Values checked against `python3 -m wheel` RECORD lines (shared reference).
TEST(Digest, RecordHashOfEmptyFile) {
  EXPECT_EQ(base64url_nopad(sha256("")), "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
}

TEST(Digest, RecordHashOfSmallFile) {
  EXPECT_EQ(base64url_nopad(sha256("X = 1\n")), "Crrh4K5yghbuRJk8Wjp1X4scOH2Uf8TE9yyrDkqEIUs");
}

TEST(Digest, HexOfAbc) {
  EXPECT_EQ(to_hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Digest, StreamingEqualsOneShot) {
  Sha256 hasher;
  hasher.update("a");
  hasher.update("bc");
  EXPECT_EQ(to_hex(hasher.finish()), to_hex(sha256("abc")));
}

TEST(Digest, FileDigestStreamsLargeFile) {
  const auto path = std::filesystem::temp_directory_path() / "relforge-digest-test.bin";
  std::string block(1 << 20, 'z');
  {
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < 3; ++i) out << block;
  }
  Sha256 expected;
  for (int i = 0; i < 3; ++i) expected.update(block);
  auto digest = sha256_file(path);
  ASSERT_TRUE(digest);
  EXPECT_EQ(to_hex(*digest), to_hex(expected.finish()));
  std::filesystem::remove(path);
}

TEST(Digest, MissingFileIsNotFound) {
  auto digest = sha256_file("/nonexistent/relforge/file");
  ASSERT_FALSE(digest);
  EXPECT_EQ(digest.error().category(), ErrorCategory::not_found);
}

// RFC 4231 test case 2.
TEST(Digest, HmacSha256KnownAnswer) {
  EXPECT_EQ(to_hex(hmac_sha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Digest, ConstantTimeEqual) {
  EXPECT_TRUE(constant_time_equal("sha256=ab", "sha256=ab"));
  EXPECT_FALSE(constant_time_equal("sha256=ab", "sha256=ac"));
  EXPECT_FALSE(constant_time_equal("sha256=ab", "sha256=a"));
}

TEST(Digest, Base64urlUsesUrlAlphabetWithoutPadding) {
  EXPECT_EQ(base64url_nopad(std::string("\xfb\xff", 2)), "-_8");
}

}  // namespace
}  // namespace relforge::platform
