#include "release/cut.hpp"

#include <filesystem>

#include <gtest/gtest.h>

#include "release/post_cut.hpp"
#include "tests/release/repo_fixture.hpp"

namespace relforge::release {
namespace {

using test::TempRepo;

struct Opened {
  Repository repo;
  ReleaseConfig config;
};

Opened open(const TempRepo& temp) {
  auto repo = Repository::open(temp.work);
  EXPECT_TRUE(repo);
  auto config = parse_release_config(temp.read("relforge.toml"), "relforge.toml");
  EXPECT_TRUE(config) << config.error().describe();
  return {std::move(*repo), std::move(*config)};
}

TEST(ReleaseCut, CreatesBranchOrigRefAndBothCommits) {
  TempRepo temp;
  temp.seed_project();
  const std::string base = temp.git("rev-parse HEAD");
  auto [repo, config] = open(temp);
  CutOptions options;
  options.series = "2.7";
  auto cut = run_release_cut(repo, config, options);
  ASSERT_TRUE(cut) << cut.error().describe();
  EXPECT_TRUE(cut->executed);
  EXPECT_EQ(cut->from_ref, "main");  // no viable/strict here
  EXPECT_EQ(temp.git("rev-parse orig/release/2.7"), base);
  EXPECT_EQ(temp.git("rev-parse release/2.7^"), base);
  EXPECT_EQ(temp.git("rev-parse release/2.7"), cut->release_commit.sha);
  EXPECT_EQ(temp.git("log -1 --format=%B release/2.7"),
            "[RELEASE-ONLY CHANGES] Branch Cut for Release 2.7\n");
  EXPECT_EQ(temp.git("show release/2.7:version.txt"), "2.7.0");
  EXPECT_EQ(temp.git("show release/2.7:channel.txt"), "test");
  EXPECT_EQ(temp.git("show release/2.7:.github/workflows/build.yml"),
            "jobs:\n  build:\n    uses: org/infra/.github/workflows/wheel.yml@release/2.7\n"
            "  test:\n    uses: org/infra/.github/workflows/test.yml@release/2.7");
  EXPECT_EQ(temp.git("show release/2.7:src/a.txt"), "one\ntwo\nthree");
  // main: one commit bumping the version; the checkout follows and stays clean.
  EXPECT_EQ(temp.git("rev-parse main^"), base);
  EXPECT_EQ(temp.git("log -1 --format=%s main"), "Bump version to 2.8.0a0");
  EXPECT_EQ(temp.git("diff --name-only main^ main"), "version.txt");
  EXPECT_EQ(temp.read("version.txt"), "2.8.0a0\n");
  EXPECT_EQ(temp.git("status --porcelain"), "");
  EXPECT_EQ(temp.git("show main:channel.txt"), "nightly");
}

TEST(ReleaseCut, DryRunChangesNothingAndUsesLastKnownGood) {
  TempRepo temp;
  temp.seed_project();
  const std::string green = temp.git("rev-parse HEAD");
  temp.git("branch viable/strict");
  temp.write("src/a.txt", "one\ntwo\nthree\nfour\n");
  const std::string head = temp.commit_all("Not green yet");
  auto [repo, config] = open(temp);
  CutOptions options;
  options.series = "2.7";
  options.dry_run = DryRun::yes;
  auto plan = run_release_cut(repo, config, options);
  ASSERT_TRUE(plan) << plan.error().describe();
  EXPECT_FALSE(plan->executed);
  EXPECT_EQ(plan->from_ref, "viable/strict");
  EXPECT_EQ(plan->from_sha, green);
  ASSERT_EQ(plan->release_commit.changes.size(), 3u);
  EXPECT_EQ(plan->release_commit.changes[0].summary, "2.7.0a0 -> 2.7.0");
  EXPECT_EQ(plan->release_commit.changes[2].summary, "2 x '@main' -> '@release/2.7'");
  EXPECT_EQ(plan->main_commit.changes[0].summary, "2.7.0a0 -> 2.8.0a0");
  EXPECT_TRUE(plan->release_commit.sha.empty());
  EXPECT_EQ(temp.git("branch --list 'release/*' 'orig/*'"), "");
  EXPECT_EQ(temp.git("rev-parse main"), head);

  options.dry_run = DryRun::no;
  auto cut = run_release_cut(repo, config, options);
  ASSERT_TRUE(cut) << cut.error().describe();
  EXPECT_EQ(temp.git("rev-parse release/2.7^"), green);
}

TEST(ReleaseCut, Refusals) {
  TempRepo temp;
  temp.seed_project();
  auto [repo, config] = open(temp);
  CutOptions options;
  options.series = "2.7";

  temp.write("src/a.txt", "dirty\n");
  auto dirty = run_release_cut(repo, config, options);
  ASSERT_FALSE(dirty);
  EXPECT_EQ(dirty.error().category(), ErrorCategory::conflict);
  EXPECT_NE(dirty.error().message().find("src/a.txt"), std::string::npos);
  temp.git("checkout -q -- src/a.txt");

  options.series = "2.6";  // main is at 2.7.0a0: 2.6.0 would go backwards
  auto backwards = run_release_cut(repo, config, options);
  ASSERT_FALSE(backwards);
  EXPECT_EQ(backwards.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(backwards.error().message().find("backwards"), std::string::npos);

  options.series = "2.x";
  EXPECT_FALSE(run_release_cut(repo, config, options));
  options.series = "2.7";
  options.from = "no-such-ref";
  auto unknown = run_release_cut(repo, config, options);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().category(), ErrorCategory::not_found);
  options.from.reset();

  ASSERT_TRUE(run_release_cut(repo, config, options));
  const std::string main_after = temp.git("rev-parse main");
  auto again = run_release_cut(repo, config, options);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().category(), ErrorCategory::conflict);
  EXPECT_NE(again.error().message().find("already exists"), std::string::npos);
  EXPECT_EQ(temp.git("rev-parse main"), main_after);
}

TEST(ReleaseCut, MainAlreadyAtTheReleaseVersionIsRefused) {
  TempRepo temp;
  temp.seed_project();
  temp.write("version.txt", "2.7.0\n");
  temp.commit_all("Main says 2.7.0");
  const std::string before = temp.git("show-ref");
  auto [repo, config] = open(temp);
  CutOptions options;
  options.series = "2.7";
  auto same = run_release_cut(repo, config, options);
  ASSERT_FALSE(same);
  EXPECT_EQ(same.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(same.error().message().find("already at 2.7.0"), std::string::npos) << same.error().message();
  EXPECT_EQ(temp.git("show-ref"), before);
  options.series = "2.8";  // 2.7.0 < 2.8.0: still fine
  options.dry_run = DryRun::yes;
  EXPECT_TRUE(run_release_cut(repo, config, options));
}

// Every ref the cut plans is checked before anything is written: nothing half-done is left.
TEST(ReleaseCut, RefsThatCannotAllBeCreatedAreRefusedWithNothingWritten) {
  TempRepo temp;
  temp.seed_project();
  auto [repo, config] = open(temp);
  const auto nothing_written = [&](const std::string& what) {
    EXPECT_EQ(temp.git("for-each-ref --format='%(refname)' refs/heads"), "refs/heads/main") << what;
    EXPECT_FALSE(std::filesystem::exists(journal_path(repo))) << what;
  };
  for (const std::string bump : {"release/2.7", "orig", "release", "orig/release/2.7/x", "main", "HEAD", "-x",
                                 "refs/heads/x", "foo bar", "a..b", "x.lock", ""}) {
    for (const DryRun dry : {DryRun::no, DryRun::yes}) {
      CutOptions options;
      options.series = "2.7";
      options.bump_via = bump;
      options.dry_run = dry;
      auto cut = run_release_cut(repo, config, options);
      ASSERT_FALSE(cut) << "--bump-via '" << bump << "'";
      EXPECT_EQ(cut.error().category(), ErrorCategory::invalid_input)
          << "--bump-via '" << bump << "': " << cut.error().describe();
      EXPECT_NE(cut.error().message().find("nothing was cut"), std::string::npos) << cut.error().message();
      nothing_written("--bump-via '" + bump + "'");
    }
  }
  // An existing branch named like a folder of a planned ref (or inside one) is in the way.
  const std::string main = temp.git("rev-parse main");
  for (const std::string blocker : {"release", "orig", "release/2.7/old", "bump/x"}) {
    temp.git("branch " + blocker);
    CutOptions options;
    options.series = "2.7";
    options.bump_via = "bump";
    auto cut = run_release_cut(repo, config, options);
    ASSERT_FALSE(cut) << blocker;
    EXPECT_EQ(cut.error().category(), ErrorCategory::conflict) << blocker << ": " << cut.error().describe();
    EXPECT_NE(cut.error().message().find("refs/heads/" + blocker), std::string::npos)
        << cut.error().message();
    temp.git("branch -D " + blocker);
    nothing_written(blocker);
    EXPECT_EQ(temp.git("rev-parse main"), main);
  }
  CutOptions fine;
  fine.series = "2.7";
  fine.bump_via = "bump/2.8.0a0";
  auto cut = run_release_cut(repo, config, fine);
  ASSERT_TRUE(cut) << cut.error().describe();
  EXPECT_EQ(temp.git("rev-parse main"), main);
  EXPECT_EQ(temp.git("log -1 --format=%s bump/2.8.0a0"), "Bump version to 2.8.0a0");
}

// A local edit of the version file the bump rewrites is found before anything is written; a ref
// git itself holds locked stops the cut half-way, and the error says it is unfinished and how to go on.
TEST(ReleaseCut, AnEditedVersionFileCutsNothingAndALockedRefLeavesItUnfinishedAndSaysHow) {
  TempRepo temp;
  temp.seed_project();
  auto [repo, config] = open(temp);
  const std::string main = temp.git("rev-parse main");
  temp.write("version.txt", "2.7.0a0 (my edit)\n");
  CutOptions options;
  options.series = "2.7";
  auto edited = run_release_cut(repo, config, options);
  ASSERT_FALSE(edited);
  EXPECT_EQ(edited.error().category(), ErrorCategory::conflict);
  EXPECT_NE(edited.error().message().find("uncommitted changes (version.txt)"), std::string::npos)
      << edited.error().message();
  EXPECT_EQ(temp.git("for-each-ref --format='%(refname)' refs/heads"), "refs/heads/main");
  EXPECT_FALSE(std::filesystem::exists(journal_path(repo)));
  temp.git("checkout -q -- version.txt");

  temp.write(".git/refs/heads/main.lock", "");
  auto locked = run_release_cut(repo, config, options);
  ASSERT_FALSE(locked);
  EXPECT_NE(locked.error().message().find("main.lock' for writing (another git process holds it"),
            std::string::npos)
      << locked.error().message();
  EXPECT_NE(locked.error().message().find("'relforge release cut 2.7' is unfinished (see 'relforge release "
                                          "status'): run it again to finish it, or again with --abort"),
            std::string::npos)
      << locked.error().message();
  EXPECT_TRUE(std::filesystem::exists(journal_path(repo)));
  EXPECT_EQ(temp.git("rev-parse main"), main);
  std::filesystem::remove(temp.work / ".git/refs/heads/main.lock");
  auto finished = run_release_cut(repo, config, options);
  ASSERT_TRUE(finished) << finished.error().describe();
  EXPECT_TRUE(finished->resumed);
  EXPECT_EQ(temp.git("log -1 --format=%s main"), "Bump version to 2.8.0a0");
  EXPECT_FALSE(std::filesystem::exists(journal_path(repo)));
}

TEST(ReleaseCut, VersionFileMissingOrUnparsableAndStaleReplacement) {
  TempRepo temp;
  temp.seed_project();
  temp.git("rm -q version.txt");
  temp.commit_all("Drop the version file");
  auto [repo, config] = open(temp);
  CutOptions options;
  options.series = "2.7";
  auto missing = run_release_cut(repo, config, options);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().category(), ErrorCategory::not_found);
  EXPECT_NE(missing.error().message().find("version.txt"), std::string::npos);

  temp.write("version.txt", "two point seven\n");
  temp.commit_all("Garbage version");
  auto garbage = run_release_cut(repo, config, options);
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().category(), ErrorCategory::invalid_input);

