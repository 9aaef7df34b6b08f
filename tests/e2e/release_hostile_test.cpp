// The release commands against hostile surroundings, through the real binary: an exported GIT_DIR,
// a --ledger that is no ledger, commit text and --as values carrying markup or control
// characters, ranges that are no tags, and an apply that stops half way.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/release/repo_fixture.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace {

using relforge::test::RunResult;
using relforge::test::shell_quote;
using relforge::test::TempRepo;
using Json = nlohmann::json;

// The seeded project with `line` added to its [release] table.
void seed_with_release_line(TempRepo& temp, const std::string& line) {
  temp.seed_project();
  std::string toml = temp.read("relforge.toml");
  toml.insert(toml.find("[release]\n") + 10, line + "\n");
  temp.write("relforge.toml", toml);
  temp.commit_all("Release config");
}

TEST(ReleaseHostile, APostCutHookWithGitDirExportedCannotTouchTheRepository) {
  TempRepo temp;
  seed_with_release_line(
      temp, R"(post_cut = ["bash", "-c", "git tag from-hook; git config hook.ran yes; exit 3"])");
  const std::string git_dir = (temp.work / ".git").string();
  const std::string refs = temp.git("for-each-ref");
  // As git exports them to hooks and `rebase -x`.
  const RunResult cut =
      relforge_in(temp, "release cut 2.7",
                  "GIT_DIR=" + shell_quote(git_dir) + " GIT_WORK_TREE=" + shell_quote(temp.work.string()) +
                      " GIT_INDEX_FILE=" + shell_quote(git_dir + "/index") + " GIT_CONFIG_COUNT=0");
  EXPECT_EQ(cut.exit_code, 6) << cut.err;
  EXPECT_NE(cut.err.find("nothing was cut"), std::string::npos) << cut.err;
  EXPECT_EQ(temp.git("for-each-ref"), refs);
  EXPECT_EQ(temp.git_result("config hook.ran").out, "");
}

TEST(ReleaseHostile, AGitDirNamingAnotherRepositoryIsRefused) {
  TempRepo temp;
  temp.seed_project();
  TempRepo other;
  other.seed_project();
  const RunResult status =
      relforge_in(temp, "release cut 2.7", "GIT_DIR=" + shell_quote((other.work / ".git").string()));
  EXPECT_EQ(status.exit_code, 2) << status.err;
  EXPECT_NE(status.err.find("GIT_DIR names"), std::string::npos) << status.err;
  EXPECT_EQ(temp.git("branch --list 'release/*'"), "");
  EXPECT_EQ(other.git("branch --list 'release/*'"), "");
  // The same repository, spelled relative to where relforge runs, is fine.
  const RunResult same = relforge::test::run_shell(
      "cd " + shell_quote(temp.work.string()) + " && GIT_DIR=.git " +
      shell_quote(relforge::test::relforge_binary()) + " release cut 2.7 --dry-run");
  EXPECT_EQ(same.exit_code, 0) << same.err;
}

TEST(ReleaseHostile, StatusWithALedgerFileThatIsNoLedgerChangesNothing) {
  TempRepo temp;
  temp.seed_project();
  ASSERT_EQ(relforge_in(temp, "release cut 2.7").exit_code, 0);
  temp.write("src/fix.txt", "fix\n");
  const std::string fix = temp.commit_all("Fix a crash");
  ASSERT_EQ(relforge_in(temp, "release pick request " + fix + " --reason regression").exit_code, 0);
  const std::string tracked = (temp.work / "src" / "a.txt").string();
  // The ledger ref exists: the file is left alone, and status answers from the ref.
  const RunResult status = relforge_in(temp, "release status 2.7 --ledger " + shell_quote(tracked));
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(temp.git("status --porcelain"), "");
  EXPECT_FALSE(std::filesystem::exists(tracked + ".migrated"));

  // No ledger ref: a file that is no ledger is refused and stays as it was.
  TempRepo fresh;
  fresh.seed_project();
  const std::string text = (fresh.work / "src" / "a.txt").string();
  for (const std::string command :
       {"release status", "release picks", "release pick request HEAD --reason docs"}) {
    const RunResult refused = relforge_in(fresh, command + " --ledger " + shell_quote(text));
    EXPECT_EQ(refused.exit_code, 2) << command << "\n" << refused.err;
    EXPECT_NE(refused.err.find("is not a relforge SQLite pick ledger"), std::string::npos) << refused.err;
    EXPECT_EQ(fresh.git("status --porcelain"), "") << command;
  }
  EXPECT_EQ(fresh.git("for-each-ref refs/relforge"), "");
}

TEST(ReleaseHostile, ControlCharactersCannotForgeTheLedgerDisplay) {
  TempRepo temp;
  temp.seed_project();
  ASSERT_EQ(relforge_in(temp, "release cut 2.7").exit_code, 0);
  temp.write("x.txt", "x\n");
  const std::string sha =
      temp.commit_all("fix: harmless\r#1  approved  deadbeef0000  critical  Fix a crash\x1b[8m hidden");
  // A second line for the person, or control characters in --note/--reason, are refused.
  for (const std::string& bad :
       {std::string(
            "--as \"$(printf 'Mallory <m@x>\\n    approved by Grace Hopper <grace@example.com> at 2026')\""),
        std::string("--as 'Mallory'"), std::string("--as 'Mallory <m@x> <n@y>'"),
        std::string("--as \"$(printf 'Mallory <m@x>\\033[8m')\""),
        std::string("--note \"$(printf 'ok\\rforged')\"")}) {
    const RunResult refused = relforge_in(temp, "release pick request " + sha + " --reason docs " + bad);
    EXPECT_EQ(refused.exit_code, 2) << bad << "\n" << refused.err;
    EXPECT_EQ(refused.err.find('\x1b'), std::string::npos) << refused.err;
  }
  ASSERT_EQ(relforge_in(temp, "release picks --json").out, "[]\n");
  const RunResult requested =
      relforge_in(temp, "release pick request " + sha + " --reason docs --as 'Mallory <m@x>'");
  ASSERT_EQ(requested.exit_code, 0) << requested.err;
  const RunResult rejected =
      relforge_in(temp, "release pick reject 1 --reason \"$(printf 'no\\n    approved by X')\"");
  EXPECT_EQ(rejected.exit_code, 2) << rejected.err;

  // The subject is shown with its CR and ESC as visible escapes, on the pick's one line.
  const RunResult listed = relforge_in(temp, "release picks");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out.find_first_of("\r\x1b"), std::string::npos) << listed.out;
  EXPECT_NE(
      listed.out.find("fix: harmless\\r#1  approved  deadbeef0000  critical  Fix a crash\\x1b[8m hidden"),
      std::string::npos)
      << listed.out;
  EXPECT_EQ(listed.out.find("approved by"), std::string::npos) << listed.out;
  const Json picks = Json::parse(relforge_in(temp, "release picks --json").out);
  EXPECT_EQ(picks[0]["state"], "requested");
  EXPECT_EQ(picks[0]["approved"], nullptr);
}

}  // namespace
