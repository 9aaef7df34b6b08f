// YAML's unsafe characters and the double-quoted scalar every YAML writer of relforge uses.
#include "core/yaml_text.hpp"

#include <gtest/gtest.h>

namespace relforge::core {
namespace {

TEST(YamlText, LineBreaksOfYaml11C1ControlsAndTheByteOrderMarkAreUnsafe) {
  for (const char* text : {"a\xc2\x85"
                           "b",
                           "a\xe2\x80\xa8"
                           "b",
                           "a\xe2\x80\xa9"
                           "b",
                           "\xef\xbb\xbf"
                           "a",
                           "\xc2\x80", "x\xc2\x9f"}) {
    EXPECT_TRUE(has_yaml_unsafe_character(text)) << text;
  }
  for (const char* text : {"", "linux.2xlarge", "naïve ü", "\xc2\xa0", "\xe2\x80\xa7", "\xe2\x80\xaa", "日本",
                           "\xc2", "\xe2\x80"}) {
    EXPECT_FALSE(has_yaml_unsafe_character(text)) << text;
  }
}

TEST(YamlText, DoubleQuotedEscapesWhatAParserWouldNotReadBack) {
  EXPECT_EQ(yaml_double_quoted("plain"), "\"plain\"");
  EXPECT_EQ(yaml_double_quoted("say \"hi\"\\now"), "\"say \\\"hi\\\"\\\\now\"");
  EXPECT_EQ(yaml_double_quoted("a\nb\tc\rd\x01\x7f"), "\"a\\nb\\tc\\rd\\x01\\x7f\"");
  EXPECT_EQ(yaml_double_quoted("a\xc2\x85"
                               "b\xe2\x80\xa8"
                               "c\xe2\x80\xa9"
                               "d\xef\xbb\xbf"
                               "e\xc2\x9b"),
            "\"a\\u0085b\\u2028c\\u2029d\\ufeffe\\u009b\"");
  EXPECT_EQ(yaml_double_quoted("naïve: ü 日本"), "\"naïve: ü 日本\"");  // other UTF-8 as it is
}

}  // namespace
}  // namespace relforge::core
