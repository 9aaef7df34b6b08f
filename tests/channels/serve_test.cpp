#include "channels/serve.hpp"

#include <gtest/gtest.h>

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
  EXPECT_EQ(file.file, m_dir.path() / "whl/nightly/cpu/mini/mini-1.0-py3-none-any.whl");
  EXPECT_EQ(get("/whl/nightly/cpu/mini/mini-1.0-py3-none-any.whl", "", header(file, "ETag")).status, 304);
}

TEST_F(ServeTest, NeverLeavesTheRoot) {
  EXPECT_EQ(get("/../etc/passwd").status, 404);
  EXPECT_EQ(get("/whl/../../etc/passwd").status, 404);
  EXPECT_EQ(get("/.relforge.lock").status, 404);
  EXPECT_EQ(get("/whl/nightly/cpu/mini/..%2f..").status, 404);
  EXPECT_EQ(get("relative").status, 400);
  EXPECT_EQ(get("/nothing/here").status, 404);
  platform::HttpRequest post;
  post.method = "POST";
  post.path = "/";
  EXPECT_EQ(handle_request(m_dir.path(), post).status, 405);
}

}  // namespace
}  // namespace relforge::channels
