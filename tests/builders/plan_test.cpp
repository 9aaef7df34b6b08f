#include "builders/plan.hpp"

#include <gtest/gtest.h>

#include "tests/builders/support.hpp"

namespace relforge::builders {
namespace {

TEST(BuildPlan, AssignsCellsOrSaysExactlyWhyNot) {
  auto local = test::local_runner();
  local.toolkits = {{"cuda", "13.0", "/usr/local/cuda/bin/nvcc"}};
  Runner gpu;
  gpu.name = "gpu-a10g";
  gpu.labels = {"linux.g5.4xlarge.nvidia.gpu"};
  gpu.pythons = {{"3.11", "python3.11"}};
  gpu.toolkits = {{"cuda", "12.6", ""}};
  const auto cells = test::cells("\"3.11\", \"3.12\"");
  const std::vector<Runner> runners = {local, gpu};
  const auto plan = plan_cells(cells, runners);
  ASSERT_EQ(plan.size(), 6u);
  EXPECT_EQ(plan[0].cell_id, "3.11-cpu");
  ASSERT_NE(plan[0].runner, nullptr);
  EXPECT_EQ(plan[0].runner->name, "local");
  ASSERT_NE(plan[1].runner, nullptr);  // 3.11-cu130: local has nvcc 13.0
  EXPECT_EQ(plan[1].runner->name, "local");
  EXPECT_EQ(plan[2].runner, nullptr);
  EXPECT_EQ(plan[2].reason, "no runner has hipcc 7.2 — available: none");
  EXPECT_EQ(plan[3].reason, "no runner has python3.12 — available: 3.11");
}

TEST(BuildPlan, NamesTheToolkitVersionsThereAre) {
  auto local = test::local_runner();
  local.toolkits = {{"cuda", "12.6", ""}};
  const auto plan = plan_cells(test::cells("\"3.11\""), {local});
  EXPECT_EQ(plan[1].reason, "no runner has nvcc 13.0 — available: nvcc 12.6");
  const auto without = plan_cells(test::cells("\"3.11\""), {test::local_runner()});
  EXPECT_EQ(without[1].reason, "no runner has nvcc 13.0 — available: none");
}

TEST(BuildPlan, MissingOnSaysWhatARunnerLacksAndWhatItHas) {
  auto local = test::local_runner();
  local.toolkits = {{"cuda", "13.0", "/usr/local/cuda/bin/nvcc"}};
  EXPECT_EQ(missing_on(local, {"3.11", "cuda", "12.6"}), "nvcc 12.6 (it has nvcc 13.0)");
  EXPECT_EQ(missing_on(local, {"3.11", "cuda", "13.0"}), "");
  EXPECT_EQ(missing_on(local, {"3.11", "rocm", "7.2"}), "hipcc (it has none)");
  EXPECT_EQ(missing_on(local, {"3.12", "cpu", ""}), "python3.12 (it has 3.11)");
}

TEST(BuildPlan, NvccVersionParsing) {
  EXPECT_EQ(parse_nvcc_version(
                "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 13.0, V13.0.48\n"),
            "13.0");
  EXPECT_EQ(parse_nvcc_version("garbage"), "");
}

}  // namespace
}  // namespace relforge::builders
