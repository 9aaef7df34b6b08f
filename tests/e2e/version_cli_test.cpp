// `relforge version sort|compare|match|normalize|current` through the real binary: text and JSON
// output, exit codes, bad input (message on stderr, nothing on stdout), and the version of a build
// for every kind of ref in real git repositories (the table in docs/release.md, one test a row).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/release/repo_fixture.hpp"
#include "tests/support/e2e.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace {

using relforge::test::relforge;
using relforge::test::RunResult;
using Json = nlohmann::json;

const std::string k_hint = "a PEP 440 version looks like 1.0, 2.6.0rc1, 1!2.0.post1.dev3 or 2.6.0+cu126";

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

TEST(VersionCli, SortKeepsOrderWhenLaterLinesNeedWiderColumns) {
  // Each line needs more bits in some column than the lines before it: the items already packed
  // are re-packed, and equal versions still keep their input order in both directions.
  const std::string input =
      "1.0\n0.1\n1.0.0\n3.0\n1000000.0\n2.0+cpu\n2.0.post99999\n70000!1.0\n2.0+cpu.7\n"
      "2.0.dev20250101\n1.0.0.0\n";
  const auto result = relforge("version sort", input);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out,
            "0.1\n1.0\n1.0.0\n1.0.0.0\n2.0.dev20250101\n2.0+cpu\n2.0+cpu.7\n2.0.post99999\n3.0\n"
            "1000000.0\n70000!1.0\n");
  EXPECT_EQ(relforge("version sort -r", input).out,
            "70000!1.0\n1000000.0\n3.0\n2.0.post99999\n2.0+cpu.7\n2.0+cpu\n2.0.dev20250101\n1.0\n"
            "1.0.0\n1.0.0.0\n0.1\n");
}

