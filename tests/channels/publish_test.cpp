#include "channels/publish.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include "channels/index.hpp"
#include "platform/digest.hpp"
#include "platform/fs.hpp"
#include "signing/bundle.hpp"
#include "signing/keys.hpp"
#include "tests/channels/support.hpp"

namespace relforge::channels {
namespace {

namespace fs = std::filesystem;

class PublishTest : public ::testing::Test {
protected:
  PublishOptions options(Channel channel, std::vector<fs::path> files) {
    PublishOptions out;
    out.root = m_dir.path() / "store";
    out.channel = channel;
    out.files = std::move(files);
    out.upload_time = "2025-01-02T03:04:05Z";
    return out;
  }
  fs::path sign(const fs::path& wheel) {
    if (!m_key) m_key = signing::generate_key(signing::KeyType::ecdsa_p256, m_dir.path() / "keys").value();
    const auto key = signing::PrivateKey::load(m_key->private_key).value();
    const auto bundle = signing::sign_file(wheel, key, {});
    EXPECT_TRUE(bundle);
    EXPECT_TRUE(platform::write_file_atomic(wheel.string() + ".sigstore.json", *bundle));
    return m_key->public_key;
  }
  std::string page(const std::string& relative) {
    return platform::read_file(m_dir.path() / "store" / relative).value_or("");
  }
  test::ChannelTempDir m_dir;
  std::optional<signing::GeneratedKey> m_key;
};

TEST_F(PublishTest, LaysOutTheStoreAndItsPages) {
  const auto wheel =
      test::make_wheel(m_dir.path() / "in", "Mini_Pkg", "1.0+cpu", "--requires-python '>=3.8'");
  const auto published = run_publish(options(Channel::nightly, {wheel}));
  ASSERT_TRUE(published) << published.error().describe();
  ASSERT_EQ(published->size(), 1U);
  EXPECT_EQ(published->front().variant, "cpu");
  EXPECT_EQ(published->front().project, "mini-pkg");
  const fs::path stored = m_dir.path() / "store/whl/nightly/cpu/mini-pkg/mini_pkg-1.0+cpu-py3-none-any.whl";
  ASSERT_TRUE(fs::exists(stored));
  const auto sha = platform::to_hex(platform::sha256_file(wheel).value());
  const auto metadata = platform::read_file(stored.string() + ".metadata").value();
  EXPECT_NE(metadata.find("Name: Mini_Pkg"), std::string::npos);
  const auto meta_sha = platform::to_hex(platform::sha256(metadata));
  const auto html = page("whl/nightly/cpu/mini-pkg/index.html");
  EXPECT_NE(html.find("href=\"mini_pkg-1.0%2Bcpu-py3-none-any.whl#sha256=" + sha + "\""), std::string::npos)
      << html;
  EXPECT_NE(html.find("data-requires-python=\"&gt;=3.8\""), std::string::npos);
  EXPECT_NE(html.find("data-core-metadata=\"sha256=" + meta_sha + "\""), std::string::npos);
  EXPECT_NE(page("whl/nightly/cpu/index.html").find("href=\"mini-pkg/\""), std::string::npos);
  // The combined channel page points into the variant folder.
  EXPECT_NE(page("whl/nightly/mini-pkg/index.html").find("href=\"../cpu/mini-pkg/mini_pkg-1.0%2Bcpu"),
            std::string::npos);
  EXPECT_NE(page("whl/nightly/index.json").find("\"mini-pkg\""), std::string::npos);
  const auto json = nlohmann::json::parse(page("whl/nightly/cpu/mini-pkg/index.json"));
  EXPECT_EQ(json["files"][0]["size"], fs::file_size(wheel));
  EXPECT_EQ(json["files"][0]["upload-time"], "2025-01-02T03:04:05Z");
}

// A web server or `serve` running as another user must read the wheel as it reads its sidecars:
// both are created 0666 less the umask, even where a crash left a private temp copy behind.
TEST_F(PublishTest, TheWheelIsAsReadableAsItsSidecars) {
  const auto wheel = test::make_wheel(m_dir.path() / "in", "mini", "1.0+cpu");
  const fs::path folder = m_dir.path() / "store/whl/nightly/cpu/mini";
  fs::create_directories(folder);
  ASSERT_TRUE(platform::write_file_atomic(folder / ".mini-1.0+cpu-py3-none-any.whl.partial", "stale",
                                          platform::Durability::no_fsync, 0600));
  const mode_t before = ::umask(022);
  const auto published = run_publish(options(Channel::nightly, {wheel}));
  ::umask(before);
  ASSERT_TRUE(published) << published.error().describe();
  const auto mode = [&](const std::string& name) {
    struct stat info {};
    EXPECT_EQ(::stat((folder / name).c_str(), &info), 0) << name;
    return info.st_mode & 0777;
  };
  EXPECT_EQ(mode("mini-1.0+cpu-py3-none-any.whl"), 0644U);
  EXPECT_EQ(mode("mini-1.0+cpu-py3-none-any.whl.info.json"), 0644U);
  EXPECT_EQ(mode("mini-1.0+cpu-py3-none-any.whl.metadata"), 0644U);
  EXPECT_FALSE(fs::exists(folder / ".mini-1.0+cpu-py3-none-any.whl.partial"));
}

TEST_F(PublishTest, FilesAreImmutableAndRepublishingIsANoOp) {
  const auto wheel = test::make_wheel(m_dir.path() / "in", "mini", "1.0+cpu");
  ASSERT_TRUE(run_publish(options(Channel::nightly, {wheel})));
  const auto again = run_publish(options(Channel::nightly, {wheel}));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->front().state, PublishState::unchanged);
  const auto changed = test::make_wheel(m_dir.path() / "changed", "mini", "1.0+cpu", "--payload 'VALUE = 2'");
  const auto refused = run_publish(options(Channel::nightly, {changed}));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_NE(refused.error().message().find("immutable"), std::string::npos);
  const fs::path stored = m_dir.path() / "store/whl/nightly/cpu/mini/mini-1.0+cpu-py3-none-any.whl";
  EXPECT_EQ(platform::sha256_file(stored).value(), platform::sha256_file(wheel).value());
}

TEST_F(PublishTest, RefusesBadWheelsAndPublishesNothingOfTheBatch) {
  const auto good = test::make_wheel(m_dir.path() / "good", "mini", "1.0+cpu", "--stored");
  const auto lying = test::make_wheel(m_dir.path() / "lying", "mini", "2.0+cpu", "--metadata-version 3.0");
  auto result = run_publish(options(Channel::nightly, {good, lying}));
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message().find("does not match its METADATA"), std::string::npos)
      << result.error().message();
  EXPECT_FALSE(fs::exists(m_dir.path() / "store/whl/nightly/cpu"));