  temp.write("version.txt", "2.7.0a0\n");
  temp.write(".github/workflows/build.yml", "jobs: {}\n");
  temp.commit_all("Workflow no longer points at main");
  auto stale = run_release_cut(repo, config, options);
  ASSERT_FALSE(stale);
  EXPECT_NE(stale.error().message().find("relforge.toml:6:1: [[release.replace]] '@main' changes nothing in "
                                         ".github/workflows/build.yml"),
            std::string::npos)
      << stale.error().message();
  EXPECT_EQ(temp.git("branch --list 'release/*'"), "");
}

// Workflows in two folders plus a file outside every glob; the rule set uses globs and a regex.
void seed_globbed(const TempRepo& temp, const std::string& rules) {
  temp.seed_project();
  temp.write("ci/deploy.yml", "image: org/runner@main\n");
  temp.write(".github/workflows/test.yml", "uses: org/infra/x.yml@main # and org/other@main\n");
  temp.write("docs/notes.md", "see org/infra@main\n");
  temp.write("relforge.toml", "[release]\nversion_file = \"version.txt\"\n\n" + rules);
  temp.commit_all("Workflows everywhere");
}

TEST(ReleaseCut, GlobsAndRegexRewriteEveryMatchedTrackedFile) {
  TempRepo temp;
  seed_globbed(temp,
               "[[release.replace]]\nfiles = [\"**/*.yml\", \".github/workflows/*.yml\"]\n"
               "from = '(org/[a-z]+)(/[^@\\s]*)?@main'\nto = \"$1$2@{branch}\"\nregex = true\n");
  temp.write("untracked.yml", "org/x@main\n");  // not tracked: never a match
  auto [repo, config] = open(temp);
  CutOptions options;
  options.series = "2.7";
  options.dry_run = DryRun::yes;
  auto plan = run_release_cut(repo, config, options);
  ASSERT_TRUE(plan) << plan.error().describe();
  // The dry-run plan lists each file the rule changes, sorted, once though two globs match it.
  ASSERT_EQ(plan->release_commit.changes.size(), 4u);
  EXPECT_EQ(plan->release_commit.changes[1].path, ".github/workflows/build.yml");
  EXPECT_EQ(plan->release_commit.changes[2].path, ".github/workflows/test.yml");
  EXPECT_EQ(plan->release_commit.changes[2].summary,
            "2 x /(org/[a-z]+)(/[^@\\s]*)?@main/ -> '$1$2@release/2.7'");
  EXPECT_EQ(plan->release_commit.changes[3].path, "ci/deploy.yml");
  EXPECT_EQ(temp.git("branch --list 'release/*'"), "");

  temp.git("clean -fdq");
  options.dry_run = DryRun::no;
  auto cut = run_release_cut(repo, config, options);
  ASSERT_TRUE(cut) << cut.error().describe();
  EXPECT_EQ(temp.git("show release/2.7:.github/workflows/test.yml"),
            "uses: org/infra/x.yml@release/2.7 # and org/other@release/2.7");
  EXPECT_EQ(temp.git("show release/2.7:ci/deploy.yml"), "image: org/runner@release/2.7");
  EXPECT_EQ(temp.git("show release/2.7:docs/notes.md"), "see org/infra@main");
  EXPECT_EQ(temp.git("diff --name-only release/2.7^ release/2.7"),
            ".github/workflows/build.yml\n.github/workflows/test.yml\nci/deploy.yml\nversion.txt");
}

