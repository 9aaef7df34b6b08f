#pragma once
// A runner: a machine that can build cells, described by labels and capabilities (OS, arch,
// Python interpreters, accelerator toolkits, GPUs, slots). `detect_local_runner` describes this one.
// A container runner runs each cell's recipe in the cell's image with docker or podman.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "builders/pyenv_shim.hpp"
#include "core/error.hpp"

namespace relforge::builders {

struct Interpreter {
  std::string version;  // "3.11" or "3.13t"
  std::filesystem::path path;
};

struct Toolkit {
  std::string kind;     // "cuda" (nvcc), "rocm" (hipcc), "xpu" (icpx)
  std::string version;  // "13.0"; "" when unknown
  std::filesystem::path path;
};

enum class RunnerSource { detected, declared };

struct Runner {
  std::string name;
  std::vector<std::string> labels;
  std::string os = "linux";
  std::string arch = "x86_64";
  std::vector<Interpreter> pythons;
  std::vector<Toolkit> toolkits;
  int gpus = 0;
  std::string gpu_vendor;  // "nvidia" (/dev/nvidiaN), "amd" (/dev/kfd); "" without GPUs
  int slots = 1;
  RunnerSource source = RunnerSource::declared;

  const Interpreter* python(const std::string& version) const;
  const Toolkit* toolkit(const std::string& kind) const;
};

struct DetectOptions {
  std::vector<std::filesystem::path> search_dirs;   // PATH's folders, then /usr/bin
  std::vector<std::filesystem::path> toolkit_dirs;  // e.g. /usr/local/cuda/bin, /opt/rocm/bin
  // Of several copies of one python3.X, one in these folders wins over pyenv shims, venvs and
  // other copies (after having development headers, which building an extension needs).
  std::vector<std::filesystem::path> preferred_dirs{"/usr/bin"};
  int cpus = 1;
  std::filesystem::path dev_dir = "/dev";  // GPUs are counted from its device nodes
  PyenvSettings pyenv;                     // how pyenv shims on PATH choose
};

// Finds every python3.X[t] (asking each for its version, pyenv shims seen through; per version one
// interpreter: with headers first, then in a preferred folder, then the first found), nvcc, hipcc, icpx.
Result<Runner> detect_local_runner(const DetectOptions& options);

// The GPUs under `dev_dir`: /dev/nvidia0.. (nvidia), else /dev/kfd with /dev/dri/renderD* (amd).
void detect_gpus(const std::filesystem::path& dev_dir, Runner& runner);

// ---- containers ----

enum class ContainerRuntime { none, docker, podman };
std::string container_runtime_name(ContainerRuntime runtime);  // "none", "docker", "podman"

inline constexpr const char* k_container_source = "/relforge/src";  // the source, read-only
inline constexpr const char* k_container_work = "/relforge/work";   // the cell's work dir (writable)

struct ContainerRun {
  ContainerRuntime runtime = ContainerRuntime::docker;
  std::string name;  // --name, so a timeout can `docker kill` it
  std::string image;
  std::filesystem::path source;         // host folder mounted read-only at k_container_source
  std::filesystem::path work;           // host folder mounted at k_container_work (the output in it)
  std::vector<std::string> env_names;   // passed as `-e NAME`: values come from the client's environment
  std::string home = k_container_work;  // HOME inside: the client itself needs the host's HOME
  std::string accel_type;               // cuda, rocm, xpu: the GPU flags; cpu or "": none
  std::vector<std::string> command;     // the recipe's argv, paths already inside the container
};

// The `docker run` / `podman run` argv: --rm, --name, mounts, --workdir, -e lists, GPU flags
// (docker --gpus all; podman --device nvidia.com/gpu=all; ROCm /dev/kfd + /dev/dri + video).
std::vector<std::string> container_run_argv(const ContainerRun& run);

// "relforge-<cell, sanitized>-<8 hex of the state dir>": stable per cell and build folder.
std::string container_name(const std::string& cell_id, const std::filesystem::path& state_dir);

// The runtime's program in one of PATH's folders; nullopt when none has it.
std::optional<std::filesystem::path> find_on_path(const std::string& program, const std::string& path_env);

// "Cuda compilation tools, release 13.0, V13.0.48" → "13.0"; "" when absent.
std::string parse_nvcc_version(const std::string& output);

}  // namespace relforge::builders
