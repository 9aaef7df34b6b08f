// End-to-end: bundles a hostile party writes, given to the real binary. `relforge verify` accepts a
// bundle only when it binds the wheel's bytes to the key and to a statement every reader reads the
// same way; otherwise it exits 9 naming the check, quickly and small, never crashing or reading
// for ever. Statements are signed here with the OpenSSL CLI over the DSSE PAE, and sigstore-js
// (node_modules) is asked about the same bundles where it checks what is changed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/digest.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* k_signed_wheel = "mini-1.0-py3-none-any.whl";
constexpr const char* k_dsse_type = "application/vnd.in-toto+json";

std::string dsse_base64(const std::string& bytes) {
  static constexpr char k_digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    unsigned value = static_cast<unsigned char>(bytes[i]) << 16U;
    if (i + 1 < bytes.size()) value |= static_cast<unsigned char>(bytes[i + 1]) << 8U;
    if (i + 2 < bytes.size()) value |= static_cast<unsigned char>(bytes[i + 2]);
    out += k_digits[(value >> 18U) & 63U];
    out += k_digits[(value >> 12U) & 63U];
    out += i + 1 < bytes.size() ? k_digits[(value >> 6U) & 63U] : '=';
    out += i + 2 < bytes.size() ? k_digits[value & 63U] : '=';
  }
  return out;
}

std::string dsse_unbase64(const std::string& text) {
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (const char c : text) {
    const auto at =
        std::string_view("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/").find(c);
    if (at == std::string_view::npos) continue;
    buffer = (buffer << 6U) | static_cast<unsigned>(at);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> static_cast<unsigned>(bits)) & 0xFFU);
    }
  }
  return out;
}

struct VerifyRun {
  RunResult run;
  long max_rss_kib = 0;
};

class SigningHostile : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-e2e-signing-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    ASSERT_EQ(relforge("keys generate --out " + shell_quote(m_dir / "keys")).exit_code, 0);
    std::ofstream(m_dir / k_signed_wheel, std::ios::binary) << "wheel bytes";
    const auto signed_ =
        relforge("sign " + shell_quote(wheel()) + " --key " + shell_quote(m_dir / "keys/signing.key"));
    ASSERT_EQ(signed_.exit_code, 0) << signed_.err;
    m_bundle = slurp(bundle_path());
  }
  void TearDown() override { fs::remove_all(m_dir); }

  fs::path wheel() const { return m_dir / k_signed_wheel; }
  fs::path bundle_path() const { return m_dir / (std::string(k_signed_wheel) + ".sigstore.json"); }
  json bundle() const { return json::parse(m_bundle); }
  std::string statement() const {
    return dsse_unbase64(bundle()["dsseEnvelope"]["payload"].get<std::string>());
  }

  void write_bundle(const std::string& text) const {
    fs::remove(bundle_path());
    std::ofstream(bundle_path(), std::ios::binary) << text;
  }

  // The bundle with `payload` signed by the OpenSSL CLI over its PAE.
  std::string signed_by_openssl(const std::string& payload) const {
    const std::string pae = "DSSEv1 " + std::to_string(std::string(k_dsse_type).size()) + " " + k_dsse_type +
                            " " + std::to_string(payload.size()) + " " + payload;
    std::ofstream(m_dir / "pae.bin", std::ios::binary) << pae;
    const auto signed_ =
        run_shell("openssl dgst -sha256 -sign " + shell_quote(m_dir / "keys/signing.key") + " -out " +
                  shell_quote(m_dir / "sig.der") + " " + shell_quote(m_dir / "pae.bin"));
    EXPECT_EQ(signed_.exit_code, 0) << signed_.err;
    const auto checked =
        run_shell("openssl dgst -sha256 -verify " + shell_quote(m_dir / "keys/signing.pub") + " -signature " +
                  shell_quote(m_dir / "sig.der") + " " + shell_quote(m_dir / "pae.bin"));
    EXPECT_NE(checked.out.find("Verified OK"), std::string::npos) << checked.out << checked.err;
    json out = bundle();
    out["dsseEnvelope"]["payload"] = dsse_base64(payload);
    out["dsseEnvelope"]["signatures"][0]["sig"] = dsse_base64(slurp(m_dir / "sig.der"));
    return out.dump(2);
  }

  // relforge verify under 2 GiB of address space and 10 s of CPU, with its peak RSS.
  VerifyRun verify(const std::string& extra = "") const {
    VerifyRun out;
    out.run = run_shell("ulimit -v 2097152; ulimit -t 10; timeout 20 /usr/bin/time -f 'rusage %M' " +
                        shell_quote(relforge_binary()) + " verify " + shell_quote(wheel()) + " --key " +
                        shell_quote(m_dir / "keys/signing.pub") + " " + extra);
    const auto at = out.run.err.rfind("rusage ");
    if (at != std::string::npos) {
      std::istringstream(out.run.err.substr(at + 7)) >> out.max_rss_kib;
      out.run.err.erase(at);
    }
    return out;
  }

  void expect_refused(const std::string& check) const {
    const auto result = verify();
    EXPECT_EQ(result.run.exit_code, 9) << result.run.err;
    EXPECT_EQ(result.run.out, "");
    EXPECT_NE(result.run.err.find(check), std::string::npos) << result.run.err.substr(0, 2000);
    EXPECT_GT(result.max_rss_kib, 0);
    EXPECT_LT(result.max_rss_kib, 64 * 1024) << "peak RSS in KiB";
  }

  // sigstore-js's verdict on the current bundle: true when it verifies; nullopt without node_modules.
  std::optional<bool> sigstore_js() const {
    if (!fs::exists(source_path("node_modules/@sigstore/verify"))) return std::nullopt;
    const auto result =
        run_shell("NODE_PATH=" + shell_quote(source_path("node_modules").string()) + " node " +
                  shell_quote(source_path("tests/fixtures/channels/verify_bundle.cjs")) + " " +
                  shell_quote(bundle_path()) + " " + shell_quote(wheel()) + " " +
                  shell_quote(m_dir / "keys/signing.pub"));
    return result.exit_code == 0;
  }

  // sigstore-js, where node_modules has it, gives the same verdict as relforge.
  void expect_sigstore_js(bool verifies) const {
    if (const auto js = sigstore_js()) {
      EXPECT_EQ(*js, verifies) << "sigstore-js on " << slurp(bundle_path()).substr(0, 400);
    }
  }

  fs::path m_dir;
  std::string m_bundle;
};

