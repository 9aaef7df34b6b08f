// Every mutating release command is a transaction: killed (SIGKILL, through the test-only
// RELFORGE_TEST_CRASH_AT hook) after each step, the repository stays sound (git fsck), a re-run of
// the same command finishes it to what an uninterrupted run gives, and --abort restores the refs,
// work tree and ledger exactly as they were before.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/release/repo_fixture.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace {

using relforge::test::RunResult;
using relforge::test::shell_quote;
using relforge::test::TempRepo;
using Json = nlohmann::json;

void ok(const TempRepo& temp, const std::string& args) {
  const RunResult result = relforge_in(temp, args);
  ASSERT_EQ(result.exit_code, 0) << args << "\n" << result.err;
}

// Every file and folder of the work tree (ignored ones and empty folders too), sorted.
std::string work_tree_paths(const TempRepo& temp) {
  std::vector<std::string> paths;
  for (auto it = std::filesystem::recursive_directory_iterator(temp.work);
       it != std::filesystem::recursive_directory_iterator(); ++it) {
    if (it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    paths.push_back(std::filesystem::relative(it->path(), temp.work).string());
  }
  std::sort(paths.begin(), paths.end());
  std::string out;
  for (const auto& path : paths) out += path + "\n";
  return out;
}

// The state of the repository that does not depend on when commits were written: every ref with
// its kind, and the trees and subjects of its history; HEAD; the work tree; the ledger.
std::string shape(const TempRepo& temp) {
  std::string out = "HEAD " + temp.git("symbolic-ref -q HEAD") + "\n";
  // The ledger (refs/relforge/releases) is compared by its content, the picks below: it is an
  // audit history, and an abort records the restored entries as a new ledger commit.
  const std::string refs = temp.git("for-each-ref --format='%(refname)' refs/heads refs/tags");
  std::size_t start = 0;
  while (start < refs.size()) {
    auto end = refs.find('\n', start);
    if (end == std::string::npos) end = refs.size();
    const std::string ref = refs.substr(start, end - start);
    start = end + 1;
    out += ref + " " + temp.git("cat-file -t " + ref) + "\n" + temp.git("log --format='%T %s' " + ref) + "\n";
  }
  out += "status [" + temp.git("status --porcelain --ignored") + "]\nfiles [" + work_tree_paths(temp) + "]\n";
  Json picks = Json::parse(relforge_in(temp, "release picks --json").out, nullptr, false);
  // Commit ids and audit times differ between two repositories built at different times.
  for (auto& pick : picks) {
    if (!pick["applied_sha"].is_null()) pick["applied_sha"] = "set";
    pick.erase("sha");
    for (const char* field : {"requested", "approved", "rejected"}) {
      if (pick[field].is_object()) pick[field].erase("at");
    }
  }
  return out + picks.dump() + "\n";
}

// Exact refs (by object id), index and work tree (no stray file or folder) and ledger: what --abort
// must restore.
std::string exact(const TempRepo& temp) {
  return temp.git("for-each-ref --format='%(refname) %(objectname)' refs/heads refs/tags") + "\nHEAD " +
         temp.git("symbolic-ref -q HEAD") + "\nstatus [" + temp.git("status --porcelain --ignored") +
         "]\nfiles [" + work_tree_paths(temp) + "]\n" + relforge_in(temp, "release picks --json").out;
}

void expect_fsck_clean(const TempRepo& temp, const std::string& where) {
  const RunResult fsck = temp.git_result("fsck --no-dangling --no-progress");
  EXPECT_EQ(fsck.exit_code, 0) << where << "\n" << fsck.err;
  EXPECT_EQ(fsck.out, "") << where;
}

struct Scenario {
  std::string name;
  std::function<void(const TempRepo&)> setup;
  std::string command;
  std::vector<std::string> steps;
};

void cut(const TempRepo& temp) {
  temp.seed_project();
  ok(temp, "release cut 2.7");
}

// The fix adds two files, the first a checkout writes in a new folder: killed after it ("checkout-1"),
// the work tree holds a file and a folder that no commit of the branch has yet.
void fix_requested(const TempRepo& temp, const std::string& reason) {
  temp.git("checkout -q main");
  temp.write("src/cuda/fix.cu", "// fixed\n");
  temp.write("src/fix.txt", "fixed\n");
  const std::string fix = temp.commit_all("Fix a crash");
  ok(temp, "release pick request " + fix + " --reason " + reason);
}

std::vector<Scenario> scenarios() {
  const std::vector<std::string> one_ref = {"journal-written", "ref-1", "ledger-written"};
  return {
      {"cut",
       [](const TempRepo& temp) { temp.seed_project(); },
       "release cut 2.7",
       {"journal-written", "ref-1", "ref-2", "checkout-3", "ref-3", "ledger-written"}},
      {"pick_apply",
       [](const TempRepo& temp) {
         cut(temp);
         fix_requested(temp, "regression");
         ok(temp, "release pick approve 1");
         // On the release branch, so the work tree must follow the branch.
         temp.git("checkout -q release/2.7");
       },
       "release pick apply 1",
       {"journal-written", "checkout-1", "ref-1", "ledger-written"}},
      {"rc",
       [](const TempRepo& temp) {
         cut(temp);
         ok(temp, "release rc");
         fix_requested(temp, "critical");
         ok(temp, "release pick approve 1");
         ok(temp, "release pick apply 1");  // needs a new RC: rc2 clears that in the ledger
       },
       "release rc", one_ref},
      {"final",
       [](const TempRepo& temp) {
         cut(temp);
         ok(temp, "release rc");
       },
       "release final", one_ref},
      {"patch",
       [](const TempRepo& temp) {
         cut(temp);
         ok(temp, "release rc");
         ok(temp, "release final");
         temp.git("checkout -q release/2.7");
       },
       "release patch 2.7.1",
       {"journal-written", "checkout-1", "ref-1", "ledger-written"}},
  };
}

// One test per command, so that ctest runs them side by side. The scenario's set-up is made once
// and copied for every crash.
class ReleaseCrashAt : public ::testing::TestWithParam<Scenario> {};

TEST_P(ReleaseCrashAt, EveryStepResumesAndAbortsSlow) {
  const Scenario& scenario = GetParam();
  TempRepo start;
  scenario.setup(start);
  // What an uninterrupted run gives.
  const TempRepo reference(TempRepo::CopyOf{start});
  const Json plan =
      Json::parse(relforge_in(reference, scenario.command + " --dry-run --json").out, nullptr, false);
  ASSERT_TRUE(plan.is_object()) << scenario.name;
  // The steps named above are the plan's: one per ref it moves.
  const std::size_t refs = plan.contains("plan") ? plan["plan"]["refs"].size() : 0;
  const auto ref_steps = std::count_if(scenario.steps.begin(), scenario.steps.end(),
                                       [](const std::string& step) { return step.starts_with("ref-"); });
  EXPECT_EQ(refs, static_cast<std::size_t>(ref_steps)) << scenario.name;
  ok(reference, scenario.command);
  const std::string expected = shape(reference);
  const std::string before = exact(start);

  for (const auto& step : scenario.steps) {
    const std::string where = scenario.name + " killed after " + step;
    for (const bool abort : {false, true}) {
      const TempRepo temp(TempRepo::CopyOf{start});
      const RunResult crashed = relforge_in(temp, scenario.command, "RELFORGE_TEST_CRASH_AT=" + step);
      EXPECT_NE(crashed.exit_code, 0) << where;
      expect_fsck_clean(temp, where);
      const RunResult status = relforge_in(temp, "release status");
      EXPECT_NE((status.out + status.err).find("unfinished"), std::string::npos) << where << "\n"
                                                                                 << status.out;
      // Another mutating command refuses while this one is unfinished.
      const RunResult other = relforge_in(temp, "release patch 9.9.9");
      EXPECT_EQ(other.exit_code, 5) << where << "\n" << other.err;
      EXPECT_NE(other.err.find("interrupted 'relforge release " + scenario.command.substr(8)),
                std::string::npos)
          << where << "\n"
          << other.err;
      if (abort) {
        const RunResult aborted = relforge_in(temp, scenario.command + " --abort");
        EXPECT_EQ(aborted.exit_code, 0) << where << "\n" << aborted.err;
        EXPECT_EQ(exact(temp), before) << where << " then --abort";
        EXPECT_EQ(relforge_in(temp, scenario.command + " --abort").exit_code, 4) << where;
      } else {
        const RunResult resumed = relforge_in(temp, scenario.command);
        EXPECT_EQ(resumed.exit_code, 0) << where << "\n" << resumed.err;
        EXPECT_EQ(resumed.err, "") << where;
        EXPECT_EQ(shape(temp), expected) << where << " then re-run";
        const RunResult after = relforge_in(temp, "release status");
        EXPECT_EQ(after.out.find("unfinished"), std::string::npos) << where << "\n" << after.out;
      }
      expect_fsck_clean(temp, where);
    }
  }
}

// ctest names each test by what this prints: Commands/ReleaseCrashAt.EveryStepResumesAndAbortsSlow/rc.
void PrintTo(const Scenario& scenario, std::ostream* out) {
  *out << scenario.name;
}

INSTANTIATE_TEST_SUITE_P(Commands, ReleaseCrashAt, ::testing::ValuesIn(scenarios()));

TEST(ReleaseCrash, DryRunShowsThePlanAndChangesNothing) {
  TempRepo temp;
  cut(temp);
  const std::string before = exact(temp);
  const RunResult text = relforge_in(temp, "release rc --dry-run");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("create refs/tags/v2.7.0-rc1"), std::string::npos) << text.out;
  const Json json =
      Json::parse(relforge_in(temp, "release patch 2.7.1 --dry-run --json").out, nullptr, false);
  EXPECT_EQ(exact(temp), before);
  const Json cut_plan =
      Json::parse(relforge_in(temp, "release cut 2.8 --dry-run --json").out, nullptr, false);
  ASSERT_TRUE(cut_plan.is_object());
  ASSERT_EQ(cut_plan["plan"]["refs"].size(), 3u);
  EXPECT_EQ(cut_plan["plan"]["refs"][2]["ref"], "refs/heads/main");
  EXPECT_EQ(cut_plan["plan"]["refs"][2]["old"], temp.git("rev-parse main"));
  EXPECT_TRUE(cut_plan["plan"]["refs"][0]["old"].is_null());
  EXPECT_EQ(exact(temp), before);
}

