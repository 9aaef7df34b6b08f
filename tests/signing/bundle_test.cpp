#include "signing/bundle.hpp"

#include <gtest/gtest.h>

#include "platform/digest.hpp"
#include "platform/fs.hpp"
#include "signing/dsse.hpp"
#include "tests/signing/support.hpp"
#include "tests/support/run.hpp"

namespace relforge::signing {
namespace {

namespace fs = std::filesystem;
using test::run_shell;
using test::shell_quote;

struct Signed {
  test::TempDir dir;
  GeneratedKey key;
  fs::path file;
  std::string bundle;
};

BuildFacts sample_facts() {
  BuildFacts facts;
  facts.cell = {{"id", "linux-x86_64-cp313-cu130"}, {"python", "3.13"}};
  facts.channel = "nightly";
  facts.source_repository = "git+https://github.com/example/minitensor@refs/heads/main";
  facts.source_commit = "0123456789abcdef0123456789abcdef01234567";
  facts.builder_id = "https://relforge.dev/runners/linux-1";
  facts.image = "ghcr.io/example/builder:1";
  facts.started_on = "2025-01-02T03:04:05Z";
  facts.finished_on = "2025-01-02T03:14:05Z";
  facts.log_sha256 = std::string(64, 'a');
  return facts;
}

void make_signed(Signed& out, KeyType type) {
  out.key = generate_key(type, out.dir.path() / "keys").value();
  out.file = out.dir.path() / "mini-1.0-py3-none-any.whl";
  ASSERT_TRUE(platform::write_file_atomic(out.file, "wheel bytes"));
  const auto key = PrivateKey::load(out.key.private_key);
  ASSERT_TRUE(key);
  const auto bundle = sign_file(out.file, *key, sample_facts());
  ASSERT_TRUE(bundle) << bundle.error().describe();
  out.bundle = *bundle;
}

class BundleTest : public ::testing::TestWithParam<KeyType> {};

TEST_P(BundleTest, BundleHasTheSigstoreShapeAndProvenance) {
  Signed s;
  make_signed(s, GetParam());
  const auto bundle = nlohmann::json::parse(s.bundle);
  EXPECT_EQ(bundle["mediaType"], "application/vnd.dev.sigstore.bundle.v0.3+json");
  EXPECT_EQ(bundle["verificationMaterial"]["publicKey"]["hint"], s.key.key_id);
  EXPECT_TRUE(bundle["verificationMaterial"]["tlogEntries"].empty());
  EXPECT_EQ(bundle["dsseEnvelope"]["payloadType"], "application/vnd.in-toto+json");
  ASSERT_EQ(bundle["dsseEnvelope"]["signatures"].size(), 1U);
  const auto statement =
      nlohmann::json::parse(base64_decode(bundle["dsseEnvelope"]["payload"].get<std::string>()).value());
  EXPECT_EQ(statement["_type"], "https://in-toto.io/Statement/v1");
  EXPECT_EQ(statement["predicateType"], "https://slsa.dev/provenance/v1");
  EXPECT_EQ(statement["subject"][0]["name"], "mini-1.0-py3-none-any.whl");
  EXPECT_EQ(statement["subject"][0]["digest"]["sha256"], platform::to_hex(platform::sha256("wheel bytes")));
  const auto& predicate = statement["predicate"];
  EXPECT_EQ(predicate["buildDefinition"]["externalParameters"]["cell"]["id"], "linux-x86_64-cp313-cu130");
  EXPECT_EQ(predicate["buildDefinition"]["externalParameters"]["channel"], "nightly");
  EXPECT_EQ(predicate["buildDefinition"]["resolvedDependencies"][0]["digest"]["gitCommit"],
            "0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(predicate["buildDefinition"]["resolvedDependencies"][1]["uri"], "ghcr.io/example/builder:1");
  EXPECT_EQ(predicate["runDetails"]["builder"]["id"], "https://relforge.dev/runners/linux-1");
  EXPECT_EQ(predicate["runDetails"]["metadata"]["startedOn"], "2025-01-02T03:04:05Z");
  EXPECT_EQ(predicate["runDetails"]["byproducts"][0]["digest"]["sha256"], std::string(64, 'a'));
}

TEST_P(BundleTest, VerifiesAndNamesEachFailedCheck) {
  Signed s;
  make_signed(s, GetParam());
  const auto key = PublicKey::load(s.key.public_key).value();
  const auto ok = verify_bundle(s.file, s.bundle, key);
  ASSERT_TRUE(ok) << ok.error().describe();
  EXPECT_EQ(ok->key_id, s.key.key_id);

  // A tampered file: one byte.
  ASSERT_TRUE(platform::write_file_atomic(s.file, "wheel byteS"));
  auto bad = verify_bundle(s.file, s.bundle, key);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().category(), ErrorCategory::integrity);
  EXPECT_NE(bad.error().message().find("subject digest check failed"), std::string::npos)
      << bad.error().message();
  ASSERT_TRUE(platform::write_file_atomic(s.file, "wheel bytes"));

  // A tampered bundle: the statement changed after signing.
  auto json = nlohmann::json::parse(s.bundle);
  auto payload = base64_decode(json["dsseEnvelope"]["payload"].get<std::string>()).value();
  payload.replace(payload.find("nightly"), 7, "stable!");
  json["dsseEnvelope"]["payload"] = base64_encode(payload);
  bad = verify_bundle(s.file, json.dump(), key);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("signature check failed"), std::string::npos) << bad.error().message();

