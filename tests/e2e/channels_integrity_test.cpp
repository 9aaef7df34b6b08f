// End to end, on a store directory and on a real S3 server (s3rver on loopback): every channel
// command killed (SIGKILL) at each of its stages leaves a store that `index check` passes or
// faults only with problems a rerun fixes, and the rerun completes with the check clean; a file
// identity is published once (equivalent names and deleted files are refused with exit 5);
// stable is never pruned (exit 2).
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/channels/s3_support.hpp"
#include "tests/channels/support.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

enum class Kind { dir, s3 };

class ChannelsIntegrityE2e : public ::testing::TestWithParam<Kind> {
protected:
  static void SetUpTestSuite() {
    s_dir = new ChannelTempDir();
    s_server = new S3rver(s_dir->path(), "relforge-integrity");
  }
  static void TearDownTestSuite() {
    delete s_server;
    delete s_dir;
  }
  void SetUp() override {
    if (GetParam() == Kind::s3) {
      ASSERT_GT(s_server->port(), 0);
    }
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info->name();
    for (char& c : name) {
      if (c == '/') c = '-';
    }
    m_prefix = "ch/" + name;
  }
  std::string store() const {
    if (GetParam() == Kind::dir) return " --root " + shell_quote(m_dir.path() / "store");
    return " --store s3://relforge-integrity/" + m_prefix + " --s3-endpoint " + s_server->endpoint() +
           " --s3-region us-east-1";
  }
  // TMPDIR inside the test's folder: a promote killed mid-way leaves its download folder there.
  RunResult cli(const std::string& args, const std::string& env = "") const {
    return run_shell("env AWS_ACCESS_KEY_ID=" + std::string(k_s3rver_key) +
                     " AWS_SECRET_ACCESS_KEY=" + k_s3rver_secret + " TMPDIR=" + shell_quote(m_dir.path()) +
                     " " + env + " " + shell_quote(relforge::test::relforge_binary()) + " " + args + store());
  }
  fs::path wheel(const std::string& name, const std::string& version, const std::string& extra = "") {
    return make_wheel(m_dir.path() / ("in" + std::to_string(++m_wheels)), name, version, extra);
  }
  // Signs `files` with a fresh key; returns " --key PUB".
  std::string sign(const std::vector<fs::path>& files) {
    const fs::path keys = m_dir.path() / "keys";
    if (!fs::exists(keys)) {
      EXPECT_EQ(relforge("keys generate --out " + shell_quote(keys)).exit_code, 0);
    }
    std::string list;
    for (const auto& file : files) list += " " + shell_quote(file);
    const auto signed_ = relforge("sign" + list + " --key " + shell_quote(keys / "signing.key"));
    EXPECT_EQ(signed_.exit_code, 0) << signed_.err;
    return " --key " + shell_quote(keys / "signing.pub");
  }
  Json check() const {
    const auto result = cli("index check --json");
    EXPECT_TRUE(result.exit_code == 0 || result.exit_code == 9) << result.err;
    auto json = Json::parse(result.out, nullptr, false);
    EXPECT_FALSE(json.is_discarded()) << result.out << result.err;
    EXPECT_EQ(json["clean"].get<bool>(), result.exit_code == 0) << result.out;
    return json;
  }
  void expect_clean() const {
    const Json report = check();
    EXPECT_TRUE(report["clean"].get<bool>()) << report.dump(2);
  }
  // After a crash: clean, or only problems that the documented rerun (or a rebuild) repairs.
  void expect_only_rerun_fixes(const std::string& what) const {
    const Json report = check();
    for (const auto& problem : report["problems"]) {
      const std::string kind = problem["kind"];
      EXPECT_TRUE(kind == "stale-page" || kind == "missing-page" || kind == "stale-listing-cache" ||
                  kind == "tombstoned-file" || kind == "orphan")
          << what << ": " << problem.dump();
      EXPECT_NE(problem["fix"].get<std::string>().find("rerun"), std::string::npos)
          << what << ": " << problem.dump();
    }
  }
  void crash(const std::string& args, const std::string& stage) const {
    const auto crashed = cli(args, "RELFORGE_TEST_CRASH_AT=" + stage);
    EXPECT_NE(crashed.exit_code, 0) << args << " did not reach stage " << stage;
    EXPECT_TRUE(crashed.err.find("error") == std::string::npos) << crashed.err;  // killed, not failed
  }

