// File identities against the reference implementation: packaging's parse_wheel_filename and
// canonicalize_version decide which names are one file; publish stores it once, under its
// canonical name, and never again once a tombstone records its deletion.
#include "channels/identity.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "channels/catalog.hpp"
#include "channels/maintain.hpp"
#include "channels/publish.hpp"
#include "channels/tombstones.hpp"
#include "platform/fs.hpp"
#include "tests/channels/support.hpp"

namespace relforge::channels {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> k_names = {
    "Demo-1.0+cpu-py3-none-any.whl",
    "demo-1.0.0+cpu-py3-none-any.whl",
    "demo-01.0+cpu-py3-none-any.whl",
    "demo-1.0+CPU-py3-none-any.whl",
    "demo-1.0+cpu-1-py3-none-any.whl",
    "demo-1.0+cpu-py2.py3-none-any.whl",
    "demo-1.0+cpu-py3.py2-none-any.whl",
    "demo_pkg-2.0rc1-cp312-cp312-manylinux_2_28_x86_64.whl",
    "Demo.Pkg-2.0c1-CP312-cp312-manylinux_2_28_x86_64.whl",
    "demo-1.0-py3-none-any.whl",
    "demo-1.0.post0-py3-none-any.whl",
    "demo-1!1.0-py3-none-any.whl",
};

TEST(FileIdentity, AgreesWithPackagingOnWhichNamesAreOneFile) {
  std::string names;
  for (const auto& name : k_names) names += (names.empty() ? "" : ",") + ("'" + name + "'");
  const std::string code =
      "from packaging.utils import parse_wheel_filename, canonicalize_version\n"
      "for n in [" +
      names +
      "]:\n"
      "    name, version, build, tags = parse_wheel_filename(n)\n"
      "    b = '' if not build else str(build[0]) + build[1]\n"
      "    print('|'.join([name, canonicalize_version(version), b, ','.join(sorted(str(t) for t in "
      "tags))]))\n";
  const auto result = test::run_shell("/usr/bin/python3 -c " + test::shell_quote(code));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::string mine;
  for (const auto& name : k_names) mine += identity_of(name).value().key() + "\n";
  EXPECT_EQ(mine, result.out);
  // The four spellings the store once accepted as four files are one identity.
  for (std::size_t i = 1; i < 4; ++i)
    EXPECT_EQ(identity_of(k_names[i])->key(), identity_of(k_names[0])->key());
  EXPECT_NE(identity_of(k_names[4])->key(), identity_of(k_names[0])->key());  // a build tag
  EXPECT_EQ(identity_of(k_names[5])->key(), identity_of(k_names[6])->key());  // one tag set
}

TEST(FileIdentity, CanonicalNamesAreWhatPackagingRenders) {
  EXPECT_EQ(canonical_filename("Demo-01.0+CPU-py3-none-any.whl").value(), "demo-1.0+cpu-py3-none-any.whl");
  EXPECT_EQ(canonical_filename("Demo.Pkg-2.0c1-CP312-cp312-manylinux_2_28_x86_64.whl").value(),
            "demo_pkg-2.0rc1-cp312-cp312-manylinux_2_28_x86_64.whl");
  EXPECT_EQ(canonical_filename("demo-1.0.0+cpu-py3-none-any.whl").value(), "demo-1.0.0+cpu-py3-none-any.whl");
  EXPECT_FALSE(canonical_filename("not-a-wheel.zip"));
}

TEST(Tombstones, RoundTripAndRefuseAGarbledRecord) {
  Tombstone stone{"demo-1.0+cpu-py3-none-any.whl", identity_of("demo-1.0+cpu-py3-none-any.whl").value(),
                  std::string(64, 'a'), "2025-01-02T03:04:05Z", "pruned (keep 1)"};
  const auto back = tombstones_from_json(tombstones_to_json({stone}), "t").value();
  ASSERT_EQ(back.size(), 1U);
  EXPECT_EQ(back[0].identity, stone.identity);
  EXPECT_EQ(back[0].deleted_at, stone.deleted_at);
  const auto garbled =
      tombstones_from_json("{\"deleted\": [{\"filename\": 1}]}", "/x/.relforge-tombstones.json");
  ASSERT_FALSE(garbled);
  EXPECT_EQ(garbled.error().category(), ErrorCategory::integrity);
  EXPECT_NE(garbled.error().message().find("/x/.relforge-tombstones.json"), std::string::npos);
}

class IdentityPublishTest : public ::testing::Test {
protected:
  fs::path root() const { return m_dir.path() / "store"; }
  fs::path wheel(const std::string& name, const std::string& version, const std::string& spelling = "",
                 const std::string& extra = "") {
    const auto made =
        test::make_wheel(m_dir.path() / ("in" + std::to_string(++m_count)), name, version, extra);
    if (spelling.empty()) return made;
    fs::rename(made, made.parent_path() / spelling);
    return made.parent_path() / spelling;
  }
  Result<std::vector<PublishedFile>> publish(const fs::path& file) {
    PublishOptions options;
    options.root = root();
    options.files = {file};
    options.upload_time = "2025-01-02T03:04:05Z";
    return run_publish(options);
  }
  test::ChannelTempDir m_dir;
  int m_count = 0;
};

TEST_F(IdentityPublishTest, StoresTheCanonicalSpellingOnce) {
  const auto odd = wheel("Demo", "01.0+CPU", "Demo-01.0+CPU-py3-none-any.whl");
  const auto published = publish(odd);
  ASSERT_TRUE(published) << published.error().describe();
  EXPECT_EQ(published->at(0).filename, "demo-1.0+cpu-py3-none-any.whl");
  EXPECT_TRUE(fs::exists(root() / "whl/nightly/cpu/demo/demo-1.0+cpu-py3-none-any.whl"));
  EXPECT_FALSE(fs::exists(root() / "whl/nightly/cpu/demo/Demo-01.0+CPU-py3-none-any.whl"));
  EXPECT_EQ(publish(odd)->at(0).state, PublishState::unchanged);
  // A file stored under another spelling before names were canonical still owns its identity.
  const fs::path folder = root() / "whl/nightly/cpu/demo";
  const auto legacy = wheel("demo", "2.0+cpu");
  fs::copy_file(legacy, folder / "Demo-2.0+cpu-py3-none-any.whl");
  const auto refused = publish(legacy);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_NE(
      refused.error().message().find("demo-2.0+cpu-py3-none-any.whl is the same file identity (demo 2.0+cpu "
                                     "py3-none-any) as the published " +
                                     (folder / "Demo-2.0+cpu-py3-none-any.whl").string()),
      std::string::npos)
      << refused.error().describe();
  const auto equal_version = publish(wheel("demo", "2.0.0+cpu"));
  ASSERT_FALSE(equal_version);
  EXPECT_EQ(equal_version.error().category(), ErrorCategory::conflict);
  EXPECT_FALSE(fs::exists(folder / "demo-2.0+cpu-py3-none-any.whl"));
  EXPECT_FALSE(fs::exists(folder / "demo-2.0.0+cpu-py3-none-any.whl"));
}

TEST_F(IdentityPublishTest, TwoSpellingsOfOneIdentityInOneBatchAreRefused) {
  PublishOptions options;
  options.root = root();
  options.files = {wheel("demo", "1.0+cpu"), wheel("demo", "1.0.0+cpu")};
  const auto refused = run_publish(options);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_NE(refused.error().message().find("are the same file identity"), std::string::npos);
  EXPECT_FALSE(fs::exists(root() / "whl/nightly/cpu"));
}

TEST_F(IdentityPublishTest, OneConflictingFileInABatchStoresNoneOfTheOthers) {
  ASSERT_TRUE(publish(wheel("demo", "1.0+cpu")));
  PublishOptions options;
  options.root = root();
  options.files = {wheel("demo", "1.1+cpu"), wheel("demo", "1.0+cpu", "", "--payload 'VALUE = 7'")};
  const auto refused = run_publish(options);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_NE(refused.error().message().find("refusing to publish (nothing was changed): "
                                           "demo-1.0+cpu-py3-none-any.whl: "),
            std::string::npos)
      << refused.error().describe();
  EXPECT_NE(refused.error().message().find("is already published with different bytes"), std::string::npos);
  EXPECT_FALSE(fs::exists(root() / "whl/nightly/cpu/demo/demo-1.1+cpu-py3-none-any.whl"));
}

TEST_F(IdentityPublishTest, PruneLeavesATombstoneThatRefusesTheIdentityForever) {
  const auto old = wheel("demo", "1.0+cpu");
  ASSERT_TRUE(publish(old));
  ASSERT_TRUE(publish(wheel("demo", "2.0+cpu")));
  PruneOptions prune;
  prune.root = root();
  prune.keep = 1;
  prune.deleted_at = "2025-02-03T04:05:06Z";
  const auto pruned = run_prune(prune);
  ASSERT_TRUE(pruned) << pruned.error().describe();
  ASSERT_EQ(pruned->removed.size(), 1U);
  const fs::path stones = root() / "whl/nightly/cpu/demo/.relforge-tombstones.json";
  const auto record = nlohmann::json::parse(platform::read_file(stones).value());
  EXPECT_EQ(record["deleted"][0]["filename"], "demo-1.0+cpu-py3-none-any.whl");
  EXPECT_EQ(record["deleted"][0]["deleted_at"], "2025-02-03T04:05:06Z");
  for (const auto& file : {old, wheel("demo", "1.0+cpu", "", "--payload 'VALUE = 5'"),
                           wheel("Demo", "1.0.0+CPU", "Demo-1.0.0+CPU-py3-none-any.whl")}) {
    const auto refused = publish(file);
    ASSERT_FALSE(refused) << file;
    EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
    EXPECT_NE(
        refused.error().message().find("deleted from the nightly channel on 2025-02-03T04:05:06Z (pruned "
                                       "(keep 1); tombstone in " +
                                       stones.string()),
        std::string::npos)
        << refused.error().describe();
  }
  EXPECT_FALSE(fs::exists(root() / "whl/nightly/cpu/demo/demo-1.0+cpu-py3-none-any.whl"));
  // A garbled record is never read as "nothing was deleted".
  ASSERT_TRUE(platform::write_file_atomic(stones, "{"));
  const auto garbled = publish(wheel("demo", "3.0+cpu"));
  ASSERT_FALSE(garbled);
  EXPECT_EQ(garbled.error().category(), ErrorCategory::integrity);
}

TEST_F(IdentityPublishTest, RetentionNeverTouchesStableAndTestOnlyWhenAllowed) {
  PruneOptions prune;
  prune.root = root();
  prune.keep = 0;
  prune.channel = Channel::stable;
  const auto stable = run_prune(prune);
  ASSERT_FALSE(stable);
  EXPECT_EQ(stable.error().category(), ErrorCategory::invalid_input);
  prune.channel = Channel::test;
  const auto test = run_prune(prune);
  ASSERT_FALSE(test);
  EXPECT_EQ(test.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(test.error().message().find("--allow-test"), std::string::npos);
  prune.test = TestPruning::allow;
  EXPECT_TRUE(run_prune(prune));
}

}  // namespace
}  // namespace relforge::channels
