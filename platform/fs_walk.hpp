#pragma once
// A walk over the regular files below a folder that looks names up relative to their folder's
// descriptor (no path walk per file). Folder symlinks are not followed; file symlinks are.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::platform {

struct WalkedFile {
  std::string key;  // `key_prefix` + the path below the start folder, '/'-separated
  std::uint64_t size = 0;
};

struct WalkFilter {
  // Called with a folder's key (ending in '/'): descend into it?
  std::function<bool(std::string_view folder_key)> enter;
  // Called with a file's key and its name: keep it?
  std::function<bool(std::string_view key, std::string_view name)> keep;
  // False: sizes are left 0 and only links (or entries of no reported type) are stat'ed, which is
  // what a walk that needs names alone saves (one system call per file).
  bool sizes = true;
};

// Appends the kept files below `start` (keys start with `key_prefix`, "" or ending in '/') to `out`,
// unsorted. A `start` that does not exist or is not a folder yields nothing; other failures are io.
Status walk_files(const std::filesystem::path& start, const std::string& key_prefix, const WalkFilter& filter,
                  std::vector<WalkedFile>& out);

// The names of the regular files directly inside `folder` (file symlinks followed, folders and
// dangling links left out), unsorted; a `folder` that does not exist or is not a folder yields none.
// Only links (or file systems that report no type) are stat'ed.
Result<std::vector<std::string>> regular_file_names(const std::filesystem::path& folder);

}  // namespace relforge::platform