TEST(ReleaseCut, GlobMatchingNothingOrStaleRuleFailsNamingTheRule) {
  TempRepo temp;
  seed_globbed(
      temp,
      "[[release.replace]]\nfiles = [\"**/*.yml\", \"deploy/*.yaml\"]\nfrom = \"@main\"\nto = \"@x\"\n");
  {
    auto [repo, config] = open(temp);
    CutOptions options;
    options.series = "2.7";
    auto cut = run_release_cut(repo, config, options);
    ASSERT_FALSE(cut);
    EXPECT_EQ(cut.error().category(), ErrorCategory::invalid_input);
    EXPECT_NE(
        cut.error().message().find("relforge.toml:4:1: 'deploy/*.yaml' in [[release.replace]] files matches "
                                   "no tracked file"),
        std::string::npos)
        << cut.error().message();
  }
  // A regex that matches but rewrites to the same text changes nothing: stale too.
  temp.write("relforge.toml",
             "[release]\nversion_file = \"version.txt\"\n\n[[release.replace]]\nfiles = "
             "[\"ci/*.yml\"]\nfrom = '(@main)'\nto = \"$1\"\nregex = true\n");
  temp.commit_all("Identity rule");
  auto [repo, config] = open(temp);
  CutOptions options;
  options.series = "2.7";
  auto cut = run_release_cut(repo, config, options);
  ASSERT_FALSE(cut);
  EXPECT_NE(
      cut.error().message().find("relforge.toml:4:1: [[release.replace]] pattern /(@main)/ changes nothing "
                                 "in ci/deploy.yml"),
      std::string::npos)
      << cut.error().message();
  EXPECT_EQ(temp.git("branch --list 'release/*' 'orig/*'"), "");
  EXPECT_EQ(temp.git("log -1 --format=%s main"), "Identity rule");
}

