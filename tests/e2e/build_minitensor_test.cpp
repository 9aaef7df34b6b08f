// End-to-end: `relforge runners detect`, `build --plan`, and a real build of minitensor's cp311
// cells (compile, wheel, repair, smoke test), checked with wheel unpack, twine and packaging.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "tests/support/run.hpp"

namespace relforge::test {
namespace {

namespace fs = std::filesystem;

const std::string k_config = shell_quote(source_path("examples/minitensor/relforge.toml").string());

fs::path fresh_dir(const std::string& name) {
  const auto dir =
      fs::temp_directory_path() / ("relforge-e2e-build-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool has_python311() {
  return fs::exists("/usr/bin/python3.11") && fs::exists("/usr/include/python3.11/Python.h");
}

TEST(BuildCli, RunnersDetectFindsThisMachinesPython) {
  const auto result = relforge("runners detect --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  ASSERT_EQ(json["runners"].size(), 1u);
  bool found = false;
  for (const auto& python : json["runners"][0]["pythons"]) found = found || python["version"] == "3.11";
  EXPECT_TRUE(found) << result.out;
}

TEST(BuildCli, PlanSaysWhyEachCellHasNoRunner) {
  const auto result = relforge("build --config " + k_config + " --plan");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("3.11-cpu: local (local)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("3.11-rocm7.2: no runner has hipcc 7.2 — available: none"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("3.12-cu126: gpu-a10g (linux.g5.4xlarge.nvidia.gpu)"), std::string::npos)
      << result.out;
  if (!fs::exists("/usr/local/cuda/bin/nvcc")) {
    EXPECT_NE(result.out.find("3.11-cu130: no runner has nvcc 13.0 — available: nvcc 12.6"),
              std::string::npos)
        << result.out;
  }
}

// What `build --select 'cp311-*'` does with each cell, without building: this machine takes cpu
// (and cu130 when nvcc 13.0 is here); every other cell waits with its reason.
TEST(BuildCli, DryRunOfCp311ListsWaitingCellsWithTheirReasons) {
  const auto result = relforge("build --config " + k_config + " --select 'cp311-*' --dry-run --json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto cells = nlohmann::json::parse(result.out)["cells"];
  std::map<std::string, nlohmann::json> by_id;
  for (const auto& cell : cells) by_id[cell["cell"]] = cell;
  ASSERT_EQ(by_id.size(), 5u) << result.out;
  if (has_python311()) {
    EXPECT_EQ(by_id["3.11-cpu"]["result"], "would_build");
  }
  EXPECT_EQ(by_id["3.11-rocm7.2"]["result"], "waiting");
  EXPECT_EQ(by_id["3.11-rocm7.2"]["message"], "no runner has hipcc 7.2 — available: none");
  EXPECT_EQ(by_id["3.11-xpu"]["message"], "no runner has icpx — available: none");
  EXPECT_EQ(by_id["3.11-cu126"]["result"], "waiting");
  const std::string cu126 = by_id["3.11-cu126"]["message"];
  EXPECT_EQ(
      cu126.rfind("waiting for runner 'gpu-a10g' (linux.g5.4xlarge.nvidia.gpu); this machine lacks nvcc "
                  "12.6",
                  0),
      0u)
      << cu126;
  EXPECT_NE(cu126.find(": run `relforge build --cell 3.11-cu126` there"), std::string::npos) << cu126;
  const auto nvcc = run_shell("/usr/local/cuda/bin/nvcc --version");
  if (nvcc.out.find("release 13.0") != std::string::npos && has_python311()) {
    EXPECT_EQ(by_id["3.11-cu130"]["result"], "would_build");
    EXPECT_NE(cu126.find("(it has nvcc 13.0)"), std::string::npos) << cu126;
  }
}

TEST(BuildCli, BadConfigKeyIsAClearError) {
  const auto dir = fresh_dir("badkey");
  run_shell("sed 's/^timeout = 1800/timout = 1800/' " + k_config + " > " +
            shell_quote((dir / "relforge.toml").string()));
  const auto result = relforge("build --plan --config " + shell_quote((dir / "relforge.toml").string()));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("unknown key 'timout' in [recipe]; did you mean 'timeout'?"), std::string::npos)
      << result.err;
  EXPECT_TRUE(result.out.empty());
  fs::remove_all(dir);
}

void check_with_real_clients(const std::string& wheel, const fs::path& dir) {
  const auto unpack = run_shell("cd " + shell_quote(dir.string()) + " && /usr/bin/python3 -m wheel unpack " +
                                shell_quote(wheel));
  EXPECT_EQ(unpack.exit_code, 0) << unpack.err;
  const auto twine = run_shell("/usr/bin/python3 -m twine check --strict " + shell_quote(wheel) + " 2>&1");
  EXPECT_NE(twine.out.find("PASSED"), std::string::npos) << twine.out;
  const auto parsed = run_shell(
      "/usr/bin/python3 -c " +
      shell_quote("import sys; from packaging.utils import parse_wheel_filename as p; "
                  "n, v, b, t = p(sys.argv[1].rsplit('/', 1)[1]); print(n, v, sorted(str(x) for x in t))") +
      " " + shell_quote(wheel));
  EXPECT_EQ(parsed.exit_code, 0) << parsed.err;
  const auto verify = relforge("wheel verify " + shell_quote(wheel));
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
}

// add(..., device='cuda') in the cell's smoke venv: runs on a GPU host, else raises naming why;
// never a quiet CPU result.
void expect_cuda_add(const fs::path& state, const std::string& cell, const std::string& error_without_gpu) {
  const auto python = state / "work" / cell / "venv" / "bin" / "python";
  const auto result = run_shell(
      shell_quote(python.string()) + " -c " +
      shell_quote(
          "import minitensor as m\na = m.full((1 << 16,), 1.5)\ntry:\n"
          "    print('ran', m.add(a, a, device='cuda').sum())\nexcept RuntimeError as e:\n    print(e)\n"
          "try:\n    m.add(a, a, device='tpu')\nexcept ValueError as e:\n    print(e)\n") +
      " 2>&1");
  ASSERT_EQ(result.exit_code, 0) << result.out;
  const bool gpu_here =
      fs::exists("/dev/nvidia0") && error_without_gpu.find("no CUDA kernels") == std::string::npos;
  EXPECT_EQ(result.out, (gpu_here ? "ran 196608.0\n" : "add on the GPU failed: " + error_without_gpu + "\n") +
                            "device must be None, 'cpu' or 'cuda', not 'tpu'\n");
}

// Compiles the C++ core and extension for python3.11, repairs, smoke-tests in a fresh venv, resumes.
TEST(BuildCli, BuildsTheCp311CpuWheelForRealSlow) {
  if (!has_python311()) GTEST_SKIP() << "no /usr/bin/python3.11 with headers (install python3-dev)";
  const auto dir = fresh_dir("cpu");
  const auto state = shell_quote((dir / "state").string());
  const auto result =
      relforge("build --config " + k_config + " --cell 3.11-cpu --state-dir " + state + " --json");
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  const auto json = nlohmann::json::parse(result.out);
  const auto& cell = json["cells"][0];
  EXPECT_EQ(cell["result"], "succeeded") << result.out;
  const std::string wheel = cell["wheel"];
  EXPECT_EQ(fs::path(wheel).filename(), "minitensor-0.3.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl");
  check_with_real_clients(wheel, dir);
  const auto parsed =
      run_shell("/usr/bin/python3 -c " +
                shell_quote("import sys; from packaging.utils import parse_wheel_filename as p; "
                            "n, v, b, t = p(sys.argv[1].rsplit('/', 1)[1]); print(n, v, *t)") +
                " " + shell_quote(wheel));
  EXPECT_EQ(parsed.out, "minitensor 0.3.0+cpu cp311-cp311-manylinux_2_28_x86_64\n");
  expect_cuda_add(dir / "state", "3.11-cpu",
                  "this minitensor build has no CUDA kernels: install a +cu wheel");

  const auto again =
      relforge("build --config " + k_config + " --cell 3.11-cpu --resume --state-dir " + state + " --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["cells"][0]["result"], "up_to_date");
  fs::remove_all(dir);
}

// scripts/gpu-smoke.sh (make gpu-smoke) on a host without a GPU: exit 2 and what to do, nothing built.
TEST(BuildCli, GpuSmokeRefusesAHostWithoutAGpu) {
  if (fs::exists("/dev/nvidia0")) GTEST_SKIP() << "this host has a GPU: `make gpu-smoke` runs the real check";
  const auto dir = fresh_dir("gpu-smoke");
  const auto script = shell_quote(source_path("scripts/gpu-smoke.sh").string());
  const auto state = shell_quote((dir / "state").string());
  // A PATH with nvidia-smi that finds no GPU, as on a host with the driver's tools but no card.
  fs::create_directories(dir / "bin");
  run_shell("printf '#!/bin/sh\\necho \"NVIDIA-SMI has failed\" >&2; exit 9\\n' >" +
            shell_quote((dir / "bin" / "nvidia-smi").string()) + " && chmod +x " +
            shell_quote((dir / "bin" / "nvidia-smi").string()));
  const auto no_gpu = run_shell("PATH=" + shell_quote((dir / "bin").string()) + ":/usr/bin:/bin RELFORGE=" +
                                shell_quote(relforge_binary()) + " STATE=" + state + " bash " + script);
  EXPECT_EQ(no_gpu.exit_code, 2) << no_gpu.out << no_gpu.err;
  EXPECT_NE(no_gpu.err.find("no NVIDIA GPU answers nvidia-smi: run this on a GPU runner"), std::string::npos)
      << no_gpu.err;
  EXPECT_FALSE(fs::exists(dir / "state" / "wheels"));
  const auto no_binary = run_shell("RELFORGE=" + shell_quote((dir / "missing").string()) + " bash " + script);
  EXPECT_EQ(no_binary.exit_code, 2) << no_binary.err;
  EXPECT_NE(no_binary.err.find("no relforge binary"), std::string::npos) << no_binary.err;
  fs::remove_all(dir);
}

TEST(BuildCli, BuildsTheCp311Cu130WheelForRealSlow) {
  if (!fs::exists("/usr/local/cuda/bin/nvcc"))
    GTEST_SKIP() << "no nvcc at /usr/local/cuda/bin/nvcc: the CUDA 13.0 cell has no runner here";
  if (!has_python311()) GTEST_SKIP() << "no /usr/bin/python3.11 with headers (install python3-dev)";
  const auto dir = fresh_dir("cu130");
  const auto result = relforge("build --config " + k_config + " --cell 3.11-cu130 --state-dir " +
                               shell_quote((dir / "state").string()) + " --json");
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  const auto cell = nlohmann::json::parse(result.out)["cells"][0];
  EXPECT_EQ(cell["result"], "succeeded") << result.out;
  const std::string wheel = cell["wheel"];
  EXPECT_EQ(fs::path(wheel).filename(), "minitensor-0.3.0+cu130-cp311-cp311-manylinux_2_28_x86_64.whl");
  check_with_real_clients(wheel, dir);
  expect_cuda_add(dir / "state", "3.11-cu130",
                  "no CUDA device is visible (no driver, or CUDA_VISIBLE_DEVICES hides it)");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace relforge::test
