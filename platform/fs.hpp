#pragma once
// File-system operations with errors as values. Writes are atomic: a reader sees the old file or
// the new one, never a half-written one, and a failed write leaves nothing behind.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/error.hpp"

namespace relforge::platform {

Result<std::string> read_file(const std::filesystem::path& path);

// fsync: the file and then its directory; file_only: the file (the caller syncs the directory once,
// after its last write there); no_fsync: neither (for data that can be re-created).
enum class Durability { fsync, file_only, no_fsync };

// A suffix for a temp name beside a final one that no other process or thread picks at the same
// time: ".tmp.<pid>.<random>".
std::string temp_suffix();

// Writes `content` to a temp file beside `path`, fsyncs it (unless no_fsync) and renames it over
// `path`; the parent directory must exist. The temp file is created (O_EXCL) with `mode` (less the
// umask), so a secret written with 0600 is never readable by others, not even for a moment.
Status write_file_atomic(const std::filesystem::path& path, std::string_view content,
                         Durability durability = Durability::fsync, unsigned mode = 0644);

// True when the file at `path` holds exactly `content`; false when it differs, is missing or unreadable.
bool file_has_content(const std::filesystem::path& path, std::string_view content);

// A regular file (after links) this process may execute.
bool is_executable_file(const std::filesystem::path& path);

// Creates the folder `path` (its parent must exist) with mode 0700 from the start, whatever the
// umask: never wider, not even for a moment. false when it existed already (left as it is).
Result<bool> create_private_directory(const std::filesystem::path& path);

// fsyncs an existing file (its data and size reach the disk).
std::error_code fsync_path(const std::filesystem::path& path);

// An open directory: lists its entries and reads files in it by name through one handle, so
// reading many small files costs no path walk each (the channel index reads one per wheel).
class Directory {
public:
  static Result<Directory> open(const std::filesystem::path& path);
  Directory(Directory&& other) noexcept;
  Directory& operator=(Directory&& other) noexcept;
  Directory(const Directory&) = delete;
  Directory& operator=(const Directory&) = delete;
  ~Directory();

  // Entry names, unsorted, without "." and "..".
  Result<std::vector<std::string>> names() const;
  Result<std::string> read(const std::string& name) const;
  // read() of every name, handed to visit(i, ...) in order; a visit error stops the walk. `ring`
  // batches them through io_uring (one system call per 64 files) where the kernel allows it and
  // falls back to one_by_one where it does not (seccomp, io_uring_disabled, kernels before 5.19).
  enum class Batching { ring, one_by_one };
  using ReadVisitor = std::function<Status(std::size_t, Result<std::string>)>;
  Status read_each(const std::vector<std::string>& names, const ReadVisitor& visit,
                   Batching batching = Batching::ring) const;
  // write_file_atomic and file_has_content for the entry `name` (no '/'), through this handle.
  Status write_atomic(const std::string& name, std::string_view content,
                      Durability durability = Durability::fsync, unsigned mode = 0644) const;
  bool has_content(const std::string& name, std::string_view content) const;
  const std::filesystem::path& path() const { return m_path; }

private:
  Directory(int fd, std::filesystem::path path) : m_fd(fd), m_path(std::move(path)) {}
  int m_fd = -1;
  std::filesystem::path m_path;
};

// Appends to a file, creating it if needed (for logs and $GITHUB_OUTPUT-style files).
Status append_file(const std::filesystem::path& path, std::string_view content);

}  // namespace relforge::platform
