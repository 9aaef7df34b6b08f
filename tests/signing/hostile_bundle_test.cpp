// Bundles as a hostile party would write them: each accepted only when it binds the file's exact
// bytes, by sha256, to the key and to a statement every reader reads the same way; anything else is
// an integrity error naming the check, never a crash or an unbounded read.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>

#include "core/text.hpp"
#include "platform/digest.hpp"
#include "platform/fs.hpp"
#include "signing/bundle.hpp"
#include "signing/dsse.hpp"
#include "signing/strict_json.hpp"
#include "tests/signing/support.hpp"

namespace relforge::signing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class HostileBundle : public ::testing::Test {
protected:
  void SetUp() override {
    m_key = generate_key(KeyType::ecdsa_p256, m_dir.path() / "keys").value();
    m_file = m_dir.path() / "mini-1.0-py3-none-any.whl";
    ASSERT_TRUE(platform::write_file_atomic(m_file, "wheel bytes"));
    m_bundle = sign_file(m_file, private_key(), {}).value();
  }

  PrivateKey private_key() const { return PrivateKey::load(m_key.private_key).value(); }
  PublicKey public_key() const { return PublicKey::load(m_key.public_key).value(); }
  json bundle() const { return json::parse(m_bundle); }
  json statement() const {
    return json::parse(base64_decode(bundle()["dsseEnvelope"]["payload"].get<std::string>()).value());
  }

  // The bundle with `payload` signed by the real key under `type`.
  std::string signed_bundle(const std::string& payload,
                            const std::string& type = std::string(k_in_toto_payload_type)) {
    json out = bundle();
    out["dsseEnvelope"]["payload"] = base64_encode(payload);
    out["dsseEnvelope"]["payloadType"] = type;
    out["dsseEnvelope"]["signatures"][0]["sig"] =
        base64_encode(private_key().sign(pae(type, payload)).value());
    return out.dump();
  }

  // Refused as an integrity error whose message holds `check`.
  void expect_refused(const std::string& text, const std::string& check) {
    const auto verified = verify_bundle(m_file, text, public_key());
    ASSERT_FALSE(verified) << "accepted: " << text.substr(0, 400);
    EXPECT_EQ(verified.error().category(), ErrorCategory::integrity);
    EXPECT_NE(verified.error().message().find(check), std::string::npos) << verified.error().message();
  }

  test::TempDir m_dir;
  GeneratedKey m_key;
  fs::path m_file;
  std::string m_bundle;
};

TEST_F(HostileBundle, TheUntouchedBundleVerifies) {
  const auto verified = verify_bundle(m_file, m_bundle, public_key());
  ASSERT_TRUE(verified) << verified.error().describe();
  EXPECT_EQ(verified->subject.sha256, platform::to_hex(platform::sha256("wheel bytes")));
}

TEST_F(HostileBundle, UnsignedDeepNestingIsRefusedNotACrash) {
  // The envelope's fields outside the signature: half a million levels used to overflow the stack.
  std::string text = m_bundle;
  const auto at = text.find("\"payloadType\"");
  text.insert(at, "\"extra\": " + std::string(500'000, '[') + std::string(500'000, ']') + ", ");
  expect_refused(text, "nests deeper than 32 levels");
  json statement_json = statement();
  std::string deep = "0";
  for (int i = 0; i < 40; ++i) deep = "[" + deep + "]";
  std::string payload = statement_json.dump();
  payload.insert(payload.size() - 1, ", \"x\": " + deep);
  expect_refused(signed_bundle(payload), "nests deeper than 32 levels");
}

TEST_F(HostileBundle, OversizedBundlesAreRefusedBeforeTheyAreParsedOrRead) {
  json big = bundle();
  big["dsseEnvelope"]["signatures"][0]["keyid"] = std::string(k_max_bundle_bytes, 'a');
  expect_refused(big.dump(), "over the limit of 1048576");
  const fs::path bundle_path = m_file.string() + ".sigstore.json";
  ASSERT_TRUE(platform::write_file_atomic(bundle_path, big.dump()));
  auto read = read_bundle(m_file);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().category(), ErrorCategory::integrity);
  EXPECT_NE(read.error().message().find("over the limit"), std::string::npos) << read.error().message();
  // A link to an endless device and a FIFO are refused, not read for ever.
  fs::remove(bundle_path);
  fs::create_symlink("/dev/zero", bundle_path);
  read = read_bundle(m_file);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message().find("not a regular file"), std::string::npos) << read.error().message();
  fs::remove(bundle_path);
  ASSERT_EQ(::mkfifo(bundle_path.c_str(), 0600), 0);
  read = read_bundle(m_file);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message().find("not a regular file"), std::string::npos) << read.error().message();
  fs::remove(bundle_path);
  read = read_bundle(m_file);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().category(), ErrorCategory::not_found);
}

