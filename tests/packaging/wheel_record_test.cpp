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
}

}  // namespace
}  // namespace relforge::packaging
