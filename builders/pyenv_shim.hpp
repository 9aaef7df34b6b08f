#pragma once
// pyenv shims seen through without running them: a shim is a bash script that runs a dozen pyenv
// scripts (~0.15 s of CPU) to pick an interpreter from pyenv's version settings; those settings are
// read here instead, and the shim is asked itself only where they are beyond this reading.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace relforge::builders {

// What a shim would decide with, besides PATH: PYENV_VERSION, PYENV_DIR (where .python-version is
// looked for first) and the working folder.
struct PyenvSettings {
  std::optional<std::string> version;  // PYENV_VERSION when set and not empty
  std::filesystem::path dir;           // PYENV_DIR, else the working folder
  std::filesystem::path cwd;
};

// The PYENV_ROOT written into the pyenv shim at `path`; nullopt when it is not one (or not a
// regular file: a FIFO on PATH is not opened).
std::optional<std::filesystem::path> pyenv_shim_root(const std::filesystem::path& path);

// The pure halves (pyenv_shim_parse.cpp): the root out of a shim's first 4 KiB, and the versions
// of a version file as pyenv-version-file-read takes them (the first word of each line that is not
// blank or a comment); nullopt for a file pyenv would read differently (a path-like name, a line
// over 1,023 bytes).
std::optional<std::filesystem::path> parse_pyenv_shim(std::string_view head);
std::optional<std::vector<std::string>> parse_pyenv_version_file(std::string_view text);

enum class ShimTarget {
  interpreter,  // `path` is the interpreter the shim runs now
  system,       // it runs a copy on PATH outside pyenv's shims, which detection finds there
  none,         // it fails: no active version has the command
  unsure,       // a version prefix, a path-like name or an unreadable file: ask the shim
};
struct ShimResolution {
  ShimTarget target = ShimTarget::unsure;
  std::filesystem::path path;
};

// What `root`'s shim for `command` runs under `settings` with PATH's folders `path_dirs` (where
// "system" looks): pyenv's own order (PYENV_VERSION, the nearest .python-version,
// $PYENV_ROOT/version, then "system"). pyenv's hooks are not run.
ShimResolution resolve_pyenv_shim(const std::filesystem::path& root, const std::string& command,
                                  const PyenvSettings& settings,
                                  const std::vector<std::filesystem::path>& path_dirs);

}  // namespace relforge::builders
