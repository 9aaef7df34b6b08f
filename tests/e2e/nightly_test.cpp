// End-to-end: `relforge nightly` builds the cp311 CPU cell of minitensor for real, signs it with
// provenance from the build ledger, publishes it, and pip installs it from the channel; bad
// selections, keys and recipes fail clearly before anything is published.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;

const std::string k_nightly_config = shell_quote(source_path("examples/minitensor/relforge.toml").string());

// Tests that get as far as runner detection (it asks every python3.X on PATH for its version)
// can take over 5 s on a loaded machine, so they are named Slow.
class NightlyCli : public ::testing::Test {
protected:
  NightlyCli() {
    std::random_device random;
    m_dir = fs::temp_directory_path() / ("relforge-e2e-nightly-" + std::to_string(random()));
    fs::create_directories(m_dir);
  }
  ~NightlyCli() override { fs::remove_all(m_dir); }
  fs::path root() const { return m_dir / "channel"; }
  fs::path state() const { return m_dir / "state"; }
  // `nightly` into this test's channel root and state dir.
  RunResult nightly(const std::string& config, const std::string& args) {
    return relforge("nightly --config " + config + " --root " + shell_quote(root()) + " --state-dir " +
                    shell_quote(state()) + " " + args);
  }
  void generate_keys() {
    const auto keys = relforge("keys generate --out " + shell_quote(m_dir / "keys"));
    ASSERT_EQ(keys.exit_code, 0) << keys.err;
  }
  fs::path m_dir;
};

