#include "packaging/wheel_record.hpp"

#include <gtest/gtest.h>

namespace relforge::packaging {
namespace {

TEST(WheelRecord, HashesMatchTheCheckedValues) {
  EXPECT_EQ(record_hash_of(""), "sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
  EXPECT_EQ(record_hash_of("X = 1\n"), "sha256=Crrh4K5yghbuRJk8Wjp1X4scOH2Uf8TE9yyrDkqEIUs");
}

TEST(WheelRecord, ParsesAndFormatsRoundTrip) {
  const std::string text =
      "pkg/__init__.py,sha256=Crrh4K5yghbuRJk8Wjp1X4scOH2Uf8TE9yyrDkqEIUs,6\n"
      "\"pkg/a,b.txt\",sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0\n"
      "pkg-1.0.dist-info/RECORD,,\n";
  const auto entries = parse_record(text);
  ASSERT_TRUE(entries) << entries.error().message();
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[1].path, "pkg/a,b.txt");
  EXPECT_EQ((*entries)[0].size, 6u);
  EXPECT_FALSE((*entries)[2].size.has_value());
  EXPECT_EQ(format_record(*entries), text);
}

TEST(WheelRecord, RejectsBadLines) {
  EXPECT_FALSE(parse_record("a,b\n"));
  EXPECT_FALSE(parse_record("a,sha256=x,12x\n"));
  EXPECT_FALSE(parse_record("\"a,sha256=x,1\n"));
}

TEST(WheelRecord, ArchivePathRules) {
  EXPECT_TRUE(check_archive_path("pkg/mod.py"));
  const auto absolute = check_archive_path("/etc/passwd");
  ASSERT_FALSE(absolute);
  EXPECT_NE(absolute.error().message().find("absolute"), std::string::npos);
  const auto dotdot = check_archive_path("pkg/../../evil.py");
  ASSERT_FALSE(dotdot);
  EXPECT_NE(dotdot.error().message().find("'..'"), std::string::npos);
  EXPECT_FALSE(check_archive_path("pkg\\evil.py"));
  EXPECT_FALSE(check_archive_path(""));
  EXPECT_FALSE(check_archive_path("./pkg.py"));
  const auto drive = check_archive_path("C:/Windows/evil.py");
  ASSERT_FALSE(drive);
  EXPECT_NE(drive.error().message().find("contains a ':'"), std::string::npos);
  EXPECT_FALSE(check_archive_path("pkg/mod.py:stream"));
}

// "pkg//mod.py" is "pkg/mod.py" to every unpacker; only a folder entry ends in an empty component.
TEST(WheelRecord, EmptyComponentsAreRefusedButAFolderEntrysTrailingSlash) {
  for (const std::string path : {"pkg//mod.py", "pkg/sub//", "pkg//"}) {
    SCOPED_TRACE(path);
    const auto refused = check_archive_path(path);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message().find("entry '" + path + "' has an empty component ('//')"),
              std::string::npos)
        << refused.error().message();
    EXPECT_EQ(refused.error().category(), ErrorCategory::invalid_input);
  }
  EXPECT_TRUE(check_archive_path("pkg/"));
  EXPECT_TRUE(check_archive_path("pkg/sub/"));
}

// FIPS 180-4's examples, and one input of many blocks whose digest is Python hashlib's.
TEST(WheelRecord, Sha384AndSha512MatchTheStandardVectors) {
  const auto hex = [](const std::string& bytes) {
    std::string out;
    for (const unsigned char c : bytes) out += "0123456789abcdef"[c >> 4], out += "0123456789abcdef"[c & 15];
    return out;
  };
  platform::WideDigest abc(platform::WideAlgorithm::sha512);
  abc.update("abc");
  EXPECT_EQ(hex(abc.finish()),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
            "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
  platform::WideDigest two_blocks(platform::WideAlgorithm::sha384);
  two_blocks.update(
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqr"
      "stnopqrstu");
  EXPECT_EQ(hex(two_blocks.finish()),
            "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712"
            "fcc7c71a557e2db966c3e9fa91746039");
  EXPECT_EQ(record_hash_of("", RecordAlgorithm::sha512),
            "sha512=z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg_SpIdNs6c5H0NE8XYXysP-DGNKHfuwvY7kxvUdBeoGlODJ6-SfaPg");
  RecordHasher pieces(RecordAlgorithm::sha384);
  const std::string million(1000000, 'a');
  for (std::size_t at = 0; at < million.size(); at += 777)
    pieces.update(std::string_view(million).substr(at, 777));
  EXPECT_EQ(pieces.finish(), record_hash_of(million, RecordAlgorithm::sha384));
  EXPECT_EQ(record_hash_of(million, RecordAlgorithm::sha384),
            "sha384=nQ4YCXFkdMsIboNOMQpKHO0UnpwA8khSeXLOxXBMKlsHuLPcOOzE666X3dh_PYmF");
  EXPECT_FALSE(record_algorithm("md5=abc"));
  EXPECT_FALSE(record_algorithm("sha1=abc"));
  EXPECT_EQ(*record_algorithm("sha512=abc"), RecordAlgorithm::sha512);
}

}  // namespace
}  // namespace relforge::packaging