  static inline ChannelTempDir* s_dir = nullptr;
  static inline S3rver* s_server = nullptr;
  ChannelTempDir m_dir;
  std::string m_prefix;
  int m_wheels = 0;
};

TEST_P(ChannelsIntegrityE2e, PublishKilledAtEachStageIsFinishedByARerun) {
  ASSERT_EQ(cli("publish " + shell_quote(wheel("mini", "1.0+cpu"))).exit_code, 0);
  expect_clean();
  int n = 0;
  for (const std::string stage : {"files-written", "page-written"}) {
    const auto file = wheel("mini", "1.1." + std::to_string(++n) + "+cpu");
    crash("publish " + shell_quote(file), stage);
    expect_only_rerun_fixes("publish killed at " + stage);
    const auto rerun = cli("publish " + shell_quote(file));
    ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
    expect_clean();
  }
}

TEST_P(ChannelsIntegrityE2e, PromoteKilledAtEachStageIsFinishedByARerun) {
  int n = 0;
  for (const std::string stage : {"files-written", "page-written"}) {
    const std::string version = "2." + std::to_string(++n);
    const auto cpu = wheel("mini", version + "+cpu");
    const auto cuda = wheel("mini", version + "+cu126");
    const std::string key = sign({cpu, cuda});
    ASSERT_EQ(
        cli("publish --channel test" + key + " " + shell_quote(cpu) + " " + shell_quote(cuda)).exit_code, 0);
    crash("promote --no-complete --version " + version + key, stage);
    expect_only_rerun_fixes("promote killed at " + stage);
    const auto rerun = cli("promote --no-complete --version " + version + key);
    ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
    expect_clean();
  }
}

TEST_P(ChannelsIntegrityE2e, PruneKilledAtEachStageIsFinishedByARerun) {
  for (const std::string stage : {"tombstoned", "page-written", "file-removed"}) {
    for (const std::string version : {"1.0", "1.1", "2.0"}) {
      ASSERT_EQ(cli("publish " + shell_quote(wheel("mini", version + "+cpu"))).exit_code, 0);
    }
    crash("prune --keep 1", stage);
    expect_only_rerun_fixes("prune killed at " + stage);
    const auto rerun = cli("prune --keep 1 --json");
    ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
    expect_clean();
    const auto listed = Json::parse(cli("index check --json").out);
    EXPECT_EQ(listed["files"], 1) << stage;  // only 2.0 is left
    // Start the next stage from an empty channel: prune what is left, then publish afresh.
    ASSERT_EQ(cli("prune --keep 0").exit_code, 0);
    m_prefix += "x";
    if (GetParam() == Kind::dir) fs::remove_all(m_dir.path() / "store");
  }
}

TEST_P(ChannelsIntegrityE2e, YankKilledAtEachStageIsFinishedByARerun) {
  ASSERT_EQ(
      cli("publish " + shell_quote(wheel("mini", "1.0+cpu")) + " " + shell_quote(wheel("mini", "1.0+cu126")))
          .exit_code,
      0);
  for (const std::string stage : {"info-written", "page-written"}) {
    crash("yank mini-1.0+cpu-py3-none-any.whl --reason broken", stage);
    expect_only_rerun_fixes("yank killed at " + stage);
    const auto rerun = cli("yank mini-1.0+cpu-py3-none-any.whl --reason broken");
    ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
    expect_clean();
    ASSERT_EQ(cli("yank mini-1.0+cpu-py3-none-any.whl --undo").exit_code, 0);
  }
}