TEST_F(NightlyCli, SelectionMatchingNothingIsExit3) {
  const auto result = nightly(k_nightly_config, "--select 'cp399-*'");
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_NE(result.err.find("no cell matches"), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
  EXPECT_FALSE(fs::exists(root()));
}

TEST_F(NightlyCli, NoCellBuildableHereIsExit3AndNamesTheReasonSlow) {
  const auto result = nightly(k_nightly_config, "--select 'cp311-*-rocm*' --json");
  EXPECT_EQ(result.exit_code, 3) << result.err;
  const auto error = nlohmann::json::parse(result.err)["error"];
  EXPECT_EQ(error["category"], "nothing_selected");
  const std::string message = error["message"];
  EXPECT_NE(message.find("none of the 1 selected cells can be built on this machine"), std::string::npos)
      << message;
  EXPECT_NE(message.find("3.11-rocm7.2: no runner has hipcc 7.2"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(root()));
}

TEST_F(NightlyCli, MissingKeyFailsBeforeAnythingIsBuiltOrPublished) {
  const auto result =
      nightly(k_nightly_config, "--select 'cp311-*-cpu' --key " + shell_quote(m_dir / "nowhere/signing.key"));
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_NE(result.err.find("private key " + (m_dir / "nowhere/signing.key").string() + " does not exist"),
            std::string::npos)
      << result.err;
  EXPECT_TRUE(result.out.empty());
  EXPECT_FALSE(fs::exists(root()));
  EXPECT_FALSE(fs::exists(state() / "logs"));
}

TEST_F(NightlyCli, KeyReadableByOthersOrWithoutItsPublicHalfIsRefused) {
  generate_keys();
  const auto key = m_dir / "keys/signing.key";
  fs::permissions(key, fs::perms::others_read, fs::perm_options::add);
  const auto readable = nightly(k_nightly_config, "--select 'cp311-*-cpu' --key " + shell_quote(key));
  EXPECT_EQ(readable.exit_code, 8) << readable.err;
  EXPECT_NE(readable.err.find("chmod 600"), std::string::npos) << readable.err;

  fs::permissions(key, fs::perms::others_read, fs::perm_options::remove);
  fs::remove(m_dir / "keys/signing.pub");
  const auto no_public = nightly(k_nightly_config, "--select 'cp311-*-cpu' --key " + shell_quote(key));
  EXPECT_EQ(no_public.exit_code, 4) << no_public.err;
  EXPECT_NE(no_public.err.find("pass --public-key"), std::string::npos) << no_public.err;
  EXPECT_FALSE(fs::exists(root()));
  EXPECT_FALSE(fs::exists(state() / "logs"));
}

TEST_F(NightlyCli, FailingRecipeShowsItsLogTailAndPublishesNothingSlow) {
  const auto config = m_dir / "relforge.toml";
  ASSERT_EQ(
      run_shell("sed 's/^command = .*/command = [\"bash\", \"-c\", \"echo compiler exploded; exit 3\"]/' " +
                k_nightly_config + " > " + shell_quote(config))
          .exit_code,
      0);
  const auto result = nightly(shell_quote(config), "--select 'cp311-*-cpu'");
  EXPECT_EQ(result.exit_code, 6) << result.err;
  EXPECT_NE(result.out.find("0 built (repaired and smoke-tested), 0 waiting for a runner, 1 failed"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("   | compiler exploded"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("1 of 1 cells this machine can build failed"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(root() / "whl"));
}

// Compiles minitensor for python3.11, repairs, smoke-tests, signs, publishes; pip installs it.
TEST_F(NightlyCli, BuildsSignsPublishesAndPipInstallsTheCp311CpuWheelSlow) {
  if (!fs::exists("/usr/bin/python3.11") || !fs::exists("/usr/include/python3.11/Python.h"))
    GTEST_SKIP() << "no /usr/bin/python3.11 with headers (install python3-dev)";
  generate_keys();
  const auto key = shell_quote(m_dir / "keys/signing.key");
  const auto result =
      nightly(k_nightly_config, "--select 'cp311-*-cpu' --date 20260102 --key " + key + " --json");
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["version"], "0.3.0.dev20260102");
  EXPECT_EQ(json["built"], 1);
  EXPECT_EQ(json["failed"], 0);
  const std::string filename = "minitensor-0.3.0.dev20260102+cpu-cp311-cp311-manylinux_2_28_x86_64.whl";
  ASSERT_EQ(json["published"].size(), 1u) << result.out;
  EXPECT_EQ(json["published"][0]["filename"], filename);
  EXPECT_EQ(json["published"][0]["signed"], true);
  EXPECT_EQ(json["install"][0],
            "pip install --pre minitensor --index-url file://" + root().string() + "/whl/nightly/cpu");

  // The channel's index lists the wheel with its hash and provenance; the stored bundle verifies.
  const auto project = root() / "whl/nightly/cpu/minitensor";
  const auto page = slurp(project / "index.html");
  EXPECT_NE(page.find("minitensor-0.3.0.dev20260102"), std::string::npos) << page;
  EXPECT_NE(page.find("cpu-cp311-cp311-manylinux_2_28_x86_64.whl#sha256="), std::string::npos) << page;
  EXPECT_NE(page.find("data-provenance="), std::string::npos) << page;
  const auto verify = relforge("verify " + shell_quote(project / filename) + " --key " +
                               shell_quote(m_dir / "keys/signing.pub"));
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  // The provenance names the cell and the build log's digest from the ledger.
  const auto predicate = run_shell(
      "/usr/bin/python3 -c " +
      shell_quote(
          "import base64, json, sys; b = json.load(open(sys.argv[1])); "
          "s = json.loads(base64.b64decode(b['dsseEnvelope']['payload'])); "
          "d = s['predicate']['buildDefinition']['externalParameters']; "
          "print(d['cell']['id'], d['channel'], s['predicate']['runDetails']['byproducts'][0]['name'])") +
      " " + shell_quote(project / (filename + ".sigstore.json")));
  EXPECT_EQ(predicate.out, "3.11-cpu nightly 3.11-cpu.log\n") << predicate.err;

  // pip installs it from the channel (file://, the plain HTML tree) into a fresh venv and imports it.
  const auto venv = m_dir / "venv";
  ASSERT_EQ(run_shell("/usr/bin/python3.11 -m venv --without-pip " + shell_quote(venv)).exit_code, 0);
  const auto pip =
      run_shell("/usr/bin/python3.11 -m pip --python " + shell_quote(venv / "bin/python") +
                " install --pre --no-deps --no-cache-dir --disable-pip-version-check --index-url file://" +
                (root() / "whl/nightly/cpu").string() + "/ minitensor");
  ASSERT_EQ(pip.exit_code, 0) << pip.out << pip.err;
  EXPECT_NE(pip.out.find("Successfully installed minitensor-0.3.0.dev20260102+cpu"), std::string::npos)
      << pip.out;
  const auto imported =
      run_shell(shell_quote(venv / "bin/python") +
                " -c 'import minitensor as m; print(m.__version__, m.version.cuda, m.cuda_is_available())'");
  EXPECT_EQ(imported.out, "0.3.0.dev20260102+cpu None False\n") << imported.err;

  // A re-run with --resume skips the build and leaves the immutable published file unchanged.
  const auto again =
      nightly(k_nightly_config, "--select 'cp311-*-cpu' --date 20260102 --resume --key " + key);
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("up_to_date"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("unchanged nightly/cpu/minitensor/" + filename), std::string::npos) << again.out;
}

// A retried nightly (same source, same day, no --resume) rebuilds every cell; the wheels come out
// byte for byte the same, so each publishes as "unchanged" instead of failing on "different bytes".
// With a CUDA toolkit the cu130 cell takes part too: nvcc's output was the one that differed.
TEST_F(NightlyCli, RunTwiceTheSameDayWithoutResumeEveryFileIsUnchangedSlow) {
  if (!fs::exists("/usr/bin/python3.11") || !fs::exists("/usr/include/python3.11/Python.h"))
    GTEST_SKIP() << "no /usr/bin/python3.11 with headers (install python3-dev)";
  generate_keys();
  const bool cuda = fs::exists("/usr/local/cuda/bin/nvcc");
  const std::string select = cuda ? "'cp311-*-{cpu,cu130}'" : "'cp311-*-cpu'";
  const auto args =
      "--select " + select + " --date 20260103 --key " + shell_quote(m_dir / "keys/signing.key") + " --json";
  const auto first = nightly(k_nightly_config, args);
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const auto again = nightly(k_nightly_config, args);
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  const auto json = nlohmann::json::parse(again.out);
  EXPECT_EQ(json["built"], cuda ? 2 : 1);
  for (const auto& cell : json["cells"]) EXPECT_EQ(cell["result"], "succeeded") << cell.dump();  // rebuilt
  ASSERT_EQ(json["published"].size(), cuda ? 2u : 1u) << again.out;
  for (const auto& file : json["published"]) EXPECT_EQ(file["state"], "unchanged") << file.dump();
}

}  // namespace
}  // namespace relforge::test
