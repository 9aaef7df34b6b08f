#include "channels/deps.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace relforge::channels {
namespace {

TEST(Deps, RequiresDistReadsTheHeadersOnly) {
  const std::string metadata =
      "Metadata-Version: 2.1\r\nName: app\r\nrequires-dist: lib>=2\r\nSummary: x\r\n  folded\r\n"
      "Requires-Dist:   other ; python_version < \"3.13\"  \r\n\r\nRequires-Dist: in-the-body\r\n";
  EXPECT_EQ(requires_dist(metadata),
            (std::vector<std::string>{"lib>=2", "other ; python_version < \"3.13\""}));
  EXPECT_TRUE(requires_dist("").empty());
}

TEST(Deps, ListingsInJsonAndHtml) {
  auto json = parse_listing(
      R"({"name": "x", "files": [{"filename": "x-1.0-py3-none-any.whl"}, {"url": "u"}]})", "x.json");
  ASSERT_TRUE(json) << json.error().describe();
  EXPECT_EQ(*json, (std::vector<std::string>{"x-1.0-py3-none-any.whl"}));
  auto html = parse_listing(
      "<html><body><A HREF=\"a\">x-1.0.tar.gz</A>\n<a href=\"b\"> y&amp;z </a></body></html>", "x.html");
  ASSERT_TRUE(html);
  EXPECT_EQ(*html, (std::vector<std::string>{"x-1.0.tar.gz", "y&z"}));
  EXPECT_FALSE(parse_listing("{\"files\": 3}", "bad.json"));
  const auto text = parse_listing("plain text", "t.txt");
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message().find("t.txt: not a package index listing"), std::string::npos);
}

TEST(Deps, HostileHtmlListingsAreReadInOnePass) {
  // Openings that never end before the last byte, and anchors nested in anchors: each was a scan
  // to the end of the page per "<a", minutes for a page of a few megabytes.
  std::string unclosed = "<html>";
  for (int i = 0; i < 400'000; ++i) unclosed += "<a";
  unclosed += ">x-1.0-py3-none-any.whl</a>";
  std::string nested = "<html>";
  for (int i = 0; i < 200'000; ++i) nested += "<a href=x>";
  nested += "y-1.0-py3-none-any.whl</a>";
  const auto start = std::chrono::steady_clock::now();
  auto from_unclosed = parse_listing(unclosed, "unclosed.html");
  auto from_nested = parse_listing(nested, "nested.html");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ASSERT_TRUE(from_unclosed && from_nested);
  EXPECT_EQ(*from_unclosed, (std::vector<std::string>{"x-1.0-py3-none-any.whl"}));
  EXPECT_EQ(*from_nested, (std::vector<std::string>{"y-1.0-py3-none-any.whl"}));
  // Only anchors count, and an anchor's text is text: markup inside it names no file.
  auto mixed = parse_listing(
      "<html><abbr>a-1.0.tar.gz</abbr><area>b-1.0.tar.gz</area><a href=u>c-<b>1</b>.tar.gz</a>"
      "<a\nhref='javascript:alert(1)'>d-1.0.tar.gz</a></html>",
      "mixed.html");
  ASSERT_TRUE(mixed);
  EXPECT_EQ(*mixed, (std::vector<std::string>{"d-1.0.tar.gz"}));
}

TEST(Deps, DeeplyNestedJsonListingsAreRefusedBeforeParsing) {
  std::string deep = "{\"files\": [";
  for (int i = 0; i < 1'000'000; ++i) deep += '[';
  for (int i = 0; i < 1'000'000; ++i) deep += ']';
  deep += "]}";
  const auto start = std::chrono::steady_clock::now();
  auto files = parse_listing(deep, "deep.json");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
  ASSERT_FALSE(files);
  EXPECT_EQ(files.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(files.error().message().find("deep.json: not a PEP 691 project page: it nests deeper than 64"),
            std::string::npos)
      << files.error().describe();
  // Brackets inside strings are text, and duplicate files are listed as given.
  auto shallow =
      parse_listing(R"({"files": [{"filename": "[[[[x-1.0-py3-none-any.whl"}, {"filename": "a-1.0.tar.gz"},)"
                    R"( {"filename": "a-1.0.tar.gz", "hashes": {"md5": 5}}]})",
                    "shallow.json");
  ASSERT_TRUE(shallow) << shallow.error().describe();
  EXPECT_EQ(shallow->size(), 3U);
}

TEST(Deps, ResolvesByNameVersionTagsAndMarkers) {
  const std::vector<DepsWheel> wheels = {
      {"app-1.0-py3-none-any.whl",
       "Name: app\nRequires-Dist: Lib_Two>=2\nRequires-Dist: nat\nRequires-Dist: pre>=1.0\n"
       "Requires-Dist: old; python_version < \"3.10\"\nRequires-Dist: direct @ https://x/y.whl\n"
       "Requires-Dist: not a requirement!\n"}};
  const std::vector<std::string> available = {"lib.two-2.1-py3-none-any.whl",
                                              "nat-1.0-cp312-cp312-win_amd64.whl",
                                              "pre-1.1.dev3-py3-none-any.whl", "pre-0.9.tar.gz"};
  auto report =
      check_dependencies(wheels, available, {{"3.12", "win_amd64"}, {"3.12", "manylinux_2_28_x86_64"}});
  ASSERT_TRUE(report) << report.error().describe();
  EXPECT_EQ(report->wheels, 1u);
  EXPECT_EQ(report->checks, 2u);
  ASSERT_EQ(report->unresolved.size(), 3u);
  // In each environment, in the metadata's order: the unparsable requirement everywhere, and nat,
  // whose only wheel is for Windows, on Linux.
  EXPECT_EQ(report->unresolved[0].requirement, "not a requirement!");
  EXPECT_EQ(report->unresolved[0].environment, "3.12-win_amd64");
  EXPECT_EQ(report->unresolved[1].requirement, "nat");
  EXPECT_EQ(report->unresolved[1].reason,
            "no wheel of a matching version installs on 3.12-manylinux_2_28_x86_64");
  EXPECT_EQ(report->unresolved[2].requirement, "not a requirement!");
  EXPECT_EQ(report->unresolved[2].environment, "3.12-manylinux_2_28_x86_64");
}

TEST(Deps, WheelsAreCheckedOnlyWhereTheyInstall) {
  const std::vector<DepsWheel> wheels = {{"nat-1.0-cp313-cp313-win_amd64.whl", "Requires-Dist: missing\n"}};
  auto report = check_dependencies(wheels, {}, {{"3.12", "win_amd64"}, {"3.13", "win_amd64"}});
  ASSERT_TRUE(report);
  EXPECT_EQ(report->checks, 1u);
  ASSERT_EQ(report->unresolved.size(), 1u);
  EXPECT_EQ(report->unresolved[0].environment, "3.13-win_amd64");
  EXPECT_EQ(report->unresolved[0].reason, "no file of missing on the channel or upstream");
  EXPECT_FALSE(check_dependencies(wheels, {}, {{"three", "win_amd64"}}));
}

}  // namespace
}  // namespace relforge::channels
