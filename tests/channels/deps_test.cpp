#include "channels/deps.hpp"

#include <gtest/gtest.h>

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
