#include "channels/index.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace relforge::channels {
namespace {

IndexedFile sample(bool yanked = false) {
  FileInfo info;
  info.filename = "mini-1.0+cu126-py3-none-any.whl";
  info.project = "mini";
  info.version = "1.0+cu126";
  info.sha256 = std::string(64, 'a');
  info.size = 1234;
  info.metadata_sha256 = std::string(64, 'b');
  info.requires_python = ">=3.10";
  info.upload_time = "2025-01-02T03:04:05Z";
  info.provenance = true;
  info.yanked = yanked;
  info.yanked_reason = yanked ? "broken <build>" : "";
  return {info, url_escape_path(info.filename)};
}

TEST(IndexHtml, CarriesEveryAttributeAClientReads) {
  const auto html = render_project_html("mini", {sample()});
  EXPECT_NE(html.find("<meta name=\"pypi:repository-version\" content=\"1.3\">"), std::string::npos);
  const std::string sha(64, 'a'), meta(64, 'b');
  EXPECT_NE(html.find("<a href=\"mini-1.0%2Bcu126-py3-none-any.whl#sha256=" + sha +
                      "\" data-requires-python=\"&gt;=3.10\" data-dist-info-metadata=\"sha256=" + meta +
                      "\" data-core-metadata=\"sha256=" + meta +
                      "\" data-provenance=\"mini-1.0%2Bcu126-py3-none-any.whl.provenance\">"
                      "mini-1.0+cu126-py3-none-any.whl</a>"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("data-yanked"), std::string::npos);
  const auto yanked = render_project_html("mini", {sample(true)});
  EXPECT_NE(yanked.find(" data-yanked=\"broken &lt;build&gt;\""), std::string::npos);
}

// Records are checked where they are read; the page escapes what it carries all the same.
TEST(IndexHtml, EscapesEveryFieldItCarries) {
  auto file = sample(true);
  file.info.sha256 = "\"><script>alert(1)</script>";
  file.info.metadata_sha256 = "\"><img src=x>";
  const auto html = render_project_html("mini", {file});
  EXPECT_EQ(html.find("<script>"), std::string::npos) << html;
  EXPECT_EQ(html.find("<img"), std::string::npos) << html;
  EXPECT_NE(html.find("#sha256=&quot;&gt;&lt;script&gt;"), std::string::npos) << html;
}

TEST(IndexJson, FollowsPep691AndPep740) {
  const auto page = nlohmann::json::parse(render_project_json("mini", {sample(), sample(true)}));
  EXPECT_EQ(page["meta"]["api-version"], "1.3");
  EXPECT_EQ(page["name"], "mini");
  EXPECT_EQ(page["versions"], nlohmann::json::array({"1.0+cu126"}));
  const auto& file = page["files"][0];
  EXPECT_EQ(file["filename"], "mini-1.0+cu126-py3-none-any.whl");
  EXPECT_EQ(file["url"], "mini-1.0%2Bcu126-py3-none-any.whl");
  EXPECT_EQ(file["hashes"]["sha256"], std::string(64, 'a'));
  EXPECT_EQ(file["core-metadata"]["sha256"], std::string(64, 'b'));
  EXPECT_FALSE(file.contains("dist-info-metadata"));  // crashes pip 23.0's JSON parser (PEP 714)
  EXPECT_EQ(file["requires-python"], ">=3.10");
  EXPECT_EQ(file["size"], 1234);
  EXPECT_EQ(file["upload-time"], "2025-01-02T03:04:05Z");
  EXPECT_EQ(file["yanked"], false);
  EXPECT_EQ(file["provenance"], "mini-1.0%2Bcu126-py3-none-any.whl.provenance");
  EXPECT_EQ(page["files"][1]["yanked"], "broken <build>");
}

TEST(IndexRoot, ListsProjectsInBothForms) {
  const auto html = render_root_html({"mini", "torch-audio"});
  EXPECT_NE(html.find("<a href=\"torch-audio/\">torch-audio</a>"), std::string::npos);
  const auto json = nlohmann::json::parse(render_root_json({"mini"}));
  EXPECT_EQ(json["meta"]["api-version"], "1.3");
  EXPECT_EQ(json["projects"][0]["name"], "mini");
}

TEST(IndexEscaping, EscapesUrlsAndHtml) {
  EXPECT_EQ(url_escape_path("a+b c/d"), "a%2Bb%20c/d");
  EXPECT_EQ(html_escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#x27;");
}

}  // namespace
}  // namespace relforge::channels