TEST(VersionCli, SortOrdersAsTheGeneralPathWhileColumnsWiden) {
  // Numbers grow and new parts turn up all along the input, so the fast path re-packs its items
  // many times; one line that fits no key (5 significant release numbers) sends the same input
  // down the general path, whose order is the reference.
  std::string input;
  for (unsigned i = 0; i < 400; ++i) {
    const unsigned n = (i * 7919u) % 97;
    std::string text = i > 300 && n % 5 == 0 ? "1!" : "";
    text += std::to_string(n % 4) + "." + std::to_string((n % 9) << (i / 16));
    if (n % 3 == 0) text += ".0";  // equal to the line without it: input order decides
    if (i > 100 && n % 4 == 1) text += "rc" + std::to_string(n);
    if (i > 200 && n % 6 == 2) text += ".post" + std::to_string(i);
    if (i > 250 && n % 7 == 3) text += "+cu" + std::to_string(n);
    input += text + "\n";
  }
  for (const char* command : {"version sort", "version sort -r"}) {
    const auto fast = relforge(command, input);
    ASSERT_EQ(fast.exit_code, 0) << fast.err;
    auto general = relforge(command, input + "1.2.3.4.5\n").out;
    const auto odd = general.find("1.2.3.4.5\n");
    ASSERT_NE(odd, std::string::npos);
    general.erase(odd, 10);
    EXPECT_EQ(fast.out, general) << command;
  }
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
  EXPECT_EQ(relforge("version match '>=3' 3.0a1").exit_code, 1);  // 3.0a1 sorts below 3
  // packaging 26.x: with no final release matching, filter() yields the pre-releases.
  EXPECT_EQ(relforge("version match '>=3' 3.1a1").out, "3.1a1\n");
  EXPECT_EQ(relforge("version match '>=3' 3.1a1 3.0").out, "3.0\n");
  EXPECT_EQ(relforge("version match --no-pre '>=3' 3.1a1").exit_code, 1);            // prereleases=False
  EXPECT_EQ(relforge("version match '===V3.0' v3.0 V3.0 3.0").out, "v3.0\nV3.0\n");  // === as written
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

// main (version file 2.8.0a0) and release/2.7: rc1 and the final v2.7.0 on one commit, then the
// patch RC v2.7.1-rc1, then an untagged fix at the branch tip.
class VersionContext : public ::testing::Test {
protected:
  void SetUp() override {
    temp.seed_project();
    temp.git("checkout -q -b release/2.7");
    temp.write("version.txt", "2.7.0\n");
    final_commit = temp.commit_all("[RELEASE-ONLY CHANGES] Branch Cut for Release 2.7");
    temp.git("tag -a v2.7.0-rc1 -m rc1");
    temp.git("tag -a v2.7.0 -m final");
    temp.write("version.txt", "2.7.1\n");
    temp.commit_all("Patch release 2.7.1");
    temp.git("tag -a v2.7.1-rc1 -m rc1");
    temp.write("src/fix.txt", "fixed\n");
    temp.commit_all("Fix a crash");
    temp.git("checkout -q main");
    temp.write("version.txt", "2.8.0a0\n");
    temp.commit_all("Bump version to 2.8.0a0");
  }
  // `version current --json` in `repo` (default: the work tree) with `env` (GITHUB_REF=...) set.
  RunResult current(const std::string& env, const std::string& args = "", std::string repo = "") const {
    if (repo.empty()) repo = temp.work.string();
    return relforge::test::run_shell("env -u GITHUB_REF -u GITHUB_BASE_REF " + env + " " +
                                     relforge::test::shell_quote(relforge::test::relforge_binary()) +
                                     " version current --json --variant cpu --date 20260415 " + args +
                                     " --repo " + relforge::test::shell_quote(repo));
  }
  void expect_version(const RunResult& result, const std::string& version, const std::string& channel) const {
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const Json json = Json::parse(result.out, nullptr, false);
    EXPECT_EQ(json["version"], version) << result.out;
    EXPECT_EQ(json["channel"], channel) << result.out;
  }
  void expect_disagreement(const RunResult& result, const std::string& ref, const std::string& head,
                           const std::string& says) const {
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(result.out, "");
    EXPECT_NE(result.err.find("the ref '" + ref + "'"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("HEAD is "), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(head), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(says), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("--trust-ref"), std::string::npos) << result.err;
  }

  relforge::test::TempRepo temp;
  std::string final_commit;
};

TEST_F(VersionContext, BranchMainIsNightlyFromTheVersionFile) {
  expect_version(current(""), "2.8.0.dev20260415+cpu", "nightly");
  expect_version(current("GITHUB_REF=refs/heads/main"), "2.8.0.dev20260415+cpu", "nightly");
}

TEST_F(VersionContext, ReleaseBranchIsTestFromTheVersionFile) {
  temp.git("checkout -q release/2.7");
  expect_version(current(""), "2.7.1+cpu", "test");
  expect_version(current("GITHUB_REF=refs/heads/release/2.7"), "2.7.1+cpu", "test");
  // An older commit of the branch (a rebuild) is still on it.
  temp.git("checkout -q release/2.7~1");
  expect_version(current("GITHUB_REF=refs/heads/release/2.7"), "2.7.1+cpu", "test");
}

TEST_F(VersionContext, PullRequestIntoMainIsNightly) {
  temp.git("checkout -q --detach main");
  temp.write("src/pr.txt", "change\n");
  temp.commit_all("A change under review");
  temp.git("update-ref refs/remotes/pull/12/merge HEAD");  // where CI checkouts fetch the merge ref
  expect_version(current("GITHUB_REF=refs/pull/12/merge GITHUB_BASE_REF=main"), "2.8.0.dev20260415+cpu",
                 "nightly");
  temp.git("update-ref refs/remotes/pull/12/merge main");
  expect_disagreement(current("GITHUB_REF=refs/pull/12/merge GITHUB_BASE_REF=main"), "refs/pull/12/merge",
                      "(HEAD)", "refs/remotes/pull/12/merge is at");
}

TEST_F(VersionContext, PullRequestIntoAReleaseBranchIsTest) {
  temp.git("checkout -q --detach release/2.7");
  temp.write("src/pr.txt", "change\n");
  temp.commit_all("A fix under review");
  expect_version(current("GITHUB_REF=refs/pull/13/merge GITHUB_BASE_REF=release/2.7"), "2.7.1+cpu", "test");
  expect_version(current("", "--ref refs/pull/13/merge --base-ref release/2.7"), "2.7.1+cpu", "test");
}

TEST_F(VersionContext, RcTagIsTestWithTheTagVersion) {
  temp.git("checkout -q v2.7.0-rc1");
  expect_version(current("GITHUB_REF=refs/tags/v2.7.0-rc1"), "2.7.0+cpu", "test");
  expect_version(current("", "--ref v2.7.0-rc1"), "2.7.0+cpu", "test");
}

TEST_F(VersionContext, FinalTagIsTheFinalVersionOnTheReleaseChannel) {
  temp.git("checkout -q v2.7.0");
  const RunResult from_ci = current("GITHUB_REF=refs/tags/v2.7.0");
  expect_version(from_ci, "2.7.0+cpu", "release");
  EXPECT_EQ(Json::parse(from_ci.out, nullptr, false)["base"], "2.7.0");
  // No ref given: the final tag at HEAD wins over the RC on the same commit.
  const RunResult from_head = current("");
  expect_version(from_head, "2.7.0+cpu", "release");
  EXPECT_EQ(Json::parse(from_head.out, nullptr, false)["ref"], "refs/tags/v2.7.0");
  const RunResult text =
      relforge::test::run_shell("env -u GITHUB_REF -u GITHUB_BASE_REF " +
                                relforge::test::shell_quote(relforge::test::relforge_binary()) +
                                " version current --variant cpu --date 20260415 --repo " +
                                relforge::test::shell_quote(temp.work.string()));
  EXPECT_EQ(text.out, "2.7.0+cpu\n") << text.err;
}

TEST_F(VersionContext, PatchRcTagIsTestWithThePatchVersion) {
  temp.git("checkout -q v2.7.1-rc1");
  expect_version(current("GITHUB_REF=refs/tags/v2.7.1-rc1"), "2.7.1+cpu", "test");
  expect_version(current(""), "2.7.1+cpu", "test");
}

TEST_F(VersionContext, DetachedHeadWithoutATagFollowsTheVersionFile) {
  temp.git("checkout -q --detach main");
  expect_version(current(""), "2.8.0.dev20260415+cpu", "nightly");
  temp.git("checkout -q --detach release/2.7");
  expect_version(current(""), "2.7.1+cpu", "test");
}

TEST_F(VersionContext, ShallowClonesOfATagAndOfMain) {
  const std::string url = "file://" + temp.work.string();
  const auto tag_clone = temp.root / "shallow-tag";
  const auto main_clone = temp.root / "shallow-main";
  for (const auto& [branch, dir] :
       {std::pair{std::string("v2.7.0"), tag_clone}, {std::string("main"), main_clone}}) {
    const RunResult clone = relforge::test::run_shell(
        "GIT_CONFIG_NOSYSTEM=1 git clone -q --depth 1 --branch " + branch + " " +
        relforge::test::shell_quote(url) + " " + relforge::test::shell_quote(dir.string()));
    ASSERT_EQ(clone.exit_code, 0) << clone.err;
    EXPECT_EQ(relforge::test::run_shell("git -C " + relforge::test::shell_quote(dir.string()) +
                                        " rev-parse --is-shallow-repository")
                  .out,
              "true\n");
  }
  expect_version(current("GITHUB_REF=refs/tags/v2.7.0", "", tag_clone.string()), "2.7.0+cpu", "release");
  expect_version(current("", "", tag_clone.string()), "2.7.0+cpu", "release");
  expect_version(current("GITHUB_REF=refs/heads/main", "", main_clone.string()), "2.8.0.dev20260415+cpu",
                 "nightly");
  // A tag the shallow clone did not fetch cannot vouch for HEAD.
  expect_disagreement(current("GITHUB_REF=refs/tags/v2.7.1-rc1", "", main_clone.string()),
                      "refs/tags/v2.7.1-rc1", "refs/heads/main", "there is no tag v2.7.1-rc1");
}

TEST_F(VersionContext, ARefThatDisagreesWithHeadIsRefused) {
  // The tag is not at HEAD (HEAD is main).
  expect_disagreement(current("GITHUB_REF=refs/tags/v2.7.0"), "refs/tags/v2.7.0", "refs/heads/main",
                      "the tag v2.7.0 points at " + final_commit.substr(0, 12));
  EXPECT_NE(current("GITHUB_REF=refs/tags/v2.7.0").err.find("$GITHUB_REF"), std::string::npos);
  // A branch HEAD is not on, a tag that does not exist, a ref of no known kind.
  expect_disagreement(current("", "--ref refs/heads/release/2.7"), "refs/heads/release/2.7",
                      "refs/heads/main", "HEAD is not on branch release/2.7");
  expect_disagreement(current("", "--ref refs/tags/v9.9.9"), "refs/tags/v9.9.9", "refs/heads/main",
                      "there is no tag v9.9.9");
  expect_disagreement(current("", "--ref release/9.9"), "release/9.9", "refs/heads/main",
                      "there is no branch release/9.9");
  expect_disagreement(current("", "--ref refs/notes/x"), "refs/notes/x", "refs/heads/main",
                      "neither a tag, a branch nor a pull request ref");
  const RunResult bad_name = current("", "--ref 'bad..name'");
  EXPECT_EQ(bad_name.exit_code, 2) << bad_name.err;
  EXPECT_NE(bad_name.err.find("cannot read the ref 'refs/tags/bad..name'"), std::string::npos)
      << bad_name.err;
  // --ref wins over $GITHUB_REF and is checked the same way.
  expect_disagreement(current("GITHUB_REF=refs/heads/main", "--ref v2.7.0"), "v2.7.0", "refs/heads/main",
                      "(from --ref)");
  // At the final tag, a main-branch ref is as wrong.
  temp.git("checkout -q v2.7.0");
  expect_disagreement(current("GITHUB_REF=refs/heads/main"), "refs/heads/main", "refs/tags/v2.7.0",
                      "HEAD is not on branch main");
  // JSON errors carry the same message, exit 2.
  const RunResult json = current("GITHUB_REF=refs/heads/main");
  const Json error = Json::parse(json.err, nullptr, false);
  EXPECT_EQ(error["error"]["exit_code"], 2) << json.err;
}

TEST_F(VersionContext, TrustRefBuildsTheNamedRef) {
  expect_version(current("GITHUB_REF=refs/tags/v2.7.0", "--trust-ref"), "2.7.0+cpu", "release");
  expect_version(current("", "--ref refs/tags/v2.7.0-rc1 --trust-ref"), "2.7.0+cpu", "test");
}

TEST(VersionCli, RequirementAppliesToATarget) {
  const std::string reqs =
      "\"torch[cuda]>=2.6; sys_platform == 'linux'\" \"pywin32>=306; os_name == 'nt'\" "
      "\"typing-extensions>=4; python_version < '3.11'\" \"pytest; extra == 'Dev_Tools'\"";
  const auto on_linux =
      relforge("version requirement --python 3.13 --platform manylinux_2_28_x86_64 " + reqs);
  ASSERT_EQ(on_linux.exit_code, 0) << on_linux.err;
  EXPECT_EQ(on_linux.out, "torch[cuda]>=2.6; sys_platform == \"linux\"\n");
  EXPECT_EQ(relforge("version requirement --python 3.9 --platform win_amd64 --extra dev-tools " + reqs).out,
            "pywin32>=306; os_name == \"nt\"\ntyping-extensions>=4; python_version < \"3.11\"\n"
            "pytest; extra == \"dev-tools\"\n");
  const auto json = parse_json(
      relforge("version requirement --json --python 3.12 --platform macosx_14_0_arm64 'Foo[b,a] (>=1,<2)'"));
  EXPECT_EQ(json[0]["requirement"], "Foo[a,b]<2,>=1");
  EXPECT_EQ(json[0]["applies"], true);
  EXPECT_EQ(
      relforge("version requirement --python 3.13 --platform win_amd64 \"x; os_name == 'posix'\"").exit_code,
      1);
  expect_error(relforge("version requirement --python 3.13 --platform win_amd64 'x >= '"), "expected");
  expect_error(
      relforge("version requirement --python 3.13 --platform win_amd64 \"x; platform_release ~= 'NT'\""),
      "undefined comparison");
}

}  // namespace
