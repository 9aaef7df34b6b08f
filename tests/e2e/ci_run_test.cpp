// End-to-end: the workflow `relforge ci workflow` writes for examples/minitensor actually works.
// tests/e2e/run_workflow.cjs runs its Linux jobs here, step by step with bash (plan → build →
// publish), with a fake docker first on PATH that runs the recipe locally; the publish job signs
// the wheel and publishes it to a folder store, and pip installs it from there into a venv.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/e2e.hpp"
#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;

TEST(CiRun, MinitensorLinuxJobsPublishASignedPipInstallableWheelSlow) {
  const auto tmp = fs::temp_directory_path() / ("relforge-ci-run-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  const auto repo = tmp / "repo", bin = tmp / "bin", store = tmp / "store";
  fs::create_directories(repo / "examples");
  fs::create_directories(bin);
  fs::copy(source_path("examples/minitensor"), repo / "examples/minitensor", fs::copy_options::recursive);
  fs::remove_all(repo / "examples/minitensor/.relforge");
  // Linux cells build in their image (the fake docker), and publish to a folder store, signed.
  const auto config = repo / "examples/minitensor/relforge.toml";
  auto text = slurp(config);
  text = replaced(text, "state_dir = \".relforge\"", "state_dir = \".relforge\"\ncontainer = \"docker\"");
  text = replaced(text, "store = \"s3://minitensor-wheels/whl\"",
                  "store = \"" + store.string() + "\"\npublic_key = \"keys/signing.pub\"");
  std::ofstream(config, std::ios::binary) << text;
  ASSERT_EQ(relforge("keys generate --out " + shell_quote((repo / "keys").string())).exit_code, 0);
  fs::copy_file(source_path("tests/builders/fake_container_cli.sh"), bin / "docker");
  std::ofstream(bin / "images") << "ghcr.io/minitensor/manylinux_2_28-builder:cpu\n";

  const auto workflow = tmp / "nightly.yml";
  auto result =
      run_shell("cd " + shell_quote(repo.string()) + " && " + shell_quote(relforge::test::relforge_binary()) +
                " ci workflow --config examples/minitensor/relforge.toml --select 'cp311-*-cpu' --out " +
                shell_quote(workflow.string()));
  ASSERT_EQ(result.exit_code, 0) << result.err;

  const nlohmann::json secrets = {{"RELFORGE_SIGNING_KEY", slurp(repo / "keys/signing.key")},
                                  {"AWS_ACCESS_KEY_ID", "unused"},
                                  {"AWS_SECRET_ACCESS_KEY", "unused"}};
  result = run_shell("PATH=" + shell_quote(bin.string()) + ":\"$PATH\" node " +
                     shell_quote(source_path("tests/e2e/run_workflow.cjs").string()) + " " +
                     shell_quote(relforge::test::source_dir()) + " " + shell_quote(workflow.string()) + " " +
                     shell_quote(repo.string()) + " " + shell_quote((tmp / "work").string()) + " " +
                     shell_quote(fs::path(relforge::test::relforge_binary()).parent_path().string()) + " " +
                     shell_quote(secrets.dump()));
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("[build-linux 3.11-cpu] Build 3.11-cpu"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("::group::3.11-cpu"), std::string::npos)
      << result.err;  // relforge build's stderr
  EXPECT_NE(result.out.find("workflow done"), std::string::npos);
  // The recipe ran in the image: docker was asked for it, with the source read-only.
  const auto argv = slurp(bin / "argv.log");
  EXPECT_NE(argv.find("docker image inspect ghcr.io/minitensor/manylinux_2_28-builder:cpu\n"),
            std::string::npos)
      << argv;
  EXPECT_NE(argv.find(":/relforge/src:ro --volume "), std::string::npos) << argv;

  // Signed in the store, and pip installs it from there.
  const auto folder = store / "whl/nightly/cpu";
  const std::string wheel = "minitensor-0.3.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl";
  EXPECT_TRUE(fs::exists(folder / "minitensor" / wheel)) << result.out;
  EXPECT_TRUE(fs::exists(folder / "minitensor" / (wheel + ".sigstore.json")));
  const auto venv = tmp / "venv";
  ASSERT_EQ(run_shell("/usr/bin/python3 -m venv --without-pip " + shell_quote(venv.string())).exit_code, 0);
  result = run_shell("/usr/bin/python3 -m pip --python " + shell_quote((venv / "bin/python").string()) +
                     " install --no-cache-dir --disable-pip-version-check --index-url file://" +
                     folder.string() + "/ minitensor");
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  result = run_shell(
      shell_quote((venv / "bin/python").string()) +
      " -c 'import minitensor as m; print(m.__version__, (m.tensor([1, 2], (1, 2)) + m.full((1, 2), "
      "1.0)).tolist())'");
  EXPECT_EQ(result.out, "0.3.0+cpu [2.0, 3.0]\n") << result.err;
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace relforge::test
