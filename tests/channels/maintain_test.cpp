#include "channels/maintain.hpp"

#include <gtest/gtest.h>

#include "platform/digest.hpp"
#include "platform/fs.hpp"
#include "signing/bundle.hpp"
#include "signing/keys.hpp"
#include "tests/channels/support.hpp"

namespace relforge::channels {
namespace {

namespace fs = std::filesystem;

class MaintainTest : public ::testing::Test {
protected:
  fs::path root() const { return m_dir.path() / "store"; }
  void publish(Channel channel, const std::string& name, const std::string& version, bool sign = false) {
    const auto wheel = test::make_wheel(m_dir.path() / ("in-" + version), name, version);
    PublishOptions options;
    options.root = root();
    options.channel = channel;
    options.files = {wheel};
    options.upload_time = "2025-01-02T03:04:05Z";
    if (sign) {
      if (!m_key) m_key = signing::generate_key(signing::KeyType::ecdsa_p256, m_dir.path() / "keys").value();
      const auto key = signing::PrivateKey::load(m_key->private_key).value();
      ASSERT_TRUE(platform::write_file_atomic(wheel.string() + ".sigstore.json",
                                              signing::sign_file(wheel, key, {}).value()));
      options.public_key = m_key->public_key;
    } else {
      options.signatures = SignaturePolicy::optional;
    }
    const auto result = run_publish(options);
    ASSERT_TRUE(result) << result.error().describe();
  }
  std::string page(const std::string& relative) {
    return platform::read_file(root() / relative).value_or("");
  }
  test::ChannelTempDir m_dir;
  std::optional<signing::GeneratedKey> m_key;
};

TEST_F(MaintainTest, PruneKeepsTheNewestVersionsWithAllTheirVariantsAndThePins) {
  for (const std::string version : {"2.0.dev1", "2.0.dev2", "2.0.dev10", "2.0.dev3"}) {
    publish(Channel::nightly, "mini", version + "+cpu");
    publish(Channel::nightly, "mini", version + "+cu126");
  }
  PruneOptions options{root(), Channel::nightly, 2, {"2.0.dev1"}, DryRun::yes};
  auto dry = run_prune(options);
  ASSERT_TRUE(dry) << dry.error().describe();
  ASSERT_EQ(dry->removed.size(), 2U);  // 2.0.dev2 in both variants (PEP 440: dev10 > dev3 > dev2)
  for (const auto& file : dry->removed) EXPECT_EQ(file.info.version.substr(0, 8), "2.0.dev2");
  EXPECT_TRUE(fs::exists(dry->removed[0].path));

  options.dry_run = DryRun::no;
  const auto done = run_prune(options);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->removed.size(), 2U);
  EXPECT_EQ(done->kept_files, 6U);
  EXPECT_FALSE(fs::exists(done->removed[0].path));
  const auto cpu = page("whl/nightly/cpu/mini/index.html");
  EXPECT_EQ(cpu.find("2.0.dev2+"), std::string::npos);
  EXPECT_NE(cpu.find("2.0.dev1+cpu"), std::string::npos);  // pinned: still resolvable
  EXPECT_NE(cpu.find("2.0.dev10+cpu"), std::string::npos);
  EXPECT_NE(page("whl/nightly/mini/index.html").find("2.0.dev1+cu126"), std::string::npos);
}

// Versions compare as PEP 440 says: a pin spelt `2` or `2.0.0` keeps 2.0, a kept version keeps
// every variant however each spells it, and a pin that is no version prunes nothing.
TEST_F(MaintainTest, PinsAndKeptVersionsCompareAsVersionsNotAsSpelt) {
  for (const std::string version : {"1.0+cpu", "2.0+cpu", "3.0+cpu", "3.0.0+cu126"})
    publish(Channel::nightly, "mini", version);
  PruneOptions bad{root(), Channel::nightly, 1, {"not-a-version"}, DryRun::no};
  const auto refused = run_prune(bad);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(refused.error().message().find("--pin 'not-a-version' is not a PEP 440 version"),
            std::string::npos)
      << refused.error().message();
  EXPECT_NE(page("whl/nightly/cpu/mini/index.html").find("mini-1.0+cpu"), std::string::npos);

  for (const std::string pin : {"2", "2.0.0", "2.0+anything"}) {
    PruneOptions options{root(), Channel::nightly, 1, {pin}, DryRun::yes};
    const auto dry = run_prune(options);
    ASSERT_TRUE(dry) << dry.error().describe();
    ASSERT_EQ(dry->removed.size(), 1U) << "--pin " << pin;
    EXPECT_EQ(dry->removed[0].info.filename, "mini-1.0+cpu-py3-none-any.whl") << "--pin " << pin;
  }
  PruneOptions options{root(), Channel::nightly, 1, {"2.0.0"}, DryRun::no};
  const auto done = run_prune(options);
  ASSERT_TRUE(done) << done->removed.size();
  EXPECT_EQ(done->kept_files, 3U);
  EXPECT_NE(page("whl/nightly/cu126/mini/index.html").find("mini-3.0.0+cu126"), std::string::npos);
  EXPECT_NE(page("whl/nightly/cpu/mini/index.html").find("mini-3.0+cpu"), std::string::npos);
  EXPECT_NE(page("whl/nightly/cpu/mini/index.html").find("mini-2.0+cpu"), std::string::npos);
}

TEST_F(MaintainTest, YankMarksTheFileInItsPages) {
  publish(Channel::nightly, "mini", "1.0+cpu");
  YankOptions options{root(), Channel::nightly, "mini-1.0+cpu-py3-none-any.whl", "bad build",
                      YankAction::yank};
  const auto yanked = run_yank(options);
  ASSERT_TRUE(yanked) << yanked.error().describe();
  EXPECT_NE(page("whl/nightly/cpu/mini/index.html").find("data-yanked=\"bad build\""), std::string::npos);
  EXPECT_NE(page("whl/nightly/cpu/mini/index.json").find("\"yanked\":\"bad build\""), std::string::npos);
  options.action = YankAction::unyank;
  ASSERT_TRUE(run_yank(options));
  EXPECT_EQ(page("whl/nightly/cpu/mini/index.html").find("data-yanked"), std::string::npos);
  options.filename = "nope-1.0-py3-none-any.whl";
  const auto missing = run_yank(options);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().category(), ErrorCategory::not_found);
}

