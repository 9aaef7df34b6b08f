// `release cut` with glob and regex replacement rules and a post_cut hook, through the real
// binary: the dry-run plan lists every rewritten file, a stale rule and a failing hook exit non-zero
// naming the problem and cut nothing, and a passing hook's edits land in the release-only commit.
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

void seed(const TempRepo& temp, const std::string& hook_script) {
  temp.seed_project();
  temp.write(".github/workflows/test.yml", "uses: pytorch/test-infra/x.yml@main\n");
  temp.write("ci/docker.yml", "image: pytorch/runner@main\n");
  temp.write("scripts/regen-workflows.sh", hook_script);
  temp.write(
      "relforge.toml",
      "[release]\nversion_file = \"version.txt\"\npost_cut = [\"bash\", \"scripts/regen-workflows.sh\"]\n\n"
      "[[release.replace]]\nfiles = [\"**/*.yml\", \".github/workflows/*.yml\"]\n"
      "from = '(pytorch/[a-z-]+)(/\\S*)?@main'\nto = \"$1$2@{branch}\"\nregex = true\n");
  temp.commit_all("Workflows and a hook");
}

TEST(ReleaseCutRules, GlobRegexAndHookThroughTheBinary) {
  TempRepo temp;
  seed(temp,
       "set -eu\nprintf '%s %s\\n' \"$RELFORGE_RELEASE_VERSION\" \"$RELFORGE_RELEASE_BRANCH\" > "
       "ci/release.txt\n"
       "if git rev-parse --git-dir 2>/dev/null; then echo 'the checkout must not be inside a repository'; "
       "exit 9; fi\n");
  temp.write("ci/release.txt", "none\n");
  temp.commit_all("Release marker");
  const std::string base = temp.git("rev-parse HEAD");

  const RunResult plan = relforge_in(temp, "release cut 2.7 --dry-run");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  // build.yml pins org/..., which this rule does not match: it is left out, not an error.
  EXPECT_EQ(plan.out.find(".github/workflows/build.yml"), std::string::npos) << plan.out;
  EXPECT_NE(
      plan.out.find(".github/workflows/test.yml: 1 x /(pytorch/[a-z-]+)(/\\S*)?@main/ -> '$1$2@release/2.7'"),
      std::string::npos)
      << plan.out;
  EXPECT_NE(plan.out.find("ci/docker.yml: 1 x"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("runs 'bash scripts/regen-workflows.sh'"), std::string::npos) << plan.out;
  EXPECT_EQ(temp.git("branch --list 'release/*'"), "");

  const RunResult cut = relforge_in(temp, "release cut 2.7 --json");
  ASSERT_EQ(cut.exit_code, 0) << cut.err;
  const auto json = nlohmann::json::parse(cut.out, nullptr, false);
  ASSERT_FALSE(json.is_discarded()) << cut.out;
  EXPECT_EQ(json["executed"], true);
  EXPECT_EQ(temp.git("rev-parse release/2.7^"), base);
  EXPECT_EQ(temp.git("show release/2.7:ci/release.txt"), "2.7.0 release/2.7");
  EXPECT_EQ(temp.git("show release/2.7:ci/docker.yml"), "image: pytorch/runner@release/2.7");
  EXPECT_EQ(temp.git("show release/2.7:.github/workflows/test.yml"),
            "uses: pytorch/test-infra/x.yml@release/2.7");
  EXPECT_EQ(temp.git("show main:ci/docker.yml"), "image: pytorch/runner@main");
  EXPECT_EQ(temp.git("show release/2.7:.github/workflows/build.yml"),
            temp.git("show main:.github/workflows/build.yml"));
}

TEST(ReleaseCutRules, StaleRuleAndFailingHookExitNonZeroAndCutNothing) {
  TempRepo temp;
  seed(temp, "echo 'template missing: ci/matrix.j2' >&2\nexit 4\n");
  const std::string head = temp.git("rev-parse main");
  const RunResult hook = relforge_in(temp, "release cut 2.7");
  EXPECT_EQ(hook.exit_code, 6) << hook.out << hook.err;  // io: a child process failed
  EXPECT_NE(hook.err.find("exited with 4"), std::string::npos) << hook.err;
  EXPECT_NE(hook.err.find("template missing: ci/matrix.j2"), std::string::npos) << hook.err;
  EXPECT_EQ(temp.git("branch --list 'release/*' 'orig/*'"), "");
  EXPECT_EQ(temp.git("rev-parse main"), head);

  temp.write("relforge.toml",
             "[release]\nversion_file = \"version.txt\"\n\n[[release.replace]]\n"
             "files = [\"**/*.yml\", \"deploy/**/*.yaml\"]\nfrom = \"@main\"\nto = \"@x\"\n");
  temp.commit_all("A glob for a folder that is gone");
  const RunResult stale = relforge_in(temp, "release cut 2.7 --dry-run");
  EXPECT_EQ(stale.exit_code, 2) << stale.out << stale.err;
  EXPECT_NE(stale.err.find(
                "relforge.toml:4:1: 'deploy/**/*.yaml' in [[release.replace]] files matches no tracked file"),
            std::string::npos)
      << stale.err;

  temp.write("relforge.toml",
             "[release]\nversion_file = \"version.txt\"\n\n[[release.replace]]\n"
             "files = [\"ci/*.yml\"]\nfrom = \"@nightly\"\nto = \"@x\"\n");
  temp.commit_all("A rule nothing matches");
  const RunResult nothing = relforge_in(temp, "release cut 2.7 --json");
  EXPECT_EQ(nothing.exit_code, 2) << nothing.out << nothing.err;
  EXPECT_NE(
      nothing.err.find("relforge.toml:4:1: [[release.replace]] '@nightly' changes nothing in ci/docker.yml"),
      std::string::npos)
      << nothing.err;
  EXPECT_EQ(temp.git("branch --list 'release/*' 'orig/*'"), "");
}

}  // namespace
