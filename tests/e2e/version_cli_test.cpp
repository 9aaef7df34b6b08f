// `relforge version sort|compare|match|normalize` through the real binary: text and JSON output,
// exit codes, and bad input (message on stderr, nothing on stdout).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/run.hpp"

namespace {

using relforge::test::relforge;
using relforge::test::RunResult;
using Json = nlohmann::json;

const std::string k_hint = "a PEP 440 version looks like 1.0, 2.6.0rc1, 1!2.0.post1.dev3 or 2.6.0+cu126";

Json parse_json(const RunResult& result, int exit_code = 0) {
  EXPECT_EQ(result.exit_code, exit_code) << result.err;
  EXPECT_EQ(result.err, "");
  return Json::parse(result.out, nullptr, false);
}

void expect_error(const RunResult& result, const std::string& message, int exit_code = 2) {
  EXPECT_EQ(result.exit_code, exit_code);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
}

TEST(VersionCli, SortsTheReferenceChain) {
  const auto result = relforge("version sort",
                               "2.7.0.dev20250301\n2.6.0.post1\n2.6.0+cu126\n\n  2.6.0+cpu\n2.6.0\n"
                               "2.6.0rc1\n2.6.0a1.dev1\n2.6.0.dev20250101+cu126\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out,
            "2.6.0.dev20250101+cu126\n2.6.0a1.dev1\n2.6.0rc1\n2.6.0\n2.6.0+cpu\n2.6.0+cu126\n"
            "2.6.0.post1\n2.7.0.dev20250301\n");
  EXPECT_EQ(result.err, "");
}

TEST(VersionCli, SortKeepsSpellingsAndInputOrderOfEqualVersions) {
  const auto result = relforge("version sort", "1.0.0\nv1.0-RC1\n1.0\n0.9\r\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "0.9\nv1.0-RC1\n1.0.0\n1.0\n");
  const auto reversed = relforge("version sort --reverse", "1.0.0\nv1.0-RC1\n1.0\n0.9\n");
  EXPECT_EQ(reversed.out, "1.0.0\n1.0\nv1.0-RC1\n0.9\n");
}

TEST(VersionCli, SortJsonIsAnArray) {
  const auto json = parse_json(relforge("version sort --json -r", "2.6.0\n2.10.0\n2.9.1\n"));
  EXPECT_EQ(json, Json({"2.10.0", "2.9.1", "2.6.0"}));
  EXPECT_EQ(parse_json(relforge("version sort --json", "")), Json::array());
}

TEST(VersionCli, SortNamesTheBadLines) {
  expect_error(relforge("version sort", "1.0\nfoo\n2.0\n"),
               "relforge: error: stdin line 2: invalid version 'foo': expected a release number at column 1, "
               "found 'f'; " +
                   k_hint + "\n");
  const auto many = relforge("version sort", "1.0\n\nfoo\n2.0\n1.0+\n");
  expect_error(
      many, "relforge: error: 2 of 4 lines are not PEP 440 versions:\n  stdin line 3: invalid version 'foo'");
  EXPECT_NE(many.err.find("\n  stdin line 5: invalid version '1.0+'"), std::string::npos) << many.err;
  const auto json = relforge("version sort --json", "bar\n");
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_EQ(json.out, "");
  const Json error = Json::parse(json.err, nullptr, false);
  EXPECT_EQ(error["error"]["category"], "invalid_input");
  EXPECT_EQ(error["error"]["exit_code"], 2);
  EXPECT_EQ(error["error"]["message"].get<std::string>().rfind("stdin line 1: invalid version 'bar'", 0), 0u);
}

TEST(VersionCli, Compare) {
  EXPECT_EQ(relforge("version compare 2.6.0rc1 2.6.0").out, "<\n");
  EXPECT_EQ(relforge("version compare 1.0 1.0.0").out, "==\n");
  const auto greater = relforge("version compare 2.6.0+cu126 2.6.0+cpu");
  EXPECT_EQ(greater.out, ">\n");
  EXPECT_EQ(greater.exit_code, 0);
  const auto json = parse_json(relforge("version compare --json 1.0-RC1 1.0"));
  EXPECT_EQ(json, Json({{"a", "1.0-RC1"}, {"b", "1.0"}, {"result", "<"}}));
}

TEST(VersionCli, CompareRejectsBadVersions) {
  expect_error(relforge("version compare 1.0 2.0-"),
               "relforge: error: argument B: invalid version '2.0-': unexpected '-' at column 4; " + k_hint);
  expect_error(relforge("version compare 1.0"), "b is required");
}

TEST(VersionCli, MatchPrintsTheAdmittedVersions) {
  const auto result = relforge("version match '>=2.6,<2.8' 2.5 2.6.0+cu126 2.7.0.dev1 v2.7.1 2.8");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "2.6.0+cu126\nv2.7.1\n");
  EXPECT_EQ(relforge("version match '>=2.6' --pre 2.7.0.dev1").out, "2.7.0.dev1\n");
  EXPECT_EQ(relforge("version match '>=2.7.0rc1' 2.7.0rc2").out, "2.7.0rc2\n");  // named pre-release
  EXPECT_EQ(relforge("version match '==2.6.*' 2.6 2.6.3 2.7").out, "2.6\n2.6.3\n");
  EXPECT_EQ(relforge("version match '>2.6.0' 2.6.0+cu126 2.6.0.post1 2.6.1").out, "2.6.1\n");
  EXPECT_EQ(relforge("version match '' 1.0 2.0a1").out, "1.0\n");
}

TEST(VersionCli, MatchJson) {
  const auto json = parse_json(relforge("version match --json '<2.8, >=2.6' 2.5 2.6.0 2.7.0rc1"));
  EXPECT_EQ(json["specifiers"], "<2.8,>=2.6");
  EXPECT_EQ(json["prereleases"], false);
  EXPECT_EQ(json["matches"], Json({"2.6.0"}));
  EXPECT_EQ(json["rejected"], Json({"2.5", "2.7.0rc1"}));
}

TEST(VersionCli, MatchingNothingExitsOne) {
  const auto none = relforge("version match '>=3' 2.0 2.9");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.out, "");
  EXPECT_EQ(none.err, "");
  EXPECT_EQ(relforge("version match '>=3' 3.0a1").exit_code, 1);  // a pre-release, not admitted
  const auto json = parse_json(relforge("version match --json '>=3' 2.0"), 1);
  EXPECT_EQ(json["matches"], Json::array());
}

