// Strict UTF-8 and the one escaping of text printed on a terminal line.
#include "core/utf8.hpp"

#include <gtest/gtest.h>

namespace relforge::core {
namespace {

TEST(TerminalText, ControlsAndBidiControlsBecomeVisibleEscapes) {
  EXPECT_EQ(terminal_text("test\x1b]0;title\a\x1b[2J\x1b[31mFAKE\nline\r"),
            "test\\x1b]0;title\\x07\\x1b[2J\\x1b[31mFAKE\\nline\\r");
  EXPECT_EQ(terminal_text("a\x7f"
                          "b\xc2\x9b"
                          "c"),
            "a\\x7fb\\x9bc");  // DEL, C1 CSI
  EXPECT_EQ(terminal_text("x\xe2\x80\xae"
                          "y\xe2\x81\xa6"
                          "z\xe2\x80\xa8"),
            "x\\u202ey\\u2066z\\u2028");
  EXPECT_EQ(terminal_text("bad\xff\xc0\xae"), "bad\\xff\\xc0\\xae");  // no well-formed sequence
}

TEST(TerminalText, PrintableTextStaysAsItIs) {
  for (const char* text : {"", "down/accel · ci / build", "naïve 日本 🙂", "tab\there", "a\\x1b"}) {
    EXPECT_EQ(terminal_text(text), text);
  }
}

TEST(Utf8, StrictChecksAndReplacement) {
  EXPECT_TRUE(is_valid_utf8("naïve 日本 🙂"));
  EXPECT_FALSE(is_valid_utf8("\xc0\xae"));          // overlong
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_EQ(to_valid_utf8("a\xff"
                          "b"),
            "a\xef\xbf\xbd"
            "b");
}

}  // namespace
}  // namespace relforge::core