// A real script in the repository: regenerates a workflow from the release env, appends to a
// second tracked file, and writes an untracked file that must not land in the commit.
void seed_hook(const TempRepo& temp, const std::string& script) {
  temp.seed_project();
  temp.write("scripts/regen-workflows.sh", script);
  std::filesystem::permissions(temp.work / "scripts/regen-workflows.sh", std::filesystem::perms::owner_exec,
                               std::filesystem::perm_options::add);
  temp.write("relforge.toml",
             "[release]\nversion_file = \"version.txt\"\nchannel_file = \"channel.txt\"\n"
             "post_cut = [\"bash\", \"scripts/regen-workflows.sh\"]\n\n[[release.replace]]\n"
             "file = \".github/workflows/build.yml\"\nfrom = \"@main\"\nto = \"@{branch}\"\n");
  temp.commit_all("Add a post-cut hook");
}

TEST(ReleaseCut, PostCutHookChangesJoinTheReleaseOnlyCommit) {
  TempRepo temp;
  seed_hook(temp,
            "set -eu\n"
            "test -x scripts/regen-workflows.sh\n"
            "grep -q '@release/2.7' .github/workflows/build.yml\n"  // runs after the replacements
            "printf 'version: %s\\nbranch: %s\\n' \"$RELFORGE_RELEASE_VERSION\" \"$RELFORGE_RELEASE_BRANCH\""
            " > .github/workflows/generated.yml\n"
            "echo \"series $RELFORGE_RELEASE_SERIES\" >> src/a.txt\n"
            "echo scratch > untracked.txt\n");
  temp.write(".github/workflows/generated.yml", "version: dev\n");
  temp.commit_all("Generated workflow");
  const std::string base = temp.git("rev-parse HEAD");
  auto [repo, config] = open(temp);
  CutOptions options;
  options.series = "2.7";
  options.dry_run = DryRun::yes;
  auto plan = run_release_cut(repo, config, options);
  ASSERT_TRUE(plan) << plan.error().describe();
  EXPECT_EQ(plan->release_commit.changes.back().path, "[post_cut]");
  EXPECT_NE(plan->release_commit.changes.back().summary.find("bash scripts/regen-workflows.sh"),
            std::string::npos);

  options.dry_run = DryRun::no;
  auto cut = run_release_cut(repo, config, options);
  ASSERT_TRUE(cut) << cut.error().describe();
  EXPECT_EQ(temp.git("rev-parse release/2.7^"), base);  // one release-only commit
  EXPECT_EQ(temp.git("show release/2.7:.github/workflows/generated.yml"),
            "version: 2.7.0\nbranch: release/2.7");
  EXPECT_EQ(temp.git("show release/2.7:src/a.txt"), "one\ntwo\nthree\nseries 2.7");
  EXPECT_EQ(temp.git("show release/2.7:version.txt"), "2.7.0");
  EXPECT_EQ(
      temp.git("diff --name-only release/2.7^ release/2.7"),
      ".github/workflows/build.yml\n.github/workflows/generated.yml\nchannel.txt\nsrc/a.txt\nversion.txt");
  EXPECT_EQ(temp.git("ls-tree --name-only release/2.7 untracked.txt"), "");
  EXPECT_EQ(temp.git("ls-tree release/2.7 scripts/regen-workflows.sh").substr(0, 6), "100755");
  EXPECT_EQ(cut->release_commit.changes.back().path, "src/a.txt");
  EXPECT_EQ(temp.git("status --porcelain"), "");
}