TEST_F(MaintainTest, AYankReasonIsOneLineOfTextOrNothingIsYanked) {
  publish(Channel::nightly, "mini", "1.0+cpu");
  const std::string before = page("whl/nightly/cpu/mini/index.html");
  for (const std::string& reason :
       {std::string("bad\xff"), std::string("two\nlines"), std::string("\x1b[31mred")}) {
    YankOptions options{root(), Channel::nightly, "mini-1.0+cpu-py3-none-any.whl", reason, YankAction::yank};
    const auto refused = run_yank(options);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().category(), ErrorCategory::invalid_input);
    EXPECT_NE(refused.error().message().find("--reason must be one line"), std::string::npos);
    EXPECT_EQ(page("whl/nightly/cpu/mini/index.html"), before);
  }
  YankOptions accented{root(), Channel::nightly, "mini-1.0+cpu-py3-none-any.whl", "cass\xc3\xa9 on\tARM",
                       YankAction::yank};
  ASSERT_TRUE(run_yank(accented));
}

// Publish takes 1.1 and 1.1.0 for one identity, so yank must too; it reports the stored name.
TEST_F(MaintainTest, YankFindsTheFileUnderAnEquivalentVersionAndNamesItAsStored) {
  publish(Channel::nightly, "mini", "1.1.0+cpu");
  for (const std::string spelling : {"mini-1.1+cpu-py3-none-any.whl", "Mini-1.1.0.0+CPU-py3-none-any.whl"}) {
    YankOptions options{root(), Channel::nightly, spelling, "bad build", YankAction::yank};
    const auto yanked = run_yank(options);
    ASSERT_TRUE(yanked) << spelling << ": " << yanked.error().describe();
    ASSERT_EQ(yanked->size(), 1U);
    EXPECT_EQ((*yanked)[0].variant, "cpu");
    EXPECT_EQ((*yanked)[0].filename, "mini-1.1.0+cpu-py3-none-any.whl");
    EXPECT_NE(page("whl/nightly/cpu/mini/index.html").find("data-yanked=\"bad build\""), std::string::npos);
    options.action = YankAction::unyank;
    ASSERT_TRUE(run_yank(options));
    EXPECT_EQ(page("whl/nightly/cpu/mini/index.html").find("data-yanked"), std::string::npos);
  }
  YankOptions other{root(), Channel::nightly, "mini-1.1.1+cpu-py3-none-any.whl", "", YankAction::yank};
  const auto missing = run_yank(other);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().category(), ErrorCategory::not_found);
}

