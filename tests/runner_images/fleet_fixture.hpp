#pragma once
// A small project in a temp folder for the fleet tests: a two-accelerator matrix (cpu, cu126),
// two images, two runner classes and the scripts they copy. Tests edit pieces before load().
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "matrix/config.hpp"
#include "matrix/expand.hpp"
#include "runner_images/fleet.hpp"

namespace relforge::runner_images::test {

namespace fs = std::filesystem;

inline const char* const k_matrix = R"(
[project]
name = "demo"

[matrix]
id = "{python}-{accel}"

[[matrix.axis]]
name = "python"
values = ["3.12", "3.14t"]

[[matrix.axis]]
name = "accel"
values = [
  { value = "cpu", type = "cpu", runner = "linux.cpu" },
  { value = "cu126", type = "cuda", runner = "linux.gpu" },
]

[[matrix.field]]
name = "runner"
template = "{accel.runner}"

[[matrix.field]]
name = "container_image"
template = "demo/builder:{accel}"
)";

inline const char* const k_fleet = R"(
[fleet]
runs_on = "runner"

[fleet.defaults]
name = "demo/builder"
base = "quay.io/pypa/manylinux_2_28_x86_64"
gcc_toolset = "13"
base_script = "images/base.sh"
pythons = ["3.12", "3.14t"]

[[fleet.image]]
variant = "cpu"
accelerators = ["cpu"]

[[fleet.image]]
variant = "cuda12.6"
accelerators = ["cu126"]
cuda = { version = "12.6.3", driver = "560.35.05", cudnn = "9.10.2.21", script = "images/cuda.sh" }

[[fleet.runner_class]]
label = "linux.cpu"
os = "linux"
arch = "x86_64"
vcpu = 8
memory_gib = 16
max = 10

[[fleet.runner_class]]
label = "linux.gpu"
os = "linux"
arch = "x86_64"
vcpu = 16
memory_gib = 64
gpu = { type = "a10g", vendor = "nvidia", count = 1 }
max = 4
)";

class FleetFixture : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-fleet-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "images");
    write("images/base.sh", "#!/bin/sh\necho base\n");
    write("images/cuda.sh", "#!/bin/sh\necho cuda\n");
    m_fleet = k_fleet;
  }
  void TearDown() override { fs::remove_all(m_dir); }

  void write(const std::string& relative, const std::string& text) {
    std::ofstream(m_dir / relative, std::ios::binary) << text;
  }
  // Replaces `from` in the fleet text (the test fails if it is not there).
  void edit(const std::string& from, const std::string& to) {
    ASSERT_NE(m_fleet.find(from), std::string::npos) << from;
    m_fleet = core::replace_all(m_fleet, from, to);
  }
  fs::path config() {
    write("relforge.toml", std::string(k_matrix) + m_fleet);
    return m_dir / "relforge.toml";
  }
  Result<FleetSpec> load() {
    auto spec = matrix::load_spec(config());
    if (!spec) return tl::unexpected(spec.error());
    m_spec = *spec;
    auto fleet = load_fleet(m_dir / "relforge.toml", m_spec);
    if (!fleet) return tl::unexpected(fleet.error());
    if (!*fleet) return fail(ErrorCategory::internal, "no fleet");
    return std::move(**fleet);
  }
  std::vector<matrix::Expansion> expand() {
    auto expansion = matrix::expand(m_spec, "nightly");
    EXPECT_TRUE(expansion) << expansion.error().message();
    return {*expansion};
  }

  fs::path m_dir;
  std::string m_fleet;
  matrix::MatrixSpec m_spec;
};

}  // namespace relforge::runner_images::test