  // One byte of the archive changed: the RECORD check (or the zip itself) catches it.
  auto bytes = platform::read_file(good).value();
  const auto at = bytes.find("VALUE = 1");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 8] = '7';
  const auto tampered = m_dir.path() / "tampered" / good.filename();
  fs::create_directories(tampered.parent_path());
  ASSERT_TRUE(platform::write_file_atomic(tampered, bytes));
  result = run_publish(options(Channel::nightly, {tampered}));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::integrity);

  const auto unlabelled = test::make_wheel(m_dir.path() / "plain", "mini", "1.0");
  result = run_publish(options(Channel::nightly, {unlabelled}));
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message().find("--variant"), std::string::npos);
  auto with_variant = options(Channel::nightly, {unlabelled});
  with_variant.variant = "cpu";
  EXPECT_TRUE(run_publish(with_variant));
}

// A channel's variant folders and combined project folders are one level: whl/nightly/demo/ can be
// the variant demo or the project demo, never both, and the stable channel's whl/nightly/ is the
// nightly channel. Every clash is refused before anything is written.
TEST_F(PublishTest, AVariantAndAProjectNeverShareAFolder) {
  ASSERT_TRUE(
      run_publish(options(Channel::nightly, {test::make_wheel(m_dir.path() / "a", "demo", "1.0+cpu")})));
  const auto combined = page("whl/nightly/demo/index.html");
  const auto channel_root = page("whl/nightly/index.html");
  const auto refused = [&](Channel channel, const fs::path& wheel, ErrorCategory category,
                           const std::string& says) {
    const auto result = run_publish(options(channel, {wheel}));
    ASSERT_FALSE(result) << wheel;
    EXPECT_EQ(result.error().category(), category) << result.error().describe();
    EXPECT_NE(result.error().message().find(says), std::string::npos) << result.error().describe();
  };
  // A variant named like a project already there, a project named like a variant already there,
  // and a wheel whose variant is its own project.
  refused(Channel::nightly, test::make_wheel(m_dir.path() / "b", "evil", "1.0+demo"), ErrorCategory::conflict,
          "its variant 'demo' is also a project of the channel");
  refused(Channel::nightly, test::make_wheel(m_dir.path() / "c", "cpu", "1.0+cu126"), ErrorCategory::conflict,
          "its project 'cpu' is also a variant of the channel");
  refused(Channel::nightly, test::make_wheel(m_dir.path() / "d", "self", "1.0+self"), ErrorCategory::conflict,
          "its variant 'self' is also a project");
  // Two inputs of one batch that clash with each other publish nothing.
  const auto batch =
      run_publish(options(Channel::nightly, {test::make_wheel(m_dir.path() / "e", "zeta", "1.0+cpu"),
                                             test::make_wheel(m_dir.path() / "f", "eta", "1.0+zeta")}));
  ASSERT_FALSE(batch);
  EXPECT_EQ(batch.error().category(), ErrorCategory::conflict);
  // Names of the channel's own pages, and of the other channels, are no variant.
  refused(Channel::nightly, test::make_wheel(m_dir.path() / "g", "demo", "1.1+index.html"),
          ErrorCategory::invalid_input, "is not a valid folder name");
  refused(Channel::nightly, test::make_wheel(m_dir.path() / "h", "demo", "1.2+Test"),
          ErrorCategory::invalid_input, "is not a valid folder name");
  refused(Channel::stable, test::make_wheel(m_dir.path() / "i", "nightly", "1.0+cpu"),
          ErrorCategory::invalid_input, "cannot be published to the stable channel");
  EXPECT_EQ(page("whl/nightly/demo/index.html"), combined);
  EXPECT_EQ(page("whl/nightly/index.html"), channel_root);
  for (const char* absent :
       {"whl/nightly/demo/.relforge-variant", "whl/nightly/evil", "whl/nightly/cu126", "whl/nightly/self",
        "whl/nightly/zeta", "whl/nightly/eta", "whl/nightly/index.html/", "whl/cpu"})
    EXPECT_FALSE(fs::exists(m_dir.path() / "store" / absent)) << absent;
}

