#include "builders/runner.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <map>
#include <set>
#include <system_error>
#include <thread>

#include "builders/pyenv_shim.hpp"
#include "core/text.hpp"
#include "platform/digest.hpp"
#include "platform/process.hpp"

namespace relforge::builders {
namespace {

std::optional<std::string> run_for_output(const std::filesystem::path& program, const std::string& argument) {
  platform::ProcessSpec spec;
  spec.argv = {program.string(), argument};
  spec.timeout = std::chrono::milliseconds(20000);
  auto result = platform::run_process(spec);
  if (!result || result->exit_code != 0) return std::nullopt;
  return result->out + result->err;
}

}  // namespace

const Interpreter* Runner::python(const std::string& version) const {
  for (const auto& interpreter : pythons)
    if (interpreter.version == version) return &interpreter;
  return nullptr;
}

const Toolkit* Runner::toolkit(const std::string& kind) const {
  for (const auto& found : toolkits)
    if (found.kind == kind) return &found;
  return nullptr;
}

namespace {

std::size_t digits_at(std::string_view text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
  return end - at;
}

// "3.12" or "3.13t" out of a file name "python3.12" / "python3.13t"; "" for any other name.
std::string python_name_version(std::string_view name) {
  if (!name.starts_with("python3.")) return "";
  const std::string_view version = name.substr(6);
  const std::size_t minor = digits_at(version, 2);
  if (minor == 0) return "";
  const std::size_t end = 2 + minor;
  if (end == version.size() || (end + 1 == version.size() && version[end] == 't'))
    return std::string(version);
  return "";
}

struct Candidate {
  std::filesystem::path path;
  std::string named;    // the version its name claims
  std::string version;  // what it answered; "" when it failed or lied
  bool headers = false;
};

// A pyenv shim is replaced by the interpreter it runs now (asked directly, ~20x faster, and a path
// that does not change with the working folder); one that would run a copy on PATH (a candidate of
// its own) or nothing is dropped; only a shim whose choice the settings leave open is still asked.
void see_through_pyenv_shims(std::vector<Candidate>& candidates, const DetectOptions& options) {
  std::vector<Candidate> kept;
  std::set<std::filesystem::path> paths;
  for (auto& candidate : candidates) {
    if (const auto root = pyenv_shim_root(candidate.path)) {
      const auto resolved =
          resolve_pyenv_shim(*root, candidate.path.filename().string(), options.pyenv, options.search_dirs);
      if (resolved.target == ShimTarget::system || resolved.target == ShimTarget::none) continue;
      if (resolved.target == ShimTarget::interpreter) candidate.path = resolved.path;
    }
    if (paths.insert(candidate.path).second) kept.push_back(std::move(candidate));
  }
  candidates = std::move(kept);
}

}  // namespace

// The first "release X.Y" in nvcc --version's output.
std::string parse_nvcc_version(const std::string& output) {
  const std::string_view text = output;
  for (auto at = text.find("release "); at != std::string_view::npos; at = text.find("release ", at + 1)) {
    const std::size_t major = digits_at(text, at + 8);
    if (major == 0 || at + 8 + major >= text.size() || text[at + 8 + major] != '.') continue;
    const std::size_t minor = digits_at(text, at + 9 + major);
    if (minor > 0) return std::string(text.substr(at + 8, major + 1 + minor));
  }
  return "";
}

Result<Runner> detect_local_runner(const DetectOptions& options) {
  Runner runner;
  runner.name = "local";
  runner.source = RunnerSource::detected;
  runner.slots = std::max(1, options.cpus);
  runner.labels = {"local"};
  // Per version the best-ranked interpreter wins: development headers first (a pyenv shim or a
  // venv without Python.h cannot build extensions), then a preferred folder (the distribution's
  // own /usr/bin/python3.X, not a shim that resolves differently per directory), then the first.
  auto preferred = [&options](const std::filesystem::path& path) {
    for (const auto& dir : options.preferred_dirs)
      if (path.parent_path() == dir) return 1;
    return 0;
  };
  std::vector<Candidate> candidates;
  for (const auto& dir : options.search_dirs) {
    std::error_code ec;
    std::vector<std::filesystem::path> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) names.push_back(entry.path());
    std::sort(names.begin(), names.end());
    for (const auto& path : names) {
      auto named = python_name_version(path.filename().string());
      if (!named.empty()) candidates.push_back({path, std::move(named), "", false});
    }
  }
  see_through_pyenv_shims(candidates, options);
  // Ask every interpreter itself (a name can lie: a dangling link, a wrapper, a shim for a version
  // it does not have), several at once: a shim takes a while to answer.
  std::atomic<std::size_t> next{0};
  auto ask = [&candidates, &next] {
    for (std::size_t i = next++; i < candidates.size(); i = next++) {
      auto& candidate = candidates[i];
      platform::ProcessSpec spec;
      spec.argv = {candidate.path.string(), "-c",
                   "import os,sys,sysconfig;print('%d.%d%s'%(sys.version_info[0],sys.version_info[1],"
                   "'t' if sysconfig.get_config_var('Py_GIL_DISABLED') else ''));"
                   "print(os.path.exists(os.path.join(sysconfig.get_paths()['include'],'Python.h')))"};
      spec.timeout = std::chrono::milliseconds(20000);
      auto result = platform::run_process(spec);
      if (!result || result->exit_code != 0) continue;
      const auto lines = core::split(result->out, '\n');
      if (lines.size() < 2 || lines[0] != candidate.named) continue;
      candidate.version = std::string(lines[0]);
      candidate.headers = core::trim(lines[1]) == "True";
    }
  };
  std::vector<std::thread> askers;
  for (std::size_t i = 0; i < std::min<std::size_t>(candidates.size(), 8); ++i) askers.emplace_back(ask);
  for (auto& asker : askers) asker.join();

