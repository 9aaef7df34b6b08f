#include "platform/http_head.hpp"

#include <gtest/gtest.h>

namespace relforge::platform {
namespace {

HeadResult scan(std::string_view text, HeadLimits limits = {}) {
  return scan_request_head(text, limits);
}

int status(std::string_view text, HeadLimits limits = {}) {
  const auto result = scan(text, limits);
  EXPECT_EQ(result.scan, HeadScan::rejected) << text;
  return result.status;
}

TEST(HttpHead, ReadsACompleteHead) {
  const std::string text =
      "\r\nPOST /webhook?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\nX-Y:  v  \r\n\r\nbody";
  const auto result = scan(text);
  ASSERT_EQ(result.scan, HeadScan::complete);
  EXPECT_EQ(result.head.method, "POST");
  EXPECT_EQ(result.head.target, "/webhook?x=1");
  EXPECT_EQ(result.head.version, "HTTP/1.1");
  EXPECT_EQ(result.head.content_length, 12u);
  EXPECT_FALSE(result.head.chunked);
  EXPECT_EQ(result.head.field("x-y"), "v");
  EXPECT_EQ(result.head.size, text.size() - 4);
  const auto chunked = scan("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n");
  ASSERT_EQ(chunked.scan, HeadScan::complete);
  EXPECT_TRUE(chunked.head.chunked);
}

TEST(HttpHead, WaitsForMoreBytesWithinTheLimits) {
  EXPECT_EQ(scan("").scan, HeadScan::incomplete);
  EXPECT_EQ(scan("GET / HTTP/1.1\r\nHost: a\r\n").scan, HeadScan::incomplete);
  EXPECT_EQ(scan("GET /" + std::string(8000, 'a')).scan, HeadScan::incomplete);
}

TEST(HttpHead, OversizedLinesAndHeadsAreRefused) {
  const std::string longest = "GET /" + std::string(8192 - 16, 'a') + " HTTP/1.1";  // 8190 + CRLF
  EXPECT_EQ(scan(longest + "\r\nHost: a\r\n\r\n").scan, HeadScan::complete);
  EXPECT_EQ(status("GET /a" + longest.substr(5) + "\r\n\r\n"), 414);
  EXPECT_EQ(status("GET /" + std::string(9000, 'a')), 414);
  EXPECT_EQ(status("GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n\r\n"), 414);
  std::string many = "GET / HTTP/1.1\r\n";
  while (many.size() < 40000) many += "X-Pad: " + std::string(100, 'p') + "\r\n";
  EXPECT_EQ(status(many), 431);
  EXPECT_EQ(status(many + "\r\n"), 431);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nX: " + std::string(9000, 'v') + "\r\n\r\n"), 431);
  EXPECT_EQ(status(std::string(40000, '\n').insert(0, "GET / HTTP/1.1\r\nX: ")), 431);
  EXPECT_EQ(status(std::string(40000, '\r')), 414);
  std::string crlfs;
  for (int i = 0; i < 255; ++i) crlfs += "\r\n";
  EXPECT_EQ(status(crlfs + "GET /" + std::string(40, 'a'), {64, 512}), 431);  // found by the fuzzer
  std::string blank;
  for (int i = 0; i < 20000; ++i) blank += "\r\n";
  EXPECT_EQ(status(blank), 400);
}

TEST(HttpHead, SmugglingShapesAreRefused) {
  EXPECT_EQ(status("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"),
            400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"), 400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n"), 400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1e3\r\n\r\n"), 400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 18446744073709551616\r\n\r\n"), 400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n"), 400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"), 501);
  EXPECT_EQ(
      status(
          "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"),
      501);
  EXPECT_EQ(status("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n folded\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nHost: a\r\nX : a\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nHost: a\r\nX: a\nY: b\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n"), 400);
  EXPECT_EQ(status(std::string("GET / HTTP/1.1\r\nHost: a\r\nX: a") + '\0' + "b\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nHost: a\r\nnocolon\r\n\r\n"), 400);
  EXPECT_EQ(scan("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n").scan,
            HeadScan::complete);
}

TEST(HttpHead, MalformedRequestLinesAreRefused) {
  EXPECT_EQ(status("GET /\r\n\r\n"), 400);
  EXPECT_EQ(status("GET  / HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1 x\r\n\r\n"), 400);
  EXPECT_EQ(status("G(T / HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / FTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/2.0\r\n\r\n"), 505);
  EXPECT_EQ(status("GET /a\x01 HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(scan("FOO /x HTTP/1.0\r\n\r\n").scan, HeadScan::complete);  // unknown methods are routed (405)
}

// RFC 9112 §3.2: an HTTP/1.1 request carries exactly one Host, and a valid one.
TEST(HttpHead, HostIsRequiredOnceAndWellFormed) {
  const auto refused = [](std::string_view text) { return scan(text).message; };
  const auto host = [](std::string_view value) {
    return scan("GET / HTTP/1.1\r\nHost:" + std::string(value) + "\r\n\r\n");
  };
  EXPECT_EQ(status("GET / HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(refused("GET / HTTP/1.1\r\nX-Host: a\r\n\r\n"), "HTTP/1.1 request without a Host field");
  EXPECT_EQ(status("GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n"), 400);
  EXPECT_EQ(refused("GET / HTTP/1.1\r\nHost: a\r\nHOST: b\r\n\r\n"), "more than one Host field");
  EXPECT_EQ(refused("GET / HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n"), "more than one Host field");
  EXPECT_EQ(refused("GET / HTTP/1.0\r\nHost: a b\r\n\r\n"), "malformed Host field: expected host[:port]");

  for (const std::string_view bad : {" a b",          " a\tb",
                                     " user@a",       " a/b",
                                     " a?b",          " a#b",
                                     " a:8o",         " a:-1",
                                     " a: 80",        " a:1:2",
                                     " a%2",          " a%zz",
                                     " caf\xC3\xA9",  " a\x01",
                                     " a\x7F",        " [::1",
                                     " [::1]x",       " []",
                                     " [::1%25eth0]", " [1:2:3:4:5:6:7:8:9]",
                                     " [1::2::3]",    " [::ffff:1.2.3.256]",
                                     " [12345::]",    " [:1]",
                                     " [1:]",         " ::1"}) {
    const auto result = host(bad);
    EXPECT_EQ(result.scan, HeadScan::rejected) << bad;
    EXPECT_EQ(result.status, 400) << bad;
    EXPECT_EQ(result.message, "malformed Host field: expected host[:port]") << bad;
  }
  for (const std::string_view good :
       {" 127.0.0.1", " 127.0.0.1:8080", " example.com", "example.com:443 ", " EXAMPLE.com.",
        " xn--caf-dma.example", " a-b_c~d", " %41b", " [::1]", " [::1]:8080", " [::]", " [2001:db8::7]:443",
        " [1:2:3:4:5:6:7:8]", " [::ffff:192.0.2.1]", " [1:2:3:4:5:6:7::]", " [v1.fe80::a+en1]", " a:", " ",
        ""}) {
    EXPECT_EQ(host(good).scan, HeadScan::complete) << good;
  }
  EXPECT_EQ(host(" [::1]:8080").head.field("host"), "[::1]:8080");

  // HTTP/1.0 may leave Host out.
  const auto old = scan("GET / HTTP/1.0\r\n\r\n");
  EXPECT_EQ(old.scan, HeadScan::complete);
  EXPECT_EQ(old.head.field("host"), std::nullopt);
}

}  // namespace
}  // namespace relforge::platform
