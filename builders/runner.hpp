#pragma once
// A runner: a machine that can build cells, described by labels and capabilities (OS, arch,
// Python interpreters, accelerator toolkits, GPUs, slots). `detect_local_runner` describes this one.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

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
};

// Finds every python3.X[t] (asking each for its version; per version one interpreter: with
// headers first, then in a preferred folder, then the first found), nvcc, hipcc and icpx.
Result<Runner> detect_local_runner(const DetectOptions& options);

// "Cuda compilation tools, release 13.0, V13.0.48" → "13.0"; "" when absent.
std::string parse_nvcc_version(const std::string& output);

}  // namespace relforge::builders
