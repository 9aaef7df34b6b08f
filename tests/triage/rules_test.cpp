#include "triage/rules.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "core/utf8.hpp"
#include "tests/support/paths.hpp"
#include "triage/classify.hpp"
#include "triage/preprocess.hpp"

namespace relforge::triage {
namespace {

TEST(Rules, ParsesOrderCategoryFlakyAndPreprocess) {
  auto spec = parse_rule_spec(R"(
[preprocess]
ignore = ['^noise']
[[preprocess.skip_block]]
start = '^BEGIN$'
end = '^END$'
[[rule]]
name = "first"
pattern = 'alpha (\d+)'
category = "test"
flaky = true
[[rule]]
name = "second"
pattern = 'beta'
)",
                              "t.toml");
  ASSERT_TRUE(spec) << spec.error().describe();
  ASSERT_EQ(spec->rules.size(), 2u);
  EXPECT_EQ(spec->rules[0].name, "first");
  EXPECT_TRUE(spec->rules[0].flaky);
  EXPECT_EQ(spec->rules[1].category, "generic");
  EXPECT_FALSE(spec->rules[1].flaky);
  ASSERT_EQ(spec->skip_blocks.size(), 1u);
  EXPECT_EQ(spec->ignore, std::vector<std::string>{"^noise"});

  auto compiled = compile_rules(*spec);
  ASSERT_TRUE(compiled);
  auto result = classify("beta\nalpha 7\nnoise alpha 9\nBEGIN\nalpha 8\nEND\nbeta\n", *compiled);
  ASSERT_TRUE(result.match);
  EXPECT_EQ(result.match->rule, "first");
  EXPECT_EQ(result.match->line_num, 2u);  // the ignored and the skipped lines are never chosen
  EXPECT_EQ(result.match->captures, std::vector<std::string>{"7"});
}

TEST(Rules, ASummaryRuleClaimsItsLinesAndLosesToAnySpecificErrorAbove) {
  auto spec = parse_rule_spec(R"(
[[rule]]
name = "exception"
pattern = '^(\w+Error): (.*)'
[[rule]]
name = "summary"
summary = true
pattern = '^RuntimeError: (\S+) \d+/\d+ failed!'
[[rule]]
name = "catch_all"
pattern = '^##\[error\](.*)'
)",
                              "s.toml");
  ASSERT_TRUE(spec) << spec.error().describe();
  EXPECT_FALSE(spec->rules[0].summary);
  EXPECT_TRUE(spec->rules[1].summary);
  auto compiled = compile_rules(*spec);
  ASSERT_TRUE(compiled);
  // The exception rule would take the later summary line (last match wins) without the claim.
  auto above = classify("SyntaxError: bad\nRuntimeError: test_ops 3/4 failed!\n##[error]boom\n", *compiled);
  ASSERT_TRUE(above.match);
  EXPECT_EQ(above.match->rule, "exception");
  EXPECT_EQ(above.match->line_num, 1u);
  // Alone, the summary line is the explanation, chosen by the summary rule itself.
  auto alone = classify("progress\nRuntimeError: test_ops 3/4 failed!\n##[error]boom\n", *compiled);
  ASSERT_TRUE(alone.match);
  EXPECT_EQ(alone.match->rule, "summary");
  EXPECT_EQ(alone.match->line_num, 2u);
  EXPECT_EQ(alone.match->captures, std::vector<std::string>{"test_ops"});
  // Lines the summary rule does not match are untouched.
  auto other = classify("RuntimeError: CUDA failure\n", *compiled);
  ASSERT_TRUE(other.match);
  EXPECT_EQ(other.match->rule, "exception");
}