// The work tree's checkout is itself cut short twice: a re-run killed in its own checkout still
// finishes, and an --abort killed in its checkout back still restores everything.
TEST(ReleaseCrash, ACheckoutCutShortAgainStillFinishesOrAborts) {
  TempRepo start;
  cut(start);
  fix_requested(start, "regression");
  ok(start, "release pick approve 1");
  start.git("checkout -q release/2.7");
  const std::string before = exact(start);
  const TempRepo reference(TempRepo::CopyOf{start});
  ok(reference, "release pick apply 1");
  const std::string expected = shape(reference);
  const std::string crash = "RELFORGE_TEST_CRASH_AT=checkout-1";

  const TempRepo resumed(TempRepo::CopyOf{start});
  EXPECT_NE(relforge_in(resumed, "release pick apply 1", crash).exit_code, 0);
  EXPECT_NE(relforge_in(resumed, "release pick apply 1", crash).exit_code, 0);
  const RunResult finished = relforge_in(resumed, "release pick apply 1");
  EXPECT_EQ(finished.exit_code, 0) << finished.err;
  EXPECT_EQ(shape(resumed), expected);
  expect_fsck_clean(resumed, "re-run killed in its checkout");

  const TempRepo aborted(TempRepo::CopyOf{start});
  EXPECT_NE(relforge_in(aborted, "release pick apply 1", crash).exit_code, 0);
  EXPECT_NE(relforge_in(aborted, "release pick apply 1 --abort", "RELFORGE_TEST_CRASH_AT=abort-checkout-1")
                .exit_code,
            0);
  EXPECT_NE(relforge_in(aborted, "release status").out.find("unfinished"), std::string::npos);
  const RunResult undone = relforge_in(aborted, "release pick apply 1 --abort");
  EXPECT_EQ(undone.exit_code, 0) << undone.err;
  EXPECT_EQ(exact(aborted), before);
  expect_fsck_clean(aborted, "abort killed in its checkout");
}

