// The chunked-body decoder: what RFC 9112 §7.1 allows decodes, in any split of its bytes; every
// shape another parser could read differently is refused, with the byte where the body ends.
#include "platform/http_chunked.hpp"

#include <gtest/gtest.h>

namespace relforge::platform {
namespace {

struct Decoded {
  ChunkedScan scan;
  std::string body;
  int status;
  std::size_t consumed;
};

Decoded decode(std::string_view bytes, std::size_t step = 0, std::size_t max_body = 1000) {
  ChunkedDecoder decoder(max_body, 64);
  std::size_t consumed = 0;
  if (step == 0) step = bytes.size();
  for (std::size_t at = 0; at < bytes.size() && decoder.scan() == ChunkedScan::incomplete; at += step) {
    const auto piece = bytes.substr(at, step);
    const std::size_t took = decoder.feed(piece);
    consumed += took;
    if (took < piece.size()) break;
  }
  return {decoder.scan(), decoder.body(), decoder.status(), consumed};
}

TEST(ChunkedDecoder, DecodesInAnySplitAndStopsAtTheEndOfTheBody) {
  const std::string body = "5\r\nhello\r\n1;name=\"v\"\r\n \r\nA \t;ext\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n";
  for (std::size_t step : {0, 1, 2, 3, 7}) {
    const auto decoded = decode(body + "GET / HTTP/1.1\r\n", step);
    EXPECT_EQ(decoded.scan, ChunkedScan::complete) << step;
    EXPECT_EQ(decoded.body, "hello 0123456789") << step;
    EXPECT_EQ(decoded.consumed, body.size()) << step;  // the next request is left where it is
  }
  EXPECT_EQ(decode("0\r\n\r\n").scan, ChunkedScan::complete);
  EXPECT_EQ(decode("000\r\n\r\n").body, "");
  EXPECT_EQ(decode("5\r\nhel").scan, ChunkedScan::incomplete);
}

// Each of these was accepted by the server's former chunked reader; a proxy in front framing the
// bytes the strict way would then see a different request stream than the server.
TEST(ChunkedDecoder, SmugglingShapesAreRefused) {
  for (const std::string bad : {
           "38zz\r\n",                                // junk after the size
           "38 garbage\r\n",                          // text after whitespace
           "0x38\r\n",                                // a C prefix
           " 38\r\n",                                 // leading whitespace
           "-5\r\n",                                  // a sign
           "+5\r\n",                                  //
           "\r\n",                                    // no size at all
           "5\nhello\r\n0\r\n\r\n",                   // bare LF after the size
           "5\r\nhelloXX\r\n0\r\n\r\n",               // data longer than its size
           "5\r\nhello\n0\r\n\r\n",                   // bare LF after the data
           "5\r\nhello\r\n0\r\nbad trailer\r\n\r\n",  // a trailer that is no field
           "5\r\nhello\r\n0\r\n: v\r\n\r\n",          // a trailer without a name
           "5\r\nhello\r\n0\r\n\r\r\n",               // a bare CR
           "1;\x01\r\nx\r\n0\r\n\r\n",                // a control byte in an extension
           "5 \r\nhello\r\n0\r\n\r\n",                // whitespace without an extension
       }) {
    const auto decoded = decode(bad);
    EXPECT_EQ(decoded.scan, ChunkedScan::rejected) << bad;
    EXPECT_EQ(decoded.status, 400) << bad;
  }
}

TEST(ChunkedDecoder, SizesBeyondTheLimitAre413WithoutReadingThem) {
  EXPECT_EQ(decode("3e9\r\n").status, 413);  // 1001 > 1000
  EXPECT_EQ(decode("3e8\r\n").scan, ChunkedScan::incomplete);
  EXPECT_EQ(decode("ffffffffffffffffffffffff\r\n").status, 413);  // would overflow 64 bits
  EXPECT_EQ(decode("3e8\r\n" + std::string(1000, 'x') + "\r\n1\r\n").status, 413);
  ChunkedDecoder unlimited(static_cast<std::size_t>(-1), 64);
  unlimited.feed("ffffffffffffffffff\r\n");  // 18 digits: more than any size_t
  EXPECT_EQ(unlimited.status(), 413);
}

TEST(ChunkedDecoder, LinesAndTrailersAreBounded) {
  EXPECT_EQ(decode("1;" + std::string(100, 'e') + "\r\n").status, 400);
  std::string trailers = "0\r\n";
  for (int i = 0; i < 10; ++i) trailers += "X-Field: " + std::string(40, 'v') + "\r\n";
  EXPECT_EQ(decode(trailers + "\r\n").status, 400);
}

}  // namespace
}  // namespace relforge::platform
