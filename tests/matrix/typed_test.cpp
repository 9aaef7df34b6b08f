// Typed values: booleans and integers keep their TOML type from the config to JSON and in rules.
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "matrix/emit.hpp"
#include "tests/matrix/support.hpp"

namespace relforge::matrix {
namespace {

using test::column;
using test::error_of;
using test::expand_text;
using test::ids;

const std::string k_typed = R"(
[matrix]
[[matrix.axis]]
name = "os"
values = [
  { value = "linux", upload = true, jobs = 8, label = "false" },
  { value = "windows", upload = false, jobs = 4, label = "true" },
]
[[matrix.axis]]
name = "debug"
values = [false, true]
[[matrix.include]]
os = "windows"
signed = false
retries = 2
[[matrix.field]]
name = "note"
template = "{os}-{debug}"
)";

nlohmann::json github_entries(const Expansion& expansion, const std::vector<std::string>& fields = {}) {
  const auto documents = github_matrices(expansion, fields, k_github_max_jobs);
  EXPECT_EQ(documents.size(), 1u);
  return nlohmann::json::parse(documents.front())["include"];
}

TEST(TypedValues, BooleansAndIntegersStayTypedInGithubJson) {
  auto expansion = expand_text(k_typed);
  ASSERT_TRUE(expansion) << expansion.error().message();
  const auto entries = github_entries(*expansion);
  ASSERT_EQ(entries.size(), 4u);
  // The bug this guards: "false" (a non-empty string) is true in a GitHub Actions `if:`.
  EXPECT_TRUE(entries[0]["debug"].is_boolean());
  EXPECT_EQ(entries[0]["debug"], false);
  EXPECT_EQ(entries[1]["debug"], true);
  EXPECT_EQ(entries[0]["os.upload"], true);
  EXPECT_EQ(entries[2]["os.upload"], false);
  EXPECT_TRUE(entries[0]["os.jobs"].is_number_integer());
  EXPECT_EQ(entries[0]["os.jobs"], 8);
  // Strings stay strings, even when they read like booleans.
  EXPECT_EQ(entries[0]["os.label"], "false");
  EXPECT_EQ(entries[2]["signed"], false);
  EXPECT_EQ(entries[2]["retries"], 2);
  // A template renders text.
  EXPECT_EQ(entries[0]["note"], "linux-false");
  EXPECT_EQ(entries[0]["channel"], "nightly");
}

TEST(TypedValues, EmitJsonKeepsTypes) {
  auto expansion = expand_text(k_typed);
  ASSERT_TRUE(expansion) << expansion.error().message();
  std::ostringstream out;
  emit_json(out, *expansion);
  const auto cells = nlohmann::json::parse(out.str());
  EXPECT_EQ(cells[0]["debug"], false);
  EXPECT_EQ(cells[3]["os.jobs"], 4);
  EXPECT_EQ(cells[3]["debug"], true);
}

TEST(TypedValues, RulesMatchTypedValuesByType) {
  const std::string toml = k_typed + R"(
[[matrix.exclude]]
os = "linux"
debug = true
[[matrix.exclude]]
"os.label" = "true"
debug = false
)";
  auto expansion = expand_text(toml);
  ASSERT_TRUE(expansion) << expansion.error().message();
  EXPECT_EQ(ids(*expansion), (std::vector<std::string>{"linux-false", "windows-true"}));
}

TEST(TypedValues, ABooleanRuleDoesNotMatchTheStringFalse) {
  const std::string toml = k_typed + R"(
[[matrix.exclude]]
"os.label" = false
)";
  // label is the string "false": the boolean false must not remove anything.
  auto expansion = expand_text(toml);
  ASSERT_TRUE(expansion) << expansion.error().message();
  EXPECT_EQ(expansion->cells.size(), 4u);
}

TEST(TypedValues, WhenMatchesTypedAttributes) {
  const std::string toml = k_typed + R"(
[[matrix.field]]
name = "publish"
template = "no"
[[matrix.field]]
name = "publish"
template = "yes"
when = { "os.upload" = true, "os.jobs" = [8, 16] }
)";
  auto expansion = expand_text(toml);
  ASSERT_TRUE(expansion) << expansion.error().message();
  EXPECT_EQ(column(*expansion, "publish"), (std::vector<std::string>{"yes", "yes", "no", "no"}));
}

TEST(TypedValues, FloatsAreRefusedWithTheirLocation) {
  EXPECT_EQ(
      error_of(R"(
[matrix]
[[matrix.axis]]
name = "python"
values = [3.10]
)"),
      "t.toml:5:11: a value of axis 'python' must be a string, boolean, integer or a table with 'value', "
      "not a float (quote it: TOML reads 3.10 as the number 3.1)");
  EXPECT_EQ(
      error_of(k_typed + R"(
[[matrix.exclude]]
debug = 1.5
)"),
      "t.toml:21:9: [[matrix.exclude]] 'debug' must be a string, boolean or integer, or a list of them, "
      "not a float (quote numbers: TOML reads 3.10 as the number 3.1)");
}

TEST(TypedValues, CellTypesSurviveCopies) {
  auto expansion = expand_text(k_typed);
  ASSERT_TRUE(expansion) << expansion.error().message();
  const Cell copy = expansion->cells[0];
  const auto names = *copy.names();
  const auto at = std::find(names.begin(), names.end(), "debug") - names.begin();
  EXPECT_EQ(copy.type(static_cast<std::size_t>(at)), ValueType::boolean);
  const Cell rebuilt(copy.names(), copy.id(), copy.build_id(), copy.values(), nullptr);
  EXPECT_EQ(rebuilt.type(static_cast<std::size_t>(at)), ValueType::string);
  const auto types = copy.types();
  const Cell kept(copy.names(), copy.id(), copy.build_id(), copy.values(), &types);
  EXPECT_EQ(kept.type(static_cast<std::size_t>(at)), ValueType::boolean);
  EXPECT_EQ(kept.value(static_cast<std::size_t>(at)), "false");
}

}  // namespace
}  // namespace relforge::matrix
