// The pick ledger edited by hand (`git push` of refs/relforge/releases from another clone) while a
// `release pick apply` is unfinished: re-running it keeps the edit (merged field by field) or, when it
// would contradict the edit, refuses and changes nothing; --abort undoes only what the apply set.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/release/repo_fixture.hpp"
#include "tests/support/run.hpp"

namespace {

using relforge::test::RunResult;
using relforge::test::shell_quote;
using relforge::test::TempRepo;
using Json = nlohmann::json;

void must_run(const TempRepo& temp, const std::string& args) {
  const RunResult result = relforge_in(temp, args);
  ASSERT_EQ(result.exit_code, 0) << args << "\n" << result.err;
}

// Cut 2.7, a fix on main requested and approved as pick #1, release/2.7 checked out.
void approved_pick(const TempRepo& temp) {
  temp.seed_project();
  must_run(temp, "release cut 2.7");
  temp.write("src/fix.txt", "fixed\n");
  const std::string fix = temp.commit_all("Fix a crash");
  must_run(temp, "release pick request " + fix + " --reason regression");
  must_run(temp, "release pick approve 1");
  temp.git("checkout -q release/2.7");
}

// In a clone of `temp`: the ledger fetched, 2.7.json's pick #1 changed by `edit` and committed with
// git's plumbing, and pushed back to `temp`'s refs/relforge/releases.
void push_ledger_edit(const TempRepo& temp, const std::function<void(Json&)>& edit) {
  const std::string clone = shell_quote((temp.root / "other").string());
  const std::string git = "GIT_CONFIG_NOSYSTEM=1 HOME=" + shell_quote(temp.root.string()) +
                          " git -c user.name=Grace -c user.email=grace@example.com -C " + clone;
  const auto sh = [&](const std::string& command) {
    const RunResult result = relforge::test::run_shell(command);
    EXPECT_EQ(result.exit_code, 0) << command << "\n" << result.err;
    std::string out = result.out;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  };
  sh("git clone -q " + shell_quote(temp.work.string()) + " " + clone);
  sh(git + " fetch -q origin refs/relforge/releases:refs/relforge/releases");
  Json ledger = Json::parse(sh(git + " show refs/relforge/releases:2.7.json"));
  edit(ledger["picks"][0]);
  const std::string file = (temp.root / "2.7.json").string();
  std::ofstream(file) << ledger.dump(2) << "\n";
  const std::string blob = sh(git + " hash-object -w " + shell_quote(file));
  const std::string tree = sh("printf '100644 blob " + blob + "\\t2.7.json\\n' | " + git + " mktree");
  const std::string commit =
      sh(git + " commit-tree " + tree + " -p refs/relforge/releases -m 'Edit pick #1 by hand'");
  sh(git + " push -q origin " + commit + ":refs/relforge/releases");
}

Json pick_one(const TempRepo& temp) {
  const Json picks = Json::parse(relforge_in(temp, "release picks --json").out, nullptr, false);
  return picks.is_array() && !picks.empty() ? picks[0] : Json();
}

TEST(ReleaseLedgerEdit, AnEditOfAnotherFieldIsKeptByTheReRunAndByTheAbort) {
  TempRepo start;
  approved_pick(start);
  const std::string branch_before = start.git("rev-parse release/2.7");
  const auto note = [](Json& pick) { pick["note"] = "tracked in the security advisory"; };

  // Killed after the branch moved, before the ledger was written: the re-run writes the pick as
  // applied and keeps the note.
  const TempRepo resumed(TempRepo::CopyOf{start});
  EXPECT_NE(relforge_in(resumed, "release pick apply 1", "RELFORGE_TEST_CRASH_AT=ref-1").exit_code, 0);
  push_ledger_edit(resumed, note);
  const RunResult rerun = relforge_in(resumed, "release pick apply 1");
  EXPECT_EQ(rerun.exit_code, 0) << rerun.err;
  Json pick = pick_one(resumed);
  EXPECT_EQ(pick["state"], "applied") << pick.dump();
  EXPECT_EQ(pick["applied_sha"], resumed.git("rev-parse release/2.7"));
  EXPECT_EQ(pick["note"], "tracked in the security advisory") << pick.dump();
  EXPECT_EQ(resumed.git("status --porcelain"), "");
  EXPECT_EQ(relforge_in(resumed, "release status").out.find("unfinished"), std::string::npos);

  // Killed after the ledger was written: the abort puts state and commit back and keeps the note.
  const TempRepo aborted(TempRepo::CopyOf{start});
  EXPECT_NE(relforge_in(aborted, "release pick apply 1", "RELFORGE_TEST_CRASH_AT=ledger-written").exit_code,
            0);
  push_ledger_edit(aborted, note);
  const RunResult abort = relforge_in(aborted, "release pick apply 1 --abort");
  EXPECT_EQ(abort.exit_code, 0) << abort.err;
  pick = pick_one(aborted);
  EXPECT_EQ(pick["state"], "approved") << pick.dump();
  EXPECT_TRUE(pick["applied_sha"].is_null()) << pick.dump();
  EXPECT_EQ(pick["note"], "tracked in the security advisory") << pick.dump();
  EXPECT_EQ(aborted.git("rev-parse release/2.7"), branch_before);
  EXPECT_EQ(aborted.git("status --porcelain --ignored"), "");
}

TEST(ReleaseLedgerEdit, AReRunThatWouldOverwriteADecisionRefusesAndTheAbortKeepsIt) {
  TempRepo temp;
  approved_pick(temp);
  const std::string branch_before = temp.git("rev-parse release/2.7");
  EXPECT_NE(relforge_in(temp, "release pick apply 1", "RELFORGE_TEST_CRASH_AT=ref-1").exit_code, 0);
  const std::string branch_crashed = temp.git("rev-parse release/2.7");
  ASSERT_NE(branch_crashed, branch_before);
  push_ledger_edit(temp, [](Json& pick) {
    pick["state"] = "rejected";
    pick["rejected_by"] = "Grace Hopper <grace@example.com>";
    pick["rejected_at"] = "2026-12-01T00:00:00Z";
    pick["reject_reason"] = "breaks the ABI";
  });
  const std::string ledger_edited = temp.git("rev-parse refs/relforge/releases");

  const RunResult refused = relforge_in(temp, "release pick apply 1");
  EXPECT_EQ(refused.exit_code, 5) << refused.err;
  for (const char* part : {"pick #1", "state \"rejected\"", "would write \"applied\"", "nothing was changed",
                           "git log -p refs/relforge/releases", "relforge release pick apply 1 --abort"}) {
    EXPECT_NE(refused.err.find(part), std::string::npos) << part << "\n" << refused.err;
  }
  EXPECT_EQ(temp.git("rev-parse refs/relforge/releases"), ledger_edited);
  EXPECT_EQ(temp.git("rev-parse release/2.7"), branch_crashed);

  const RunResult aborted = relforge_in(temp, "release pick apply 1 --abort");
  EXPECT_EQ(aborted.exit_code, 0) << aborted.err;
  EXPECT_NE(aborted.out.find("kept in the ledger: pick #1"), std::string::npos) << aborted.out;
  const Json pick = pick_one(temp);
  EXPECT_EQ(pick["state"], "rejected") << pick.dump();
  EXPECT_EQ(pick["rejected"]["reason"], "breaks the ABI") << pick.dump();
  EXPECT_EQ(temp.git("rev-parse release/2.7"), branch_before);
  EXPECT_EQ(temp.git("status --porcelain --ignored"), "");
  EXPECT_EQ(relforge_in(temp, "release status").out.find("unfinished"), std::string::npos);
}

}  // namespace