TEST_F(SigningHostile, TheSignedWheelVerifiesAndTheReportNamesTheBytes) {
  const auto result = verify();
  ASSERT_EQ(result.run.exit_code, 0) << result.run.err;
  const std::string sha256 = platform::to_hex(platform::sha256("wheel bytes"));
  EXPECT_NE(result.run.out.find("sha256 " + sha256), std::string::npos) << result.run.out;
  const auto as_json = verify("--json");
  ASSERT_EQ(as_json.run.exit_code, 0);
  EXPECT_EQ(json::parse(as_json.run.out)[0]["sha256"], sha256);
  expect_sigstore_js(true);
}

TEST_F(SigningHostile, UnsignedMaterialSigstoreJsWouldReadIsRefusedAsItIs) {
  json with = bundle();
  with["messageSignature"] = {
      {"messageDigest", {{"algorithm", "SHA2_256"}, {"digest", dsse_base64(std::string(32, 'x'))}}},
      {"signature", dsse_base64("junk")}};
  write_bundle(with.dump(2));
  expect_refused("carries a messageSignature");
  expect_sigstore_js(false);
  with = bundle();
  with["verificationMaterial"]["tlogEntries"].push_back({{"logIndex", "1"}});
  write_bundle(with.dump(2));
  expect_refused("transparency log entries");
  expect_sigstore_js(false);
  write_bundle("\xEF\xBB\xBF" + m_bundle);
  expect_refused("byte-order mark");
  expect_sigstore_js(false);
  with = bundle();
  with["verificationMaterial"]["certificate"] = {{"rawBytes", dsse_base64("not a certificate")}};
  write_bundle(with.dump(2));
  expect_refused("carries a certificate");
  // Two envelopes under one key: readers that keep the first and the last would disagree.
  std::string twice = m_bundle;
  twice.insert(1, R"("dsseEnvelope": {"payload": "e30=", "payloadType": "x", "signatures": []},)");
  write_bundle(twice);
  expect_refused("repeats the key 'dsseEnvelope'");
}