// Publish runs `wheel verify`'s checks: an entry that climbs out of the install folder, names a
// drive, or collides with another by case, though listed in RECORD with its right hash, publishes
// nothing.
TEST_F(PublishTest, AWheelVerifyRefusesIsNeverPublished) {
  const std::vector<std::string> entries = {"../../evil.py", "/tmp/evil.py", "C:/Windows/evil.py",
                                            "DEMO/__init__.py"};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto wheel = test::make_wheel(m_dir.path() / ("in" + std::to_string(i)), "demo", "1.0+cpu",
                                        "--extra-entry " + test::shell_quote(entries[i]));
    const auto result = run_publish(options(Channel::nightly, {wheel}));
    ASSERT_FALSE(result) << entries[i];
    EXPECT_NE(result.error().message().find(entries[i]), std::string::npos) << result.error().describe();
    EXPECT_FALSE(fs::exists(m_dir.path() / "store/whl/nightly/cpu")) << entries[i];
  }
}

TEST_F(PublishTest, AWheelRewrittenAfterItWasCheckedIsNotStored) {
  // Someone who can write the input folder replaces the checked wheel with other bytes (here a
  // wheel that verify refuses) before it is copied: the copy's hash differs, nothing is stored.
  const auto wheel = test::make_wheel(m_dir.path() / "in", "demo", "1.0+cpu");
  const auto evil = test::make_wheel(m_dir.path() / "evil", "demo", "1.0+cpu", "--extra-entry ../../evil.py");
  auto with = options(Channel::nightly, {wheel});
  with.on_stage = [&](std::string_view stage) {
    if (stage == "checked") fs::copy_file(evil, wheel, fs::copy_options::overwrite_existing);
  };
  const auto result = run_publish(with);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().category(), ErrorCategory::integrity);
  EXPECT_NE(result.error().describe().find("changed while it was being published"), std::string::npos)
      << result.error().describe();
  const fs::path project = m_dir.path() / "store/whl/nightly/cpu/demo";
  EXPECT_FALSE(fs::exists(project / "demo-1.0+cpu-py3-none-any.whl"));
  for (const auto& entry : fs::directory_iterator(project))
    EXPECT_FALSE(entry.path().filename().string().ends_with(".partial")) << entry.path();
}

