// The release manager's whole cycle through the real binary — cut, two picks (one conflicting),
// rc1, a critical pick, rc2, final, patch — pushed to a bare remote and checked with the git CLI.
#include <gtest/gtest.h>

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

class ReleaseCli {
public:
  explicit ReleaseCli(const TempRepo& temp) : m_temp(temp) {}
  RunResult run(const std::string& args) const {
    // CI sets GITHUB_REF, which `version current` would prefer over the repository's HEAD.
    return relforge::test::run_shell("env -u GITHUB_REF -u GITHUB_BASE_REF " +
                                     shell_quote(relforge::test::relforge_binary()) + " " + args +
                                     " --repo " + shell_quote(m_temp.work.string()));
  }
  // Runs and expects success; returns stdout.
  std::string ok(const std::string& args) const {
    const RunResult result = run(args);
    EXPECT_EQ(result.exit_code, 0) << args << "\n" << result.err;
    EXPECT_EQ(result.err, "") << args;
    return result.out;
  }
  Json json(const std::string& args) const { return Json::parse(ok(args + " --json"), nullptr, false); }

private:
  const TempRepo& m_temp;
};

TEST(ReleaseCycle, CutPicksRcsFinalPatchAgainstABareRemoteSlow) {
  TempRepo temp;
  temp.seed_project();
  const std::string remote = temp.make_bare("remote.git");
  temp.git("remote add origin " + shell_quote(remote));
  temp.git("push -q origin main");
  const std::string base = temp.git("rev-parse HEAD");
  const ReleaseCli cli(temp);
  const std::string bare = "git --git-dir=" + shell_quote((temp.root / "remote.git").string()) + " ";
  auto remote_rev = [&](const std::string& rev) {
    return relforge::test::run_shell(bare + "rev-parse " + shell_quote(rev)).out;
  };

  // The plan first; nothing moves.
  const std::string plan = cli.ok("release cut 2.7 --dry-run");
  EXPECT_NE(plan.find("Plan (dry run) for release 2.7"), std::string::npos);
  EXPECT_NE(plan.find("version.txt: 2.7.0a0 -> 2.7.0"), std::string::npos);
  EXPECT_NE(plan.find("2 x '@main' -> '@release/2.7'"), std::string::npos);
  EXPECT_EQ(temp.git("rev-parse main"), base);
  EXPECT_EQ(temp.git("branch --list 'release/*'"), "");

  const Json cut = cli.json("release cut 2.7 --push origin");
  EXPECT_EQ(cut["executed"], true);
  EXPECT_EQ(temp.git("log -1 --format=%s release/2.7"), "[RELEASE-ONLY CHANGES] Branch Cut for Release 2.7");
  EXPECT_EQ(temp.git("log -1 --format=%s main"), "Bump version to 2.8.0a0");
  EXPECT_EQ(temp.git("show main:version.txt"), "2.8.0a0");
  EXPECT_EQ(temp.git("show release/2.7:version.txt"), "2.7.0");
  EXPECT_EQ(temp.git("show release/2.7:channel.txt"), "test");
  EXPECT_EQ(remote_rev("release/2.7"), temp.git("rev-parse release/2.7") + "\n");
  EXPECT_EQ(remote_rev("orig/release/2.7"), base + "\n");
  EXPECT_EQ(remote_rev("main"), temp.git("rev-parse main") + "\n");
  EXPECT_EQ(cli.ok("version current --variant cu130 --date 20260415 --ref refs/heads/main"),
            "2.8.0.dev20260415+cu130\n");

  // Two picks: one applies, one conflicts and changes nothing.
  temp.write("src/fix.txt", "fixed\n");
  const std::string fix = temp.commit_all("Fix a regression in the loader");
  temp.write("src/a.txt", "one\ntwo-b\nthree\n");
  temp.commit_all("Rework line two");
  temp.write("src/a.txt", "one\ntwo-c\nthree\n");
  const std::string follow_up = temp.commit_all("Polish line two");
  EXPECT_EQ(cli.json("release pick request " + fix + " --reason regression --note 'breaks import'")[0]["id"],
            1);
  EXPECT_EQ(cli.json("release pick request " + follow_up + " --reason fixnewfeature")[0]["id"], 2);
  cli.ok("release pick approve 1");
  cli.ok("release pick approve 2");
  const std::string refs_before = temp.git("show-ref");
  const RunResult all = cli.run("release pick apply --all-approved");
  EXPECT_EQ(all.exit_code, 5) << all.err;
  EXPECT_EQ(all.out, "");
  EXPECT_NE(all.err.find("src/a.txt"), std::string::npos) << all.err;
  EXPECT_NE(all.err.find("applied #1"), std::string::npos) << all.err;
  const std::string picked = temp.git("rev-parse release/2.7");
  EXPECT_EQ(temp.git("log -1 --format=%B release/2.7"),
            "Fix a regression in the loader\n\n(cherry picked from commit " + fix + ")\n");
  EXPECT_EQ(temp.git("diff " + fix + "^ " + fix), temp.git("diff " + picked + "^ " + picked));
  EXPECT_EQ(temp.git("status --porcelain"), "");
  const Json picks = cli.json("release picks");
  ASSERT_EQ(picks.size(), 2u);
  EXPECT_EQ(picks[0]["state"], "applied");
  EXPECT_EQ(picks[0]["applied_sha"], picked);
  EXPECT_EQ(picks[1]["state"], "conflict");
  EXPECT_EQ(picks[1]["conflict_files"], Json::array({"src/a.txt"}));
  const std::string table = cli.ok("release picks");
  EXPECT_NE(table.find("#2  conflict"), std::string::npos) << table;
  cli.ok("release pick reject 2 --reason 'conflicts: land a backport'");

  // rc1, then the final phase: only critical picks, each forcing a new RC.
  EXPECT_EQ(cli.ok("release rc --push origin"), "tagged v2.7.0-rc1 at " + picked.substr(0, 12) +
                                                    "\npushed refs/tags/v2.7.0-rc1:refs/tags/v2.7.0-rc1\n");
  EXPECT_EQ(temp.git("cat-file -t v2.7.0-rc1"), "tag");
  EXPECT_EQ(relforge::test::run_shell(bare + "cat-file -t v2.7.0-rc1").out, "tag\n");
  temp.git("checkout -q v2.7.0-rc1");
  EXPECT_EQ(cli.json("version current --variant cu130 --date 20260415")["version"], "2.7.0+cu130");
  temp.git("checkout -q main");

  temp.write("src/crash.txt", "no more crash\n");
  const std::string crash = temp.commit_all("Fix a crash on empty tensors");
  const RunResult docs = cli.run("release pick request " + crash + " --reason docs");
  EXPECT_EQ(docs.exit_code, 5);
  EXPECT_NE(docs.err.find("only 'critical'"), std::string::npos) << docs.err;
  cli.ok("release pick request " + crash + " --reason critical --note 'segfault'");
  cli.ok("release pick approve 3");
  EXPECT_EQ(cli.json("release pick apply 3")[0]["needs_rc"], true);
  const Json blocked = cli.json("release status 2.7");
  EXPECT_EQ(blocked["rc_needed"], true);
  EXPECT_EQ(blocked["phase"], "final-rc");
  const RunResult early = cli.run("release final");
  EXPECT_EQ(early.exit_code, 5);
  EXPECT_NE(early.err.find("moved since v2.7.0-rc1"), std::string::npos) << early.err;

  const Json rc2 = cli.json("release rc 2.7 --push origin");
  EXPECT_EQ(rc2["tag"], "v2.7.0-rc2");
  const Json final_tag = cli.json("release final 2.7 --push origin");
  EXPECT_EQ(final_tag["tag"], "v2.7.0");
  EXPECT_EQ(temp.git("rev-parse v2.7.0^{commit}"), temp.git("rev-parse v2.7.0-rc2^{commit}"));
  EXPECT_EQ(temp.git("rev-parse v2.7.0-rc2^{commit}"), temp.git("rev-parse release/2.7"));
  EXPECT_EQ(temp.git("cat-file -t v2.7.0"), "tag");
  EXPECT_EQ(remote_rev("v2.7.0^{commit}"), temp.git("rev-parse v2.7.0-rc2^{commit}") + "\n");
  EXPECT_EQ(temp.git("show release/2.7:src/crash.txt"), "no more crash");
  EXPECT_EQ(temp.git("show release/2.7:src/a.txt"), "one\ntwo\nthree");

  // The patch cycle on the same branch.
  const std::string patch = cli.ok("release patch 2.7.1 --push origin");
  EXPECT_NE(patch.find("release/2.7: 2.7.0 -> 2.7.1"), std::string::npos) << patch;
  EXPECT_EQ(temp.git("show release/2.7:version.txt"), "2.7.1");
  EXPECT_EQ(remote_rev("release/2.7"), temp.git("rev-parse release/2.7") + "\n");
  EXPECT_EQ(cli.json("release rc")["tag"], "v2.7.1-rc1");
  const std::string status = cli.ok("release status");
  EXPECT_NE(status.find("last RC  v2.7.1-rc1"), std::string::npos) << status;
  EXPECT_NE(status.find("applied=2 rejected=1"), std::string::npos) << status;
  EXPECT_EQ(temp.git("status --porcelain"), "");
}