// A file edited by hand after the crash is neither version: the re-run refuses to overwrite it.
TEST(ReleaseCrash, AFileEditedAfterACrashInTheCheckoutIsNotOverwritten) {
  TempRepo temp;
  cut(temp);
  fix_requested(temp, "regression");
  ok(temp, "release pick approve 1");
  temp.git("checkout -q release/2.7");
  EXPECT_NE(relforge_in(temp, "release pick apply 1", "RELFORGE_TEST_CRASH_AT=checkout-1").exit_code, 0);
  ASSERT_EQ(temp.read("src/cuda/fix.cu"), "// fixed\n");
  temp.write("src/cuda/fix.cu", "// my own edit\n");
  const RunResult refused = relforge_in(temp, "release pick apply 1");
  EXPECT_EQ(refused.exit_code, 5) << refused.err;
  EXPECT_NE(refused.err.find("the work tree of release/2.7 has changes in src/cuda/fix.cu"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("git checkout -- PATH"), std::string::npos) << refused.err;
  EXPECT_EQ(temp.read("src/cuda/fix.cu"), "// my own edit\n");
  std::filesystem::remove(temp.work / "src/cuda/fix.cu");
  const RunResult finished = relforge_in(temp, "release pick apply 1");
  EXPECT_EQ(finished.exit_code, 0) << finished.err;
  EXPECT_EQ(temp.git("status --porcelain --ignored"), "");
  EXPECT_EQ(temp.read("src/cuda/fix.cu"), "// fixed\n");
}

TEST(ReleaseCrash, ARefMovedByAnotherWriterIsNotOverwritten) {
  TempRepo temp;
  temp.seed_project();
  const RunResult crashed = relforge_in(temp, "release cut 2.7", "RELFORGE_TEST_CRASH_AT=ref-2");
  EXPECT_NE(crashed.exit_code, 0);
  // Someone else moves main before the re-run: the compare-and-swap refuses to clobber it.
  temp.write("src/other.txt", "other\n");
  const std::string other = temp.commit_all("Someone else's commit");
  const RunResult resumed = relforge_in(temp, "release cut 2.7");
  EXPECT_EQ(resumed.exit_code, 5) << resumed.err;
  EXPECT_NE(resumed.err.find("refs/heads/main is at " + other.substr(0, 12)), std::string::npos)
      << resumed.err;
  EXPECT_EQ(temp.git("rev-parse main"), other);
  // --abort undoes the cut's own refs and leaves the moved one alone.
  const RunResult aborted = relforge_in(temp, "release cut 2.7 --abort");
  EXPECT_EQ(aborted.exit_code, 0) << aborted.err;
  EXPECT_EQ(temp.git("branch --list 'release/*' 'orig/*'"), "");
  EXPECT_EQ(temp.git("rev-parse main"), other);
}

TEST(ReleaseCrash, TwoConcurrentRunsCannotBothWin) {
  TempRepo temp;
  cut(temp);
  const std::string binary = shell_quote(relforge::test::relforge_binary()) + " release rc --repo " +
                             shell_quote(temp.work.string());
  // Both start together; one tags rc1, the other finds the head tagged and refuses.
  const RunResult both = relforge::test::run_shell(
      "env -u GITHUB_REF " + binary + " > " + shell_quote((temp.root / "a.out").string()) +
      " 2>&1 & env -u "
      "GITHUB_REF " +
      binary + " > " + shell_quote((temp.root / "b.out").string()) + " 2>&1 & wait");
  EXPECT_EQ(both.exit_code, 0);
  const std::string a = relforge::test::slurp(temp.root / "a.out");
  const std::string b = relforge::test::slurp(temp.root / "b.out");
  const bool a_won = a.find("tagged v2.7.0-rc1") != std::string::npos;
  const bool b_won = b.find("tagged v2.7.0-rc1") != std::string::npos;
  EXPECT_NE(a_won, b_won) << a << "\n---\n" << b;
  EXPECT_NE((a_won ? b : a).find("already tags the head"), std::string::npos) << a << "\n---\n" << b;
  EXPECT_EQ(temp.git("tag --list 'v2.7.0-rc*'"), "v2.7.0-rc1");
  expect_fsck_clean(temp, "after two concurrent runs");
}

}  // namespace