TEST_F(PublishTest, ChecksReadOneCopyAndErrorsNameTheInput) {
  // A refused wheel's error names the file the user gave, not the private copy the checks read,
  // and no copy is left behind.
  const auto wheel = test::make_wheel(m_dir.path() / "in", "demo", "1.0+cpu", "--extra-entry ../../evil.py");
  const auto result = run_publish(options(Channel::nightly, {wheel}));
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().describe().find(wheel.string()), std::string::npos) << result.error().describe();
  EXPECT_EQ(result.error().describe().find("relforge-snapshot"), std::string::npos)
      << result.error().describe();
  for (const auto& entry : fs::directory_iterator(fs::temp_directory_path()))
    EXPECT_FALSE(entry.path().filename().string().starts_with("relforge-snapshot") &&
                 fs::exists(entry.path() / wheel.filename()))
        << entry.path();
}

TEST_F(PublishTest, StableRequiresAVerifiedSignatureAndServesProvenance) {
  const auto wheel = test::make_wheel(m_dir.path() / "in", "mini", "1.0+cu126");
  auto unsigned_result = run_publish(options(Channel::stable, {wheel}));
  ASSERT_FALSE(unsigned_result);
  EXPECT_NE(unsigned_result.error().message().find("not signed"), std::string::npos);

  const auto public_key = sign(wheel);
  auto signed_options = options(Channel::stable, {wheel});
  signed_options.public_key = public_key;
  const auto published = run_publish(signed_options);
  ASSERT_TRUE(published) << published.error().describe();
  EXPECT_TRUE(published->front().signed_bundle);
  const fs::path stored = m_dir.path() / "store/whl/cu126/mini/mini-1.0+cu126-py3-none-any.whl";
  EXPECT_TRUE(fs::exists(stored.string() + ".sigstore.json"));
  const auto provenance = nlohmann::json::parse(platform::read_file(stored.string() + ".provenance").value());
  EXPECT_EQ(provenance["version"], 1);
  EXPECT_FALSE(provenance["attestation_bundles"][0]["attestations"][0]["envelope"]["signature"]
                   .get<std::string>()
                   .empty());
  EXPECT_NE(page("whl/cu126/mini/index.html")
                .find("data-provenance=\"mini-1.0%2Bcu126-py3-none-any.whl.provenance\""),
            std::string::npos);

  // Wrong key.
  const auto other = signing::generate_key(signing::KeyType::ed25519, m_dir.path() / "other").value();
  const auto second = test::make_wheel(m_dir.path() / "in2", "mini", "1.1+cu126");
  sign(second);
  auto wrong = options(Channel::stable, {second});
  wrong.public_key = other.public_key;
  const auto refused = run_publish(wrong);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("key id check failed"), std::string::npos);

  // Tampered bundle.
  auto bundle = platform::read_file(second.string() + ".sigstore.json").value();
  auto json = nlohmann::json::parse(bundle);
  json["dsseEnvelope"]["signatures"][0]["sig"] =
      json["dsseEnvelope"]["payload"].get<std::string>().substr(0, 40);
  ASSERT_TRUE(platform::write_file_atomic(second.string() + ".sigstore.json", json.dump()));
  auto tampered = options(Channel::stable, {second});
  tampered.public_key = public_key;
  const auto tampered_result = run_publish(tampered);
  ASSERT_FALSE(tampered_result);
  EXPECT_NE(tampered_result.error().message().find("signature check failed"), std::string::npos);
}

// Published files are immutable, and so are their bundles: the same bytes again without a bundle
// keep the stored one, and another bundle (another key, another source commit) is a conflict.
TEST_F(PublishTest, ASignedFilesBundleIsImmutable) {
  const auto wheel = test::make_wheel(m_dir.path() / "in", "mini", "1.0+cpu");
  auto first = options(Channel::stable, {wheel});
  first.public_key = sign(wheel);
  ASSERT_TRUE(run_publish(first));
  const fs::path stored = m_dir.path() / "store/whl/cpu/mini/mini-1.0+cpu-py3-none-any.whl";
  const auto bundle = platform::read_file(stored.string() + ".sigstore.json").value();
  const auto provenance = platform::read_file(stored.string() + ".provenance").value();
  const auto html = page("whl/cpu/mini/index.html");
  ASSERT_NE(html.find("data-provenance"), std::string::npos);

  fs::remove(wheel.string() + ".sigstore.json");
  auto unsigned_again = options(Channel::stable, {wheel});
  unsigned_again.signatures = SignaturePolicy::optional;
  const auto kept = run_publish(unsigned_again);
  ASSERT_TRUE(kept) << kept.error().describe();
  EXPECT_EQ(kept->front().state, PublishState::unchanged);
  EXPECT_EQ(page("whl/cpu/mini/index.html"), html);

  const auto other = signing::generate_key(signing::KeyType::ed25519, m_dir.path() / "other").value();
  ASSERT_TRUE(platform::write_file_atomic(
      wheel.string() + ".sigstore.json",
      signing::sign_file(wheel, signing::PrivateKey::load(other.private_key).value(), {}).value()));
  auto resigned = options(Channel::stable, {wheel});
  resigned.public_key = other.public_key;
  const auto resigned_again = run_publish(resigned);
  ASSERT_TRUE(resigned_again) << resigned_again.error().describe();
  EXPECT_EQ(resigned_again->front().state, PublishState::unchanged);
  EXPECT_EQ(platform::read_file(stored.string() + ".sigstore.json").value(), bundle);
  EXPECT_EQ(platform::read_file(stored.string() + ".provenance").value(), provenance);
  EXPECT_EQ(page("whl/cpu/mini/index.html"), html);

  // The bundle it was published with is accepted again: a retried job is harmless.
  ASSERT_TRUE(platform::write_file_atomic(wheel.string() + ".sigstore.json", bundle));
  const auto same = run_publish(first);
  ASSERT_TRUE(same) << same.error().describe();
  EXPECT_EQ(same->front().state, PublishState::unchanged);
}