TEST(VersionCli, MatchRejectsBadInput) {
  expect_error(relforge("version match '>=3.*' 2.0"),
               "relforge: error: invalid specifier '>=3.*': a '.*' wildcard is only allowed with == and !=");
  expect_error(relforge("version match '>=1, 2.0' 2.0"),
               "relforge: error: specifier set '>=1, 2.0': invalid specifier '2.0': it does not start with a "
               "comparison operator");
  expect_error(relforge("version match '~=2' 2.0"), "~= needs at least two release numbers");
  expect_error(relforge("version match '>=1' 2.0 nope"), "relforge: error: invalid version 'nope'");
}

TEST(VersionCli, Normalize) {
  const auto result = relforge("version normalize 1.0-RC1 v1.0 1.0.0-dev3 1.0-1 ' 1!2.0 ' 1.0+Ubuntu-1");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "1.0rc1\n1.0\n1.0.0.dev3\n1.0.post1\n1!2.0\n1.0+ubuntu.1\n");
}

TEST(VersionCli, NormalizeJsonHasTheParts) {
  const auto json = parse_json(relforge("version normalize --json 1!2.6.0-RC1.post2.dev3+CU126"));
  ASSERT_EQ(json.size(), 1u);
  const auto& v = json[0];
  EXPECT_EQ(v["input"], "1!2.6.0-RC1.post2.dev3+CU126");
  EXPECT_EQ(v["normalized"], "1!2.6.0rc1.post2.dev3+cu126");
  EXPECT_EQ(v["public"], "1!2.6.0rc1.post2.dev3");
  EXPECT_EQ(v["base"], "1!2.6.0");
  EXPECT_EQ(v["epoch"], 1);
  EXPECT_EQ(v["release"], Json({2, 6, 0}));
  EXPECT_EQ(v["pre"], Json({"rc", 1}));
  EXPECT_EQ(v["post"], 2);
  EXPECT_EQ(v["dev"], 3);
  EXPECT_EQ(v["local"], "cu126");
  EXPECT_EQ(v["is_prerelease"], true);
  EXPECT_EQ(v["is_postrelease"], true);
}

TEST(VersionCli, NormalizeReportsEveryBadVersion) {
  const auto result = relforge("version normalize 1.0 foo 1.0+");
  expect_error(result,
               "relforge: error: 2 of 3 arguments are not PEP 440 versions:\n  invalid version 'foo'");
  EXPECT_NE(result.err.find("\n  invalid version '1.0+': expected a local label"), std::string::npos);
}

}  // namespace