TEST(ReleaseCut, FailingOrDeletingPostCutHookCutsNothing) {
  TempRepo temp;
  seed_hook(
      temp,
      "for i in $(seq 1 40); do echo \"line $i\"; done\necho 'regen failed: no template' >&2\nexit 3\n");
  const std::string head = temp.git("rev-parse main");
  {
    auto [repo, config] = open(temp);
    CutOptions options;
    options.series = "2.7";
    auto cut = run_release_cut(repo, config, options);
    ASSERT_FALSE(cut);
    const std::string& message = cut.error().message();
    EXPECT_NE(message.find("post_cut hook 'bash scripts/regen-workflows.sh' exited with 3; nothing was cut"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("line 40\nregen failed: no template"), std::string::npos) << message;
    EXPECT_EQ(message.find("line 20\n"), std::string::npos) << message;  // only the last lines
  }
  EXPECT_EQ(temp.git("branch --list 'release/*' 'orig/*'"), "");
  EXPECT_EQ(temp.git("rev-parse main"), head);
  EXPECT_FALSE(std::filesystem::exists(temp.work / ".git" / "relforge" / "journal.json"));

  temp.write("scripts/regen-workflows.sh", "rm src/a.txt\n");
  temp.commit_all("A hook that deletes");
  auto [repo, config] = open(temp);
  CutOptions options;
  options.series = "2.7";
  auto cut = run_release_cut(repo, config, options);
  ASSERT_FALSE(cut);
  EXPECT_NE(cut.error().message().find("deleted or replaced the tracked file 'src/a.txt'"), std::string::npos)
      << cut.error().message();
  EXPECT_EQ(temp.git("branch --list 'release/*' 'orig/*'"), "");
}

TEST(ReleasePostCut, AHookPastItsTimeoutIsKilledAndNamed) {
  TempRepo temp;
  temp.seed_project();
  auto repo = Repository::open(temp.work);
  ASSERT_TRUE(repo);
  PostCutHook hook;
  hook.argv = {"bash", "-c", "echo started; sleep 30"};
  hook.timeout = std::chrono::milliseconds(300);
  hook.environment = {};
  auto ran = run_post_cut(*repo, temp.git("rev-parse HEAD"), hook);
  ASSERT_FALSE(ran);
  EXPECT_NE(ran.error().message().find("timed out; nothing was cut. Its last output lines:\nstarted"),
            std::string::npos)
      << ran.error().message();

  hook.argv = {"no-such-program-relforge-test"};
  auto missing = run_post_cut(*repo, temp.git("rev-parse HEAD"), hook);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("could not start"), std::string::npos)
      << missing.error().message();
}

