// End to end: keys, sign, publish, serve; pip installs from relforge serve (PEP 691 JSON), from
// the plain HTML tree over file://, and fails on a corrupted hash; a kill -9 mid-publish and two
// concurrent publishes leave every index page pointing only at complete files.
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/channels/support.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;

class ChannelsE2e : public ::testing::Test {
protected:
  fs::path root() const { return m_dir.path() / "store"; }
  fs::path wheel(const std::string& name, const std::string& version, const std::string& extra = "") {
    return make_wheel(m_dir.path() / ("in-" + name + "-" + version), name, version, extra);
  }
  RunResult publish(const fs::path& file, const std::string& env = "") {
    return run_shell(env + " " + shell_quote(relforge::test::relforge_binary()) + " publish --root " +
                     shell_quote(root()) + " --channel nightly " + shell_quote(file));
  }
  // Every link on every page names a file that exists and has the advertised sha256.
  void expect_consistent_index() {
    const std::regex link("href=\"([^\"#]+)#sha256=([0-9a-f]{64})\"");
    int links = 0;
    for (const auto& entry : fs::recursive_directory_iterator(root())) {
      if (entry.path().filename() != "index.html") continue;
      const auto html = slurp(entry.path());
      for (auto it = std::sregex_iterator(html.begin(), html.end(), link); it != std::sregex_iterator();
           ++it) {
        std::string relative = std::regex_replace((*it)[1].str(), std::regex("%2B"), "+");
        const fs::path target = fs::weakly_canonical(entry.path().parent_path() / relative);
        ASSERT_TRUE(fs::exists(target)) << entry.path() << " links to missing " << target;
        const auto sum = run_shell("sha256sum " + shell_quote(target) + " | cut -d' ' -f1");
        EXPECT_EQ(sum.out, (*it)[2].str() + "\n") << target;
        ++links;
      }
    }
    EXPECT_GT(links, 0);
  }
  ChannelTempDir m_dir;
};

TEST_F(ChannelsE2e, SignVerifyAndPublishThroughTheCli) {
  const auto keys =
      relforge("keys generate --type ecdsa-p256 --out " + shell_quote(m_dir.path() / "keys") + " --json");
  ASSERT_EQ(keys.exit_code, 0) << keys.err;
  EXPECT_NE(keys.out.find("\"key_id\""), std::string::npos);
  const auto file = wheel("mini", "1.0+cpu");
  const auto sign =
      relforge("sign " + shell_quote(file) + " --key " + shell_quote(m_dir.path() / "keys/signing.key") +
               " --cell linux-cpu --channel nightly --source-commit abc123");
  ASSERT_EQ(sign.exit_code, 0) << sign.err;
  const auto pub = shell_quote(m_dir.path() / "keys/signing.pub");
  const auto ok = relforge("verify " + shell_quote(file) + " --key " + pub);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("OK"), std::string::npos);

  // A tampered copy of the wheel (one byte) under the same name with the same bundle.
  const auto tampered_dir = m_dir.path() / "tampered";
  fs::create_directories(tampered_dir);
  fs::copy_file(file, tampered_dir / file.filename());
  fs::copy_file(file.string() + ".sigstore.json",
                (tampered_dir / file.filename()).string() + ".sigstore.json");
  run_shell("printf 'X' | dd of=" + shell_quote(tampered_dir / file.filename()) +
            " bs=1 seek=40 conv=notrunc 2>/dev/null");
  const auto bad = relforge("verify " + shell_quote(tampered_dir / file.filename()) + " --key " + pub);
  EXPECT_EQ(bad.exit_code, 9);
  EXPECT_NE(bad.err.find("subject digest check failed"), std::string::npos) << bad.err;
  EXPECT_TRUE(bad.out.empty());

  // A group-readable private key is refused.
  run_shell("chmod 640 " + shell_quote(m_dir.path() / "keys/signing.key"));
  const auto loose =
      relforge("sign " + shell_quote(file) + " --key " + shell_quote(m_dir.path() / "keys/signing.key"));
  EXPECT_EQ(loose.exit_code, 8) << loose.err;

  // stable needs signatures: unsigned is refused, signed with the key is accepted.
  const auto plain = wheel("plain", "1.0+cpu");
  const auto refused =
      relforge("publish --root " + shell_quote(root()) + " --channel stable " + shell_quote(plain));
  EXPECT_EQ(refused.exit_code, 9);
  EXPECT_NE(refused.err.find("not signed"), std::string::npos) << refused.err;
  const auto published = relforge("publish --root " + shell_quote(root()) + " --channel stable --key " + pub +
                                  " " + shell_quote(file));
  ASSERT_EQ(published.exit_code, 0) << published.err;
  EXPECT_TRUE(fs::exists(root() / "whl/cpu/mini/mini-1.0+cpu-py3-none-any.whl.provenance"));
  const auto again = relforge("publish --root " + shell_quote(root()) + " --channel stable --key " + pub +
                              " " + shell_quote(file));
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.out.find("unchanged"), std::string::npos);
}

