#include "release/tags.hpp"

#include <gtest/gtest.h>

#include "release/cut.hpp"
#include "release/picks.hpp"
#include "tests/release/repo_fixture.hpp"

namespace relforge::release {
namespace {

using test::TempRepo;

class TagTest : public ::testing::Test {
protected:
  void SetUp() override {
    temp.seed_project();
    auto opened = Repository::open(temp.work);
    ASSERT_TRUE(opened);
    repo.emplace(std::move(*opened));
    auto parsed = parse_release_config(temp.read("relforge.toml"), "relforge.toml");
    ASSERT_TRUE(parsed);
    config = *parsed;
    auto opened_ledger = Ledger::open(*repo);
    ASSERT_TRUE(opened_ledger);
    ledger.emplace(std::move(*opened_ledger));
  }
  void cut() {
    CutOptions options;
    options.series = "2.7";
    ASSERT_TRUE(run_release_cut(*repo, config, options));
  }

  TempRepo temp;
  std::optional<Repository> repo;
  ReleaseConfig config;
  std::optional<Ledger> ledger;
};

TEST_F(TagTest, RcFinalPatchCycle) {
  cut();
  TagOptions options;
  auto rc1 = run_release_rc(*repo, config, *ledger, options);
  ASSERT_TRUE(rc1) << rc1.error().describe();
  EXPECT_EQ(rc1->tag, "v2.7.0-rc1");
  EXPECT_EQ(temp.git("cat-file -t v2.7.0-rc1"), "tag");
  EXPECT_EQ(temp.git("rev-parse v2.7.0-rc1^{commit}"), temp.git("rev-parse release/2.7"));
  EXPECT_EQ(temp.git("tag -l --format='%(contents)' v2.7.0-rc1"), "Release candidate 2.7.0-rc1\n");

  auto same_head = run_release_rc(*repo, config, *ledger, options);
  ASSERT_FALSE(same_head);
  EXPECT_EQ(same_head.error().category(), ErrorCategory::conflict);

  auto status = run_release_status(*repo, config, *ledger, std::string("2.7"));
  ASSERT_TRUE(status);
  EXPECT_TRUE(status->blockers.empty());
  EXPECT_FALSE(status->rc_needed);
  auto final_tag = run_release_final(*repo, config, *ledger, options);
  ASSERT_TRUE(final_tag) << final_tag.error().describe();
  EXPECT_EQ(final_tag->tag, "v2.7.0");
  EXPECT_EQ(temp.git("cat-file -t v2.7.0"), "tag");
  EXPECT_EQ(temp.git("rev-parse v2.7.0^{commit}"), temp.git("rev-parse v2.7.0-rc1^{commit}"));
  auto twice = run_release_final(*repo, config, *ledger, options);
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().category(), ErrorCategory::conflict);

  PatchOptions patch;
  patch.version = "2.7.0";
  auto not_forward = run_release_patch(*repo, config, patch);
  ASSERT_FALSE(not_forward);
  EXPECT_EQ(not_forward.error().category(), ErrorCategory::invalid_input);
  patch.version = "2.8.1";
  auto no_branch = run_release_patch(*repo, config, patch);
  ASSERT_FALSE(no_branch);
  EXPECT_EQ(no_branch.error().category(), ErrorCategory::not_found);
  patch.version = "2.7.1";
  auto started = run_release_patch(*repo, config, patch);
  ASSERT_TRUE(started) << started.error().describe();
  EXPECT_EQ(temp.git("show release/2.7:version.txt"), "2.7.1");
  EXPECT_EQ(temp.git("log -1 --format=%s release/2.7"), "[RELEASE-ONLY CHANGES] Start patch release 2.7.1");
  auto patch_rc = run_release_rc(*repo, config, *ledger, options);
  ASSERT_TRUE(patch_rc);
  EXPECT_EQ(patch_rc->tag, "v2.7.1-rc1");
  patch.version = "2.7.2";  // 2.7.1 is not final yet
  auto early = run_release_patch(*repo, config, patch);
  ASSERT_FALSE(early);
  EXPECT_EQ(early.error().category(), ErrorCategory::conflict);
}

TEST_F(TagTest, FinalNeedsAnRcAndNoPendingPicks) {
  cut();
  TagOptions options;
  auto no_rc = run_release_final(*repo, config, *ledger, options);
  ASSERT_FALSE(no_rc);
  EXPECT_NE(no_rc.error().message().find("no release candidate"), std::string::npos);
  ASSERT_TRUE(run_release_rc(*repo, config, *ledger, options));
  temp.write("src/critical.txt", "fix\n");
  const std::string fix = temp.commit_all("Critical fix");
  PickRequestOptions request;
  request.sha = fix;
  request.reason = "critical";
  auto pick = run_pick_request(*repo, config, *ledger, request);
  ASSERT_TRUE(pick);
  auto pending = run_release_final(*repo, config, *ledger, options);
  ASSERT_FALSE(pending);
  EXPECT_NE(pending.error().message().find("pick #1"), std::string::npos);
  EXPECT_FALSE(temp.git_result("rev-parse -q --verify refs/tags/v2.7.0").exit_code == 0);
}

TEST_F(TagTest, StatusWithoutBranchOrWithBadVersionFile) {
  auto none = run_release_status(*repo, config, *ledger, std::nullopt);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().category(), ErrorCategory::not_found);
  EXPECT_NE(none.error().message().find("release cut"), std::string::npos);
  cut();
  temp.git("checkout -q release/2.7");
  temp.write("version.txt", "2.8.0\n");
  temp.commit_all("Wrong version on the branch");
  auto wrong = run_release_rc(*repo, config, *ledger, TagOptions{});
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().category(), ErrorCategory::invalid_input);
}

