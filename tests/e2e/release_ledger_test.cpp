// The pick ledger is shared through the repository (refs/relforge/releases): two clones of one
// bare remote file requests and decisions independently, sync, and both see both, with the audit
// fields (who, when, why) in text and JSON and concurrent edits merged deterministically.
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

class Clone {
public:
  Clone(const TempRepo& temp, const std::string& name, const std::string& remote, const std::string& who)
      : m_dir(temp.root / name), m_home(temp.root) {
    EXPECT_EQ(sh("git clone -q " + shell_quote(remote) + " " + shell_quote(m_dir.string())).exit_code, 0);
    git("config user.name " + shell_quote(who));
    git("config user.email " + shell_quote(name + "@example.com"));
    git("fetch -q origin 'refs/heads/release/*:refs/heads/release/*'");
  }
  RunResult sh(const std::string& command) const {
    return relforge::test::run_shell("GIT_CONFIG_NOSYSTEM=1 HOME=" + shell_quote(m_home.string()) + " " +
                                     command);
  }
  std::string git(const std::string& args) const {
    const RunResult result = sh("git -C " + shell_quote(m_dir.string()) + " " + args);
    EXPECT_EQ(result.exit_code, 0) << "git " << args << "\n" << result.err;
    std::string out = result.out;
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }
  RunResult relforge(const std::string& args) const {
    return sh("env -u GITHUB_REF -u GITHUB_BASE_REF " + shell_quote(relforge::test::relforge_binary()) + " " +
              args + " --repo " + shell_quote(m_dir.string()));
  }
  std::string ok(const std::string& args) const {
    const RunResult result = relforge(args);
    EXPECT_EQ(result.exit_code, 0) << args << "\n" << result.err;
    return result.out;
  }
  Json picks() const { return Json::parse(ok("release pick list --json"), nullptr, false); }

private:
  std::filesystem::path m_dir;
  std::filesystem::path m_home;
};

TEST(ReleaseLedger, TwoClonesShareRequestsAndDecisionsThroughTheRemoteSlow) {
  TempRepo temp;
  temp.seed_project();
  const std::string remote = temp.make_bare("remote.git");
  temp.git("remote add origin " + shell_quote(remote));
  ASSERT_EQ(
      relforge::test::run_shell(shell_quote(relforge::test::relforge_binary()) +
                                " release cut 2.7 --push origin --repo " + shell_quote(temp.work.string()))
          .exit_code,
      0);
  temp.write("src/one.txt", "one\n");
  const std::string one = temp.commit_all("Fix one");
  temp.write("src/two.txt", "two\n");
  const std::string two = temp.commit_all("Fix two");
  temp.git("push -q origin main");

  const Clone alice(temp, "alice", remote, "Alice");
  const Clone bob(temp, "bob", remote, "Bob");
  // Both file a request offline: each calls it #1.
  alice.ok("release pick request " + one + " --reason regression --note 'breaks import'");
  bob.ok("release pick request " + two + " --reason critical");
  EXPECT_EQ(alice.picks()[0]["id"], 1);
  EXPECT_EQ(bob.picks()[0]["id"], 1);
  EXPECT_NE(alice.ok("release pick sync origin").find("pushed to origin"), std::string::npos);
  // Bob's sync merges: Alice's pushed #1 keeps its number, Bob's becomes #2, and he is told.
  const std::string merged = bob.ok("release pick sync origin");
  EXPECT_NE(merged.find("from this clone is now #2"), std::string::npos) << merged;
  alice.ok("release pick sync origin");
  for (const Clone* clone : {&alice, &bob}) {
    const Json picks = clone->picks();
    ASSERT_EQ(picks.size(), 2u) << picks.dump();
    EXPECT_EQ(picks[0]["sha"], one);
    EXPECT_EQ(picks[0]["requested"]["by"], "Alice <alice@example.com>");
    EXPECT_EQ(picks[1]["sha"], two);
    EXPECT_EQ(picks[1]["id"], 2);
    EXPECT_EQ(picks[1]["requested"]["by"], "Bob <bob@example.com>");
    EXPECT_TRUE(picks[1]["requested"]["at"].is_string());
    EXPECT_EQ(picks[1]["requested"]["at"].get<std::string>().size(), 20u);  // 2026-11-30T23:59:01Z
  }
  // The same ref in plain git: fetchable and readable.
  EXPECT_NE(
      temp.git("--git-dir=" + (temp.root / "remote.git").string() + " show refs/relforge/releases:2.7.json")
          .find(two),
      std::string::npos);

  // Conflicting decisions on #1: Alice approves, Bob rejects; the rejection wins wherever it is merged.
  alice.ok("release pick approve 1 --push origin");
  const RunResult rejected = bob.relforge(
      "release pick reject 1 --reason 'too risky for rc1' --as 'Release Lead "
      "<lead@example.com>' --push origin");
  EXPECT_EQ(rejected.exit_code, 0) << rejected.err;
  alice.ok("release pick sync origin");
  for (const Clone* clone : {&alice, &bob}) {
    const Json pick = clone->picks()[0];
    EXPECT_EQ(pick["state"], "rejected") << pick.dump();
    EXPECT_EQ(pick["approved"]["by"], "Alice <alice@example.com>");
    EXPECT_EQ(pick["rejected"]["by"], "Release Lead <lead@example.com>");
    EXPECT_EQ(pick["rejected"]["reason"], "too risky for rc1");
  }
  const std::string text = alice.ok("release pick list");
  EXPECT_NE(text.find("requested by Alice <alice@example.com> at 20"), std::string::npos) << text;
  EXPECT_NE(text.find("approved by Alice <alice@example.com> at "), std::string::npos) << text;
  EXPECT_NE(text.find("rejected by Release Lead <lead@example.com> at "), std::string::npos) << text;
  EXPECT_NE(text.find(": too risky for rc1"), std::string::npos) << text;
  // A rejection without a reason is refused.
  const RunResult no_reason = bob.relforge("release pick reject 2");
  EXPECT_EQ(no_reason.exit_code, 2) << no_reason.err;
  EXPECT_NE(no_reason.err.find("needs a reason"), std::string::npos) << no_reason.err;
}

}  // namespace
