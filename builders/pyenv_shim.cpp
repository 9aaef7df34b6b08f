#include "builders/pyenv_shim.hpp"

#include <fstream>
#include <system_error>

#include "core/text.hpp"
#include "platform/fs.hpp"

namespace relforge::builders {
namespace {

namespace fs = std::filesystem;

std::string read_head(const fs::path& path, std::size_t limit) {
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

// pyenv-version-file-read: the first word of each line that is not blank or a comment. nullopt for
// what pyenv would read differently or check against its folders (a path-like name, a long line).
std::optional<std::vector<std::string>> read_version_file(const fs::path& file) {
  std::vector<std::string> versions;
  const std::string text = read_head(file, 64 * 1024);
  for (auto line : core::split(text, '\n')) {
    if (line.size() >= 1024) return std::nullopt;
    const auto start = line.find_first_not_of(" \t\r");
    if (start == std::string_view::npos) continue;
    const auto word = line.substr(start, line.find_first_of(" \t\r", start) - start);
    if (word.starts_with('#')) continue;
    if (word == ".." || word.find('/') != std::string_view::npos) return std::nullopt;
    versions.emplace_back(word);
  }
  return versions;
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
    auto read = read_version_file(file.value_or(root / "version"));
    if (!read) return std::nullopt;
    versions = std::move(*read);
  }
  if (versions.empty()) versions.emplace_back("system");
  return versions;
}

bool on_path_outside_shims(const fs::path& root, const std::string& command, const PyenvSettings& settings) {
  for (const auto& dir : settings.path_dirs) {
    if (dir == root / "shims") continue;
    if (platform::is_executable_file(dir / command)) return true;
  }
  return false;
}

}  // namespace

std::optional<fs::path> pyenv_shim_root(const fs::path& path) {
  const std::string text = read_head(path, 4096);
  if (!text.starts_with("#!")) return std::nullopt;
  constexpr std::string_view k_export = "\nexport PYENV_ROOT=\"";
  const auto at = text.find(k_export);
  if (at == std::string::npos) return std::nullopt;
  const auto start = at + k_export.size();
  const auto end = text.find('"', start);
  if (end == std::string::npos || end == start) return std::nullopt;
  const std::string root = text.substr(start, end - start);
  // The line that hands the command to pyenv is what makes it a shim rather than any script.
  if (text.find("\nexec \"" + root + "/libexec/pyenv\" exec \"$program\"") == std::string::npos)
    return std::nullopt;
  return fs::path(root);
}

ShimResolution resolve_pyenv_shim(const fs::path& root, const std::string& command,
                                  const PyenvSettings& settings) {
  const auto versions = active_versions(root, settings);
  if (!versions) return {};
  std::error_code ec;
  for (const auto& version : *versions) {
    if (version == "system") {
      if (on_path_outside_shims(root, command, settings)) return {ShimTarget::system, {}};
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
  if (on_path_outside_shims(root, command, settings)) return {ShimTarget::system, {}};
  return {ShimTarget::none, {}};
}

}  // namespace relforge::builders