// PyTorch's published log-classifier ruleset is ordered (name, pattern) pairs in which a name may
// come back for another spelling of the same failure; such a file loads as it is.
TEST(Rules, APyTorchStyleRulesetWithRepeatedNamesLoadsAndKeepsItsOrder) {
  auto spec = parse_rule_spec(R"(
[[rule]]
name = "pytest failure"
pattern = '^FAILED (.*)'
[[rule]]
name = "Python unittest failure"
pattern = 'FAIL \[.*\]: (test.*) \((?:__main__\.)?(.*)\)'
[[rule]]
name = "Python RuntimeError"
pattern = '^RuntimeError: (CUDA error: .*)'
[[rule]]
name = "MSVC compiler error"
pattern = '^.*\(\d+\): error C\d+:.*'
[[rule]]
name = "Python RuntimeError"
pattern = '^RuntimeError: (.*)'
[[rule]]
name = "GHA error"
pattern = '^##\[error\](.*)'
)",
                              "pytorch.toml");
  ASSERT_TRUE(spec) << spec.error().describe();
  ASSERT_EQ(spec->rules.size(), 6u);
  EXPECT_EQ(spec->rules[2].name, spec->rules[4].name);
  auto compiled = compile_rules(*spec);
  ASSERT_TRUE(compiled) << compiled.error().describe();
  // The later alternative of a repeated name still ranks below the rules between the two.
  auto msvc =
      classify("a.cpp(3): error C2065: x\nRuntimeError: test_ops 1/1 failed!\n##[error]boom\n", *compiled);
  ASSERT_TRUE(msvc.match);
  EXPECT_EQ(msvc.match->rule, "MSVC compiler error");
  auto generic = classify("RuntimeError: test_ops 1/1 failed!\n##[error]boom\n", *compiled);
  ASSERT_TRUE(generic.match);
  EXPECT_EQ(generic.match->rule, "Python RuntimeError");
  EXPECT_EQ(generic.match->priority, 4u);
  EXPECT_EQ(generic.match->captures, std::vector<std::string>{"test_ops 1/1 failed!"});
  auto cuda = classify("RuntimeError: CUDA error: device-side assert triggered\n", *compiled);
  ASSERT_TRUE(cuda.match);
  EXPECT_EQ(cuda.match->rule, "Python RuntimeError");
  EXPECT_EQ(cuda.match->priority, 2u);
  EXPECT_EQ(cuda.match->captures, std::vector<std::string>{"CUDA error: device-side assert triggered"});
}

TEST(Rules, SummaryMustBeABoolean) {
  auto summary = parse_rule_spec("[[rule]]\nname='a'\npattern='x'\nsummary='yes'\n", "a.toml");
  ASSERT_FALSE(summary);
  EXPECT_NE(summary.error().message().find("a.toml:4:9: `summary` in [[rule]] #1 (a) must be true or false"),
            std::string::npos)
      << summary.error().message();
}

TEST(Rules, InvalidRegexNamesTheRuleAndLoadsNothing) {
  auto spec = parse_rule_spec(R"(
[[rule]]
name = "fine"
pattern = 'ok'
[[rule]]
name = "broken_group"
pattern = 'error: (unclosed'
)",
                              "r.toml");
  ASSERT_TRUE(spec);
  auto compiled = compile_rules(*spec);
  ASSERT_FALSE(compiled);
  EXPECT_EQ(compiled.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(compiled.error().message().find("broken_group"), std::string::npos);
  EXPECT_NE(compiled.error().message().find("missing )"), std::string::npos) << compiled.error().message();
}

TEST(Rules, LookaroundIsRejectedWithAHint) {
  auto spec = parse_rule_spec("[[rule]]\nname = \"look\"\npattern = '(?<=x)y'\n", "r.toml");
  ASSERT_TRUE(spec);
  auto compiled = compile_rules(*spec);
  ASSERT_FALSE(compiled);
  EXPECT_NE(compiled.error().message().find("lookaround"), std::string::npos);
}

TEST(Rules, StructuralMistakesAreReported) {
  EXPECT_FALSE(parse_rule_spec("[[rule]]\nname = \"x\"\n", "a.toml"));   // no pattern
  EXPECT_FALSE(parse_rule_spec("[[rule]]\npattern = 'x'\n", "a.toml"));  // no name
  EXPECT_FALSE(parse_rule_spec("", "a.toml"));                           // no rules
  auto typo = parse_rule_spec("[[rule]]\nname='a'\npatern='x'\n", "a.toml");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message().find("patern"), std::string::npos);
  auto flaky = parse_rule_spec("[[rule]]\nname='a'\npattern='x'\nflaky='yes'\n", "a.toml");
  ASSERT_FALSE(flaky);
  auto bad_toml = parse_rule_spec("[[rule]\n", "bad.toml");
  ASSERT_FALSE(bad_toml);
  EXPECT_NE(bad_toml.error().message().find("bad.toml:1"), std::string::npos);
}

