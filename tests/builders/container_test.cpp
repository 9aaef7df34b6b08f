// The container runner: the exact docker and podman command lines, the config, and builds through
// a fake container CLI (tests/builders/fake_container_cli.sh) that runs the recipe here.
#include <gtest/gtest.h>

#include <filesystem>

#include "builders/build_config.hpp"
#include "builders/executor.hpp"
#include "builders/runner.hpp"
#include "core/text.hpp"
#include "platform/fs.hpp"
#include "tests/builders/support.hpp"
#include "tests/support/paths.hpp"

namespace relforge::builders {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_wheel_recipe = R"(
set -e
echo "in the container: HOME=$HOME OUT=$RELFORGE_OUT PY=$RELFORGE_PYTHON"
"$RELFORGE_PYTHON" - <<'PY'
import base64, hashlib, os, zipfile
v = os.environ["RELFORGE_VERSION"]
full = v + "+" + os.environ["RELFORGE_LOCAL_VERSION"]
files = {"demo/__init__.py": f"__version__ = '{full}'\n",
         f"demo-{v}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: demo\nVersion: {v}\n",
         f"demo-{v}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = [f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d.encode()).digest()).rstrip(b'=').decode()},{len(d)}" for p, d in files.items()]
files[f"demo-{v}.dist-info/RECORD"] = "\n".join(rec + [f"demo-{v}.dist-info/RECORD,,"]) + "\n"
with zipfile.ZipFile(os.path.join(os.environ["RELFORGE_OUT"], f"demo-{v}-py3-none-any.whl"), "w") as z:
    for p, d in files.items(): z.writestr(p, d)
PY
)";

TEST(ContainerRunArgv, DockerCudaCellGetsEveryGpu) {
  ContainerRun run;
  run.runtime = ContainerRuntime::docker;
  run.name = "relforge-3.12-cu130-0123abcd";
  run.image = "ghcr.io/x/builder:cuda13.0";
  run.source = "/src/proj";
  run.work = "/state/work/3.12-cu130";
  run.env_names = {"MAX_JOBS", "RELFORGE_OUT"};
  run.accel_type = "cuda";
  run.command = {"bash", "/relforge/src/build.sh"};
  EXPECT_EQ(core::join(container_run_argv(run), " "),
            "docker run --rm --name relforge-3.12-cu130-0123abcd --volume /src/proj:/relforge/src:ro "
            "--volume /state/work/3.12-cu130:/relforge/work --workdir /relforge/work --gpus all "
            "--env HOME=/relforge/work --env MAX_JOBS --env RELFORGE_OUT ghcr.io/x/builder:cuda13.0 bash "
            "/relforge/src/build.sh");
  run.runtime = ContainerRuntime::podman;
  EXPECT_EQ(core::join(container_run_argv(run), " "),
            "podman run --rm --name relforge-3.12-cu130-0123abcd --volume /src/proj:/relforge/src:ro "
            "--volume /state/work/3.12-cu130:/relforge/work --workdir /relforge/work --device "
            "nvidia.com/gpu=all --env HOME=/relforge/work --env MAX_JOBS --env RELFORGE_OUT "
            "ghcr.io/x/builder:cuda13.0 bash /relforge/src/build.sh");
}

TEST(ContainerRunArgv, RocmGetsTheKfdAndDriDevicesAndCpuNone) {
  ContainerRun run;
  run.name = "n";
  run.image = "img";
  run.source = "/s";
  run.work = "/w";
  run.accel_type = "rocm";
  run.command = {"true"};
  EXPECT_EQ(
      core::join(container_run_argv(run), " "),
      "docker run --rm --name n --volume /s:/relforge/src:ro --volume /w:/relforge/work --workdir "
      "/relforge/work --device /dev/kfd --device /dev/dri --group-add video --env HOME=/relforge/work img "
      "true");
  run.accel_type = "cpu";
  const auto argv = core::join(container_run_argv(run), " ");
  EXPECT_EQ(argv.find("--device"), std::string::npos);
  EXPECT_EQ(argv.find("--gpus"), std::string::npos);
}

