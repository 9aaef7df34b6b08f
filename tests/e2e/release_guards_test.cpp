// What the release commands refuse or report through the binary: a pick decision while an apply is
// unfinished (exit 5, nothing shared), a cut whose refs git cannot all create (exit 2 or 5, nothing
// written), `pick request --push`, and `status --remote` for a ref missing on both sides.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/release/repo_fixture.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace {

using relforge::test::RunResult;
using relforge::test::shell_quote;
using relforge::test::TempRepo;
using Json = nlohmann::json;

std::string guard_ok(const TempRepo& temp, const std::string& args) {
  const RunResult result = relforge_in(temp, args);
  EXPECT_EQ(result.exit_code, 0) << args << "\n" << result.err;
  return result.out;
}

std::string guard_bare_git(const TempRepo& temp, const std::string& args) {
  return relforge::test::run_shell("git --git-dir=" + shell_quote((temp.root / "remote.git").string()) + " " +
                                   args)
      .out;
}

// The project with a bare "origin" beside it, and release 2.7 cut (not pushed).
void guard_cut_with_remote(TempRepo& temp) {
  temp.seed_project();
  temp.make_bare("remote.git");
  temp.git("remote add origin " + shell_quote((temp.root / "remote.git").string()));
  guard_ok(temp, "release cut 2.7");
}

TEST(ReleaseGuards, APickDecisionWhileAnApplyIsUnfinishedIsRefused) {
  TempRepo temp;
  guard_cut_with_remote(temp);
  temp.write("src/fix.txt", "fixed\n");
  const std::string fix = temp.commit_all("Fix a crash");
  temp.write("src/other.txt", "other\n");
  const std::string other = temp.commit_all("Fix another crash");
  guard_ok(temp, "release pick request " + fix + " --reason regression");
  guard_ok(temp, "release pick approve 1");
  const RunResult crashed =
      relforge_in(temp, "release pick apply 1", "RELFORGE_TEST_CRASH_AT=journal-written");
  ASSERT_NE(crashed.exit_code, 0);

  for (const std::string& command :
       {std::string("release pick reject 1 --reason 'too risky'"), std::string("release pick approve 1"),
        std::string("release pick reject 1 --reason 'too risky' --push origin"),
        "release pick request " + other + " --reason regression",
        "release pick request " + other + " --reason regression --push origin",
        std::string("release pick sync origin")}) {
    const RunResult refused = relforge_in(temp, command);
    EXPECT_EQ(refused.exit_code, 5) << command << "\n" << refused.err;
    EXPECT_EQ(refused.out, "") << command;
    EXPECT_NE(refused.err.find("interrupted 'relforge release pick apply 1' is unfinished"),
              std::string::npos)
        << command << "\n"
        << refused.err;
    EXPECT_NE(refused.err.find("run it again with --abort"), std::string::npos) << refused.err;
  }
  // Nothing was shared and nothing recorded.
  EXPECT_EQ(guard_bare_git(temp, "show-ref"), "");
  const Json picks = Json::parse(guard_ok(temp, "release picks --json"), nullptr, false);
  ASSERT_EQ(picks.size(), 1u) << picks.dump();
  EXPECT_EQ(picks[0]["state"], "approved");

  // Finished, the apply ships the approved pick; the decision can then no longer undo it.
  guard_ok(temp, "release pick apply 1");
  EXPECT_EQ(temp.git("log -1 --format=%s release/2.7"), "Fix a crash");
  const RunResult late = relforge_in(temp, "release pick reject 1 --reason 'too late'");
  EXPECT_EQ(late.exit_code, 5) << late.err;
  EXPECT_NE(late.err.find("is 'applied'"), std::string::npos) << late.err;
}

TEST(ReleaseGuards, PickRequestPushSharesTheLedger) {
  TempRepo temp;
  guard_cut_with_remote(temp);
  temp.write("src/fix.txt", "fixed\n");
  const std::string fix = temp.commit_all("Fix a crash");
  guard_ok(temp, "release pick request " + fix + " --reason regression --push origin");
  EXPECT_EQ(guard_bare_git(temp, "rev-parse refs/relforge/releases"),
            temp.git("rev-parse refs/relforge/releases") + "\n");
  EXPECT_NE(guard_bare_git(temp, "show refs/relforge/releases:2.7.json").find(fix), std::string::npos);
}

