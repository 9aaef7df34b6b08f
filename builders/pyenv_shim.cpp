#include "builders/pyenv_shim.hpp"

#include <fstream>
#include <system_error>

#include "core/text.hpp"
#include "platform/fs.hpp"

namespace relforge::builders {
namespace {

namespace fs = std::filesystem;

// The first `limit` bytes of a regular file ("" for anything else: a FIFO would block).
std::string read_head(const fs::path& path, std::size_t limit) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return "";
  std::ifstream in(path, std::ios::binary);
  std::string text(limit, '\0');
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

// The nearest .python-version from `start` up to the root folder.
std::optional<fs::path> local_version_file(fs::path start) {
  std::error_code ec;
  for (fs::path dir = start;; dir = dir.parent_path()) {
    if (fs::is_regular_file(dir / ".python-version", ec)) return dir / ".python-version";
    if (dir == dir.parent_path() || dir.empty()) return std::nullopt;
  }
}

// pyenv-version-name: PYENV_VERSION, else the nearest .python-version (from PYENV_DIR, then the
// working folder), else $PYENV_ROOT/version; nothing set is "system".
std::optional<std::vector<std::string>> active_versions(const fs::path& root, const PyenvSettings& settings) {
  std::vector<std::string> versions;
  if (settings.version) {
    for (auto part : core::split(*settings.version, ':')) {
      if (part.empty()) return std::nullopt;
      versions.emplace_back(part);
    }
  } else {
    auto file = local_version_file(settings.dir);
    if (!file && settings.dir != settings.cwd) file = local_version_file(settings.cwd);
    constexpr std::size_t k_limit = 64 * 1024;
    const std::string text = read_head(file.value_or(root / "version"), k_limit);
    if (text.size() == k_limit) return std::nullopt;  // pyenv reads on; so does the shim
    auto read = parse_pyenv_version_file(text);
    if (!read) return std::nullopt;
    versions = std::move(*read);
  }
  if (versions.empty()) versions.emplace_back("system");
  return versions;
}

bool on_path_outside_shims(const fs::path& root, const std::string& command,
                           const std::vector<fs::path>& path_dirs) {
  for (const auto& dir : path_dirs) {
    if (dir == root / "shims") continue;
    if (platform::is_executable_file(dir / command)) return true;
  }
  return false;
}

}  // namespace

std::optional<fs::path> pyenv_shim_root(const fs::path& path) {
  return parse_pyenv_shim(read_head(path, 4096));
}

ShimResolution resolve_pyenv_shim(const fs::path& root, const std::string& command,
                                  const PyenvSettings& settings, const std::vector<fs::path>& path_dirs) {
  const auto versions = active_versions(root, settings);
  if (!versions) return {};
  std::error_code ec;
  for (const auto& version : *versions) {
    if (version == "system") {
      if (on_path_outside_shims(root, command, path_dirs)) return {ShimTarget::system, {}};
      continue;
    }
    fs::path prefix = root / "versions" / version;
    if (!fs::is_directory(prefix, ec)) {
      // pyenv also strips "python-" and resolves prefixes ("3.12") to the newest installed match.
      if (!version.starts_with("python-")) return {};
      prefix = root / "versions" / version.substr(7);
      if (!fs::is_directory(prefix, ec)) return {};
    }
    if (platform::is_executable_file(prefix / "bin" / command))
      return {ShimTarget::interpreter, prefix / "bin" / command};
  }
  // pyenv-which tries "system" after the active versions.
  if (on_path_outside_shims(root, command, path_dirs)) return {ShimTarget::system, {}};
  return {ShimTarget::none, {}};
}

}  // namespace relforge::builders