TEST_F(MaintainTest, PromoteCopiesExactlyTheFilesOfTheVersion) {
  publish(Channel::test, "mini", "2.7.0+cpu", true);
  publish(Channel::test, "mini", "2.7.0+cu126", true);
  publish(Channel::test, "mini", "2.7.1+cpu", true);
  PromoteOptions options;
  options.root = root();
  options.version = "2.7.0";
  options.public_key = m_key->public_key;
  options.upload_time = "2025-02-03T00:00:00Z";
  options.dry_run = DryRun::yes;
  const auto plan = run_promote(options);
  ASSERT_TRUE(plan) << plan.error().describe();
  EXPECT_EQ(plan->plan.size(), 2U);
  EXPECT_TRUE(plan->published.empty());
  EXPECT_FALSE(fs::exists(root() / "whl/cpu"));

  options.expect_variants = {"cpu", "cu126", "cu130"};
  auto incomplete = run_promote(options);
  ASSERT_FALSE(incomplete);
  EXPECT_NE(incomplete.error().message().find("no files for cu130"), std::string::npos);

  options.expect_variants = {"cpu", "cu126"};
  options.dry_run = DryRun::no;
  const auto done = run_promote(options);
  ASSERT_TRUE(done) << done.error().describe();
  EXPECT_EQ(done->published.size(), 2U);
  const auto source = root() / "whl/test/cu126/mini/mini-2.7.0+cu126-py3-none-any.whl";
  const auto copy = root() / "whl/cu126/mini/mini-2.7.0+cu126-py3-none-any.whl";
  EXPECT_EQ(platform::sha256_file(copy).value(), platform::sha256_file(source).value());
  EXPECT_FALSE(fs::exists(root() / "whl/cpu/mini/mini-2.7.1+cpu-py3-none-any.whl"));
  EXPECT_NE(page("whl/cu126/mini/index.html").find("data-provenance"), std::string::npos);

  const auto again = run_promote(options);  // idempotent
  ASSERT_TRUE(again);
  for (const auto& file : again->published) EXPECT_EQ(file.state, PublishState::unchanged);

  options.version = "9.9";
  const auto none = run_promote(options);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().category(), ErrorCategory::nothing_selected);
}

TEST_F(MaintainTest, APromoteDryRunRefusesWhatThePromoteWouldRefuse) {
  // Unsigned in test, and stable requires signatures: the dry run is the pre-flight check of the
  // real promote, so it must fail the same way, and copy nothing either.
  publish(Channel::test, "mini", "3.0.0+cpu");
  PromoteOptions options;
  options.root = root();
  options.version = "3.0.0";
  options.upload_time = "2025-02-03T00:00:00Z";
  for (const auto dry_run : {DryRun::yes, DryRun::no}) {
    options.dry_run = dry_run;
    const auto refused = run_promote(options);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().category(), ErrorCategory::integrity) << refused.error().describe();
    EXPECT_NE(refused.error().describe().find("not signed"), std::string::npos) << refused.error().describe();
    EXPECT_FALSE(fs::exists(root() / "whl/cpu"));
  }
}

// Yanked in test is withdrawn: promoting it would publish it in stable as installable.
TEST_F(MaintainTest, PromoteRefusesAYankedFileAndPromotesNothing) {
  publish(Channel::test, "mini", "2.7.0+cpu", true);
  publish(Channel::test, "mini", "2.7.0+cu126", true);
  YankOptions yank{root(), Channel::test, "mini-2.7.0+cu126-py3-none-any.whl", "segfaults on import",
                   YankAction::yank};
  ASSERT_TRUE(run_yank(yank));
  PromoteOptions options;
  options.root = root();
  options.version = "2.7.0";
  options.public_key = m_key->public_key;
  options.upload_time = "2025-02-03T00:00:00Z";
  const auto refused = run_promote(options);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_NE(
      refused.error().message().find("yanked file is never promoted: cu126/mini-2.7.0+cu126-py3-none-any.whl "
                                     "(yanked: segfaults on import)"),
      std::string::npos)
      << refused.error().message();
  EXPECT_FALSE(fs::exists(root() / "whl/cpu/mini"));
  EXPECT_FALSE(fs::exists(root() / "whl/cu126/mini"));
  // Un-yanked (it was a mistake), the same promote goes through.
  yank.action = YankAction::unyank;
  ASSERT_TRUE(run_yank(yank));
  const auto done = run_promote(options);
  ASSERT_TRUE(done) << done.error().describe();
  EXPECT_NE(page("whl/cu126/mini/index.html").find("mini-2.7.0+cu126"), std::string::npos);
}