TEST_P(ChannelsIntegrityE2e, AnEquivalentNameWithOtherBytesIsAConflict) {
  const auto original = wheel("demo", "1.0+cpu");
  const auto published = cli("publish " + shell_quote(original));
  ASSERT_EQ(published.exit_code, 0) << published.err;
  EXPECT_NE(published.out.find("published nightly/cpu/demo/demo-1.0+cpu-py3-none-any.whl"),
            std::string::npos);
  // Spellings whose canonical name is the stored one: the store compares the bytes.
  for (const auto& [name, version] :
       {std::pair<std::string, std::string>{"Demo", "1.0+cpu"}, {"demo", "01.0+cpu"}, {"demo", "1.0+CPU"}}) {
    const auto made = wheel(name, version, "--payload 'VALUE = 2'");
    const std::string spelling = name + "-" + version + "-py3-none-any.whl";
    const fs::path other = made.parent_path() / spelling;
    fs::rename(made, other);
    const auto refused = cli("publish " + shell_quote(other));
    EXPECT_EQ(refused.exit_code, 5) << spelling << ": " << refused.err;
    EXPECT_TRUE(refused.out.empty());
    EXPECT_NE(refused.err.find("refusing to publish (nothing was changed): " + spelling + ": "),
              std::string::npos)
        << refused.err;
    EXPECT_NE(
        refused.err.find("demo-1.0+cpu-py3-none-any.whl is already published with different bytes (sha256 "),
        std::string::npos)
        << refused.err;
    // The same bytes under an equivalent name are the same file: unchanged, as CI reruns need.
    const fs::path same = m_dir.path() / ("same" + std::to_string(m_wheels)) / spelling;
    fs::create_directories(same.parent_path());
    fs::copy_file(original, same);
    const auto again = cli("publish " + shell_quote(same));
    EXPECT_EQ(again.exit_code, 0) << again.err;
    EXPECT_NE(again.out.find("unchanged nightly/cpu/demo/demo-1.0+cpu-py3-none-any.whl"), std::string::npos)
        << again.out;
  }
  // An equal version spelled otherwise (1.0.0 == 1.0) names the same identity under another name.
  const auto padded = wheel("demo", "1.0.0+cpu", "--payload 'VALUE = 3'");
  const auto refused = cli("publish " + shell_quote(padded));
  EXPECT_EQ(refused.exit_code, 5) << refused.err;
  EXPECT_NE(refused.err.find(
                "demo-1.0.0+cpu-py3-none-any.whl is the same file identity (demo 1.0.0+cpu py3-none-any) "
                "as the published "),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("demo-1.0+cpu-py3-none-any.whl; an identity is published once, under one name"),
            std::string::npos)
      << refused.err;
  expect_clean();
}

TEST_P(ChannelsIntegrityE2e, NewFilesAreStoredUnderTheirCanonicalName) {
  const auto made = wheel("Demo", "01.0+CPU");
  const fs::path odd = made.parent_path() / "Demo-01.0+CPU-py3-none-any.whl";
  fs::rename(made, odd);
  const auto published = cli("publish --json " + shell_quote(odd));
  ASSERT_EQ(published.exit_code, 0) << published.err;
  const auto json = Json::parse(published.out);
  EXPECT_EQ(json[0]["filename"], "demo-1.0+cpu-py3-none-any.whl");
  EXPECT_EQ(json[0]["variant"], "cpu");
  EXPECT_EQ(json[0]["version"], "1.0+cpu");
  expect_clean();
}

