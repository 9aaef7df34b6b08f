#include "signing/keys.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "platform/fs.hpp"
#include "tests/signing/support.hpp"
#include "tests/support/run.hpp"

namespace relforge::signing {
namespace {

namespace fs = std::filesystem;
using test::run_shell;
using test::shell_quote;

class KeysTest : public ::testing::TestWithParam<KeyType> {};

TEST_P(KeysTest, GeneratesAPrivateKeyOnlyTheOwnerCanRead) {
  test::TempDir dir;
  const auto key = generate_key(GetParam(), dir.path() / "keys");
  ASSERT_TRUE(key) << key.error().describe();
  const auto perms = fs::status(key->private_key).permissions();
  EXPECT_EQ(perms & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_TRUE(fs::exists(key->public_key));
  EXPECT_FALSE(fs::exists(key->private_key.string() + ".tmp"));
  EXPECT_EQ(key->key_id.size(), 64U);
}

TEST_P(KeysTest, KeyIdIsTheSha256OfTheDerPublicKeyAsOpensslComputesIt) {
  test::TempDir dir;
  const auto key = generate_key(GetParam(), dir.path());
  ASSERT_TRUE(key);
  const auto openssl = run_shell("openssl pkey -pubin -in " + shell_quote(key->public_key.string()) +
                                 " -outform DER | sha256sum | cut -d' ' -f1");
  ASSERT_EQ(openssl.exit_code, 0) << openssl.err;
  EXPECT_EQ(openssl.out, key->key_id + "\n");
  const auto loaded = PublicKey::load(key->public_key);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->key_id(), key->key_id);
  EXPECT_EQ(loaded->type(), GetParam());
  const auto private_key = PrivateKey::load(key->private_key);
  ASSERT_TRUE(private_key) << private_key.error().describe();
  EXPECT_EQ(private_key->key_id(), key->key_id);
}

TEST_P(KeysTest, SignaturesVerifyAndAlteredMessagesDoNot) {
  test::TempDir dir;
  const auto key = generate_key(GetParam(), dir.path());
  ASSERT_TRUE(key);
  const auto private_key = PrivateKey::load(key->private_key);
  const auto public_key = PublicKey::load(key->public_key);
  ASSERT_TRUE(private_key && public_key);
  const auto signature = private_key->sign("message");
  ASSERT_TRUE(signature);
  EXPECT_TRUE(public_key->verify("message", *signature));
  EXPECT_FALSE(public_key->verify("messagE", *signature));
  auto broken = *signature;
  broken[broken.size() / 2] = static_cast<char>(broken[broken.size() / 2] ^ 1);
  EXPECT_FALSE(public_key->verify("message", broken));
}

INSTANTIATE_TEST_SUITE_P(BothTypes, KeysTest, ::testing::Values(KeyType::ecdsa_p256, KeyType::ed25519));

TEST(Keys, PrivateKeyIsOwnerOnlyEvenUnderUmaskZeroAndNoTempIsLeft) {
  const mode_t old_mask = ::umask(0);
  test::TempDir dir;
  const auto key = generate_key(KeyType::ed25519, dir.path());
  ::umask(old_mask);
  ASSERT_TRUE(key) << key.error().describe();
  EXPECT_EQ(fs::status(key->private_key).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path())) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"signing.key", "signing.pub"}));
}

TEST(Keys, RefusesAGroupOrWorldReadablePrivateKey) {
  test::TempDir dir;
  const auto key = generate_key(KeyType::ecdsa_p256, dir.path());
  ASSERT_TRUE(key);
  fs::permissions(key->private_key, fs::perms::group_read, fs::perm_options::add);
  const auto loaded = PrivateKey::load(key->private_key);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().category(), ErrorCategory::auth);
  EXPECT_NE(loaded.error().message().find("chmod 600"), std::string::npos);
  fs::permissions(key->private_key, fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read,
                  fs::perm_options::replace);
  EXPECT_FALSE(PrivateKey::load(key->private_key));
}

TEST(Keys, NeverOverwritesAnExistingKey) {
  test::TempDir dir;
  ASSERT_TRUE(generate_key(KeyType::ed25519, dir.path()));
  const auto before = platform::read_file(dir.path() / "signing.key");
  const auto again = generate_key(KeyType::ed25519, dir.path());
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().category(), ErrorCategory::conflict);
  EXPECT_EQ(platform::read_file(dir.path() / "signing.key").value(), before.value());
}

// A dangling link is a name taken like any other: never replaced, nor written through.
TEST(Keys, NeverReplacesAnExistingNameNotEvenADanglingLink) {
  test::TempDir dir;
  fs::create_symlink(dir.path() / "elsewhere", dir.path() / "signing.key");
  const auto key = generate_key(KeyType::ed25519, dir.path());
  ASSERT_FALSE(key);
  EXPECT_EQ(key.error().category(), ErrorCategory::conflict);
  EXPECT_NE(key.error().message().find("signing.key exists already; relforge never overwrites a key"),
            std::string::npos)
      << key.error().message();
  EXPECT_TRUE(fs::is_symlink(dir.path() / "signing.key"));
  EXPECT_FALSE(fs::exists(dir.path() / "elsewhere"));
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path())) names.push_back(entry.path().filename());
  EXPECT_EQ(names, (std::vector<std::string>{"signing.key"}));
}

