#include "packaging/names.hpp"

#include <gtest/gtest.h>

namespace relforge::packaging {
namespace {

TEST(Names, Pep503Normalisation) {
  EXPECT_EQ(normalize_project_name("Torch"), "torch");
  EXPECT_EQ(normalize_project_name("Foo__Bar..baz"), "foo-bar-baz");
  EXPECT_EQ(normalize_project_name("a-_.-b"), "a-b");
  EXPECT_EQ(normalize_project_name("_leading.trailing-"), "-leading-trailing-");
  EXPECT_EQ(normalize_project_name(""), "");
}

TEST(Names, WheelFileNameComponent) {
  EXPECT_EQ(wheel_file_name_component("Foo.Bar--Baz"), "foo_bar_baz");
  EXPECT_EQ(wheel_file_name_component("torch"), "torch");
  EXPECT_EQ(wheel_file_name_component("typing-extensions"), "typing_extensions");
}

TEST(Names, ValidProjectNames) {
  for (const auto* name : {"torch", "Torch_Audio", "a", "1", "zope.interface", "a-_.b"}) {
    EXPECT_TRUE(is_valid_project_name(name)) << name;
  }
  for (const auto* name : {"", "-x", "x-", ".x", "a b", "a+b", "caf\xC3\xA9"}) {
    EXPECT_FALSE(is_valid_project_name(name)) << name;
  }
}

TEST(Names, NormalizedProjectNames) {
  for (const auto* name : {"torch", "torch-audio", "a", "1-2-3"})
    EXPECT_TRUE(is_normalized_project_name(name)) << name;
  for (const auto* name : {"Torch", "torch_audio", "torch.audio", "a--b", "-a", "a-", ""}) {
    EXPECT_FALSE(is_normalized_project_name(name)) << name;
  }
}

TEST(Names, PythonLowerIsUnicodeAware) {
  EXPECT_EQ(python_lower("\xC3\x89T\xC3\x89"), "\xC3\xA9t\xC3\xA9");  // ÉTÉ -> été
  EXPECT_EQ(python_lower("\xC7\x85"), "\xC7\x86");                    // titlecase Dž -> dž
  EXPECT_EQ(python_lower("\xC4\xB0"), "i\xCC\x87");                   // İ -> i + combining dot
  EXPECT_EQ(python_lower("\xE2\x84\xAA"), "k");                       // KELVIN SIGN -> k
  EXPECT_EQ(python_lower("\xC3\x9F"), "\xC3\x9F");                    // ß stays
  EXPECT_EQ(python_lower("\xF0\x90\x90\x80"), "\xF0\x90\x90\xA8");    // DESERET CAPITAL LONG I
  EXPECT_EQ(python_lower("A\xFF"
                         "B"),
            "a\xFF"
            "b");  // invalid bytes pass through
  // Documented gap: Python would choose the final sigma here ("ας").
  EXPECT_EQ(python_lower("\xCE\x91\xCE\xA3"), "\xCE\xB1\xCF\x83");
  EXPECT_EQ(normalize_project_name("\xC3\x89T\xC3\x89_Caf\xC3\x89"), "\xC3\xA9t\xC3\xA9-caf\xC3\xA9");
}

TEST(Names, PythonWordAndDigitClasses) {
  EXPECT_TRUE(is_python_word_char('_'));
  EXPECT_TRUE(is_python_word_char('z'));
  EXPECT_FALSE(is_python_word_char('-'));
  EXPECT_FALSE(is_python_word_char('.'));
  EXPECT_TRUE(is_python_word_char(U'\u00e9'));   // é
  EXPECT_TRUE(is_python_word_char(U'\u4e2d'));   // 中
  EXPECT_TRUE(is_python_word_char(U'\u00b2'));   // ² is numeric, so alnum
  EXPECT_FALSE(is_python_word_char(U'\u00d7'));  // ×
  EXPECT_FALSE(is_python_word_char(U'\u2014'));  // em dash
  EXPECT_EQ(python_digit_value('7'), 7u);
  EXPECT_EQ(python_digit_value(U'\u0663'), 3u);  // ARABIC-INDIC DIGIT THREE
  EXPECT_EQ(python_digit_value(U'\u00b2'), std::nullopt);
  EXPECT_EQ(python_digit_value('a'), std::nullopt);
}

TEST(Names, Utf8Decoding) {
  std::size_t pos = 0;
  const std::string text = "a\xC3\xA9\xF0\x9F\x98\x80\xC3";
  EXPECT_EQ(next_code_point(text, pos), U'a');
  EXPECT_EQ(next_code_point(text, pos), U'\u00e9');
  EXPECT_EQ(next_code_point(text, pos), U'\U0001F600');
  EXPECT_EQ(next_code_point(text, pos), std::nullopt);  // truncated sequence
  EXPECT_EQ(pos, text.size());
  pos = 0;
  EXPECT_EQ(next_code_point("\xC0\x80", pos), std::nullopt);  // overlong
  EXPECT_EQ(pos, 1u);
  pos = 0;
  EXPECT_EQ(next_code_point("\xED\xA0\x80", pos), std::nullopt);  // surrogate
  for (const char32_t c : {U'a', U'\u00e9', U'\u4e2d', U'\U0001F600'}) {
    pos = 0;
    EXPECT_EQ(next_code_point(encode_utf8(c), pos), c);
  }
}

}  // namespace
}  // namespace relforge::packaging