  std::map<std::string, std::pair<Interpreter, int>> found;  // version -> interpreter, rank
  std::vector<std::string> order;
  for (const auto& candidate : candidates) {
    if (candidate.version.empty()) continue;
    const int rank = (candidate.headers ? 2 : 0) + preferred(candidate.path);
    const auto known = found.find(candidate.version);
    if (known == found.end()) order.push_back(candidate.version);
    if (known == found.end() || rank > known->second.second)
      found[candidate.version] = {Interpreter{candidate.version, candidate.path}, rank};
  }
  for (const auto& version : order) runner.pythons.push_back(found[version].first);
  std::vector<std::filesystem::path> dirs = options.search_dirs;
  dirs.insert(dirs.end(), options.toolkit_dirs.begin(), options.toolkit_dirs.end());
  for (const auto& [kind, program] :
       {std::pair<std::string, std::string>{"cuda", "nvcc"}, {"rocm", "hipcc"}, {"xpu", "icpx"}}) {
    for (const auto& dir : dirs) {
      std::error_code ec;
      const auto path = dir / program;
      if (!std::filesystem::is_regular_file(path, ec)) continue;
      const auto output = run_for_output(path, "--version");
      std::string version;
      if (output && kind == "cuda") version = parse_nvcc_version(*output);
      runner.toolkits.push_back({kind, version, path});
      break;
    }
  }
  detect_gpus(options.dev_dir, runner);
  return runner;
}

void detect_gpus(const std::filesystem::path& dev_dir, Runner& runner) {
  // Device nodes named PREFIX followed by digits only: nvidia0 (not nvidiactl), renderD128.
  auto count = [](const std::filesystem::path& dir, std::string_view prefix) {
    int found = 0;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
          std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                      [](unsigned char c) { return std::isdigit(c) != 0; }))
        ++found;
    }
    return found;
  };
  std::error_code ec;
  if (const int cards = count(dev_dir, "nvidia"); cards > 0) {
    runner.gpus = cards;
    runner.gpu_vendor = "nvidia";
  } else if (std::filesystem::exists(dev_dir / "kfd", ec)) {
    runner.gpus = std::max(1, count(dev_dir / "dri", "renderD"));
    runner.gpu_vendor = "amd";
  }
}

std::string container_runtime_name(ContainerRuntime runtime) {
  switch (runtime) {
    case ContainerRuntime::none:
      return "none";
    case ContainerRuntime::docker:
      return "docker";
    case ContainerRuntime::podman:
      return "podman";
  }
  return "none";
}

std::vector<std::string> container_run_argv(const ContainerRun& run) {
  std::vector<std::string> argv{container_runtime_name(run.runtime), "run", "--rm", "--name", run.name};
  argv.insert(argv.end(), {"--volume", run.source.string() + ":" + k_container_source + ":ro", "--volume",
                           run.work.string() + ":" + k_container_work, "--workdir", k_container_work});
  if (run.accel_type == "cuda") {
    if (run.runtime == ContainerRuntime::docker)
      argv.insert(argv.end(), {"--gpus", "all"});
    else
      argv.insert(argv.end(), {"--device", "nvidia.com/gpu=all"});
  } else if (run.accel_type == "rocm") {
    argv.insert(argv.end(), {"--device", "/dev/kfd", "--device", "/dev/dri", "--group-add", "video"});
  } else if (run.accel_type == "xpu") {
    argv.insert(argv.end(), {"--device", "/dev/dri"});
  }
  argv.insert(argv.end(), {"--env", "HOME=" + run.home});
  for (const auto& name : run.env_names) argv.insert(argv.end(), {"--env", name});
  argv.push_back(run.image);
  argv.insert(argv.end(), run.command.begin(), run.command.end());
  return argv;
}

std::string container_name(const std::string& cell_id, const std::filesystem::path& state_dir) {
  std::string name = "relforge-";
  for (const char c : cell_id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '.' || c == '-';
    name += ok ? c : '_';
  }
  platform::Sha256 hasher;
  hasher.update(state_dir.string());
  return name + "-" + platform::to_hex(hasher.finish()).substr(0, 8);
}

std::optional<std::filesystem::path> find_on_path(const std::string& program, const std::string& path_env) {
  for (const auto dir : core::split(path_env, ':')) {
    if (dir.empty()) continue;
    const auto path = std::filesystem::path(std::string(dir)) / program;
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    constexpr auto k_exec = std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec |
                            std::filesystem::perms::others_exec;
    if (!ec && std::filesystem::is_regular_file(status) &&
        (status.permissions() & k_exec) != std::filesystem::perms::none)
      return path;
  }
  return std::nullopt;
}

}  // namespace relforge::builders
