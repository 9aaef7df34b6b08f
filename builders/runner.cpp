#include "builders/runner.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <system_error>
#include <thread>

#include "core/text.hpp"
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
  struct Candidate {
    std::filesystem::path path;
    std::string named;    // the version its name claims
    std::string version;  // what it answered; "" when it failed or lied
    bool headers = false;
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
  // Ask every interpreter itself (a name can lie: a dangling link, a wrapper, a pyenv shim for a
  // version it does not have), several at once: a shim takes a while to answer.
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
  return runner;
}

}  // namespace relforge::builders