// Two spellings of one identity in one batch are refused as two publishes of them are, even with
// the same bytes: the store would hold the identity twice.
TEST_F(PublishTest, TwoSpellingsOfOneIdentityInOneBatchAreAConflict) {
  const auto made = test::make_wheel(m_dir.path() / "made", "tg", "1.0+cpu");
  fs::create_directories(m_dir.path() / "in");
  const auto a = m_dir.path() / "in/tg-1.0+cpu-py2.py3-none-any.whl";
  const auto b = m_dir.path() / "in/tg-1.0+cpu-py3.py2-none-any.whl";
  fs::copy_file(made, a);
  fs::copy_file(made, b);
  const auto refused = run_publish(options(Channel::nightly, {a, b}));
  ASSERT_FALSE(refused) << "both spellings were stored";
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_NE(refused.error().message().find("same file identity"), std::string::npos)
      << refused.error().message();
  EXPECT_FALSE(fs::exists(m_dir.path() / "store/whl/nightly/cpu"));
  // The same spelling twice is one file.
  const auto twice = run_publish(options(Channel::nightly, {a, a}));
  ASSERT_TRUE(twice) << twice.error().describe();
}

// pip ignores a Requires-Python it cannot parse, and installs the file everywhere.
TEST_F(PublishTest, AnInvalidRequiresPythonIsRefused) {
  const auto wheel =
      test::make_wheel(m_dir.path() / "in", "mini", "1.0+cpu", "--requires-python '>=3.99 <4'");
  const auto refused = run_publish(options(Channel::nightly, {wheel}));
  ASSERT_FALSE(refused) << "an invalid Requires-Python was published";
  EXPECT_EQ(refused.error().category(), ErrorCategory::integrity);
  EXPECT_NE(refused.error().message().find("Requires-Python"), std::string::npos)
      << refused.error().message();
  EXPECT_FALSE(fs::exists(m_dir.path() / "store/whl/nightly/cpu"));
  const auto good =
      test::make_wheel(m_dir.path() / "good", "mini", "1.0+cpu", "--requires-python '>=3.9, <4'");
  EXPECT_TRUE(run_publish(options(Channel::nightly, {good})));
}

// Core metadata names are ASCII (PEP 508): a Cyrillic 'е' would make a project that looks like demo.
TEST_F(PublishTest, ANonAsciiProjectNameIsRefused) {
  const auto wheel = test::make_wheel(m_dir.path() / "in", "d\xd0\xb5mo", "1.0+cpu");
  const auto refused = run_publish(options(Channel::nightly, {wheel}));
  ASSERT_FALSE(refused) << "a non-ASCII project name was published";
  EXPECT_EQ(refused.error().category(), ErrorCategory::invalid_input);
  EXPECT_FALSE(fs::exists(m_dir.path() / "store/whl/nightly/cpu"));
}

