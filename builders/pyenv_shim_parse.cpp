#include <string>

#include "builders/pyenv_shim.hpp"
#include "core/text.hpp"

namespace relforge::builders {

std::optional<std::filesystem::path> parse_pyenv_shim(std::string_view head) {
  if (!head.starts_with("#!")) return std::nullopt;
  constexpr std::string_view k_export = "\nexport PYENV_ROOT=\"";
  const auto at = head.find(k_export);
  if (at == std::string_view::npos) return std::nullopt;
  const auto start = at + k_export.size();
  const auto end = head.find_first_of("\"\n", start);
  if (end == std::string_view::npos || end == start || head[end] != '"') return std::nullopt;
  const std::string root(head.substr(start, end - start));
  // The line that hands the command to pyenv is what makes it a shim rather than any script.
  if (head.find("\nexec \"" + root + "/libexec/pyenv\" exec \"$program\"") == std::string_view::npos)
    return std::nullopt;
  return std::filesystem::path(root);
}

std::optional<std::vector<std::string>> parse_pyenv_version_file(std::string_view text) {
  std::vector<std::string> versions;
  for (const auto line : core::split(text, '\n')) {
    if (line.size() >= 1024) return std::nullopt;  // pyenv reads 1,023 bytes a line
    const auto start = line.find_first_not_of(" \t\r");
    if (start == std::string_view::npos) continue;
    const auto word = line.substr(start, line.find_first_of(" \t\r", start) - start);
    if (word.starts_with('#')) continue;
    // pyenv accepts such a name only if it stays inside $PYENV_ROOT/versions: left to the shim.
    if (word == ".." || word.find('/') != std::string_view::npos) return std::nullopt;
    versions.emplace_back(word);
  }
  return versions;
}

}  // namespace relforge::builders