TEST_F(SigningHostile, DeepHugeAndEndlessBundlesAreRefusedSmallAndQuick) {
  std::string deep = m_bundle;
  deep.insert(deep.find("\"payloadType\""),
              "\"extra\": " + std::string(500'000, '[') + std::string(500'000, ']') + ", ");
  write_bundle(deep);
  expect_refused("nests deeper than 32 levels");
  json big = bundle();
  big["dsseEnvelope"]["extra"] = json::array();
  for (int i = 0; i < 2'000'000; ++i) big["dsseEnvelope"]["extra"].push_back(i);
  write_bundle(big.dump());
  expect_refused("over the limit of 1048576 bytes");
  fs::remove(bundle_path());
  fs::create_symlink("/dev/zero", bundle_path());
  expect_refused("not a regular file");
  write_bundle(m_bundle.substr(0, m_bundle.size() / 2));
  expect_refused("is not valid JSON");
}

TEST_F(SigningHostile, AWheelThatIsAFifoIsRefusedNotWaitedOn) {
  fs::rename(wheel(), m_dir / "real.whl");
  ASSERT_EQ(::mkfifo(wheel().c_str(), 0600), 0);
  expect_refused("not a regular file");
  const auto signed_ = run_shell("timeout 20 " + shell_quote(relforge_binary()) + " sign " +
                                 shell_quote(wheel()) + " --key " + shell_quote(m_dir / "keys/signing.key"));
  EXPECT_EQ(signed_.exit_code, 2) << signed_.err;
  EXPECT_NE(signed_.err.find("not a regular file"), std::string::npos) << signed_.err;
}

TEST_F(SigningHostile, AnEncryptedKeyIsRefusedAtOnceEvenOnATerminal) {
  const auto encrypted = m_dir / "encrypted.key";
  ASSERT_EQ(run_shell("umask 077 && openssl pkey -in " + shell_quote(m_dir / "keys/signing.key") +
                      " -aes256 -passout pass:secret -out " + shell_quote(encrypted))
                .exit_code,
            0);
  if (run_shell("command -v script").exit_code != 0)
    GTEST_SKIP() << "no script(1) to give relforge a terminal";
  // On a terminal, OpenSSL's own pass phrase prompt would wait for an answer until the timeout.
  const std::string sign =
      shell_quote(relforge_binary()) + " sign " + shell_quote(wheel()) + " --key " + shell_quote(encrypted);
  const auto result = run_shell("(sleep 3) | timeout 2 script -qec " + shell_quote(sign) + " /dev/null");
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  EXPECT_NE(result.out.find("is not an unencrypted PEM private key"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("pass phrase"), std::string::npos) << result.out;
}

TEST_F(SigningHostile, KeyFilesThatAreFifosOrEndlessAreRefusedNotWaitedOn) {
  const auto fifo = m_dir / "key.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink("/dev/zero", m_dir / "zero.pub");
  for (const auto& command : {"verify " + shell_quote(wheel()) + " --key " + shell_quote(fifo),
                              "verify " + shell_quote(wheel()) + " --key " + shell_quote(m_dir / "zero.pub"),
                              "sign " + shell_quote(wheel()) + " --key " + shell_quote(fifo)}) {
    const auto result =
        run_shell("ulimit -v 2097152; timeout 10 " + shell_quote(relforge_binary()) + " " + command);
    EXPECT_EQ(result.exit_code, 2) << command << ": " << result.err;
    EXPECT_NE(result.err.find("not a regular file"), std::string::npos) << command << ": " << result.err;
  }
}

TEST_F(SigningHostile, LedgersAndLocksThatAreFifosOrEndlessAndNamesThatAreNotUtf8AreRefused) {
  const auto fifo = m_dir / "ledger.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink("/dev/zero", m_dir / "zero.jsonl");
  const std::string key = " --key " + shell_quote(m_dir / "keys/signing.key");
  for (const auto& source :
       {"--provenance-from " + shell_quote(fifo), "--provenance-from " + shell_quote(m_dir / "zero.jsonl"),
        "--cell cpu --images-lock " + shell_quote(fifo)}) {
    const auto result = run_shell("ulimit -v 2097152; timeout 10 " + shell_quote(relforge_binary()) +
                                  " sign " + shell_quote(wheel()) + key + " " + source);
    EXPECT_EQ(result.exit_code, 2) << source << ": " << result.err;
    EXPECT_NE(result.err.find("not a regular file"), std::string::npos) << source << ": " << result.err;
  }
  // The signed statement is JSON text and names the file: a name that is not UTF-8 cannot be in it.
  const auto odd = m_dir / "caf\xe9-1.0-py3-none-any.whl";
  std::ofstream(odd, std::ios::binary) << "x";
  for (const std::string as_json : {"", " --json"}) {
    const auto result = relforge("sign " + shell_quote(odd) + key + as_json);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_NE(result.err.find("is not UTF-8, and the signed statement names it"), std::string::npos)
        << result.err;
    EXPECT_FALSE(fs::exists(odd.string() + ".sigstore.json"));
  }
}

TEST_F(SigningHostile, SignChecksEveryInputBeforeItSignsAny) {
  const auto a = m_dir / "a-1.0-py3-none-any.whl", b = m_dir / "b-1.0-py3-none-any.whl";
  std::ofstream(a, std::ios::binary) << "a";
  std::ofstream(b, std::ios::binary) << "b";
  const std::string key = " --key " + shell_quote(m_dir / "keys/signing.key");
  const auto missing = m_dir / "missing-1.0-py3-none-any.whl";
  auto result = relforge("sign " + shell_quote(a) + " " + shell_quote(missing) + key);
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_NE(result.err.find("no such file: " + missing.string() + " (nothing was signed"), std::string::npos)
      << result.err;
  ASSERT_EQ(::mkfifo((m_dir / "fifo-1.0-py3-none-any.whl").c_str(), 0600), 0);
  result = run_shell("timeout 10 " + shell_quote(relforge_binary()) + " sign " + shell_quote(a) + " " +
                     shell_quote(m_dir / "fifo-1.0-py3-none-any.whl") + key);
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("nothing was signed"), std::string::npos) << result.err;
  // The second file's provenance is missing from the ledger: the first is not signed either.
  std::ofstream(m_dir / "ledger.jsonl") << R"({"wheel": "a-1.0-py3-none-any.whl", "cell": "cpu"})" << '\n';
  result = relforge("sign " + shell_quote(a) + " " + shell_quote(b) + key + " --provenance-from " +
                    shell_quote(m_dir / "ledger.jsonl"));
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_NE(result.err.find("nothing was signed"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(a.string() + ".sigstore.json"));
  EXPECT_FALSE(fs::exists(b.string() + ".sigstore.json"));
  result = relforge("sign " + shell_quote(a) + " " + shell_quote(b) + key);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(fs::exists(a.string() + ".sigstore.json") && fs::exists(b.string() + ".sigstore.json"));
}

TEST_F(SigningHostile, VerifyTellsAMissingOrUnreadableFileFromATamperedOne) {
  const auto other = m_dir / "other-1.0-py3-none-any.whl";
  std::ofstream(other, std::ios::binary) << "other";
  // No bundle beside the file, then no file beside the bundle: exit 4, each named.
  auto result = verify(shell_quote(other));
  EXPECT_EQ(result.run.exit_code, 4) << result.run.err;
  EXPECT_NE(result.run.err.find("no such file: " + other.string() + ".sigstore.json"), std::string::npos)
      << result.run.err;
  fs::rename(wheel(), m_dir / "elsewhere.whl");
  result = verify("--json");
  EXPECT_EQ(result.run.exit_code, 4) << result.run.err;
  EXPECT_EQ(json::parse(result.run.err.substr(0, result.run.err.find('\n')))["error"]["category"],
            "not_found")
      << result.run.err;
  EXPECT_NE(result.run.err.find("no such file: " + wheel().string()), std::string::npos) << result.run.err;
  // A tampered file beside a missing one: the tampering decides the exit code, one line each.
  std::ofstream(wheel(), std::ios::binary) << "other bytes";
  fs::rename(other, m_dir / "gone.whl");
  result = verify(shell_quote(other));
  EXPECT_EQ(result.run.exit_code, 9) << result.run.err;
  EXPECT_NE(result.run.err.find(wheel().string() + ": subject digest check failed"), std::string::npos)
      << result.run.err;
  EXPECT_NE(result.run.err.find("\n" + other.string() + ": no such file: " + other.string()),
            std::string::npos)
      << result.run.err;
  // Files it may not open: exit 6 (as another user, since root opens any file).
  fs::rename(m_dir / "elsewhere.whl", wheel());
  fs::copy_file(m_dir / "keys/signing.pub", m_dir / "public.pem");
  fs::permissions(m_dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(m_dir / "public.pem",
                  fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  std::string as_other_user;
  if (::geteuid() == 0) {
    if (run_shell("command -v setpriv").exit_code != 0) GTEST_SKIP() << "root without setpriv";
    as_other_user = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  }
  for (const auto& unreadable : {wheel(), bundle_path()}) {
    fs::permissions(wheel(), fs::perms::owner_read | fs::perms::others_read);
    fs::permissions(bundle_path(), fs::perms::owner_read | fs::perms::others_read);
    fs::permissions(unreadable, fs::perms::none);
    result.run = run_shell(as_other_user + shell_quote(relforge_binary()) + " verify " +
                           shell_quote(wheel()) + " --key " + shell_quote(m_dir / "public.pem"));
    EXPECT_EQ(result.run.exit_code, 6) << unreadable << ": " << result.run.err;
    EXPECT_NE(result.run.err.find("cannot open " + unreadable.string() + ": Permission denied"),
              std::string::npos)
        << result.run.err;
  }
}

TEST_F(SigningHostile, SignedStatementsThatReadTwoWaysOrBindOtherBytesAreRefused) {
  const std::string statement_text = statement();
  const std::string evil =
      R"([{"name": "evil-1.0-py3-none-any.whl", "digest": {"sha256": ")" + std::string(64, '0') + R"("}}])";
  std::string first = statement_text;
  first.insert(1, "\"subject\": " + evil + ", ");
  write_bundle(signed_by_openssl(first));
  expect_refused("repeats the key 'subject'");
  std::string cased = statement_text;
  cased.insert(cased.size() - 1, ", \"Subject\": " + evil);
  write_bundle(signed_by_openssl(cased));
  expect_refused("repeats the key 'Subject'");
  write_bundle(signed_by_openssl("\xEF\xBB\xBF" + statement_text));
  expect_refused("byte-order mark");
  expect_sigstore_js(false);
  json changed = json::parse(statement_text);
  changed["subject"][0]["digest"]["sha512"] = std::string(128, '0');
  write_bundle(signed_by_openssl(changed.dump()));
  expect_refused("relforge binds a file by its sha256");
  changed = json::parse(statement_text);
  changed["subject"][0]["digest"]["sha256"] = platform::to_hex(platform::sha256(wheel().string()));
  write_bundle(signed_by_openssl(changed.dump()));
  expect_refused("subject digest check failed");
  changed = json::parse(statement_text);
  changed["predicateType"] = "https://example.com/other/v1";
  write_bundle(signed_by_openssl(changed.dump()));
  expect_refused("predicate type 'https://example.com/other/v1'");
}

TEST_F(SigningHostile, RebuildReadsAProvenanceOfOddTypesAsMissingNotAsACrash) {
  json changed = json::parse(statement());
  changed["predicate"]["buildDefinition"]["externalParameters"]["cell"] = {{"id", 7},
                                                                           {"build_id", json::array()}};
  changed["predicate"]["buildDefinition"]["resolvedDependencies"] = {"text",
                                                                     {{"digest", {{"gitCommit", 1}}}}};
  changed["predicate"]["runDetails"]["metadata"] = {{"startedOn", 1}};
  write_bundle(signed_by_openssl(changed.dump()));
  const auto result = verify("--rebuild --config " + shell_quote(m_dir / "relforge.toml"));
  EXPECT_EQ(result.run.exit_code, 4) << result.run.err;
  EXPECT_NE(result.run.err.find("no provenance to rebuild from"), std::string::npos) << result.run.err;
}

}  // namespace
}  // namespace relforge::test