TEST_F(ChannelsE2e, SigstoreJsVerifiesTheBundle) {
  const fs::path node_modules = source_path("node_modules/@sigstore/verify");
  if (!fs::exists(node_modules)) GTEST_SKIP() << "run 'npm ci' in the source tree for sigstore-js";
  ASSERT_EQ(relforge("keys generate --out " + shell_quote(m_dir.path() / "keys")).exit_code, 0);
  const auto file = wheel("mini", "1.0+cpu");
  ASSERT_EQ(relforge("sign " + shell_quote(file) + " --key " + shell_quote(m_dir.path() / "keys/signing.key"))
                .exit_code,
            0);
  const std::string script = "NODE_PATH=" + shell_quote(source_path("node_modules").string()) + " node " +
                             shell_quote(source_path("tests/fixtures/channels/verify_bundle.cjs"));
  const auto verified = run_shell(script + " " + shell_quote(file.string() + ".sigstore.json") + " " +
                                  shell_quote(file) + " " + shell_quote(m_dir.path() / "keys/signing.pub"));
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  EXPECT_NE(verified.out.find("VERIFIED https://slsa.dev/provenance/v1"), std::string::npos) << verified.out;
  // Another wheel with the first one's bundle: the subject digest check catches it.
  const auto second_dir = m_dir.path() / "second";
  const auto second = make_wheel(second_dir, "mini", "1.0+cpu", "--payload 'VALUE = 3'");
  const auto mismatch = run_shell(script + " " + shell_quote(file.string() + ".sigstore.json") + " " +
                                  shell_quote(second) + " " + shell_quote(m_dir.path() / "keys/signing.pub"));
  EXPECT_NE(mismatch.exit_code, 0);
  EXPECT_NE(mismatch.out.find("SUBJECT_ERROR"), std::string::npos) << mismatch.out;
}

TEST_F(ChannelsE2e, KillNineMidPublishLeavesTheIndexConsistent) {
  ASSERT_EQ(publish(wheel("mini", "1.0+cpu")).exit_code, 0);
  const auto second = wheel("mini", "1.1+cpu");
  const auto crashed = publish(second, "RELFORGE_TEST_CRASH_AT=files-written");
  EXPECT_NE(crashed.exit_code, 0);
  EXPECT_TRUE(fs::exists(root() / "whl/nightly/cpu/mini/mini-1.1+cpu-py3-none-any.whl"));
  EXPECT_EQ(slurp(root() / "whl/nightly/cpu/mini/index.html").find("mini-1.1"), std::string::npos);
  expect_consistent_index();
  const auto rerun = publish(second);
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_NE(slurp(root() / "whl/nightly/cpu/mini/index.html").find("mini-1.1+cpu"), std::string::npos);
  // A crash after the first page: still consistent.
  const auto third = wheel("mini", "1.2+cu126");
  EXPECT_NE(publish(third, "RELFORGE_TEST_CRASH_AT=page-written").exit_code, 0);
  expect_consistent_index();
}

TEST_F(ChannelsE2e, TwoPublishesAtOnceBothLand) {
  const auto a = wheel("mini", "1.0+cpu"), b = wheel("mini", "2.0+cpu");
  const std::string bin = shell_quote(relforge::test::relforge_binary());
  const auto both =
      run_shell("(" + bin + " publish --root " + shell_quote(root()) + " " + shell_quote(a) + " & " + bin +
                " publish --root " + shell_quote(root()) + " " + shell_quote(b) + " & wait)");
  EXPECT_EQ(both.exit_code, 0) << both.err;
  const auto html = slurp(root() / "whl/nightly/cpu/mini/index.html");
  EXPECT_NE(html.find("mini-1.0+cpu"), std::string::npos) << html;
  EXPECT_NE(html.find("mini-2.0+cpu"), std::string::npos) << html;
  expect_consistent_index();
}

