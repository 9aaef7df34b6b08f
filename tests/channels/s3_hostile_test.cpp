// The S3 store against a server that lies: listings that climb out of the store or never end,
// answers longer or shorter than they say, endless bodies, 5xx storms, redirects to another host,
// writes answered with an error document; and the SigV4 signature of awkward keys, recomputed from
// the specification for the request exactly as the server received it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>

#include "channels/s3_store.hpp"
#include "core/text.hpp"
#include "platform/digest.hpp"
#include "tests/channels/hostile_s3.hpp"
#include "tests/channels/support.hpp"

namespace relforge::channels {
namespace {

namespace fs = std::filesystem;
using test::answer;
using test::ScriptedAnswer;
using test::ScriptedRequest;
using test::ScriptedServer;

S3Options options_for(const ScriptedServer& server) {
  S3Options out;
  out.location = {"bucket", "pfx"};
  out.endpoint = server.endpoint();
  out.access_key = "AKIDEXAMPLE";
  out.secret_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
  out.timeout = std::chrono::seconds(20);
  out.retry = {.max_attempts = 3, .base_delay_seconds = 0, .max_delay_seconds = 0};
  return out;
}

std::unique_ptr<ObjectStore> store_for(const S3Options& options) {
  auto made = make_s3_store(options);
  EXPECT_TRUE(made) << made.error().describe();
  return made ? std::move(*made) : nullptr;
}

std::string listing(const std::string& entries,
                    const std::string& tail = "<IsTruncated>false</IsTruncated>") {
  return "<?xml version=\"1.0\"?><ListBucketResult>" + entries + tail + "</ListBucketResult>";
}

std::string object(const std::string& key) {
  return "<Contents><Key>" + key + "</Key><Size>1</Size></Contents>";
}

TEST(S3Hostile, KeysThatWouldLeaveTheStoreAreNeverSent) {
  ScriptedServer server([](const ScriptedRequest&) { return answer(200, ""); });
  auto s3 = store_for(options_for(server));
  test::ChannelTempDir dir;
  const fs::path file = dir.path() / "w.whl";
  std::ofstream(file) << "w";
  // libcurl resolves dot segments: "pfx/a/../../other-bucket/x" would be PUT to /other-bucket/x.
  for (const std::string key : {"whl/../../../other-bucket/x.whl", "whl/./x", "..", "/etc/x", "whl/a\nb",
                                "whl/a\x7f", "whl/cpu/.."}) {
    const auto put = s3->put(key, "x", "text/plain");
    ASSERT_FALSE(put) << key;
    EXPECT_EQ(put.error().category(), ErrorCategory::invalid_input);
    EXPECT_NE(put.error().message().find("no request was sent"), std::string::npos) << put.error().describe();
    EXPECT_FALSE(s3->put_if_absent(key, file, platform::to_hex(platform::sha256("w")), "x"));
    EXPECT_FALSE(s3->get(key));
    EXPECT_FALSE(s3->head(key));
    EXPECT_FALSE(s3->download(key, dir.path() / "out", 100));
    EXPECT_FALSE(s3->remove(key));
    EXPECT_FALSE(s3->copy("whl/ok.whl", key));
    EXPECT_FALSE(s3->list(key + "/"));
  }
  EXPECT_FALSE(s3->copy("whl/../../x", "whl/ok.whl"));
  EXPECT_TRUE(server.requests().empty());
  // Names that only look odd are keys like any other.
  ASSERT_TRUE(s3->put("whl/..x/a..b/.relforge-listing", "x", "text/plain"));
  ASSERT_EQ(server.requests().size(), 1U);
  EXPECT_EQ(server.requests()[0].target, "/bucket/pfx/whl/..x/a..b/.relforge-listing");
}

TEST(S3Hostile, ListedKeysOutsideTheStoreOrPrefixAreRefused) {
  std::string body;
  ScriptedServer server([&body](const ScriptedRequest&) { return answer(200, body); });
  auto s3 = store_for(options_for(server));
  const std::pair<std::string, std::string> cases[] = {
      {object("pfx/whl/cpu/../../../../other-bucket/evil.whl"), "has a '..' segment"},
      {object("pfx/whl/./index.html"), "has a '.' segment"},
      {object("pfx/whl/a&#10;b.whl"), "holds a control byte"},
      {object("pfx/whl/a&#27;[31mred.whl"), "holds a control byte"},
      {object("pfx/stable/other-channel.whl"), "lies outside pfx/whl/"},
      {object("other/whl/x.whl"), "lies outside pfx/whl/"},
  };
  for (const auto& [entries, problem] : cases) {
    body = listing(object("pfx/whl/fine.whl") + entries);
    const auto listed = s3->list("whl/");
    ASSERT_FALSE(listed) << entries;
    EXPECT_EQ(listed.error().category(), ErrorCategory::integrity);
    EXPECT_NE(listed.error().message().find(problem), std::string::npos) << listed.error().describe();
    EXPECT_EQ(listed.error().message().find('\x1b'), std::string::npos);
    EXPECT_FALSE(s3->children("whl/")) << entries;
  }
  // One delimited level holds one segment per entry; a folder further down is not a child.
  body = listing("<CommonPrefixes><Prefix>pfx/whl/cpu/../../../x/</Prefix></CommonPrefixes>");
  EXPECT_FALSE(s3->children("whl/"));
  body = listing("<CommonPrefixes><Prefix>pfx/whl/cpu/mini/</Prefix></CommonPrefixes>");
  const auto deeper = s3->children("whl/");
  ASSERT_FALSE(deeper);
  EXPECT_NE(deeper.error().message().find("more than one level down"), std::string::npos);
  body = listing("<CommonPrefixes><Prefix>pfx/whl/cpu/</Prefix></CommonPrefixes>" + object("pfx/whl/") +
                 object("pfx/whl/index.html"));
  const auto children = s3->children("whl/");
  ASSERT_TRUE(children) << children.error().describe();
  EXPECT_EQ(*children, (std::vector<std::string>{"cpu/", "index.html"}));
}

TEST(S3Hostile, PaginationThatNeverEndsIsRefused) {
  std::atomic<int> pages{0};
  std::string mode;
  ScriptedServer server([&](const ScriptedRequest&) {
    const int page = ++pages;
    if (mode == "cycle") {
      // A, B, A, B, ...: never the same token twice in a row.
      return answer(200, listing(object("pfx/k/" + std::to_string(page)),
                                 "<IsTruncated>true</IsTruncated><NextContinuationToken>" +
                                     std::string(page % 2 ? "A" : "B") + "</NextContinuationToken>"));
    }
    const std::string entries = mode == "empty" ? "" : object("pfx/k/" + std::to_string(page));
    return answer(200, listing(entries, "<IsTruncated>true</IsTruncated><NextContinuationToken>t" +
                                            std::to_string(page) + "</NextContinuationToken>"));
  });
  auto with = options_for(server);
  with.max_list_pages = 50;
  with.max_listed_objects = 1000;
  auto s3 = store_for(with);

  mode = "cycle";
  auto cycled = s3->list("k/");
  ASSERT_FALSE(cycled);
  EXPECT_EQ(cycled.error().category(), ErrorCategory::network);
  EXPECT_NE(cycled.error().message().find("no new continuation token"), std::string::npos);
  EXPECT_EQ(pages.load(), 3);

  mode = "fresh";
  pages = 0;
  auto endless = s3->list("k/");
  ASSERT_FALSE(endless);
  EXPECT_NE(endless.error().message().find("did not end after 50 pages"), std::string::npos)
      << endless.error().describe();
  EXPECT_EQ(pages.load(), 50);

  mode = "empty";
  pages = 0;
  with.max_list_pages = 100'000;
  auto empty = store_for(with)->children("k/");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message().find("empty pages in a row"), std::string::npos);
  EXPECT_EQ(pages.load(), 101);
}

TEST(S3Hostile, ListingsThatAreCutOrNotListingsAreErrors) {
  std::string body;
  ScriptedServer server([&body](const ScriptedRequest&) { return answer(200, body); });
  auto s3 = store_for(options_for(server));
  const std::pair<std::string, std::string> cases[] = {
      {listing(object("pfx/k/a")).substr(0, 60), "truncated?"},
      {"<Error><Code>InternalError</Code></Error>", "answered <Error> where <ListBucketResult> belongs"},
      {listing("", "<IsTruncated>yes</IsTruncated>"), "neither true nor false"},
      {"<!DOCTYPE l [<!ENTITY a \"aaaa\"><!ENTITY b \"&a;&a;&a;\">]><ListBucketResult>&b;</ListBucketResult>",
       "does not start with an XML element"},
      {listing(object("pfx/k/&a;")), "unknown entity &a;"},
  };
  for (const auto& [text, expected] : cases) {
    body = text;
    const auto listed = s3->list("k/");
    ASSERT_FALSE(listed) << text;
    EXPECT_NE(listed.error().message().find(expected), std::string::npos) << listed.error().describe();
  }
  // Entities are decoded once: "&amp;lt;" is the key "&lt;", and "&#43;" is '+'.
  body = listing(object("pfx/k/a&amp;lt;b&#43;c"));
  const auto decoded = s3->list("k/");
  ASSERT_TRUE(decoded) << decoded.error().describe();
  ASSERT_EQ(decoded->size(), 1U);
  EXPECT_EQ(decoded->at(0).key, "k/a&lt;b+c");
}

TEST(S3Hostile, BodiesAreHeldToWhatTheySayAndToALimit) {
  std::string mode;
  ScriptedServer server([&mode](const ScriptedRequest&) -> ScriptedAnswer {
    if (mode == "huge-length")
      return {"HTTP/1.1 200 OK\r\nContent-Length: 999999999999999\r\nConnection: close\r\n\r\nabc"};
    if (mode == "endless") return {"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", true};
    if (mode == "endless-error") return {"HTTP/1.1 500 X\r\nConnection: close\r\n\r\n", true};
    if (mode == "short")
      return {"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\nonly ten.."};
    return {"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nfive and then some"};
  });
  auto with = options_for(server);
  with.max_object_bytes = 1 << 20;
  with.retry.max_attempts = 1;
  auto s3 = store_for(with);
  test::ChannelTempDir dir;
  const auto start = std::chrono::steady_clock::now();
  for (const char* which : {"huge-length", "endless", "endless-error"}) {
    mode = which;
    const auto got = s3->get("whl/index.html");
    ASSERT_FALSE(got) << which;
    EXPECT_EQ(got.error().category(), ErrorCategory::network);
    EXPECT_NE(got.error().describe().find("answered more than"), std::string::npos) << got.error().describe();
    EXPECT_FALSE(s3->list("whl/")) << which;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));