TEST(ReleasePostCut, TheHookIsPointedAtNoRepository) {
  const auto env = hook_environment({{"PATH", "/bin"},
                                     {"HOME", "/home/x"},
                                     {"GIT_DIR", "/repo/.git"},
                                     {"GIT_WORK_TREE", "/repo"},
                                     {"GIT_INDEX_FILE", "/repo/.git/index"},
                                     {"GIT_OBJECT_DIRECTORY", "/repo/.git/objects"},
                                     {"GIT_ALTERNATE_OBJECT_DIRECTORIES", "/o"},
                                     {"GIT_COMMON_DIR", "/repo/.git"},
                                     {"GIT_NAMESPACE", "ns"},
                                     {"GIT_CONFIG", "/c"},
                                     {"GIT_CONFIG_COUNT", "1"},
                                     {"GIT_CONFIG_KEY_0", "core.worktree"},
                                     {"GIT_CONFIG_VALUE_0", "/repo"},
                                     {"GIT_CONFIG_PARAMETERS", "'core.bare'='false'"},
                                     {"GIT_PREFIX", "src/"},
                                     {"GIT_CEILING_DIRECTORIES", "/"},
                                     {"GIT_AUTHOR_NAME", "Rel Eng"}},
                                    {{"RELFORGE_RELEASE_SERIES", "2.7"}}, "/tmp/scratch");
  EXPECT_EQ(env, (std::map<std::string, std::string>{{"GIT_AUTHOR_NAME", "Rel Eng"},
                                                     {"GIT_CEILING_DIRECTORIES", "/tmp/scratch"},
                                                     {"HOME", "/home/x"},
                                                     {"PATH", "/bin"},
                                                     {"RELFORGE_RELEASE_SERIES", "2.7"}}));
}

TEST(ReleasePostCut, LastLines) {
  EXPECT_EQ(last_lines("a\nb\nc\n", 2), "b\nc");
  EXPECT_EQ(last_lines("a\nb\nc", 5), "a\nb\nc");
  EXPECT_EQ(last_lines("", 3), "");
}

TEST(ReleaseCut, NotAGitRepository) {
  TempRepo temp;
  const auto outside = temp.root / "plain";
  std::filesystem::create_directories(outside);
  // GIT_CEILING_DIRECTORIES is not consulted by libgit2's open_ext without the env flag, so use
  // a directory whose parents are not repositories either: the temp root is not one.
  auto repo = Repository::open(outside);
  ASSERT_FALSE(repo);
  EXPECT_EQ(repo.error().category(), ErrorCategory::not_found);
  EXPECT_NE(repo.error().message().find("not inside a git repository"), std::string::npos);
}

}  // namespace
}  // namespace relforge::release