TEST_P(ChannelsIntegrityE2e, StableIsNeverPrunedAndTestOnlyWhenAllowed) {
  const auto file = wheel("mini", "1.0+cpu");
  const std::string key = sign({file});
  ASSERT_EQ(cli("publish --channel stable" + key + " " + shell_quote(file)).exit_code, 0);
  const auto refused = cli("prune --channel stable --keep 0");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("the stable channel is never pruned"), std::string::npos) << refused.err;
  const auto dry = cli("prune --channel stable --keep 0 --dry-run");
  EXPECT_EQ(dry.exit_code, 2);
  ASSERT_EQ(cli("publish --channel test" + key + " " + shell_quote(file)).exit_code, 0);
  const auto test = cli("prune --channel test --keep 0");
  EXPECT_EQ(test.exit_code, 2);
  EXPECT_NE(test.err.find("pass --allow-test"), std::string::npos) << test.err;
  const auto plan = cli("prune --channel test --allow-test --keep 0 --dry-run --json");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_EQ(Json::parse(plan.out)["removed"][0]["filename"], "mini-1.0+cpu-py3-none-any.whl");
  // Nothing was deleted: the stable and test files are still there, and still refuse other bytes.
  const auto check = Json::parse(cli("index check --json").out);
  EXPECT_EQ(check["files"], 2);
  EXPECT_TRUE(check["clean"].get<bool>()) << check.dump(2);
}

TEST_P(ChannelsIntegrityE2e, APrunedFileNeverComesBackUnderAnyName) {
  const auto old = wheel("mini", "1.0+cpu");
  ASSERT_EQ(cli("publish " + shell_quote(old)).exit_code, 0);
  ASSERT_EQ(cli("publish " + shell_quote(wheel("mini", "2.0+cpu"))).exit_code, 0);
  const auto pruned = cli("prune --keep 1");
  ASSERT_EQ(pruned.exit_code, 0) << pruned.err;
  EXPECT_NE(pruned.out.find("removed cpu/mini-1.0+cpu-py3-none-any.whl"), std::string::npos) << pruned.out;
  const auto other = wheel("mini", "1.0+cpu", "--payload 'VALUE = 9'");
  for (const auto& file : {old, other}) {
    const auto refused = cli("publish " + shell_quote(file));
    EXPECT_EQ(refused.exit_code, 5) << refused.err;
    EXPECT_NE(refused.err.find("mini-1.0+cpu-py3-none-any.whl (mini 1.0+cpu py3-none-any), deleted from the "
                               "nightly channel on "),
              std::string::npos)
        << refused.err;
    EXPECT_NE(refused.err.find("pruned (keep 1); tombstone in "), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find(".relforge-tombstones.json"), std::string::npos) << refused.err;
  }
  const auto padded = wheel("MINI", "1.0.0+cpu");
  const fs::path equivalent = padded.parent_path() / "MINI-1.0.0+cpu-py3-none-any.whl";
  fs::rename(padded, equivalent);
  const auto refused = cli("publish " + shell_quote(equivalent));
  EXPECT_EQ(refused.exit_code, 5) << refused.err;
  EXPECT_NE(
      refused.err.find("MINI-1.0.0+cpu-py3-none-any.whl is mini-1.0+cpu-py3-none-any.whl (mini 1.0.0+cpu "
                       "py3-none-any), deleted from the nightly channel on "),
      std::string::npos)
      << refused.err;
  expect_clean();
}

TEST_P(ChannelsIntegrityE2e, PromoteStagesPypiCopiesFromEitherStore) {
  const auto cpu = wheel("mini", "2.7.0+cpu");
  const auto cuda = wheel("mini", "2.7.0+cu130");
  const std::string key = sign({cpu, cuda});
  ASSERT_EQ(cli("publish --channel test" + key + " " + shell_quote(cpu) + " " + shell_quote(cuda)).exit_code,
            0);
  const fs::path pypi = m_dir.path() / "pypi";
  const auto promoted = cli(
      "promote --no-complete --version 2.7.0 --expect-variant cpu --expect-variant cu130 --pypi-staging " +
      shell_quote(pypi) + key);
  ASSERT_EQ(promoted.exit_code, 0) << promoted.err;
  EXPECT_NE(promoted.out.find("published stable/cu130/mini/mini-2.7.0+cu130-py3-none-any.whl (signed)"),
            std::string::npos)
      << promoted.out;
  EXPECT_NE(promoted.out.find("pypi: staged " + (pypi / "mini-2.7.0-py3-none-any.whl").string()),
            std::string::npos)
      << promoted.out;
  const auto again = cli("promote --no-complete --version 2.7.0 --pypi-staging " + shell_quote(pypi) + key);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("unchanged stable/cpu/mini/mini-2.7.0+cpu-py3-none-any.whl"), std::string::npos);
  expect_clean();
}