TEST(ReleaseGuards, ACutWhoseRefsGitCannotCreateWritesNothing) {
  TempRepo temp;
  temp.seed_project();
  const std::string before = temp.git("show-ref");
  const auto nothing_written = [&](const std::string& what) {
    EXPECT_EQ(temp.git("show-ref"), before) << what;
    EXPECT_FALSE(std::filesystem::exists(temp.work / ".git" / "relforge" / "journal.json")) << what;
  };
  for (const std::string bump : {"release/2.7", "orig", "HEAD", "refs/heads/x", "'foo bar'", "a..b"}) {
    const RunResult cut = relforge_in(temp, "release cut 2.7 --bump-via=" + bump);
    EXPECT_EQ(cut.exit_code, 2) << bump << "\n" << cut.err;
    EXPECT_NE(cut.err.find("nothing was cut"), std::string::npos) << cut.err;
    nothing_written(bump);
  }
  const RunResult dash = relforge_in(temp, "release cut 2.7 --bump-via=-x");
  EXPECT_EQ(dash.exit_code, 2) << dash.err;
  nothing_written("-x");

  temp.git("branch release");
  const std::string with_branch = temp.git("show-ref");
  const RunResult blocked = relforge_in(temp, "release cut 2.7");
  EXPECT_EQ(blocked.exit_code, 5) << blocked.err;
  EXPECT_NE(blocked.err.find("the existing ref refs/heads/release is in the way"), std::string::npos)
      << blocked.err;
  EXPECT_EQ(temp.git("show-ref"), with_branch);
  EXPECT_FALSE(std::filesystem::exists(temp.work / ".git" / "relforge" / "journal.json"));

  // Main already at the release version: exit 2 (docs/release.md), no empty release-only commit.
  temp.git("branch -D release");
  temp.write("version.txt", "2.7.0\n");
  temp.commit_all("Main says 2.7.0");
  const std::string at_release = temp.git("show-ref");
  const RunResult same = relforge_in(temp, "release cut 2.7");
  EXPECT_EQ(same.exit_code, 2) << same.err;
  EXPECT_EQ(temp.git("show-ref"), at_release);
}

TEST(ReleaseGuards, StatusRemoteNamesARefMissingOnBothSides) {
  TempRepo temp;
  guard_cut_with_remote(temp);
  temp.git("push -q origin main release/2.7");
  temp.git("branch -D orig/release/2.7");
  const std::string text = guard_ok(temp, "release status --remote origin");
  EXPECT_NE(text.find("remote   refs/heads/orig/release/2.7: missing here and on the remote\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("at )"), std::string::npos) << text;
  const Json json = Json::parse(guard_ok(temp, "release status --remote origin --json"), nullptr, false);
  bool found = false;
  for (const auto& ref : json["remote_refs"]) {
    if (ref["ref"] != "refs/heads/orig/release/2.7") continue;
    found = true;
    EXPECT_TRUE(ref["local"].is_null());
    EXPECT_TRUE(ref["remote"].is_null());
    EXPECT_EQ(ref["state"], "missing here and on the remote");
  }
  EXPECT_TRUE(found) << json.dump();
}

// A linked worktree shares the repository's journal and lock (an interrupted command is unfinished
// in every worktree), and no command moves a branch that another worktree has checked out.
TEST(ReleaseGuards, LinkedWorktreesShareTheJournalAndKeepTheirBranches) {
  TempRepo temp;
  temp.seed_project();
  const auto tree = temp.root / "linked";
  temp.git("worktree add -q " + shell_quote(tree.string()) + " -b side");
  const auto in_tree = [&](const std::string& args) {
    return relforge::test::run_shell("env -u GITHUB_REF -u GITHUB_BASE_REF " +
                                     shell_quote(relforge::test::relforge_binary()) + " " + args +
                                     " --repo " + shell_quote(tree.string()));
  };
  const std::string before = temp.git("show-ref");
  const RunResult moved = in_tree("release cut 2.7");
  EXPECT_EQ(moved.exit_code, 5) << moved.err;
  EXPECT_NE(moved.err.find("refs/heads/main is checked out in another worktree"), std::string::npos)
      << moved.err;
  EXPECT_EQ(temp.git("show-ref"), before);
  EXPECT_EQ(temp.git("status --porcelain"), "");

  const RunResult unpushed =
      relforge_in(temp, "release cut 2.7 --push " + shell_quote((temp.root / "nowhere.git").string()));
  EXPECT_NE(unpushed.exit_code, 0) << unpushed.err;
  const RunResult elsewhere = in_tree("release rc");
  EXPECT_EQ(elsewhere.exit_code, 5) << elsewhere.err;
  EXPECT_NE(elsewhere.err.find("'relforge release cut 2.7' is unfinished"), std::string::npos)
      << elsewhere.err;
  const RunResult aborted = in_tree("release cut 2.7 --abort");
  EXPECT_EQ(aborted.exit_code, 0) << aborted.err;
  EXPECT_EQ(temp.git("show-ref"), before);
}

}  // namespace
