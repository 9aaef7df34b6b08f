// The sidecar fast path (channels/info_scan) against the general parser: it reads what relforge
// writes, and for every text it accepts the general parser reads the very same record; anything
// unusual is left to the general parser, whose errors stay as they were.
#include "channels/info_scan.hpp"

#include <gtest/gtest.h>

#include "channels/store.hpp"

namespace relforge::channels {
namespace {

FileInfo sample_info() {
  FileInfo info;
  info.filename = "mini-2.7.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl";
  info.project = "mini";
  info.version = "2.7.0+cu130";
  info.sha256 = std::string(64, 'a');
  info.size = 104857600;
  info.metadata_sha256 = std::string(64, 'b');
  info.requires_python = ">=3.10";
  info.upload_time = "2026-01-02T03:04:05Z";
  info.yanked = true;
  info.yanked_reason = "broken on <3.12";
  info.provenance = true;
  return info;
}

void expect_same(const FileInfo& a, const FileInfo& b) {
  EXPECT_EQ(a.filename, b.filename);
  EXPECT_EQ(a.project, b.project);
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.sha256, b.sha256);
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.metadata_sha256, b.metadata_sha256);
  EXPECT_EQ(a.requires_python, b.requires_python);
  EXPECT_EQ(a.upload_time, b.upload_time);
  EXPECT_EQ(a.yanked, b.yanked);
  EXPECT_EQ(a.yanked_reason, b.yanked_reason);
  EXPECT_EQ(a.provenance, b.provenance);
}

TEST(InfoScan, ReadsWhatRelforgeWrites) {
  const auto scanned = scan_plain_info(info_to_json(sample_info()));
  ASSERT_TRUE(scanned.has_value());
  expect_same(*scanned, sample_info());
}

TEST(InfoScan, AcceptsCompactUnknownScalarsAndRepeatedKeysAsTheGeneralParserReadsThem) {
  const std::string texts[] = {
      R"({"filename":"a.whl","project":"a","version":"1","sha256":"x","size":0})",
      "\t{ \"filename\" : \"a.whl\" ,\r\n\"project\":\"a\",\"version\":\"1\",\"sha256\":\"x\",\"size\":7 }\n",
      R"({"filename":"a.whl","project":"a","version":"1","sha256":"x","size":1,"extra":null,"n":12,"b":false,"s":"t"})",
      R"({"filename":"first","filename":"second","project":"a","version":"1","sha256":"x","size":1,"size":2})",
      R"({"filename":"a","project":"a","version":"1","sha256":"x","size":9999999999999999999,"yanked":false})",
  };
  for (const auto& text : texts) {
    SCOPED_TRACE(text);
    const auto scanned = scan_plain_info(text);
    ASSERT_TRUE(scanned.has_value());
    const auto general = info_from_json(text, "t");
    ASSERT_TRUE(general.has_value());
    expect_same(*scanned, *general);
  }
}

TEST(InfoScan, LeavesEveryUnusualTextToTheGeneralParser) {
  const std::string base = R"("project":"a","version":"1","sha256":"x","size":1)";
  const std::string unusual[] = {
      R"({"filename":"a\"b",)" + base + "}",          // an escape
      R"({"filename":"\u00e9",)" + base + "}",        // a \u escape
      "{\"filename\":\"caf\xc3\xa9\"," + base + "}",  // UTF-8
      "{\"filename\":\"a\tb\"," + base + "}",         // a raw control character
      R"({"filename":"a","extra":{"x":1},)" + base + "}",
      R"({"filename":"a","extra":[1],)" + base + "}",
      R"({"filename":"a","project":"a","version":"1","sha256":"x","size":1.5})",
      R"({"filename":"a","project":"a","version":"1","sha256":"x","size":1e3})",
      R"({"filename":"a","project":"a","version":"1","sha256":"x","size":-1})",
      R"({"filename":"a","project":"a","version":"1","sha256":"x","size":01})",
      R"({"filename":"a","project":"a","version":"1","sha256":"x","size":18446744073709551616})",
      R"({"filename":"a","project":"a","version":"1","sha256":"x","size":"1"})",
      R"({"filename":1,"project":"a","version":"1","sha256":"x","size":1})",
      R"({"filename":"a","project":"a","version":"1","sha256":"x","size":1,"yanked":"no"})",
      R"({"filename":"a","project":"a","version":"1","sha256":"x","size":1,"yanked":null})",
      R"({"filename":"a","project":"a","version":"1","sha256":"x"})",  // size missing
      R"({"filename":"a","project":"a","version":"1","sha256":"x","size":1,})",
      R"({"filename":"a","project":"a","version":"1","sha256":"x","size":1} x)",
      R"({"filename":"a","project":"a","version":"1","sha256":"x","size":1truex})",
      R"([{"filename":"a"}])",
      "",
      "{",
  };
  for (const auto& text : unusual) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(scan_plain_info(text).has_value());
  }
  // The general parser still reads the valid ones among them, and names the mistakes in the rest.
  EXPECT_EQ(info_from_json(unusual[0], "t").value().filename, "a\"b");
  EXPECT_EQ(info_from_json(unusual[2], "t").value().filename, "caf\xc3\xa9");
  const auto negative = info_from_json(unusual[8], "whl/cpu/a/a.whl.info.json");
  ASSERT_FALSE(negative.has_value());
  EXPECT_NE(negative.error().message().find("'size' must be a non-negative integer"), std::string::npos);
}

}  // namespace
}  // namespace relforge::channels
