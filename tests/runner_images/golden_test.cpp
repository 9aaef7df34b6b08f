// The examples' renderings against their goldens (tests/fixtures/fleet/<example>/; set
// RELFORGE_UPDATE_GOLDEN=1 to rewrite them, then review the diff), checked with real clients:
// dockerfile-utils lints every Dockerfile, the `yaml` package parses every runner config.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>

#include "matrix/config.hpp"
#include "runner_images/dockerfile.hpp"
#include "runner_images/runners.hpp"
#include "tests/support/run.hpp"

namespace relforge::runner_images {
namespace {

namespace fs = std::filesystem;
using relforge::test::run_shell;
using relforge::test::shell_quote;
using relforge::test::slurp;
using relforge::test::source_path;

const std::vector<std::string> k_examples = {"pytorch", "minitensor"};

FleetSpec load_example(const std::string& example) {
  const auto config = source_path("examples/" + example + "/relforge.toml");
  auto spec = matrix::load_spec(config);
  EXPECT_TRUE(spec) << spec.error().message();
  auto fleet = load_fleet(config, *spec);
  EXPECT_TRUE(fleet && *fleet) << (fleet ? "no fleet" : fleet.error().message());
  return fleet && *fleet ? **fleet : FleetSpec{};
}

std::set<std::string> tree(const fs::path& root) {
  std::set<std::string> out;
  if (!fs::exists(root)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) out.insert(fs::relative(entry.path(), root).generic_string());
  }
  return out;
}

void expect_golden(const fs::path& rendered, const std::string& golden_relative) {
  const fs::path golden = source_path("tests/fixtures/fleet/" + golden_relative);
  const char* update = std::getenv("RELFORGE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    fs::remove_all(golden);
    fs::create_directories(golden);
    fs::copy(rendered, golden, fs::copy_options::recursive);
  }
  const auto got = tree(rendered);
  ASSERT_FALSE(got.empty()) << "nothing rendered under " << rendered;
  EXPECT_EQ(got, tree(golden)) << "rendered files differ from " << golden
                               << " (RELFORGE_UPDATE_GOLDEN=1 rewrites it)";
  for (const auto& file : got)
    EXPECT_EQ(slurp(rendered / file), slurp(golden / file)) << golden_relative << "/" << file;
}

class Golden : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-fleet-golden-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }
  fs::path m_dir;
};

TEST_F(Golden, DockerfilesMatchAndPassDockerfileUtilsLint) {
  const auto cli = source_path("node_modules/.bin/dockerfile-utils");
  ASSERT_TRUE(fs::exists(cli)) << cli << " is missing: run `make deps`";
  const std::string lint = "NODE_MODULES=" + shell_quote(source_path("node_modules").string()) + " node " +
                           shell_quote(source_path("tests/fixtures/fleet/lint_dockerfiles.js").string());
  for (const auto& example : k_examples) {
    const auto fleet = load_example(example);
    std::string files;
    std::size_t dockerfiles = 0;
    for (const auto& image : fleet.images) {
      auto context = build_context(fleet, image);
      ASSERT_TRUE(context) << context.error().message();
      ASSERT_TRUE(write_context(*context, m_dir / example));
      files += " " + shell_quote((m_dir / example / context->dir / "Dockerfile").string());
      ++dockerfiles;
    }
    EXPECT_EQ(dockerfiles, example == "pytorch" ? 14u : 5u);
    // One process for all files (the validator call of `dockerfile-utils lint`, default settings) ...
    const auto result = run_shell(lint + files);
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_EQ(result.out, "ok " + std::to_string(dockerfiles) + "\n") << result.out << result.err;
    // ... and the CLI itself on the first, which must agree: no output at all.
    const auto first =
        files.substr(1, files.find(' ', 1) == std::string::npos ? std::string::npos : files.find(' ', 1) - 1);
    const auto cli_result = run_shell(shell_quote(cli.string()) + " lint " + first);
    EXPECT_EQ(cli_result.exit_code, 0);
    EXPECT_EQ(cli_result.out + cli_result.err, "");
    expect_golden(m_dir / example, example + "/images");
  }
}

TEST_F(Golden, TheLinterReportsABrokenDockerfile) {
  fs::create_directories(m_dir);
  std::ofstream(m_dir / "Dockerfile") << "FROM alpine AS base\nRUNN echo\n";
  const auto result =
      run_shell("NODE_MODULES=" + shell_quote(source_path("node_modules").string()) + " node " +
                shell_quote(source_path("tests/fixtures/fleet/lint_dockerfiles.js").string()) + " " +
                shell_quote((m_dir / "Dockerfile").string()));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.out.find(":2: error: Unknown instruction: RUNN"), std::string::npos) << result.out;
}

TEST_F(Golden, RunnerConfigsMatchAndParseWithTheExpectedShape) {
  const std::string node = "NODE_MODULES=" + shell_quote(source_path("node_modules").string()) + " node " +
                           shell_quote(source_path("tests/fixtures/fleet/check_yaml.js").string());
  for (const auto& example : k_examples) {
    const auto fleet = load_example(example);
    const auto scale_dir = m_dir / example / "scale-config";
    fs::create_directories(scale_dir);
    std::ofstream(scale_dir / "scale-config.yml") << render_scale_config(fleet);
    std::vector<std::string> skipped;
    auto arc = render_arc(fleet, skipped);
    ASSERT_TRUE(arc) << arc.error().message();
    const auto arc_dir = m_dir / example / "arc";
    fs::create_directories(arc_dir);
    std::string arc_files;
    for (const auto& values : *arc) {
      std::ofstream(arc_dir / values.file) << values.yaml;
      arc_files += " " + shell_quote((arc_dir / values.file).string());
    }
    const auto scale =
        run_shell(node + " scale-config " + shell_quote((scale_dir / "scale-config.yml").string()));
    EXPECT_EQ(scale.exit_code, 0) << scale.out << scale.err;
    EXPECT_EQ(scale.out, "ok 1\n") << scale.out << scale.err;
    const auto values = run_shell(node + " arc" + arc_files);
    EXPECT_EQ(values.exit_code, 0) << values.out << values.err;
    EXPECT_EQ(values.out, "ok " + std::to_string(arc->size()) + "\n") << values.out << values.err;
    expect_golden(scale_dir, example + "/scale-config");
    expect_golden(arc_dir, example + "/arc");
  }
}

TEST_F(Golden, TheYamlCheckerRejectsAWrongShape) {
  // The checker itself must fail on a broken document, or the tests above prove nothing.
  const std::string node = "NODE_MODULES=" + shell_quote(source_path("node_modules").string()) + " node " +
                           shell_quote(source_path("tests/fixtures/fleet/check_yaml.js").string());
  fs::create_directories(m_dir);
  std::ofstream(m_dir / "scale-config.yml") << "runner_types:\n  a:\n    os: linux\n    max_available: -1\n";
  const auto bad = run_shell(node + " scale-config " + shell_quote((m_dir / "scale-config.yml").string()));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("instance_type"), std::string::npos) << bad.out;
  std::ofstream(m_dir / "x.yaml") << "runnerScaleSetName: [unclosed\n";
  const auto unparsable = run_shell(node + " arc " + shell_quote((m_dir / "x.yaml").string()));
  EXPECT_EQ(unparsable.exit_code, 1);
  EXPECT_NE(unparsable.out.find("does not parse"), std::string::npos) << unparsable.out;
}

}  // namespace
}  // namespace relforge::runner_images