TEST(Keys, ADanglingLinkAtThePublicKeyLeavesNoPrivateKeyBehind) {
  test::TempDir dir;
  fs::create_symlink(dir.path() / "elsewhere", dir.path() / "signing.pub");
  const auto key = generate_key(KeyType::ecdsa_p256, dir.path());
  ASSERT_FALSE(key);
  EXPECT_EQ(key.error().category(), ErrorCategory::conflict);
  EXPECT_NE(key.error().message().find("signing.pub exists already"), std::string::npos)
      << key.error().message();
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path())) names.push_back(entry.path().filename());
  EXPECT_EQ(names, (std::vector<std::string>{"signing.pub"}));
  // Once the link is gone, the same folder takes a key pair: nothing of the refused run is in the way.
  fs::remove(dir.path() / "signing.pub");
  EXPECT_TRUE(generate_key(KeyType::ecdsa_p256, dir.path()));
}

TEST(Keys, FoldersItCreatesAreOwnerOnlyEvenUnderUmaskZeroAndExistingOnesKeepTheirMode) {
  test::TempDir dir;
  const mode_t old_mask = ::umask(0);
  const auto nested = generate_key(KeyType::ed25519, dir.path() / "new" / "keys");
  const auto trailing = generate_key(KeyType::ed25519, dir.path() / "slash/");
  ::umask(old_mask);
  ASSERT_TRUE(nested) << nested.error().describe();
  ASSERT_TRUE(trailing) << trailing.error().describe();
  for (const auto& folder : {dir.path() / "new", dir.path() / "new" / "keys", dir.path() / "slash"})
    EXPECT_EQ(fs::status(folder).permissions() & fs::perms::all, fs::perms::owner_all) << folder;
  fs::create_directory(dir.path() / "shared");
  fs::permissions(dir.path() / "shared", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec,
                  fs::perm_options::replace);
  ASSERT_TRUE(generate_key(KeyType::ed25519, dir.path() / "shared"));
  EXPECT_EQ(fs::status(dir.path() / "shared").permissions() & fs::perms::all,
            fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
}

TEST(Keys, KeyFilesAreRegularFilesOfAtMost64KiB) {
  test::TempDir dir;
  const auto key = generate_key(KeyType::ecdsa_p256, dir.path() / "keys");
  ASSERT_TRUE(key);
  // A PEM reader skips text around the key, so a padded file would still hold one.
  const std::string padding(k_max_key_file_bytes, '\n');
  const auto big_pub = dir.path() / "big.pub", big_key = dir.path() / "big.key";
  ASSERT_TRUE(platform::write_file_atomic(big_pub, padding + platform::read_file(key->public_key).value()));
  ASSERT_TRUE(platform::write_file_atomic(big_key, padding + platform::read_file(key->private_key).value(),
                                          platform::Durability::no_fsync, 0600));
  const auto pub = PublicKey::load(big_pub);
  ASSERT_FALSE(pub);
  EXPECT_EQ(pub.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(
      pub.error().message().find("public key " + big_pub.string() + " is over the limit of 65536 bytes"),
      std::string::npos)
      << pub.error().message();
  const auto secret = PrivateKey::load(big_key);
  ASSERT_FALSE(secret);
  EXPECT_NE(secret.error().message().find("is over the limit of 65536 bytes"), std::string::npos)
      << secret.error().message();
  const auto folder = PublicKey::load(dir.path() / "keys");
  ASSERT_FALSE(folder);
  EXPECT_NE(folder.error().message().find("not a regular file"), std::string::npos)
      << folder.error().message();
}

TEST(Keys, AnEncryptedPrivateKeyIsRefusedWithoutAskingForAPassPhrase) {
  test::TempDir dir;
  const auto key = generate_key(KeyType::ecdsa_p256, dir.path());
  ASSERT_TRUE(key);
  const auto encrypted = dir.path() / "encrypted.key";
  ASSERT_EQ(run_shell("umask 077 && openssl pkey -in " + shell_quote(key->private_key.string()) +
                      " -aes256 -passout pass:secret -out " + shell_quote(encrypted.string()))
                .exit_code,
            0);
  const auto loaded = PrivateKey::load(encrypted);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(loaded.error().message().find("is not an unencrypted PEM private key"), std::string::npos)
      << loaded.error().message();
}

TEST(Keys, LoadsKeysMadeByTheOpensslCli) {
  test::TempDir dir;
  const auto k = dir.path() / "k.pem", pub = dir.path() / "pub.pem";
  ASSERT_EQ(run_shell("openssl ecparam -name prime256v1 -genkey -noout -out " + shell_quote(k.string()) +
                      " && chmod 600 " + shell_quote(k.string()) + " && openssl ec -in " +
                      shell_quote(k.string()) + " -pubout -out " + shell_quote(pub.string()))
                .exit_code,
            0);
  const auto private_key = PrivateKey::load(k);
  ASSERT_TRUE(private_key) << private_key.error().describe();
  EXPECT_EQ(private_key->type(), KeyType::ecdsa_p256);
  EXPECT_EQ(private_key->key_id(), PublicKey::load(pub).value().key_id());
}

TEST(Keys, RejectsTextThatIsNotAKey) {
  EXPECT_FALSE(PublicKey::from_pem("hello"));
  EXPECT_FALSE(parse_key_type("rsa"));
  EXPECT_EQ(parse_key_type("ed25519").value(), KeyType::ed25519);
}

}  // namespace
}  // namespace relforge::signing