// A store that runs `before_lock` when a writer asks for the lock, as a yank that arrives just
// before the promote takes it.
class YankBeforeTheLock final : public ObjectStore {
public:
  YankBeforeTheLock(const fs::path& root, YankOptions yank) : m_store(root), m_yank(std::move(yank)) {}
  Result<PutResult> put_if_absent(const std::string& key, const fs::path& file, const std::string& sha256_hex,
                                  const std::string& content_type) override {
    return m_store.put_if_absent(key, file, sha256_hex, content_type);
  }
  Status put(const std::string& key, std::string_view bytes, const std::string& content_type) override {
    return m_store.put(key, bytes, content_type);
  }
  Result<std::optional<std::string>> get(const std::string& key) override { return m_store.get(key); }
  Status download(const std::string& key, const fs::path& target, std::uint64_t max_bytes) override {
    return m_store.download(key, target, max_bytes);
  }
  Result<std::optional<ObjectInfo>> head(const std::string& key) override { return m_store.head(key); }
  Result<std::vector<ObjectInfo>> list(const std::string& prefix, Temporaries temporaries) override {
    return m_store.list(prefix, temporaries);
  }
  Status copy(const std::string& from_key, const std::string& to_key) override {
    return m_store.copy(from_key, to_key);
  }
  Status remove(const std::string& key) override { return m_store.remove(key); }
  std::string describe(const std::string& key) const override { return m_store.describe(key); }
  std::optional<fs::path> local_path(const std::string& key) const override {
    return m_store.local_path(key);
  }
  Result<std::unique_ptr<StoreLock>> lock() override {
    if (!m_yanked) {
      m_yanked = true;
      const auto yanked = run_yank(m_yank, m_store);
      EXPECT_TRUE(yanked) << yanked.error().describe();
    }
    return m_store.lock();
  }

private:
  FilesystemObjectStore m_store;
  YankOptions m_yank;
  bool m_yanked = false;
};

// The yank check and the publish to the target happen under one hold of the store's lock: a yank
// that lands before the promote holds it is seen, one that waits for it comes after the copy.
TEST_F(MaintainTest, AYankThatLandsDuringAPromoteStopsIt) {
  publish(Channel::test, "mini", "2.7.0+cpu", true);
  YankOptions yank{root(), Channel::test, "mini-2.7.0+cpu-py3-none-any.whl", "corrupt", YankAction::yank};
  YankBeforeTheLock store(root(), yank);
  PromoteOptions options;
  options.root = root();
  options.version = "2.7.0";
  options.public_key = m_key->public_key;
  options.upload_time = "2025-02-03T00:00:00Z";
  const auto refused = run_promote(options, store);
  ASSERT_FALSE(refused) << "a file yanked in test was promoted to stable";
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_NE(refused.error().message().find("yanked file is never promoted"), std::string::npos)
      << refused.error().message();
  EXPECT_FALSE(fs::exists(root() / "whl/cpu/mini"));
}

TEST_F(MaintainTest, PromoteRefusesACorruptedSourceFile) {
  publish(Channel::test, "mini", "3.0+cpu", true);
  const auto stored = root() / "whl/test/cpu/mini/mini-3.0+cpu-py3-none-any.whl";
  auto bytes = platform::read_file(stored).value();
  bytes.back() = static_cast<char>(bytes.back() ^ 1);
  ASSERT_TRUE(platform::write_file_atomic(stored, bytes));
  PromoteOptions options;
  options.root = root();
  options.version = "3.0";
  options.public_key = m_key->public_key;
  const auto result = run_promote(options);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::integrity);
  EXPECT_FALSE(fs::exists(root() / "whl/cpu"));
}

}  // namespace
}  // namespace relforge::channels
