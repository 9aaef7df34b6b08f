#include "signing/dsse.hpp"

#include <gtest/gtest.h>

namespace relforge::signing {
namespace {

TEST(Pae, MatchesTheSpecVectors) {
  EXPECT_EQ(pae("http://example.com/HelloWorld", "hello world"),
            "DSSEv1 29 http://example.com/HelloWorld 11 hello world");
  EXPECT_EQ(pae("application/vnd.in-toto+json", "{}"), "DSSEv1 28 application/vnd.in-toto+json 2 {}");
}

TEST(Pae, CountsBytesNotCharacters) {
  EXPECT_EQ(pae("t", "\xc3\xa9"), "DSSEv1 1 t 2 \xc3\xa9");
  EXPECT_EQ(pae("", ""), "DSSEv1 0  0 ");
}

TEST(Base64, EncodesWithPaddingAndRoundTrips) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("\xff\xfe\xfd"), "//79");
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (std::size_t n = 0; n < all.size(); n += 37) {
    const auto text = all.substr(0, n);
    EXPECT_EQ(base64_decode(base64_encode(text)).value(), text);
  }
}

TEST(Base64, RejectsGarbage) {
  EXPECT_FALSE(base64_decode("ab$d"));
  EXPECT_FALSE(base64_decode("Zg==Zg"));
}

TEST(Base64, AcceptsTheSpellingsDsseAllows) {
  EXPECT_EQ(base64_decode("+/8=").value(), "\xfb\xff");
  EXPECT_EQ(base64_decode("-_8=").value(), "\xfb\xff");
  EXPECT_EQ(base64_decode("-_8").value(), "\xfb\xff");
  EXPECT_EQ(base64_decode("Zm9v\nYmFy").value(), "foobar");
}

TEST(Base64, RefusesMixedAlphabetsImpossibleLengthsAndWrongPadding) {
  EXPECT_FALSE(base64_decode("+_8="));   // both alphabets: Go's protojson refuses, Python drops '_'
  EXPECT_FALSE(base64_decode("Zm9vY"));  // 1 mod 4: no encoder writes it
  EXPECT_FALSE(base64_decode("Z"));
  EXPECT_FALSE(base64_decode("Zg="));  // padding that does not fill the quantum
  EXPECT_FALSE(base64_decode("Zm8=="));
  EXPECT_FALSE(base64_decode("Zm9v===="));
  EXPECT_EQ(base64_decode("Zm8=").value(), "fo");
}

TEST(Envelope, RoundTripsThroughJson) {
  Envelope envelope;
  envelope.payload = "{\"a\":1}";
  envelope.signatures.push_back({"kid", std::string("\x00\x01sig", 5)});
  const auto json = envelope_to_json(envelope);
  EXPECT_EQ(json["payloadType"], "application/vnd.in-toto+json");
  EXPECT_EQ(json["payload"], base64_encode(envelope.payload));
  EXPECT_EQ(json["signatures"][0]["keyid"], "kid");
  const auto back = envelope_from_json(nlohmann::json::parse(json.dump()));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->payload, envelope.payload);
  EXPECT_EQ(back->signatures.at(0).signature, envelope.signatures[0].signature);
  EXPECT_FALSE(envelope_from_json(nlohmann::json::parse(R"({"payload": 1})")));
}

}  // namespace
}  // namespace relforge::signing
