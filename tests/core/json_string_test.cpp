#include <gtest/gtest.h>

#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "core/text.hpp"

namespace relforge::core {
namespace {

std::string as_json(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

// The oracle: what nlohmann writes for the same bytes (the escaper's contract).
std::string oracle(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

TEST(JsonString, EscapesLikeNlohmann) {
  EXPECT_EQ(as_json("plain"), "\"plain\"");
  EXPECT_EQ(as_json(std::string("a\tb\nc\x01", 6)), "\"a\\tb\\nc\\u0001\"");
  EXPECT_EQ(as_json("\b\f\r\"\\\x7f"), "\"\\b\\f\\r\\\"\\\\\x7f\"");
  EXPECT_EQ(as_json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
}

TEST(JsonString, ReplacesIllFormedUtf8AsNlohmannDoes) {
  for (const std::string& text :
       {std::string("\xff"), std::string("a\xc3"), std::string("\xe2\x82"), std::string("\xe2\x82z"),
        std::string("\xed\xa0\x80"), std::string("\xc0\xaf"), std::string("\xf4\x90\x80\x80"),
        std::string("\xf0\x9f\x98"), std::string("\x80\x80"), std::string("\xe0\x80\x80")}) {
    EXPECT_EQ(as_json(text), oracle(text)) << text.size() << " bytes";
  }
}

// Thousands of random byte strings, weighted towards the bytes that need care.
TEST(JsonString, AgreesWithNlohmannOnRandomBytes) {
  std::mt19937 random(20261130);
  const std::string alphabet = std::string("a\"\\\b\f\n\r\t\x01\x1f\x7f", 12) +
                               "\x80\xbf\xc2\xdf\xe0\xed\xef\xf0\xf4\xf5\xff\xa0\x9f\x90\x8f";
  for (int round = 0; round < 20000; ++round) {
    std::string text(random() % 12, '\0');
    for (char& c : text) {
      c = random() % 4 == 0 ? static_cast<char>(random() % 256) : alphabet[random() % alphabet.size()];
    }
    ASSERT_EQ(as_json(text), oracle(text)) << "round " << round;
  }
}

}  // namespace
}  // namespace relforge::core