TEST_F(TagTest, PushToABareRemoteAndARejectedPush) {
  const std::string remote = temp.make_bare("remote.git");
  CutOptions options;
  options.series = "2.7";
  options.push = remote;
  auto cut = run_release_cut(*repo, config, options);
  ASSERT_TRUE(cut) << cut.error().describe();
  const std::string bare = "git --git-dir=" + test::shell_quote((temp.root / "remote.git").string());
  auto remote_branch = test::run_shell(bare + " rev-parse refs/heads/release/2.7");
  EXPECT_EQ(remote_branch.out, temp.git("rev-parse release/2.7") + "\n");
  EXPECT_EQ(test::run_shell(bare + " rev-parse refs/heads/orig/release/2.7").out,
            temp.git("rev-parse orig/release/2.7") + "\n");
  EXPECT_EQ(test::run_shell(bare + " rev-parse refs/heads/main").out, temp.git("rev-parse main") + "\n");

  TagOptions tag;
  tag.push = remote;
  auto rc1 = run_release_rc(*repo, config, *ledger, tag);
  ASSERT_TRUE(rc1) << rc1.error().describe();
  EXPECT_EQ(test::run_shell(bare + " cat-file -t v2.7.0-rc1").out, "tag\n");

  // Someone else moved release/2.7 on the remote: our patch commit is not a fast-forward.
  const std::string other = (temp.root / "other").string();
  ASSERT_EQ(
      test::run_shell(
          "git clone -q " + test::shell_quote(remote) + " " + test::shell_quote(other) + " && cd " +
          test::shell_quote(other) +
          " && git -c user.name=x -c user.email=x@y checkout -q release/2.7"
          " && echo x > other.txt && git add other.txt"
          " && git -c user.name=x -c user.email=x@y commit -q -m other && git push -q origin release/2.7")
          .exit_code,
      0);
  ASSERT_TRUE(run_release_final(*repo, config, *ledger, TagOptions{}));
  PatchOptions patch;
  patch.version = "2.7.1";
  patch.push = remote;
  auto rejected = run_release_patch(*repo, config, patch);
  ASSERT_FALSE(rejected);
  EXPECT_EQ(rejected.error().category(), ErrorCategory::conflict) << rejected.error().describe();
  // The local patch commit is complete and the command stays resumable (its journal is kept).
  EXPECT_NE(rejected.error().describe().find("the local refs are complete"), std::string::npos)
      << rejected.error().describe();
  EXPECT_NE(rejected.error().describe().find("nothing was pushed"), std::string::npos)
      << rejected.error().describe();
  auto journal = read_journal(*repo);
  ASSERT_TRUE(journal);
  ASSERT_TRUE(*journal);
  EXPECT_EQ((*journal)->command, "patch 2.7.1");
  const std::string before_patch = (*journal)->refs[0].old_sha;
  patch.mode = TxMode::abort;
  ASSERT_TRUE(run_release_patch(*repo, config, patch));
  EXPECT_EQ(temp.git("rev-parse release/2.7"), before_patch);
  EXPECT_FALSE(*read_journal(*repo));
}

}  // namespace
}  // namespace relforge::release

