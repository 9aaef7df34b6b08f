#pragma once
// A private copy of a file, read once (a regular file only; a FIFO is refused without waiting) and
// hashed on the way, so every later check and copy sees the bytes that were hashed, whatever
// happens to the original meanwhile. The copy is removed with the last owner.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "platform/private_dir.hpp"

namespace relforge::platform {

// Copies the regular file `from` to `to` (created with `mode` less the umask, or truncated) in one
// read, and returns the sha256 of the bytes copied (lower-case hex). A FIFO or device is refused
// without waiting on it.
Result<std::string> copy_file_hashing(const std::filesystem::path& from, const std::filesystem::path& to,
                                      unsigned mode = 0600);

class FileSnapshot {
public:
  // Copies `file` into a new private folder (0700) under the temporary directory, keeping its
  // file name (a signature's subject names the file).
  static Result<std::shared_ptr<const FileSnapshot>> take(const std::filesystem::path& file);
  FileSnapshot(const FileSnapshot&) = delete;
  FileSnapshot& operator=(const FileSnapshot&) = delete;

  const std::filesystem::path& path() const { return m_path; }  // the copy
  const std::filesystem::path& original() const { return m_original; }
  const std::string& sha256() const { return m_sha256; }  // of the copy, lower-case hex
  std::uint64_t size() const { return m_size; }
  // `error` with the copy's path in its message replaced by the original's, for the user.
  Error about_original(const Error& error) const;

private:
  FileSnapshot() = default;
  std::optional<PrivateDir> m_folder;
  std::filesystem::path m_path;
  std::filesystem::path m_original;
  std::string m_sha256;
  std::uint64_t m_size = 0;
};

}  // namespace relforge::platform
