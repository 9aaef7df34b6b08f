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
  const auto chunked = scan("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n");
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
  EXPECT_EQ(scan(longest + "\r\n\r\n").scan, HeadScan::complete);
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
  EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"), 400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"), 400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"), 400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: 1e3\r\n\r\n"), 400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: 18446744073709551616\r\n\r\n"), 400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length:\r\n\r\n"), 400);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"), 501);
  EXPECT_EQ(status("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"),
            501);
  EXPECT_EQ(status("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nX : a\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nX: a\nY: b\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nX: a\rb\r\n\r\n"), 400);
  EXPECT_EQ(status(std::string("GET / HTTP/1.1\r\nX: a") + '\0' + "b\r\n\r\n"), 400);
  EXPECT_EQ(status("GET / HTTP/1.1\r\nnocolon\r\n\r\n"), 400);
  EXPECT_EQ(scan("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n").scan,
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

}  // namespace
}  // namespace relforge::platform