TEST_F(HostileBundle, AWheelThatIsAFifoOrFolderIsRefusedNotReadForEver) {
  const auto fifo = m_dir.path() / "fifo-1.0-py3-none-any.whl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto bundle_for_fifo = bundle();
  const auto payload = statement().dump();
  std::string renamed = payload;
  renamed.replace(renamed.find("mini-1.0"), 8, "fifo-1.0");
  const auto text = signed_bundle(renamed);
  const auto verified = verify_bundle(fifo, text, public_key());
  ASSERT_FALSE(verified);
  EXPECT_NE(verified.error().message().find("not a regular file"), std::string::npos)
      << verified.error().message();
  const auto signed_fifo = sign_file(fifo, private_key(), {});
  ASSERT_FALSE(signed_fifo);
  EXPECT_NE(signed_fifo.error().message().find("not a regular file"), std::string::npos);
  EXPECT_FALSE(sign_file(m_dir.path(), private_key(), {}));
}

TEST_F(HostileBundle, RepeatedKeysAreRefusedWhereverReadersCouldDisagree) {
  // Bundle level: nlohmann and JSON.parse keep the last, protojson refuses; relforge refuses.
  const std::string decoy = R"("dsseEnvelope": {"payload": "e30=", "payloadType": "x", "signatures": []}, )";
  expect_refused("{" + decoy + m_bundle.substr(m_bundle.find('{') + 1), "repeats the key 'dsseEnvelope'");
  // Statement level, signed: a first subject naming another file...
  std::string payload = statement().dump();
  payload.insert(1, R"("subject": [{"name": "evil-1.0-py3-none-any.whl", "digest": {"sha256": ")" +
                        std::string(64, '0') + R"("}}], )");
  expect_refused(signed_bundle(payload), "repeats the key 'subject'");
  // ...and one spelt in another case, which Go's encoding/json reads as the same field.
  payload = statement().dump();
  payload.insert(payload.size() - 1, R"(, "Subject": [{"name": "evil-1.0-py3-none-any.whl", "digest": {}}])");
  expect_refused(signed_bundle(payload), "repeats the key 'Subject'");
}

// Go matches a key to a struct field by Unicode case folding: "oſ" (long s) is the field "os", and
// "\u212Aind" (Kelvin sign) the field "kind".
TEST_F(HostileBundle, KeysGoFoldsIntoOneFieldAreRefusedInTheLedgerAndTheBundle) {
  const fs::path ledger = m_dir.path() / "ledger.jsonl";
  for (const std::string cell : {"{\"id\": \"x\", \"os\": \"linux\", \"o\xC5\xBF\": \"windows\"}",
                                 "{\"kind\": \"gpu\", \"\xE2\x84\xAAind\": \"cpu\"}"}) {
    ASSERT_TRUE(platform::write_file_atomic(
        ledger, "{\"wheel\": \"" + m_file.filename().string() + "\", \"cell\": " + cell + "}\n"));
    const auto facts = load_build_facts(ledger, m_file.filename().string());
    ASSERT_TRUE(facts) << facts.error().describe();
    const auto signed_ = sign_file(m_file, private_key(), *facts);
    ASSERT_FALSE(signed_) << "signed a cell Go reads another way: " << cell;
    EXPECT_EQ(signed_.error().category(), ErrorCategory::invalid_input);
    EXPECT_NE(signed_.error().message().find("repeats the key"), std::string::npos)
        << signed_.error().message();
    json payload = statement();
    payload["predicate"]["buildDefinition"]["externalParameters"]["cell"] = json::parse(cell);
    expect_refused(signed_bundle(payload.dump()), "repeats the key");
  }
  std::string decoy = m_bundle;
  decoy.insert(decoy.find('{') + 1, R"("d\u017Fseenvelope": {}, )");
  expect_refused(decoy, "repeats the key 'dsseEnvelope'");
  // Other letters outside ASCII are keys of their own.
  EXPECT_TRUE(parse_strict_json("{\"\xC3\xA9\": 1, \"\xC3\x89\": 2, \"s\": 3, \"\xC3\x9F\": 4}", "x", 100));
}

TEST_F(HostileBundle, ByteOrderMarksAreRefused) {
  expect_refused("\xEF\xBB\xBF" + m_bundle, "byte-order mark");
  expect_refused(signed_bundle("\xEF\xBB\xBF" + statement().dump()), "byte-order mark");
}

