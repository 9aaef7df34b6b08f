#include "release/cut.hpp"

#include <gtest/gtest.h>

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
  EXPECT_NE(stale.error().message().find("does not occur"), std::string::npos);
  EXPECT_EQ(temp.git("branch --list 'release/*'"), "");
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