TEST(Rules, UnknownKeysNameTheirPlaceAndTheLikelyKey) {
  auto rule = parse_rule_spec("[[rule]]\nname='a'\npatern='x'\n", "a.toml");
  ASSERT_FALSE(rule);
  EXPECT_EQ(rule.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(
      rule.error().message().find("a.toml:3:1: unknown key 'patern' in [[rule]] #1; did you mean 'pattern'?"),
      std::string::npos)
      << rule.error().message();
  auto block = parse_rule_spec(
      "[[preprocess.skip_block]]\nstart='a'\nstop='b'\n[[rule]]\nname='a'\npattern='x'\n", "a.toml");
  ASSERT_FALSE(block);
  EXPECT_NE(block.error().message().find("a.toml:3:1: unknown key 'stop' in [[preprocess.skip_block]] #1"),
            std::string::npos)
      << block.error().message();
  auto top = parse_rule_spec("[[rules]]\nname='a'\npattern='x'\n", "a.toml");
  ASSERT_FALSE(top);
  EXPECT_NE(
      top.error().message().find("a.toml:1:3: unknown key 'rules' in the rules file; did you mean 'rule'?"),
      std::string::npos)
      << top.error().message();
}

TEST(Rules, WrongTypesNameTheirPlace) {
  auto flaky = parse_rule_spec("[[rule]]\nname='a'\npattern='x'\nflaky='yes'\n", "a.toml");
  ASSERT_FALSE(flaky);
  EXPECT_NE(flaky.error().message().find(
                "a.toml:4:7: `flaky` in [[rule]] #1 (a) must be true or false, not a string"),
            std::string::npos)
      << flaky.error().message();
  auto pattern = parse_rule_spec("[[rule]]\nname='a'\npattern=3\n", "a.toml");
  ASSERT_FALSE(pattern);
  EXPECT_NE(pattern.error().message().find("a.toml:3:9: `pattern` in [[rule]] #1 (a) must be a string"),
            std::string::npos)
      << pattern.error().message();
  auto ignore = parse_rule_spec("[preprocess]\nignore=['a', 1]\n[[rule]]\nname='a'\npattern='x'\n", "a.toml");
  ASSERT_FALSE(ignore);
  EXPECT_NE(
      ignore.error().message().find("a.toml:2:14: each `ignore` entry in [preprocess] must be a string"),
      std::string::npos)
      << ignore.error().message();
}

TEST(Rules, TheBuiltInRulesStillLoad) {
  auto spec = parse_rule_spec(default_rules_toml(), "<built-in rules>");
  ASSERT_TRUE(spec) << spec.error().describe();
  EXPECT_FALSE(spec->rules.empty());
  std::ifstream doc(relforge::test::source_dir() + "/docs/triage.md");
  const std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  const std::string open = "```toml\n";
  const auto begin = text.find(open);
  ASSERT_NE(begin, std::string::npos);
  const auto end = text.find("```", begin + open.size());
  ASSERT_NE(end, std::string::npos);
  auto documented =
      parse_rule_spec(text.substr(begin + open.size(), end - begin - open.size()), "rules.toml");
  ASSERT_TRUE(documented) << documented.error().describe();
  EXPECT_EQ(documented->rules.size(), 1u);
  EXPECT_EQ(documented->skip_blocks.size(), 1u);
}

TEST(Preprocess, StripsTimestampsAndAnsi) {
  EXPECT_EQ(strip_timestamp("2024-05-14T09:12:01.1234567Z hello"), "hello");
  EXPECT_EQ(strip_timestamp("2024-05-14T09:12:01Z hello"), "hello");
  EXPECT_EQ(strip_timestamp("2024-05-14 not a timestamp"), "2024-05-14 not a timestamp");
  EXPECT_EQ(strip_timestamp("2024-05-14T09:12:01.123"), "2024-05-14T09:12:01.123");
  std::string scratch;
  EXPECT_EQ(strip_ansi("\x1b[31mFAILED\x1b[0m x \x1b[1;32mok\x1b[0m", scratch), "FAILED x ok");
  EXPECT_EQ(strip_ansi("\x1b]0;title\x07text", scratch), "text");
  EXPECT_EQ(clean_line("2024-05-14T09:12:01.1234567Z \x1b[31mE\x1b[0m\r", scratch), "E");
}

TEST(Preprocess, ValidUtf8PassesThroughAndInvalidIsReplaced) {
  EXPECT_EQ(core::to_valid_utf8("plain ✓ é"), "plain ✓ é");
  EXPECT_EQ(core::to_valid_utf8("a\xffz"), "a\xEF\xBF\xBDz");
  EXPECT_EQ(core::to_valid_utf8("\xed\xa0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(core::to_valid_utf8("\xe2\x9c"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // truncated
}

TEST(Rules, DeepTomlIsRefusedBeforeParsing) {
  const auto deep = parse_rule_spec(
      std::string(1, '[') +
          [] {
            std::string a;
            for (int i = 0; i < 40000; ++i) a += "a.";
            return a;
          }() +
          "a]\n",
      "r.toml");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(deep.error().message().find("r.toml:1:1: TOML nested deeper than 64 levels"), std::string::npos)
      << deep.error().message();
}

}  // namespace
}  // namespace relforge::triage
