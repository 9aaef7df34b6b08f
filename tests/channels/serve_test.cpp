#include "channels/serve.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "platform/fs.hpp"
#include "tests/channels/support.hpp"

namespace relforge::channels {
namespace {

namespace fs = std::filesystem;

const std::string k_pip_accept =
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01";

TEST(Negotiate, PicksWhatTheClientPrefers) {
  const auto pip = negotiate(k_pip_accept);
  ASSERT_TRUE(pip);
  EXPECT_EQ(pip->format, PageFormat::json);
  EXPECT_EQ(pip->content_type, "application/vnd.pypi.simple.v1+json");
  EXPECT_EQ(negotiate("application/vnd.pypi.simple.latest+json")->content_type,
            "application/vnd.pypi.simple.v1+json");
  EXPECT_EQ(negotiate("application/vnd.pypi.simple.latest+html")->content_type,
            "application/vnd.pypi.simple.v1+html");
  EXPECT_EQ(negotiate("text/html")->content_type, "text/html");
  EXPECT_EQ(negotiate("")->format, PageFormat::html);
  EXPECT_EQ(negotiate("*/*")->format, PageFormat::html);
  EXPECT_EQ(negotiate("application/vnd.pypi.simple.v1+json;q=0.2, text/html")->format, PageFormat::html);
  EXPECT_FALSE(negotiate("image/png"));
  EXPECT_FALSE(negotiate("application/vnd.pypi.simple.v1+json;q=0"));
}

// RFC 9110 qvalues: the name in any case; a weight that is no qvalue makes the range unacceptable.
TEST(Negotiate, WeightsAreRfcQvalues) {
  EXPECT_EQ(negotiate("text/html;Q=0, application/vnd.pypi.simple.v1+json;q=0.5")->format, PageFormat::json);
  EXPECT_EQ(negotiate("text/html;q=nan, application/vnd.pypi.simple.v1+json;q=0.1")->format,
            PageFormat::json);
  EXPECT_EQ(negotiate("text/html;q=2, application/vnd.pypi.simple.v1+json;q=0.001")->format,
            PageFormat::json);
  EXPECT_EQ(negotiate("text/html;q=inf, application/vnd.pypi.simple.v1+json;q=1.000")->format,
            PageFormat::json);
  EXPECT_FALSE(negotiate("text/html;q=1.5"));
  EXPECT_FALSE(negotiate("text/html;q=0.0001"));
  EXPECT_EQ(negotiate("text/html;q=0.999")->format, PageFormat::html);
}

// RFC 9110 §12.5.1: the most specific range that matches a type gives its weight, so a type
// refused by name is not taken back by a wildcard; among equal weights a named type wins.
TEST(Negotiate, AMoreSpecificRangeOverridesAWildcard) {
  const auto no_text_html = negotiate("text/html;q=0, */*");
  ASSERT_TRUE(no_text_html);
  EXPECT_NE(no_text_html->content_type, "text/html");
  const auto no_v1_json = negotiate("application/vnd.pypi.simple.v1+json;q=0, application/*");
  ASSERT_TRUE(no_v1_json);
  EXPECT_NE(no_v1_json->content_type, "application/vnd.pypi.simple.v1+json");
  EXPECT_EQ(no_v1_json->content_type, "application/vnd.pypi.simple.v1+html");
  EXPECT_FALSE(negotiate("text/html;q=0, text/*"));
  EXPECT_FALSE(negotiate("application/vnd.pypi.simple.v1+json;q=0, application/vnd.pypi.simple.latest+json"));
  EXPECT_EQ(negotiate("*/*;q=0.5, application/vnd.pypi.simple.v1+json;q=0.5")->format, PageFormat::json);
  EXPECT_EQ(negotiate("*/*, application/vnd.pypi.simple.v1+json;q=0.5")->content_type, "text/html");
  EXPECT_EQ(negotiate("text/html;q=0.1, */*;q=0.5")->format, PageFormat::html);
  EXPECT_FALSE(negotiate("*/*;q=0"));
}

class ServeTest : public ::testing::Test {
protected:
  void SetUp() override {
    const fs::path project = m_dir.path() / "whl" / "nightly" / "cpu" / "mini";
    fs::create_directories(project);
    ASSERT_TRUE(platform::write_file_atomic(project / "index.html", "<html>page</html>"));
    ASSERT_TRUE(platform::write_file_atomic(project / "index.json", "{\"name\": \"mini\"}"));
    ASSERT_TRUE(platform::write_file_atomic(project / "mini-1.0-py3-none-any.whl", "zip"));
    ASSERT_TRUE(platform::write_file_atomic(m_dir.path() / ".relforge.lock", ""));
  }
  platform::HttpResponse get(const std::string& path, const std::string& accept = "",
                             const std::string& if_none_match = "", const std::string& format = "") {
    platform::HttpRequest request;
    request.method = "GET";
    request.path = path;
    request.target = path;
    if (!accept.empty()) request.headers.insert({"accept", accept});
    if (!if_none_match.empty()) request.headers.insert({"if-none-match", if_none_match});
    if (!format.empty()) request.query.insert({"format", format});
    return handle_request(m_dir.path(), request);
  }
  static std::string header(const platform::HttpResponse& response, const std::string& name) {
    for (const auto& [key, value] : response.headers) {
      if (key == name) return value;
    }
    return {};
  }
  test::ChannelTempDir m_dir;
};

TEST_F(ServeTest, NegotiatesProjectPages) {
  const auto json = get("/whl/nightly/cpu/mini/", k_pip_accept);
  EXPECT_EQ(json.status, 200);
  EXPECT_EQ(json.content_type, "application/vnd.pypi.simple.v1+json");
  EXPECT_EQ(json.body, "{\"name\": \"mini\"}");
  const auto html = get("/whl/nightly/cpu/mini/", "text/html");
  EXPECT_EQ(html.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(html.body, "<html>page</html>");
  const auto forced = get("/whl/nightly/cpu/mini/", k_pip_accept, "", "application/vnd.pypi.simple.v1+html");
  EXPECT_EQ(forced.content_type, "application/vnd.pypi.simple.v1+html; charset=utf-8");
  EXPECT_EQ(get("/whl/nightly/cpu/mini/", "image/png").status, 406);
  const auto redirect = get("/whl/nightly/cpu/mini");
  EXPECT_EQ(redirect.status, 301);
  EXPECT_EQ(header(redirect, "Location"), "/whl/nightly/cpu/mini/");
  // A form-decoded query turned PEP 691's '+' into a space.
  const auto plus = get("/whl/nightly/cpu/mini/", "text/html", "", "application/vnd.pypi.simple.v1 json");
  EXPECT_EQ(plus.content_type, "application/vnd.pypi.simple.v1+json");
}

TEST_F(ServeTest, AnswersIfNoneMatchWith304) {
  const auto first = get("/whl/nightly/cpu/mini/", "text/html");
  const auto etag = header(first, "ETag");
  ASSERT_FALSE(etag.empty());
  EXPECT_EQ(get("/whl/nightly/cpu/mini/", "text/html", etag).status, 304);
  EXPECT_EQ(get("/whl/nightly/cpu/mini/", "text/html", "\"other\"").status, 200);
  // The JSON and HTML forms are different bytes, so they have different tags.
  EXPECT_NE(header(get("/whl/nightly/cpu/mini/", k_pip_accept), "ETag"), etag);
  const auto file = get("/whl/nightly/cpu/mini/mini-1.0-py3-none-any.whl");
  EXPECT_EQ(file.status, 200);
  ASSERT_TRUE(file.open_file);
  EXPECT_EQ(file.open_file->size(), 3u);
  EXPECT_EQ(file.open_file->read_all().value(), "zip");
  EXPECT_EQ(header(file, "ETag").front(), '"');
  EXPECT_EQ(get("/whl/nightly/cpu/mini/mini-1.0-py3-none-any.whl", "", header(file, "ETag")).status, 304);
}

TEST_F(ServeTest, MalformedOrEscapingPathsAre400) {
  for (const std::string path : {"/../etc/passwd",
                                 "/whl/../../etc/passwd",
                                 "//etc/passwd",
                                 "/whl//nightly/",
                                 "/%2e%2e/%2e%2e/etc/passwd",
                                 "/%2E%2e/",
                                 "/whl/%2e%2E",
                                 "/whl/.%2e/secret.key",
                                 "/whl/./nightly/",
                                 "/whl/%2e/nightly/",
                                 "/whl/nightly/cpu/mini/..%2f..",
                                 "/whl%2fnightly/",
                                 "/whl%2Fnightly/",
                                 "/whl%5c..%5csecret",
                                 "/whl\\..\\secret",
                                 "/whl%00.whl",
                                 "/%c0%ae%c0%ae/secret.key",
                                 "/%e0%80%ae/",
                                 "/%ff/",
                                 "/%zz",
                                 "/%2",
                                 "/a%",
                                 "relative",
                                 "",
                                 "http://example.com/etc/passwd",
                                 "*",
                                 "/a b",
                                 "/\x01"}) {
    EXPECT_EQ(get(path).status, 400) << path;
  }
  EXPECT_EQ(get("/" + std::string(5000, 'a')).status, 400);
}

TEST_F(ServeTest, DotFilesMissingAndDoubleEncodedNamesAre404) {
  EXPECT_EQ(get("/.relforge.lock").status, 404);
  EXPECT_EQ(get("/%2erelforge.lock").status, 404);
  EXPECT_EQ(get("/...").status, 404);
  EXPECT_EQ(get("/nothing/here").status, 404);
  EXPECT_EQ(get("/" + std::string(1000, 'n') + "/x.whl").status, 404);  // over NAME_MAX
  // Decoded once, "%252e%252e" is the literal name "%2e%2e", which does not exist.
  EXPECT_EQ(get("/%252e%252e/%252e%252e/etc/passwd").status, 404);
  // A file asked for as a folder.
  EXPECT_EQ(get("/whl/nightly/cpu/mini/mini-1.0-py3-none-any.whl/").status, 404);
  // The query is not part of the path.
  EXPECT_EQ(get("/whl/nightly/cpu/mini/mini-1.0-py3-none-any.whl?x=/../../etc/passwd").status, 200);
}

TEST_F(ServeTest, SymlinksAndSpecialFilesAreNeverFollowed) {
  test::ChannelTempDir outside;
  ASSERT_TRUE(platform::write_file_atomic(outside.path() / "secret.key", "PRIVATE"));
  fs::create_symlink(outside.path() / "secret.key", m_dir.path() / "whl" / "key.whl");
  fs::create_directory_symlink(outside.path(), m_dir.path() / "whl" / "out");
  // Even a link that stays inside the root is refused: links are how a store gets escaped.
  fs::create_symlink(m_dir.path() / "whl/nightly/cpu/mini/mini-1.0-py3-none-any.whl",
                     m_dir.path() / "inside.whl");
  ASSERT_EQ(::mkfifo((m_dir.path() / "whl" / "pipe.whl").c_str(), 0600), 0);
  for (const std::string path :
       {"/whl/key.whl", "/whl/out/secret.key", "/whl/out/", "/inside.whl", "/whl/pipe.whl"}) {
    const auto response = get(path);
    EXPECT_EQ(response.status, 404) << path;
    EXPECT_FALSE(response.open_file) << path;
    EXPECT_EQ(response.body.find("PRIVATE"), std::string::npos);
  }
}

TEST_F(ServeTest, OnlyGetAndHeadWith405AndAllow) {
  for (const std::string method : {"POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH"}) {
    platform::HttpRequest request;
    request.method = method;
    request.path = request.target = "/";
    const auto response = handle_request(m_dir.path(), request);
    EXPECT_EQ(response.status, 405) << method;
    EXPECT_EQ(header(response, "Allow"), "GET, HEAD");
  }
  // The query goes along: it chooses the page at the end of the redirect.
  const auto redirect = get("/whl/nightly/cpu/mini?format=x");
  EXPECT_EQ(header(redirect, "Location"), "/whl/nightly/cpu/mini/?format=x");
}

}  // namespace
}  // namespace relforge::channels