TEST_F(HostileBundle, ANulByteIsRefusedWithWhateverFollowsIt) {
  using namespace std::string_literals;
  // A reader that stops at the NUL and one that reads on would see two documents.
  expect_refused(m_bundle + "\0 {\"mediaType\": \"other\"}"s,
                 "has a NUL byte at byte " + std::to_string(m_bundle.size()));
  // Signed: a second statement about another file behind the first.
  const std::string payload = statement().dump();
  expect_refused(signed_bundle(payload + "\0"s + R"({"subject": [{"name": "evil-1.0-py3-none-any.whl"}]})"),
                 "the signed statement has a NUL byte at byte " + std::to_string(payload.size()));
  // Inside a string, only the escape is JSON; a raw NUL there is refused too.
  std::string raw = m_bundle;
  raw.insert(raw.find("\"payloadType\"") + 1, "\0"s);
  expect_refused(raw, "has a NUL byte");
  EXPECT_TRUE(parse_strict_json(R"({"a": "x\u0000y"})", "x", 100));
}

TEST_F(HostileBundle, TheDsseKeyIdNamesTheKeyAsTheHintDoes) {
  json with = bundle();
  with["dsseEnvelope"]["signatures"][0]["keyid"] = "not-this-key";
  expect_refused(with.dump(), "key id check failed: the DSSE signature in bundle for " +
                                  m_file.filename().string() + " names key not-this-key");
  with["dsseEnvelope"]["signatures"][0]["keyid"] = "";
  expect_refused(with.dump(), "names no key id");
  with["dsseEnvelope"]["signatures"][0].erase("keyid");
  expect_refused(with.dump(), "names no key id");
}

TEST_F(HostileBundle, MaterialRelforgeDoesNotCheckIsRefused) {
  json with = bundle();
  with["messageSignature"] = {{"messageDigest", {{"algorithm", "SHA2_256"}, {"digest", base64_encode("x")}}},
                              {"signature", base64_encode("junk")}};
  expect_refused(with.dump(), "messageSignature");
  for (const char* name : {"certificate", "x509CertificateChain"}) {
    with = bundle();
    with["verificationMaterial"][name] = {{"rawBytes", base64_encode("not a certificate")}};
    expect_refused(with.dump(), std::string("carries a ") + name);
  }
  with = bundle();
  with["verificationMaterial"]["tlogEntries"].push_back({{"logIndex", "1"}});
  expect_refused(with.dump(), "transparency log entries");
  with = bundle();
  with["verificationMaterial"]["timestampVerificationData"]["rfc3161Timestamps"] = {
      {{"signedTimestamp", "AA=="}}};
  expect_refused(with.dump(), "timestamps");
  with = bundle();
  with["verificationMaterial"]["publicKey"]["rawBytes"] = base64_encode("other key");
  expect_refused(with.dump(), "publicKey other than");
  with = bundle();
  with["extra"] = 1;
  expect_refused(with.dump(), "has the field 'extra'");
  with = bundle();
  with["dsseEnvelope"]["signatures"][0]["cert"] = "x";
  expect_refused(with.dump(), "not DSSE's");
  with = bundle();
  with["dsseEnvelope"]["signatures"] = json::array();
  expect_refused(with.dump(), "has 0 signatures");
  with = bundle();
  with["dsseEnvelope"]["signatures"].insert(with["dsseEnvelope"]["signatures"].begin(),
                                            json::object({{"keyid", ""}, {"sig", base64_encode("bad")}}));
  expect_refused(with.dump(), "has 2 signatures");
}

