#pragma once
// The [fleet] table of relforge.toml (or the file its `include` names): builder image definitions
// and runner classes (docs/fleet.md). load_fleet checks every key, type and copied file.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "matrix/config.hpp"

namespace relforge::runner_images {

// What `matrix expand` does with the cell's container_image field when images are defined.
enum class CellImage { content_tag, matrix };

struct CudaPins {
  std::string version;  // the runfile version, e.g. 12.6.3
  std::string driver;   // the driver string in the runfile name, e.g. 560.35.05
  std::string cudnn, nccl, nvshmem, cusparselt;
  std::string script;  // the file that installs them (relative to the fleet file)
};

struct RocmPins {
  std::string version;
  std::vector<std::string> gfx;  // GPU targets: PYTORCH_ROCM_ARCH
  std::string script;
};

struct OneApiPins {
  std::string version;
  std::string script;
};

struct ImageDef {
  std::string name;                       // repository, e.g. pytorch/manylinux2_28-builder
  std::string variant;                    // e.g. cuda12.6
  std::vector<std::string> accelerators;  // values of the fleet's accelerator axis it serves
  std::vector<matrix::Condition> when;    // further conditions on the cell's fields
  std::string base;                       // the FROM image of the base stage
  std::string gcc_toolset;
  std::string base_script;           // run in the base stage
  std::vector<std::string> pythons;  // "3.12", "3.14t"
  std::string python_script;         // checks/links the Pythons in the final stage
  std::optional<CudaPins> cuda;
  std::optional<RocmPins> rocm;
  std::optional<OneApiPins> oneapi;
  std::vector<std::string> files;  // further files copied into the final stage
  std::vector<std::string> steps;  // RUN lines of the final stage
  matrix::Location where;

  std::string display() const { return name + ":" + variant; }
  std::string toolkit_type() const;               // cuda, rocm, xpu or cpu
  std::vector<std::string> copied_files() const;  // every file it copies, in Dockerfile order
};

struct GpuSpec {
  std::string type;    // e.g. a10g
  std::string vendor;  // nvidia, amd or intel
  std::int64_t count = 0;
};

struct RunnerClass {
  std::string label;
  std::string os;    // linux, windows, macos
  std::string arch;  // x86_64, arm64
  std::int64_t vcpu = 0;
  std::int64_t memory_gib = 0;
  GpuSpec gpu;
  std::int64_t disk_gib = 0;
  bool ephemeral = false;
  std::int64_t min = 0;
  std::int64_t max = 0;
  std::string instance_type;  // scale-config's instance_type (cloud machine type)
  std::string ami;            // scale-config's AMI name filter
  matrix::Location where;

  bool has_gpu() const { return gpu.count > 0; }
};

struct ArcSettings {
  std::string github_config_url = "https://github.com/ORG";
  std::string github_config_secret = "arc-github-app";
  std::string runner_image = "ghcr.io/actions/actions-runner:latest";
};

struct FleetSpec {
  std::string file;                   // the file the fleet came from (relforge.toml or its include)
  std::filesystem::path dir;          // copied files are relative to this folder
  std::string accelerator = "accel";  // the axis whose value picks an image
  std::string runs_on = "runner";     // the cell field holding its runs-on label
  CellImage cell_image = CellImage::content_tag;
  std::vector<matrix::Condition> image_cells;  // empty: every cell needs an image
  std::vector<matrix::Condition> gpu_cells;    // empty: {accelerator}.type is cuda, rocm or xpu
  ArcSettings arc;
  std::vector<ImageDef> images;
  std::vector<RunnerClass> runner_classes;
  std::filesystem::path state_dir = ".relforge";  // [build] state_dir: the lock goes there

  const RunnerClass* find_class(std::string_view label) const;
};

// The fleet of a relforge.toml: nullopt when it has no [fleet] table. Copied files must exist
// (invalid_input naming the image and the path); the matrix spec checks accelerator values.
Result<std::optional<FleetSpec>> load_fleet(const std::filesystem::path& config,
                                            const matrix::MatrixSpec& spec);

}  // namespace relforge::runner_images