namespace relforge::release {
namespace {

TEST_F(TagTest, PatchWritesTheNormalisedVersion) {
  cut();
  ASSERT_TRUE(run_release_rc(*repo, config, *ledger, TagOptions{}));
  ASSERT_TRUE(run_release_final(*repo, config, *ledger, TagOptions{}));
  PatchOptions patch;
  patch.version = "02.7.01";
  auto started = run_release_patch(*repo, config, patch);
  ASSERT_TRUE(started) << started.error().describe();
  EXPECT_EQ(started->version, "2.7.1");
  EXPECT_EQ(started->plan.command, "patch 2.7.1");
  EXPECT_EQ(temp.git("show release/2.7:version.txt"), "2.7.1");
  EXPECT_EQ(temp.git("log -1 --format=%s release/2.7"), "[RELEASE-ONLY CHANGES] Start patch release 2.7.1");
  auto rc = run_release_rc(*repo, config, *ledger, TagOptions{});
  ASSERT_TRUE(rc) << rc.error().describe();
  EXPECT_EQ(rc->tag, "v2.7.1-rc1");
}

// Only a vX.Y.Z on release/X.Y, at a commit of version X.Y.Z (where `release final` puts it),
// makes X.Y.Z final: a stray tag of that name (on main, on the cut's base) does not skip the RCs.
TEST_F(TagTest, AFinalTagOffTheBranchIsNotFinal) {
  cut();
  ASSERT_TRUE(run_release_rc(*repo, config, *ledger, TagOptions{}));
  for (const std::string where : {"main", "orig/release/2.7"}) {
    temp.git("tag -a v2.7.0 -m stray " + where);
    auto status = run_release_status(*repo, config, *ledger, std::string("2.7"));
    ASSERT_TRUE(status) << status.error().describe();
    EXPECT_FALSE(status->state.final_tag_commit) << where;
    EXPECT_EQ(status->state.stray_final_commit, temp.git("rev-parse " + where)) << where;
    ASSERT_FALSE(status->blockers.empty());
    EXPECT_NE(status->blockers.front().find("is not on release/2.7"), std::string::npos)
        << status->blockers.front();
    PatchOptions patch;
    patch.version = "2.7.1";
    auto early = run_release_patch(*repo, config, patch);
    ASSERT_FALSE(early) << where;
    EXPECT_EQ(early.error().category(), ErrorCategory::conflict);
    EXPECT_NE(early.error().message().find("not final yet"), std::string::npos) << early.error().message();
    EXPECT_EQ(temp.git("show release/2.7:version.txt"), "2.7.0");
    temp.git("tag -d v2.7.0");
  }
  auto final_tag = run_release_final(*repo, config, *ledger, TagOptions{});
  ASSERT_TRUE(final_tag) << final_tag.error().describe();
  auto status = run_release_status(*repo, config, *ledger, std::string("2.7"));
  ASSERT_TRUE(status);
  EXPECT_EQ(status->state.final_tag_commit, temp.git("rev-parse v2.7.0-rc1^{commit}"));
  EXPECT_FALSE(status->state.stray_final_commit);
}

// The remote took the refs, then updating the remote-tracking refs here failed: the error must not
// say that nothing was pushed.
TEST_F(TagTest, APushTheRemoteTookIsNotReportedAsNothingPushed) {
  temp.make_bare("remote.git");
  temp.git("remote add origin " + test::shell_quote((temp.root / "remote.git").string()));
  // refs/remotes/origin/release (a ref) blocks refs/remotes/origin/release/2.7.
  temp.git("update-ref refs/remotes/origin/release HEAD");
  CutOptions options;
  options.series = "2.7";
  options.push = "origin";
  auto cut = run_release_cut(*repo, config, options);
  ASSERT_FALSE(cut);
  const std::string message = cut.error().describe();
  EXPECT_EQ(message.find("nothing was pushed"), std::string::npos) << message;
  EXPECT_NE(message.find("the remote may have been updated (see 'git ls-remote origin')"), std::string::npos)
      << message;
  EXPECT_NE(message.find("the remote accepted"), std::string::npos) << message;
  const std::string bare = "git --git-dir=" + test::shell_quote((temp.root / "remote.git").string());
  EXPECT_EQ(test::run_shell(bare + " rev-parse refs/heads/release/2.7").out,
            temp.git("rev-parse release/2.7") + "\n");
}

TEST_F(TagTest, ABrokenJournalIsAnIntegrityErrorNamingItsFile) {
  cut();
  std::filesystem::create_directories(temp.work / ".git" / "relforge");
  std::ofstream(temp.work / ".git" / "relforge" / "journal.json") << "{ half written";
  const std::string before = temp.git("show-ref");
  auto rc = run_release_rc(*repo, config, *ledger, TagOptions{});
  ASSERT_FALSE(rc);
  EXPECT_EQ(rc.error().category(), ErrorCategory::integrity);
  EXPECT_NE(rc.error().describe().find("journal.json"), std::string::npos) << rc.error().describe();
  EXPECT_EQ(temp.git("show-ref"), before);
}

}  // namespace
}  // namespace relforge::release