  mode = "short";
  const auto cut = s3->get("whl/index.html");
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().category(), ErrorCategory::network);
  EXPECT_FALSE(s3->download("whl/a.whl", dir.path() / "a.whl", 100));
  EXPECT_TRUE(fs::is_empty(dir.path()));

  // A download is held to the size its record gives: an endless or oversized body stops there,
  // and leaves no partial file.
  for (const char* which : {"endless", "huge-length", "long"}) {
    mode = which;
    const auto started = std::chrono::steady_clock::now();
    const auto held = s3->download("whl/a.whl", dir.path() / "a.whl", 4);
    ASSERT_FALSE(held) << which;
    EXPECT_NE(held.error().describe().find("answered more than 4 bytes"), std::string::npos)
        << held.error().describe();
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5)) << which;
    EXPECT_TRUE(fs::is_empty(dir.path())) << which;
  }

  mode = "long";
  const auto clipped = s3->get("whl/index.html");
  ASSERT_TRUE(clipped && clipped->has_value());
  EXPECT_EQ(**clipped, "five ");
}

TEST(S3Hostile, ServerErrorsAreRetriedWithBackoffThenNamed) {
  std::atomic<int> calls{0};
  std::atomic<int> failures{0};
  ScriptedServer server([&](const ScriptedRequest&) {
    ++calls;
    if (failures > 0) {
      --failures;
      return answer(
          503, "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>");
    }
    return answer(200, "page");
  });
  auto with = options_for(server);
  with.retry = {.max_attempts = 3, .base_delay_seconds = 1, .max_delay_seconds = 1};
  auto s3 = store_for(with);

  failures = 2;
  const auto start = std::chrono::steady_clock::now();
  const auto got = s3->get("whl/index.html");
  ASSERT_TRUE(got && got->has_value()) << (got ? "" : got.error().describe());
  EXPECT_EQ(**got, "page");
  EXPECT_EQ(calls.load(), 3);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));

  failures = 1000;
  calls = 0;
  with.retry.base_delay_seconds = 0;
  const auto refused = store_for(with)->put("whl/index.html", "x", "text/html");
  ASSERT_FALSE(refused);
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(refused.error().category(), ErrorCategory::network);
  EXPECT_NE(
      refused.error().message().find("HTTP 503 SlowDown: Please reduce your request rate. (a server-side "
                                     "failure through 3 attempts: retry later)"),
      std::string::npos)
      << refused.error().describe();
}