TEST(ContainerName, IsStablePerCellAndStateDirAndSafe) {
  const auto a = container_name("3.12-cu130", "/a/state");
  EXPECT_EQ(a, container_name("3.12-cu130", "/a/state"));
  EXPECT_NE(a, container_name("3.12-cu130", "/b/state"));
  EXPECT_EQ(a.rfind("relforge-3.12-cu130-", 0), 0u);
  EXPECT_EQ(container_name("a b/c", "/s").substr(0, 15), "relforge-a_b_c-");
}

TEST(DetectGpus, CountsNvidiaNodesThenKfd) {
  const auto dev = fs::temp_directory_path() / ("relforge-dev-" + std::to_string(::getpid()));
  fs::remove_all(dev);
  fs::create_directories(dev / "dri");
  Runner none;
  detect_gpus(dev, none);
  EXPECT_EQ(none.gpus, 0);
  EXPECT_EQ(none.gpu_vendor, "");
  for (const char* node : {"kfd", "dri/renderD128", "dri/renderD129"})
    ASSERT_TRUE(platform::write_file_atomic(dev / node, "", platform::Durability::no_fsync));
  Runner amd;
  detect_gpus(dev, amd);
  EXPECT_EQ(amd.gpus, 2);
  EXPECT_EQ(amd.gpu_vendor, "amd");
  for (const char* node : {"nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm"})
    ASSERT_TRUE(platform::write_file_atomic(dev / node, "", platform::Durability::no_fsync));
  Runner nvidia;
  detect_gpus(dev, nvidia);
  EXPECT_EQ(nvidia.gpus, 2);
  EXPECT_EQ(nvidia.gpu_vendor, "nvidia");
  fs::remove_all(dev);
}

TEST(ContainerConfig, ParsesTheRuntimeStrictly) {
  const std::string recipe = "[recipe]\ncommand = [\"true\"]\n";
  auto docker =
      parse_build_config("[build]\ncontainer = \"docker\"\nimage_field = \"img\"\n" + recipe, "t.toml");
  ASSERT_TRUE(docker) << docker.error().describe();
  EXPECT_EQ(docker->container.runtime, ContainerRuntime::docker);
  EXPECT_EQ(docker->container.image_field, "img");
  auto podman = parse_build_config("[build]\ncontainer = \"podman\"\n" + recipe, "t.toml");
  ASSERT_TRUE(podman);
  EXPECT_EQ(podman->container.runtime, ContainerRuntime::podman);
  EXPECT_EQ(podman->container.image_field, "container_image");
  auto none = parse_build_config(recipe, "t.toml");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->container.runtime, ContainerRuntime::none);
  auto typo = parse_build_config("[build]\ncontainer = \"dokcer\"\n" + recipe, "t.toml");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message().find("use \"docker\", \"podman\" or \"none\""), std::string::npos);
  EXPECT_NE(typo.error().describe().find("t.toml:2"), std::string::npos) << typo.error().describe();
  auto key = parse_build_config("[build]\ncontainers = \"docker\"\n" + recipe, "t.toml");
  ASSERT_FALSE(key);
  EXPECT_NE(key.error().message().find("container"), std::string::npos);
}

class ContainerBuildTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-container-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "bin");
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // A fake `program` (docker or podman) first on PATH, knowing `images`.
  BuildOptions options(const std::string& recipe, const std::string& program = "docker",
                       const std::string& images = "cpu\n") {
    fs::copy_file(fs::path(relforge::test::source_dir()) / "tests/builders/fake_container_cli.sh",
                  m_dir / "bin" / program);
    EXPECT_TRUE(platform::write_file_atomic(m_dir / "bin/images", images, platform::Durability::no_fsync));
    EXPECT_TRUE(platform::write_file_atomic(m_dir / "recipe.sh", recipe, platform::Durability::no_fsync));
    BuildOptions options;
    options.config.config_dir = m_dir;
    options.config.state_dir = m_dir / "state";
    options.config.version = "1.0";
    options.config.recipe.command = {"bash", "recipe.sh"};
    options.config.recipe.timeout = std::chrono::seconds(30);
    options.config.container.runtime =
        program == "docker" ? ContainerRuntime::docker : ContainerRuntime::podman;
    options.config.container.image_field = "local_version";  // images "cpu", "cu130", "rocm7.2"
    options.config.container.python = "/usr/bin/python{python}";
    options.cells = test::cells("\"3.11\"");
    options.runners = {test::local_runner()};
    options.runners.front().toolkits = {{"cuda", "13.0", "(in the container image)"},
                                        {"rocm", "7.2", "(in the container image)"}};
    options.path_env = (m_dir / "bin").string() + ":/usr/bin:/bin";
    options.container_client_env = {{"HOME", "/home/builder"}};
    options.source_key = "commit1";
    return options;
  }
  std::string argv_log() { return platform::read_file(m_dir / "bin/argv.log").value_or(""); }

  fs::path m_dir;
};

TEST_F(ContainerBuildTest, DockerRunsTheRecipeInTheImageAndTheWheelIsRepairedHere) {
  auto build = options(k_wheel_recipe);
  build.cells.resize(1);  // 3.11-cpu
  const auto outcomes = run_build(build);
  ASSERT_TRUE(outcomes) << outcomes.error().describe();
  const auto& cell = outcomes->front();
  ASSERT_EQ(cell.result, CellResult::succeeded) << cell.message << "\n" << core::join(cell.log_tail, "\n");
  EXPECT_EQ(fs::path(cell.wheel).filename(), "demo-1.0+cpu-py3-none-linux_x86_64.whl");
  const auto state = fs::absolute(m_dir / "state");
  const auto name = container_name("3.11-cpu", state);
  EXPECT_EQ(
      argv_log(),
      "docker image inspect cpu\n"
      "docker run --rm --name " +
          name + " --volume " + m_dir.string() + ":/relforge/src:ro --volume " +
          (state / "work/3.11-cpu").string() +
          ":/relforge/work --workdir /relforge/work --env HOME=/relforge/work --env CFLAGS --env CXXFLAGS "
          "--env DESIRED_CUDA --env DESIRED_PYTHON --env GPU_ARCH_TYPE --env GPU_ARCH_VERSION --env LANG "
          "--env LC_ALL --env MAX_JOBS --env NVCC_APPEND_FLAGS --env PYTHONHASHSEED --env RELFORGE_CELL "
          "--env RELFORGE_LOCAL_VERSION --env RELFORGE_OUT --env RELFORGE_PREFIX_MAP --env RELFORGE_PYTHON "
          "--env RELFORGE_VERSION --env SOURCE_DATE_EPOCH --env TMPDIR --env TORCH_CUDA_ARCH_LIST --env TZ "
          "cpu bash /relforge/src/recipe.sh\n");
  // The recipe saw the container's paths (the fake maps them back only to run here).
  const auto log = platform::read_file(cell.log).value_or("");
  EXPECT_NE(log.find("in the container: HOME=" + (state / "work/3.11-cpu").string()), std::string::npos)
      << log;
}

TEST_F(ContainerBuildTest, PodmanCudaCellGetsTheCdiDeviceOnAGpuHost) {
  auto build = options("echo built\nexit 3\n", "podman", "cu130\n");
  build.cells = {build.cells[1]};  // 3.11-cu130
  build.runners.front().gpus = 1;
  const auto outcomes = run_build(build);
  ASSERT_TRUE(outcomes) << outcomes.error().describe();
  EXPECT_EQ(outcomes->front().message, "the recipe exited with 3");
  EXPECT_NE(argv_log().find("podman run --rm --name relforge-3.11-cu130-"), std::string::npos) << argv_log();
  EXPECT_NE(
      argv_log().find(" --workdir /relforge/work --device nvidia.com/gpu=all --env HOME=/relforge/work "),
      std::string::npos)
      << argv_log();
}