TEST_F(ChannelsE2e, PromotePruneYankAndRebuildThroughTheCli) {
  ASSERT_EQ(relforge("keys generate --out " + shell_quote(m_dir.path() / "keys")).exit_code, 0);
  const std::string key = " --key " + shell_quote(m_dir.path() / "keys/signing.pub");
  std::string files;
  for (const std::string version : {"1.0+cpu", "1.1+cpu", "1.2+cpu"})
    files += " " + shell_quote(wheel("mini", version));
  ASSERT_EQ(relforge("sign" + files + " --key " + shell_quote(m_dir.path() / "keys/signing.key")).exit_code,
            0);
  const std::string store = " --root " + shell_quote(root());
  ASSERT_EQ(relforge("publish --channel test" + store + key + files).exit_code, 0);
  const auto dry = relforge("promote --no-complete --version 1.1 --dry-run" + store + key);
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("cpu/mini-1.1+cpu-py3-none-any.whl"), std::string::npos);
  EXPECT_FALSE(fs::exists(root() / "whl/cpu"));
  const auto missing = relforge("promote --no-complete --version 1.1 --expect-variant cu130" + store + key);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no files for cu130"), std::string::npos);
  EXPECT_EQ(relforge("promote --no-complete --version 7.0" + store + key).exit_code, 3);
  ASSERT_EQ(relforge("promote --no-complete --version 1.1" + store + key).exit_code, 0);
  EXPECT_TRUE(fs::exists(root() / "whl/cpu/mini/mini-1.1+cpu-py3-none-any.whl"));
  const auto prune = relforge("prune --channel test --allow-test --keep 1 --pin 1.0 --json" + store);
  ASSERT_EQ(prune.exit_code, 0) << prune.err;
  EXPECT_NE(prune.out.find("mini-1.1+cpu-py3-none-any.whl"), std::string::npos);
  EXPECT_FALSE(fs::exists(root() / "whl/test/cpu/mini/mini-1.1+cpu-py3-none-any.whl"));
  EXPECT_TRUE(fs::exists(root() / "whl/test/cpu/mini/mini-1.0+cpu-py3-none-any.whl"));
  ASSERT_EQ(
      relforge("yank mini-1.2+cpu-py3-none-any.whl --channel test --reason 'bad build'" + store).exit_code,
      0);
  fs::remove(root() / "whl/test/cpu/mini/index.html");
  const auto rebuilt = relforge("index rebuild" + store);
  EXPECT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  EXPECT_NE(slurp(root() / "whl/test/cpu/mini/index.html").find("data-yanked=\"bad build\""),
            std::string::npos);
  expect_consistent_index();
}

// Where the kernel refuses io_uring (seccomp, kernel.io_uring_disabled) or a submission fails, the
// rebuild reads each sidecar the ordinary way and writes the same pages: strace injects the errors.
TEST_F(ChannelsE2e, IndexRebuildWithoutIoUringWritesTheSamePages) {
  if (run_shell("strace -o /dev/null true").exit_code != 0) GTEST_SKIP() << "strace cannot run here";
  for (const char* version : {"1.0+cpu", "1.1+cpu", "2.0rc1+cpu"})
    ASSERT_EQ(publish(wheel("mini", version)).exit_code, 0);
  ASSERT_EQ(publish(wheel("other", "0.1+cpu")).exit_code, 0);
  const std::string store = " --root " + shell_quote(root());
  const auto pages = [&] {
    std::map<std::string, std::string> out;
    for (const auto& entry : fs::recursive_directory_iterator(root())) {
      if (entry.path().filename().string().starts_with("index."))
        out[entry.path().string()] = slurp(entry.path());
    }
    return out;
  };
  const auto remove_pages = [&] {
    for (const auto& [path, bytes] : pages()) fs::remove(path);
  };
  remove_pages();
  const auto rebuilt = run_shell(shell_quote(relforge::test::relforge_binary()) + " index rebuild" + store);
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  const auto expected = pages();
  ASSERT_GE(expected.size(), 8u);

  remove_pages();
  const auto trace = m_dir.path() / "trace";
  const auto refused = run_shell("strace -f -o " + shell_quote(trace) +
                                 " -e trace=io_uring_setup -e inject=io_uring_setup:error=EPERM " +
                                 shell_quote(relforge::test::relforge_binary()) + " index rebuild" + store);
  ASSERT_EQ(refused.exit_code, 0) << refused.err;
  EXPECT_EQ(refused.out, rebuilt.out);
  EXPECT_NE(slurp(trace).find("EPERM (Operation not permitted) (INJECTED)"), std::string::npos)
      << slurp(trace);
  EXPECT_EQ(pages(), expected);

  // A ring that is made but fails its first submission: the batch and the rest are read one by one.
  remove_pages();
  const auto failing = run_shell("strace -f -o " + shell_quote(trace) +
                                 " -e trace=io_uring_enter -e inject=io_uring_enter:error=EIO " +
                                 shell_quote(relforge::test::relforge_binary()) + " index rebuild" + store);
  ASSERT_EQ(failing.exit_code, 0) << failing.err;
  EXPECT_EQ(failing.out, rebuilt.out);
  EXPECT_EQ(pages(), expected);
  expect_consistent_index();
}