TEST_F(HostileBundle, TheStatementMustBeSlsaProvenanceAboutThisOneFileBySha256) {
  json changed = statement();
  changed["predicateType"] = "https://example.com/other/v1";
  expect_refused(signed_bundle(changed.dump()), "predicate type 'https://example.com/other/v1'");
  changed = statement();
  changed["predicate"] = "text";
  expect_refused(signed_bundle(changed.dump()), "statement check failed");
  changed = statement();
  changed["subject"].push_back(
      {{"name", "other-1.0-py3-none-any.whl"}, {"digest", {{"sha256", std::string(64, '0')}}}});
  expect_refused(signed_bundle(changed.dump()), "exactly one subject");
  const std::string sha256 = platform::to_hex(platform::sha256("wheel bytes"));
  changed = statement();
  changed["subject"][0]["digest"] = {{"sha512", std::string(128, '0')}};
  expect_refused(signed_bundle(changed.dump()), "relforge binds a file by its sha256");
  changed["subject"][0]["digest"] = {{"sha256", sha256}, {"sha512", std::string(128, '0')}};
  expect_refused(signed_bundle(changed.dump()), "relforge binds a file by its sha256");
  std::string upper = sha256;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  changed["subject"][0]["digest"] = {{"sha256", upper}};
  expect_refused(signed_bundle(changed.dump()), "not 64 lowercase hex digits");
  changed = statement();
  changed["subject"][0]["name"] = "./mini-1.0-py3-none-any.whl";
  expect_refused(signed_bundle(changed.dump()), "subject name check failed");
  changed = statement();
  changed["subject"][0]["uri"] = "https://example.com/other.whl";
  expect_refused(signed_bundle(changed.dump()), "subject other than");
  // A signature over the file's path instead of its bytes.
  changed = statement();
  changed["subject"][0]["digest"]["sha256"] = platform::to_hex(platform::sha256(m_file.string()));
  expect_refused(signed_bundle(changed.dump()), "subject digest check failed");
}

TEST_F(HostileBundle, PayloadTypeIsExactAndThePaeCountsBytes) {
  const std::string payload = statement().dump();
  expect_refused(signed_bundle(payload, std::string(k_in_toto_payload_type) + " "), "payload type");
  // A signature over a PAE whose lengths were shifted by a space is not one over the real PAE.
  json shifted = bundle();
  const std::string type(k_in_toto_payload_type);
  const std::string confused = "DSSEv1 " + std::to_string(type.size() + 1) + " " + type + "  " +
                               std::to_string(payload.size()) + " " + payload;
  shifted["dsseEnvelope"]["signatures"][0]["sig"] = base64_encode(private_key().sign(confused).value());
  expect_refused(shifted.dump(), "signature check failed");
}

TEST_F(HostileBundle, SignNeverWritesWhatVerifyRefuses) {
  BuildFacts facts;
  facts.cell = {{"id", "cpu"}, {"Id", "cu130"}};
  const auto repeated = sign_file(m_file, private_key(), facts);
  ASSERT_FALSE(repeated);
  EXPECT_NE(repeated.error().message().find("repeats the key"), std::string::npos)
      << repeated.error().message();
  facts.cell = {{"id", "cpu"}, {"notes", std::string(k_max_bundle_bytes, 'n')}};
  EXPECT_FALSE(sign_file(m_file, private_key(), facts));
}

TEST_F(HostileBundle, TheFileIsHashedOnceAfterTheSignatureAndTheDigestReported) {
  // Replaced after signing: the bytes verify hashes are the bytes it reports, or it refuses.
  ASSERT_TRUE(platform::write_file_atomic(m_file, "other bytes"));
  expect_refused(m_bundle, "subject digest check failed");
  ASSERT_TRUE(platform::write_file_atomic(m_file, "wheel bytes"));
  const auto verified = verify_bundle(m_file, m_bundle, public_key());
  ASSERT_TRUE(verified);
  EXPECT_EQ(verified->subject.sha256, platform::to_hex(platform::sha256("wheel bytes")));
}

TEST(StrictJson, NestingScanIgnoresBracketsInStrings) {
  EXPECT_TRUE(core::json_nesting_within(R"({"a": "[[[[[[", "b": [1, [2]]})", 3));
  EXPECT_FALSE(core::json_nesting_within(R"({"a": "[[[[[[", "b": [1, [2]]})", 2));
  EXPECT_FALSE(core::json_nesting_within("[[[", 2));
  EXPECT_TRUE(core::json_nesting_within(R"(["\"[[[["])", 1));
  EXPECT_TRUE(parse_strict_json(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]})", "x", 100));
  EXPECT_FALSE(parse_strict_json(R"({"a": 1, "A": 2})", "x", 100));
  EXPECT_FALSE(parse_strict_json("{} {}", "x", 100));
}

TEST(BuildFactsLedgerHostile, DeepNestingIsRefusedNotACrash) {
  test::TempDir dir;
  const auto ledger = dir.path() / "ledger.json";
  ASSERT_TRUE(platform::write_file_atomic(
      ledger,
      "{\"wheel\": \"a.whl\", \"cell\": " + std::string(500'000, '[') + std::string(500'000, ']') + "}"));
  const auto facts = load_build_facts(ledger, "a.whl");
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().category(), ErrorCategory::invalid_input);
  EXPECT_NE(facts.error().message().find("nests deeper"), std::string::npos) << facts.error().message();
}

}  // namespace
}  // namespace relforge::signing