TEST_F(ContainerBuildTest, AGpuCellOnAHostWithoutGpusFailsNamingTheFix) {
  auto build = options(k_wheel_recipe, "docker", "cu130\n");
  build.cells = {build.cells[1]};
  const auto outcomes = run_build(build);
  ASSERT_TRUE(outcomes);
  EXPECT_EQ(outcomes->front().result, CellResult::failed);
  EXPECT_EQ(outcomes->front().message.rfind("no GPU on this host: the cell is a cuda cell", 0), 0u)
      << outcomes->front().message;
  EXPECT_NE(outcomes->front().message.find("run `relforge build --cell 3.11-cu130` on a GPU runner"),
            std::string::npos);
  EXPECT_EQ(argv_log(), "");  // nothing was run
}

TEST_F(ContainerBuildTest, AMissingImageIsPulledOrTheCellFailsNamingIt) {
  auto build = options(k_wheel_recipe, "docker", "");
  build.cells.resize(1);
  auto missing = run_build(build);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->front().result, CellResult::failed);
  EXPECT_EQ(
      missing->front().message.rfind("container image missing: cpu is not on this host and `docker pull cpu` "
                                     "failed (it exited with 1; see the log)",
                                     0),
      0u)
      << missing->front().message;
  EXPECT_EQ(argv_log(), "docker image inspect cpu\ndocker pull cpu\n");
  EXPECT_TRUE(missing->front().wheel.empty());

  ASSERT_TRUE(platform::write_file_atomic(m_dir / "bin/pullable", "cpu\n", platform::Durability::no_fsync));
  auto pulled = run_build(build);
  ASSERT_TRUE(pulled);
  EXPECT_EQ(pulled->front().result, CellResult::succeeded) << pulled->front().message;
}

TEST_F(ContainerBuildTest, AnImageThatLooksLikeAnOptionIsRefused) {
  auto build = options(k_wheel_recipe, "docker", "--privileged\n");
  build.cells.resize(1);
  build.config.container.image_field = "platform_tag";  // "linux_x86_64": fine, then a hostile one
  auto fine = run_build(build);
  ASSERT_TRUE(fine);
  EXPECT_NE(fine->front().message.find("container image missing: linux_x86_64"), std::string::npos)
      << fine->front().message;
  for (const char* hostile : {"--privileged", "img with space", "img;rm"}) {
    build.cells = test::cells("\"3.11\"", hostile);
    build.cells.resize(1);
    auto refused = run_build(build);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->front().result, CellResult::failed);
    EXPECT_NE(refused->front().message.find("is not an image reference"), std::string::npos)
        << refused->front().message;
  }
  EXPECT_EQ(argv_log(), "docker image inspect linux_x86_64\ndocker pull linux_x86_64\n");
}

TEST_F(ContainerBuildTest, NoRuntimeOnPathIsAnErrorBeforeAnythingRuns) {
  auto build = options(k_wheel_recipe);
  build.path_env = "/usr/bin:/bin";
  if (find_on_path("docker", build.path_env)) GTEST_SKIP() << "a real docker is in /usr/bin or /bin";
  const auto outcomes = run_build(build);
  ASSERT_FALSE(outcomes);
  EXPECT_EQ(outcomes.error().category(), ErrorCategory::not_found);
  EXPECT_EQ(
      outcomes.error().message().rfind("no container runtime: [build] container = \"docker\" but docker is "
                                       "not on PATH (/usr/bin:/bin)",
                                       0),
      0u)
      << outcomes.error().message();
  EXPECT_FALSE(fs::exists(m_dir / "state/state.db"));
}

TEST_F(ContainerBuildTest, ATimeoutKillsTheContainerByName) {
  auto build = options("sleep 30 & wait\n");
  build.cells.resize(1);
  build.config.recipe.timeout = std::chrono::seconds(1);
  const auto outcomes = run_build(build);
  ASSERT_TRUE(outcomes);
  EXPECT_EQ(outcomes->front().result, CellResult::timed_out);
  EXPECT_EQ(platform::read_file(m_dir / "bin/killed").value_or(""),
            container_name("3.11-cpu", fs::absolute(m_dir / "state")) + "\n");
}

}  // namespace
}  // namespace relforge::builders
