#pragma once
// Opens a file or folder below a root folder without ever leaving it: each segment is opened
// relative to its parent with O_NOFOLLOW, so a symlink anywhere on the way (or swapped in while
// we walk) is refused, and the caller reads the very inode it checked (fstat on the held fd).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace relforge::platform {

enum class EntryKind { file, folder };

class OpenEntry {
public:
  OpenEntry(OpenEntry&& other) noexcept;
  OpenEntry& operator=(OpenEntry&& other) noexcept;
  OpenEntry(const OpenEntry&) = delete;
  OpenEntry& operator=(const OpenEntry&) = delete;
  ~OpenEntry();

  EntryKind kind() const { return m_kind; }
  std::uint64_t size() const { return m_size; }
  std::int64_t mtime_ns() const { return m_mtime_ns; }
  int fd() const { return m_fd; }
  // Up to `length` bytes at `offset`; fewer only at the end of the file.
  Result<std::string> read_at(std::uint64_t offset, std::size_t length) const;
  Result<std::string> read_all() const { return read_at(0, static_cast<std::size_t>(m_size)); }
  // A stdio stream of its own (a duplicated descriptor) over the same file, for a library that
  // reads through stdio; nullptr when it cannot be made. The caller closes it.
  std::FILE* duplicate_stream() const;

private:
  friend Result<OpenEntry> open_beneath(const std::filesystem::path&, const std::vector<std::string>&);
  friend Result<OpenEntry> open_file(const std::filesystem::path&);
  OpenEntry(int fd, EntryKind kind, std::uint64_t size, std::int64_t mtime_ns)
      : m_fd(fd), m_kind(kind), m_size(size), m_mtime_ns(mtime_ns) {}
  int m_fd = -1;
  EntryKind m_kind = EntryKind::file;
  std::uint64_t m_size = 0;
  std::int64_t m_mtime_ns = 0;
};

// not_found when any segment is missing, a symlink, "", "." or "..", holds a '/', or names
// something that is neither a regular file nor a folder (a FIFO, a device); io for other errors.
Result<OpenEntry> open_beneath(const std::filesystem::path& root, const std::vector<std::string>& segments);

// A regular file at a trusted path (symlinks followed); not_found when it is missing or no file.
Result<OpenEntry> open_file(const std::filesystem::path& path);

}  // namespace relforge::platform