  // Another key.
  const auto other = generate_key(GetParam(), s.dir.path() / "other").value();
  bad = verify_bundle(s.file, s.bundle, PublicKey::load(other.public_key).value());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("key id check failed"), std::string::npos) << bad.error().message();

  // The bundle of another file name.
  const auto renamed = s.dir.path() / "other-1.0-py3-none-any.whl";
  fs::copy_file(s.file, renamed);
  bad = verify_bundle(renamed, s.bundle, key);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("subject name check failed"), std::string::npos);

  // Two signatures: sigstore-js refuses them, so relforge does too.
  json = nlohmann::json::parse(s.bundle);
  json["dsseEnvelope"]["signatures"].push_back(json["dsseEnvelope"]["signatures"][0]);
  bad = verify_bundle(s.file, json.dump(), key);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("bundle check failed"), std::string::npos);
  EXPECT_FALSE(verify_bundle(s.file, "not json", key));
}

INSTANTIATE_TEST_SUITE_P(BothTypes, BundleTest, ::testing::Values(KeyType::ecdsa_p256, KeyType::ed25519));

// The independent check: OpenSSL's CLI verifies the DSSE signature over the PAE bytes.
TEST(BundleOpenssl, OpensslVerifiesTheSignatureOverThePae) {
  for (const KeyType type : {KeyType::ecdsa_p256, KeyType::ed25519}) {
    Signed s;
    make_signed(s, type);
    const auto bundle = nlohmann::json::parse(s.bundle);
    const auto payload = base64_decode(bundle["dsseEnvelope"]["payload"].get<std::string>()).value();
    const auto sig = base64_decode(bundle["dsseEnvelope"]["signatures"][0]["sig"].get<std::string>()).value();
    const auto pae_file = s.dir.path() / "pae.bin", sig_file = s.dir.path() / "sig.der";
    ASSERT_TRUE(platform::write_file_atomic(pae_file, pae("application/vnd.in-toto+json", payload)));
    ASSERT_TRUE(platform::write_file_atomic(sig_file, sig));
    const std::string pub = shell_quote(s.key.public_key.string());
    const auto result =
        type == KeyType::ecdsa_p256
            ? run_shell("openssl dgst -sha256 -verify " + pub + " -signature " +
                        shell_quote(sig_file.string()) + " " + shell_quote(pae_file.string()))
            : run_shell("openssl pkeyutl -verify -pubin -inkey " + pub + " -rawin -in " +
                        shell_quote(pae_file.string()) + " -sigfile " + shell_quote(sig_file.string()));
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_NE(result.out.find("Verified"), std::string::npos) << result.out;
    // And a one-byte change of the PAE fails it.
    ASSERT_TRUE(platform::write_file_atomic(pae_file, pae("application/vnd.in-toto+json", payload + " ")));
    const auto broken =
        type == KeyType::ecdsa_p256
            ? run_shell("openssl dgst -sha256 -verify " + pub + " -signature " +
                        shell_quote(sig_file.string()) + " " + shell_quote(pae_file.string()))
            : run_shell("openssl pkeyutl -verify -pubin -inkey " + pub + " -rawin -in " +
                        shell_quote(pae_file.string()) + " -sigfile " + shell_quote(sig_file.string()));
    EXPECT_NE(broken.exit_code, 0);
  }
}