TEST(S3Hostile, ARedirectIsNeverFollowedSoNoOtherHostSeesTheRequest) {
  ScriptedServer elsewhere([](const ScriptedRequest&) { return answer(200, listing("")); });
  ScriptedServer server([&elsewhere](const ScriptedRequest& request) {
    return answer(307, "", "Location: " + elsewhere.endpoint() + request.target + "\r\n");
  });
  auto s3 = store_for(options_for(server));
  const auto listed = s3->list("whl/");
  ASSERT_FALSE(listed);
  EXPECT_NE(listed.error().message().find("a redirect to " + elsewhere.endpoint()), std::string::npos)
      << listed.error().describe();
  EXPECT_NE(listed.error().message().find("never followed"), std::string::npos);
  EXPECT_FALSE(s3->put("whl/index.html", "x", "text/html"));
  EXPECT_FALSE(s3->get("whl/index.html"));
  EXPECT_TRUE(elsewhere.requests().empty());
  ASSERT_FALSE(server.requests().empty());
  EXPECT_TRUE(server.requests()[0].headers.count("authorization"));
}

TEST(S3Hostile, AWriteAnsweredWithAnErrorDocumentHasNotTaken) {
  ScriptedServer server([](const ScriptedRequest& request) {
    if (request.method == "HEAD") return answer(404, "");
    return answer(200,
                  "<?xml version=\"1.0\"?>\n<Error><Code>InternalError</Code><Message>We encountered an "
                  "internal error.</Message></Error>");
  });
  auto s3 = store_for(options_for(server));
  test::ChannelTempDir dir;
  const fs::path file = dir.path() / "w.whl";
  std::ofstream(file) << "wheel";
  const auto put = s3->put_if_absent("whl/cpu/w/w-1.0-py3-none-any.whl", file,
                                     platform::to_hex(platform::sha256("wheel")), "application/octet-stream");
  ASSERT_FALSE(put);
  EXPECT_NE(put.error().message().find("InternalError"), std::string::npos) << put.error().describe();
  EXPECT_NE(put.error().message().find("the write did not take"), std::string::npos);
  EXPECT_FALSE(s3->put("whl/index.html", "x", "text/html"));
  EXPECT_FALSE(s3->remove("whl/index.html"));
  EXPECT_FALSE(s3->copy("whl/a", "whl/b"));
}

