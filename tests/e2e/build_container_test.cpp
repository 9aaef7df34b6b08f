// End-to-end: `relforge build` with [build] container through the real binary and a fake container
// CLI (tests/builders/fake_container_cli.sh) first on PATH: the podman command line, and the named
// errors for a missing runtime, a missing image and a GPU cell on a host without GPUs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/paths.hpp"
#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;

class BuildContainerTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-e2e-container-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "bin");
    std::ofstream(m_dir / "recipe.sh") << "echo \"recipe in $PWD for $RELFORGE_CELL\"\nexit 3\n";
  }
  void TearDown() override { fs::remove_all(m_dir); }

  void config(const std::string& runtime) {
    std::ofstream(m_dir / "relforge.toml")
        << "[project]\nname = \"demo\"\n[matrix]\nid = \"{python}-{accel}\"\n"
           "[[matrix.axis]]\nname = \"python\"\nkind = \"version\"\nvalues = [\"3.11\"]\n"
           "[[matrix.axis]]\nname = \"accel\"\nvalues = [\n"
           "  { value = \"cpu\", type = \"cpu\", version = \"\", desired = \"cpu\" },\n"
           "  { value = \"cu130\", type = \"cuda\", version = \"13.0\", desired = \"cu130\" },\n]\n"
           "[[matrix.field]]\nname = \"container_image\"\ntemplate = \"builder:{accel}\"\n"
           "[build]\nversion = \"1.0\"\ncontainer = \""
        << runtime << "\"\n[recipe]\ncommand = [\"bash\", \"recipe.sh\"]\ntimeout = 60\n";
  }
  void fake(const std::string& program, const std::string& images) {
    fs::copy_file(source_path("tests/builders/fake_container_cli.sh"), m_dir / "bin" / program);
    std::ofstream(m_dir / "bin/images") << images;
  }
  RunResult build(const std::string& extra, const std::string& path) {
    return run_shell("PATH=" + shell_quote(path) + " " + shell_quote(relforge::test::relforge_binary()) +
                     " build --config " + shell_quote((m_dir / "relforge.toml").string()) + " --state-dir " +
                     shell_quote((m_dir / "state").string()) + " " + extra);
  }

  fs::path m_dir;
};

TEST_F(BuildContainerTest, PodmanRunsTheRecipeInTheImageWithThisCommandLine) {
  config("podman");
  fake("podman", "builder:cpu\n");
  const auto result = build("--select '*-cpu'", (m_dir / "bin").string() + ":/usr/bin:/bin");
  EXPECT_EQ(result.exit_code, 6) << result.err;  // the recipe exits 3
  EXPECT_NE(result.out.find("the recipe exited with 3"), std::string::npos) << result.out;
  const auto argv = slurp(m_dir / "bin/argv.log");
  const auto state = (m_dir / "state").string();
  EXPECT_EQ(argv.substr(0, argv.find(" --name ") + 8),
            "podman image inspect builder:cpu\npodman run --rm --name ")
      << argv;
  EXPECT_NE(
      argv.find(
          " --volume " + m_dir.string() + ":/relforge/src:ro --volume " + state +
          "/work/3.11-cpu:/relforge/work --workdir /relforge/work --env HOME=/relforge/work --env CFLAGS "
          "--env CXXFLAGS --env DESIRED_CUDA --env DESIRED_PYTHON --env GPU_ARCH_TYPE --env GPU_ARCH_VERSION "
          "--env LANG --env LC_ALL --env MAX_JOBS --env NVCC_APPEND_FLAGS --env PYTHONHASHSEED --env "
          "RELFORGE_CELL --env RELFORGE_LOCAL_VERSION --env RELFORGE_OUT --env RELFORGE_PREFIX_MAP --env "
          "RELFORGE_PYTHON --env RELFORGE_VERSION --env SOURCE_DATE_EPOCH --env TMPDIR --env "
          "TORCH_CUDA_ARCH_LIST --env TZ builder:cpu bash /relforge/src/recipe.sh\n"),
      std::string::npos)
      << argv;
  // The recipe ran (here, through the fake) in the cell's work dir, mapped back from /relforge/work.
  EXPECT_NE(
      slurp(m_dir / "state/logs/3.11-cpu.log").find("recipe in " + state + "/work/3.11-cpu for 3.11-cpu"),
      std::string::npos);
}

TEST_F(BuildContainerTest, NoRuntimeOnPathIsExitFourBeforeAnythingRuns) {
  config("docker");
  const auto result = build("--select '*-cpu'", (m_dir / "bin").string() + ":/usr/bin:/bin");
  if (fs::exists("/usr/bin/docker") || fs::exists("/bin/docker"))
    GTEST_SKIP() << "a real docker is installed";
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_NE(result.err.find("no container runtime: [build] container = \"docker\" but docker is not on PATH"),
            std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(m_dir / "state/state.db"));
}

TEST_F(BuildContainerTest, AMissingImageAndAGpuCellWithoutGpusFailTheirCellsNamingTheFix) {
  config("docker");
  fake("docker", "");
  const auto result = build("--json", (m_dir / "bin").string() + ":/usr/bin:/bin");
  EXPECT_EQ(result.exit_code, 6) << result.err;
  EXPECT_NE(result.out.find(
                "container image missing: builder:cpu is not on this host and `docker pull builder:cpu` "
                "failed"),
            std::string::npos)
      << result.out;
  if (!fs::exists("/dev/nvidia0") && !fs::exists("/dev/kfd")) {
    EXPECT_NE(result.out.find("no GPU on this host: the cell is a cuda cell"), std::string::npos)
        << result.out;
  }
  // The missing image's pull is in the cell's log; nothing ran in a container.
  EXPECT_NE(slurp(m_dir / "state/logs/3.11-cpu.log").find("pull access denied for builder:cpu"),
            std::string::npos);
  EXPECT_EQ(slurp(m_dir / "bin/argv.log").find(" run "), std::string::npos);
}

}  // namespace
}  // namespace relforge::test