TEST_P(ChannelsIntegrityE2e, CheckFindsChangedBytesWhereverTheStoreIs) {
  ASSERT_EQ(cli("publish " + shell_quote(wheel("mini", "1.0+cpu"))).exit_code, 0);
  expect_clean();
  const std::string key = "whl/nightly/cpu/mini/mini-1.0+cpu-py3-none-any.whl";
  const fs::path bytes =
      GetParam() == Kind::dir ? m_dir.path() / "store" / key : s_server->object_file(m_prefix + "/" + key);
  ASSERT_TRUE(fs::exists(bytes));
  std::string data = slurp(bytes);
  data[data.size() / 2] ^= 1;
  {
    std::ofstream out(bytes, std::ios::binary | std::ios::trunc);
    out << data;
  }
  const auto checked = cli("index check");
  EXPECT_EQ(checked.exit_code, 9) << checked.out << checked.err;
  EXPECT_NE(checked.out.find("hash-mismatch: "), std::string::npos) << checked.out;
  EXPECT_NE(checked.out.find(key + ": the bytes have sha256 "), std::string::npos) << checked.out;
  EXPECT_NE(checked.out.find("1 problem(s): 1 file(s)"), std::string::npos) << checked.out;
  if (GetParam() == Kind::dir) {
    const auto missing = run_shell(shell_quote(relforge::test::relforge_binary()) + " index check --root " +
                                   shell_quote(m_dir.path() / "nope"));
    EXPECT_EQ(missing.exit_code, 4) << missing.err;
  }
}

// A mistyped --root is not an empty store: every command but publish refuses it (exit 4) and
// leaves no folder or lock file behind that would make it look like one afterwards.
TEST(ChannelsRootE2e, AMissingRootIsRefusedByEveryCommandButPublishAndNothingIsCreated) {
  ChannelTempDir dir;
  const fs::path typo = dir.path() / "chanels";
  const std::string root = " --root " + shell_quote(typo);
  for (const std::string command :
       {"index rebuild", "index check", "prune", "yank mini-1.0-py3-none-any.whl",
        "promote --version 1.0 --no-complete", "index deps --env 3.12:manylinux_2_28_x86_64"}) {
    const auto run = run_shell(shell_quote(relforge::test::relforge_binary()) + " " + command + root);
    EXPECT_EQ(run.exit_code, 4) << command << ": " << run.err;
    EXPECT_NE(run.err.find("channel store " + typo.string() + " does not exist (check --root)"),
              std::string::npos)
        << command << ": " << run.err;
    EXPECT_FALSE(fs::exists(typo)) << command << " created the folder";
  }
  // A file where the folder should be is named as such, and left alone.
  std::ofstream(typo) << "not a store";
  for (const std::string command : {"index check", "index rebuild", "prune"}) {
    const auto run = run_shell(shell_quote(relforge::test::relforge_binary()) + " " + command + root);
    EXPECT_EQ(run.exit_code, 2) << command << ": " << run.err;
    EXPECT_NE(run.err.find("channel store " + typo.string() + " is not a folder"), std::string::npos)
        << command << ": " << run.err;
  }
  EXPECT_EQ(slurp(typo), "not a store");
  const auto keep = run_shell(shell_quote(relforge::test::relforge_binary()) + " prune --keep -1" + root);
  EXPECT_EQ(keep.exit_code, 2) << keep.err;
  EXPECT_NE(keep.err.find("--keep: Value -1 not in range 0 to 1000000"), std::string::npos) << keep.err;
}

INSTANTIATE_TEST_SUITE_P(Stores, ChannelsIntegrityE2e, ::testing::Values(Kind::dir, Kind::s3),
                         [](const auto& param) { return param.param == Kind::dir ? "Directory" : "S3"; });

}  // namespace
}  // namespace relforge::test