// SigV4 as the specification writes it (AWS General Reference, "Create a canonical request"),
// applied to the request exactly as it arrived.
std::string reference_signature(const ScriptedRequest& request, const S3Options& options) {
  const std::string authorization = request.headers.at("authorization");
  const auto signed_at = authorization.find("SignedHeaders=") + 14;
  const std::string signed_headers =
      authorization.substr(signed_at, authorization.find(',', signed_at) - signed_at);
  const std::string date = request.headers.at("x-amz-date");
  std::string canonical_headers;
  for (const auto name : core::split(signed_headers, ';'))
    canonical_headers += std::string(name) + ":" + request.headers.at(std::string(name)) + "\n";
  const auto question = request.target.find('?');
  const std::string canonical = request.method + "\n" + request.target.substr(0, question) + "\n" +
                                (question == std::string::npos ? "" : request.target.substr(question + 1)) +
                                "\n" + canonical_headers + "\n" + signed_headers + "\n" +
                                request.headers.at("x-amz-content-sha256");
  auto mac = [](const std::string& key, const std::string& message) {
    const auto digest = platform::hmac_sha256(key, message);
    return std::string(reinterpret_cast<const char*>(digest.data()), digest.size());
  };
  const std::string day = date.substr(0, 8);
  const std::string key =
      mac(mac(mac(mac("AWS4" + options.secret_key, day), options.region), "s3"), "aws4_request");
  return platform::to_hex(platform::hmac_sha256(key, "AWS4-HMAC-SHA256\n" + date + "\n" + day + "/" +
                                                         options.region + "/s3/aws4_request\n" +
                                                         platform::to_hex(platform::sha256(canonical))));
}