TEST(ReleaseCli, BadInputGetsAClearErrorAndCleanStdout) {
  TempRepo temp;
  const ReleaseCli cli(temp);
  // Not a git repository (the temp root has no .git above it).
  const RunResult not_repo =
      relforge::test::relforge("release status --repo " + shell_quote(temp.root.string()));
  EXPECT_EQ(not_repo.exit_code, 4);
  EXPECT_EQ(not_repo.out, "");
  EXPECT_NE(not_repo.err.find("not inside a git repository"), std::string::npos) << not_repo.err;

  temp.seed_project();
  temp.write("src/a.txt", "dirty\n");
  const RunResult dirty = cli.run("release cut 2.7");
  EXPECT_EQ(dirty.exit_code, 5);
  EXPECT_EQ(dirty.out, "");
  EXPECT_NE(dirty.err.find("uncommitted changes (src/a.txt)"), std::string::npos) << dirty.err;
  temp.git("checkout -q -- src/a.txt");

  const RunResult json_error = cli.run("release cut 2.6 --json");
  EXPECT_EQ(json_error.exit_code, 2);
  EXPECT_EQ(json_error.out, "");
  const Json body = Json::parse(json_error.err, nullptr, false);
  EXPECT_EQ(body["error"]["category"], "invalid_input");

  cli.ok("release cut 2.7");
  EXPECT_EQ(cli.run("release cut 2.7").exit_code, 5);
  const RunResult unknown = cli.run("release pick request 0123456789abcdef --reason critical");
  EXPECT_EQ(unknown.exit_code, 4);
  EXPECT_NE(unknown.err.find("unknown revision"), std::string::npos) << unknown.err;
  cli.ok("release rc");
  const RunResult tag_again = cli.run("release rc");
  EXPECT_EQ(tag_again.exit_code, 5);
  EXPECT_NE(tag_again.err.find("already tags the head"), std::string::npos);
  EXPECT_EQ(cli.run("release pick apply").exit_code, 2);
  EXPECT_EQ(cli.run("version current --date 2026-13-01").exit_code, 2);
}

}  // namespace