TEST_F(ChannelsE2e, PipInstallsFromServeAndFromFileUrlsSlow) {
  const auto file = wheel("minipkg", "1.0+cpu", "--requires-python '>=3.8'");
  ASSERT_EQ(publish(file).exit_code, 0);
  const fs::path log = m_dir.path() / "serve.log";
  const auto started = run_shell(shell_quote(relforge::test::relforge_binary()) + " serve --root " +
                                 shell_quote(root()) + " --port 0 >" + shell_quote(log) + " 2>&1 & echo $!");
  std::string pid = started.out;
  while (!pid.empty() && pid.back() == '\n') pid.pop_back();
  std::string port;
  for (int i = 0; i < 100 && port.empty(); ++i) {
    std::smatch match;
    const auto text = slurp(log);
    if (std::regex_search(text, match, std::regex("port ([0-9]+)")))
      port = match[1];
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_FALSE(port.empty()) << slurp(log);
  const std::string base = "http://127.0.0.1:" + port;
  const auto head = run_shell("curl -sI -H 'Accept: application/vnd.pypi.simple.v1+json' " + base +
                              "/whl/nightly/cpu/minipkg/");
  EXPECT_NE(head.out.find("application/vnd.pypi.simple.v1+json"), std::string::npos) << head.out;

  const fs::path venv = m_dir.path() / "venv";
  ASSERT_EQ(run_shell("/usr/bin/python3 -m venv --without-pip " + shell_quote(venv)).exit_code, 0);
  const auto pip = run_shell("/usr/bin/python3 -m pip --python " + shell_quote(venv / "bin/python") +
                             " install -v --no-cache-dir --disable-pip-version-check --index-url " + base +
                             "/whl/nightly/cpu/ minipkg");
  run_shell("kill " + pid);
  ASSERT_EQ(pip.exit_code, 0) << pip.out << pip.err;
  EXPECT_NE(pip.out.find("Successfully installed minipkg-1.0+cpu"), std::string::npos) << pip.out;
  EXPECT_EQ(run_shell(shell_quote(venv / "bin/python") + " -c 'import minipkg; print(minipkg.VALUE)'").out,
            "1\n");

  // The plain HTML tree over file://.
  const fs::path venv2 = m_dir.path() / "venv2";
  ASSERT_EQ(run_shell("/usr/bin/python3 -m venv --without-pip " + shell_quote(venv2)).exit_code, 0);
  const auto from_file =
      run_shell("/usr/bin/python3 -m pip --python " + shell_quote(venv2 / "bin/python") +
                " install -v --no-cache-dir --disable-pip-version-check --index-url file://" +
                (root() / "whl/nightly/cpu").string() + "/ minipkg");
  EXPECT_EQ(from_file.exit_code, 0) << from_file.out << from_file.err;
  // pip 23.0 takes PEP 658 metadata from HTML's data-dist-info-metadata and checks its hash.
  EXPECT_NE(from_file.out.find(".whl.metadata"), std::string::npos) << "pip did not use the PEP 658 file:\n"
                                                                    << from_file.out;

  // A corrupted hash in the page makes pip refuse the file.
  const fs::path page = root() / "whl/nightly/cpu/minipkg/index.html";
  std::string html = slurp(page);
  const auto at = html.find("#sha256=") + 8;
  html[at] = html[at] == '0' ? '1' : '0';
  std::ofstream(page, std::ios::binary | std::ios::trunc) << html;
  const fs::path venv3 = m_dir.path() / "venv3";
  ASSERT_EQ(run_shell("/usr/bin/python3 -m venv --without-pip " + shell_quote(venv3)).exit_code, 0);
  const auto corrupted = run_shell("/usr/bin/python3 -m pip --python " + shell_quote(venv3 / "bin/python") +
                                   " install --no-cache-dir --disable-pip-version-check --index-url file://" +
                                   (root() / "whl/nightly/cpu").string() + "/ minipkg");
  EXPECT_NE(corrupted.exit_code, 0);
  EXPECT_NE(corrupted.err.find("DO NOT MATCH THE HASHES"), std::string::npos) << corrupted.err;
}

}  // namespace
}  // namespace relforge::test