TEST(BuildFactsLedger, PicksTheEntryOfTheFile) {
  test::TempDir dir;
  const auto ledger = dir.path() / "ledger.jsonl";
  ASSERT_TRUE(platform::write_file_atomic(
      ledger,
      "{\"wheel\": \"a-1.0-py3-none-any.whl\", \"cell\": \"cpu\", \"commit\": \"aaa\"}\n"
      "{\"wheel\": \"b-1.0-py3-none-any.whl\", \"cell\": {\"id\": \"cu130\"}, \"source_commit\": \"bbb\", "
      "\"runner_id\": \"r-7\", \"log_sha256\": \"ff\"}\n"));
  const auto facts = load_build_facts(ledger, "b-1.0-py3-none-any.whl");
  ASSERT_TRUE(facts) << facts.error().describe();
  EXPECT_EQ(facts->cell["id"], "cu130");
  EXPECT_EQ(facts->source_commit, "bbb");
  EXPECT_EQ(facts->builder_id, "r-7");
  EXPECT_EQ(load_build_facts(ledger, "a-1.0-py3-none-any.whl").value().cell["id"], "cpu");
  const auto missing = load_build_facts(ledger, "c-1.0-py3-none-any.whl");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().category(), ErrorCategory::not_found);
  ASSERT_TRUE(platform::write_file_atomic(ledger, "{oops\n"));
  EXPECT_FALSE(load_build_facts(ledger, "a"));
}

TEST(BuildFactsLedger, AnOnlyEntryForAnotherWheelIsNotThisWheelsProvenance) {
  test::TempDir dir;
  const auto ledger = dir.path() / "ledger.jsonl";
  ASSERT_TRUE(platform::write_file_atomic(
      ledger, "{\"wheel\": \"a-1.0-py3-none-any.whl\", \"cell\": \"cu130\", \"commit\": \"aaa\"}\n"));
  const auto other = load_build_facts(ledger, "b-1.0-py3-none-any.whl");
  ASSERT_FALSE(other) << "signed a's facts for b";
  EXPECT_EQ(other.error().category(), ErrorCategory::not_found);
  EXPECT_NE(
      other.error().message().find("has no entry whose \"wheel\" is 'b-1.0-py3-none-any.whl' (1 entry)"),
      std::string::npos)
      << other.error().message();
  // The same as one object, and as an entry that names no wheel at all.
  ASSERT_TRUE(platform::write_file_atomic(ledger, "{\"cell\": \"cu130\", \"commit\": \"aaa\"}"));
  EXPECT_FALSE(load_build_facts(ledger, "b-1.0-py3-none-any.whl"));
  ASSERT_TRUE(platform::write_file_atomic(
      ledger, "{\"wheel\": \"b-1.0-py3-none-any.whl\", \"cell\": \"cu130\", \"commit\": \"bbb\"}"));
  EXPECT_EQ(load_build_facts(ledger, "b-1.0-py3-none-any.whl").value().source_commit, "bbb");
}

}  // namespace
}  // namespace relforge::signing