TEST(S3Hostile, SigV4OfKeysWithSpacesPlusTildeUnicodeAndPercentFollowsTheSpecification) {
  ScriptedServer server([](const ScriptedRequest& request) {
    if (request.target.find("list-type=2") != std::string::npos) {
      return answer(200, listing("",
                                 "<IsTruncated>true</IsTruncated><NextContinuationToken>1ueGc/x+y= z~"
                                 "</NextContinuationToken>"));
    }
    return answer(200, "x");
  });
  auto with = options_for(server);
  with.max_list_pages = 2;
  auto s3 = store_for(with);
  const std::string key = "whl/a b+c~d%e=f&g;h/\xc3\xbc\xe2\x82\xac$@!*'()[].whl";
  ASSERT_TRUE(s3->put(key, "x", "text/plain"));
  ASSERT_TRUE(s3->get(key));
  (void)s3->list("whl/ +~%/");
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 4U);
  // Each byte outside A-Z a-z 0-9 - . _ ~ is %XX in upper case, '/' between segments stays.
  const std::string path =
      "/bucket/pfx/whl/a%20b%2Bc~d%25e%3Df%26g%3Bh/%C3%BC%E2%82%AC%24%40%21%2A%27%28%29%5B%5D.whl";
  EXPECT_EQ(requests[0].target, path);
  EXPECT_EQ(requests[1].target, path);
  // Query parameters sorted by name, values encoded the same way, '/' included.
  EXPECT_EQ(requests[2].target, "/bucket?list-type=2&max-keys=1000&prefix=pfx%2Fwhl%2F%20%2B~%25%2F");
  EXPECT_EQ(requests[3].target,
            "/bucket?continuation-token=1ueGc%2Fx%2By%3D%20z~&list-type=2&max-keys=1000&prefix=pfx%2Fwhl%2F%"
            "20%2B~%25%2F");
  for (const auto& request : requests) {
    const std::string authorization = request.headers.at("authorization");
    EXPECT_TRUE(authorization.ends_with("Signature=" + reference_signature(request, with)))
        << request.method << " " << request.target << "\n"
        << authorization;
  }
}

}  // namespace
}  // namespace relforge::channels