TEST_F(PublishTest, ABundleThatIsAFifoOrEndlessIsRefusedNotReadForEver) {
  const auto public_key = sign(test::make_wheel(m_dir.path() / "key", "mini", "0.1+cpu"));
  const auto fifo_wheel = test::make_wheel(m_dir.path() / "fifo", "mini", "1.0+cu126");
  ASSERT_EQ(::mkfifo((fifo_wheel.string() + ".sigstore.json").c_str(), 0600), 0);
  const auto endless_wheel = test::make_wheel(m_dir.path() / "endless", "mini", "1.1+cu126");
  fs::create_symlink("/dev/zero", endless_wheel.string() + ".sigstore.json");
  for (const auto& wheel : {fifo_wheel, endless_wheel}) {
    auto signed_options = options(Channel::stable, {wheel});
    signed_options.public_key = public_key;
    const auto refused = run_publish(signed_options);
    ASSERT_FALSE(refused) << wheel;
    EXPECT_NE(refused.error().message().find("sigstore.json"), std::string::npos)
        << refused.error().describe();
  }
  EXPECT_FALSE(fs::exists(m_dir.path() / "store/whl/cu126"));
}

TEST_F(PublishTest, RebuildRendersTheSamePagesAsIncrementalPublishes) {
  const auto a = test::make_wheel(m_dir.path() / "a", "mini", "1.0+cpu");
  const auto b = test::make_wheel(m_dir.path() / "b", "mini", "1.1+cu126");
  const auto c = test::make_wheel(m_dir.path() / "c", "other", "0.1+cpu");
  ASSERT_TRUE(run_publish(options(Channel::nightly, {a})));
  ASSERT_TRUE(run_publish(options(Channel::nightly, {b, c})));
  const auto combined = page("whl/nightly/mini/index.html");
  EXPECT_LT(combined.find("mini-1.0+cpu"), combined.find("mini-1.1+cu126"));
  const std::vector<std::string> pages = {
      "whl/nightly/index.html",          "whl/nightly/mini/index.json",       "whl/nightly/cpu/index.json",
      "whl/nightly/cpu/mini/index.html", "whl/nightly/cu126/mini/index.json", "whl/nightly/mini/index.html"};
  std::vector<std::string> before;
  for (const auto& name : pages) before.push_back(page(name));
  for (const auto& name : pages) fs::remove(m_dir.path() / "store" / name);
  const auto summary = rebuild_all(m_dir.path() / "store");
  ASSERT_TRUE(summary) << summary.error().describe();
  EXPECT_EQ(summary->files, 3U);
  for (std::size_t i = 0; i < pages.size(); ++i) EXPECT_EQ(page(pages[i]), before[i]) << pages[i];
}

// A publish renders its pages from its first listing plus what it wrote (it holds the lock): a new
// variant folder, other projects known by name only and the other variants' cached listings must come
// out exactly as a rebuild from the store renders them.
TEST_F(PublishTest, PagesOfAPublishIntoANewVariantEqualARebuild) {
  const auto a = test::make_wheel(m_dir.path() / "a", "mini", "1.0+cpu");
  const auto b = test::make_wheel(m_dir.path() / "b", "other", "0.1+cpu");
  const auto c = test::make_wheel(m_dir.path() / "c", "third", "0.2+cu126");
  const auto d = test::make_wheel(m_dir.path() / "d", "mini", "1.1+cu128");
  ASSERT_TRUE(run_publish(options(Channel::nightly, {a, b})));
  ASSERT_TRUE(run_publish(options(Channel::nightly, {c})));
  const auto published = run_publish(options(Channel::nightly, {d}));
  ASSERT_TRUE(published) << published.error().describe();
  EXPECT_TRUE(fs::exists(m_dir.path() / "store/whl/nightly/cu128/.relforge-variant"));
  const std::vector<std::string> pages = {
      "whl/nightly/index.html",          "whl/nightly/index.json",
      "whl/nightly/cu128/index.json",    "whl/nightly/cu128/mini/index.json",
      "whl/nightly/mini/index.html",     "whl/nightly/mini/index.json",
      "whl/nightly/cpu/mini/index.json", "whl/nightly/mini/.relforge-listing"};
  std::vector<std::string> before;
  for (const auto& name : pages) before.push_back(page(name));
  EXPECT_NE(before[0].find("third"), std::string::npos);
  EXPECT_NE(before[4].find("mini-1.0+cpu"), std::string::npos);
  EXPECT_NE(before[4].find("mini-1.1+cu128"), std::string::npos);
  for (const auto& name : pages) fs::remove(m_dir.path() / "store" / name);
  ASSERT_TRUE(rebuild_all(m_dir.path() / "store"));
  for (std::size_t i = 0; i < pages.size(); ++i) EXPECT_EQ(page(pages[i]), before[i]) << pages[i];
}

}  // namespace
}  // namespace relforge::channels
