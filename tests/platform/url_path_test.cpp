#include "platform/url_path.hpp"

#include <gtest/gtest.h>

namespace relforge::platform {
namespace {

using Segments = std::vector<std::string>;

Segments segments(std::string_view target) {
  auto path = decode_url_path(target);
  EXPECT_TRUE(path) << target;
  return path ? path->segments : Segments{"<error>"};
}

bool refused(std::string_view target) {
  const auto path = decode_url_path(target);
  return !path && path.error().category() == ErrorCategory::invalid_input;
}

TEST(UrlPath, DecodesOnceIntoSegments) {
  EXPECT_EQ(segments("/"), Segments{});
  EXPECT_TRUE(decode_url_path("/")->trailing_slash);
  EXPECT_EQ(segments("/whl/nightly/cpu/"), (Segments{"whl", "nightly", "cpu"}));
  EXPECT_TRUE(decode_url_path("/whl/nightly/")->trailing_slash);
  EXPECT_FALSE(decode_url_path("/whl/x.whl")->trailing_slash);
  EXPECT_EQ(segments("/a%20b/torch-2.5.0%2Bcu124.whl"), (Segments{"a b", "torch-2.5.0+cu124.whl"}));
  EXPECT_EQ(segments("/x.whl?a=/../..&b=%00#/../frag"), Segments{"x.whl"});
  EXPECT_EQ(segments("/caf%C3%A9/%E2%82%AC/%F0%9F%98%80"), (Segments{"café", "€", "😀"}));
  // Double encoding decodes exactly once: the literal name "%2e%2e", not "..".
  EXPECT_EQ(segments("/%252e%252e/%252f"), (Segments{"%2e%2e", "%2f"}));
  // Names made of dots and more are names.
  EXPECT_EQ(segments("/.../..a/a../.hidden"), (Segments{"...", "..a", "a..", ".hidden"}));
}

TEST(UrlPath, RefusesDotSegmentsInEveryEncoding) {
  for (const char* target :
       {"/..", "/../etc/passwd", "/a/../../b", "/a/..", "/.", "/./a", "/a/./b", "/a/.", "/%2e%2e/x",
        "/%2E%2E/x", "/%2e%2E/x", "/%2E%2e/x", "/.%2e/x", "/%2e./x", "/%2e/x", "/%2E", "/a/%2e%2e"}) {
    EXPECT_TRUE(refused(target)) << target;
  }
}

TEST(UrlPath, RefusesAbsoluteEmptyAndEncodedSeparators) {
  for (const char* target : {"//etc/passwd", "///etc/passwd", "/a//b", "/a/b//", "", "etc/passwd", "a/b",
                             "http://host/etc/passwd", "*", "?x", "%2fetc/passwd", "/%2fetc/passwd", "/a%2fb",
                             "/a%2Fb", "/..%2f..%2fetc", "/%5c..%5c", "/a%5Cb", "/a\\b", "/\\"}) {
    EXPECT_TRUE(refused(target)) << target;
  }
}

TEST(UrlPath, RefusesNulControlsBadEscapesAndBadUtf8) {
  for (const char* target : {"/a%00b",
                             "/a%00",
                             "/%00/x",
                             "/a%0ab",
                             "/a%0d%0aSet-Cookie:x",
                             "/a%7f",
                             "/a%1f",
                             "/a%",
                             "/a%2",
                             "/a%g0",
                             "/a%0g",
                             "/a%%41",
                             "/%c0%ae%c0%ae/x",
                             "/%c0%af",
                             "/%e0%80%ae",
                             "/%f0%80%80%ae",
                             "/%c1%9c",
                             "/%ed%a0%80",
                             "/%f4%90%80%80",
                             "/%f8%88%80%80%80",
                             "/%ff",
                             "/%80",
                             "/%c3",
                             "/%e2%82",
                             "/a b",
                             "/a\tb",
                             "/a\"b",
                             "/a<b>",
                             "/a|b",
                             "/a^b",
                             "/a`b",
                             "/a{b}",
                             "/\xc3\xa9"}) {
    EXPECT_TRUE(refused(target)) << target;
  }
  EXPECT_TRUE(refused(std::string_view("/a\0b", 4)));
}

TEST(UrlPath, RefusesVeryLongPathsButNotLongQueries) {
  const std::string at_limit = "/" + std::string(k_max_url_path_bytes - 1, 'a');
  EXPECT_TRUE(decode_url_path(at_limit));
  EXPECT_TRUE(refused(at_limit + "a"));
  EXPECT_TRUE(refused("/" + std::string(1 << 20, 'a')));
  std::string deep;
  for (int i = 0; i < 1000; ++i) deep += "/a";
  EXPECT_EQ(segments(deep).size(), 1000u);
  EXPECT_TRUE(decode_url_path("/x?" + std::string(100000, 'q')));
}

}  // namespace
}  // namespace relforge::platform
