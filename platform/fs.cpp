#include "platform/fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

#include "platform/file_errors.hpp"
#include "platform/interrupt_cleanup.hpp"

namespace relforge::platform {
namespace {

std::string errno_text() {
  return std::strerror(errno);
}

Status write_all(int fd, std::string_view content, const std::filesystem::path& path) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(ErrorCategory::io, "cannot write " + path.string() + ": " + errno_text());
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

}  // namespace

std::string temp_suffix() {
  // Seeded once per thread: opening the random device for every temp name cost more than the write.
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return ".tmp." + std::to_string(::getpid()) + "." + std::to_string(engine() & 0xffffffffu);
}

Result<std::string> read_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return detail::open_failed(path, errno);
  std::string content;
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return detail::read_failed(path, err);
    }
    if (n == 0) break;
    content.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return content;
}

namespace {

// Moves `temp` over `name` as renameat does, for an unsynced file. ext4 (auto_da_alloc) starts
// writing a file's data back when a rename replaces another file with it, which made replacing a
// page cost ~0.8 ms against ~0.4; exchanging the two names and unlinking the old file reads the
// same to readers (the old file or the new) and leaves the write-back to the kernel's schedule.
// false with errno set, as renameat.
bool replace_by_exchange(int dir, const char* temp, const char* name) {
  if (::renameat2(dir, temp, dir, name, RENAME_EXCHANGE) != 0) {
    // No file to replace (ENOENT), or a file system without exchange (EINVAL): a plain rename.
    return ::renameat(dir, temp, dir, name) == 0;
  }
  if (::unlinkat(dir, temp, 0) == 0) return true;
  // `name` was a directory (rename refuses to replace one): put it back where it was, and the new
  // file under its temp name, which the caller removes.
  const int err = errno;
  ::renameat2(dir, temp, dir, name, RENAME_EXCHANGE);
  errno = err;
  return false;
}

// `name` relative to the directory `dir` (AT_FDCWD: the working directory); `path` names it in messages.
Status write_atomic_at(int dir, const std::string& name, const std::filesystem::path& path,
                       std::string_view content, Durability durability, unsigned mode) {
  const std::string temp = name + temp_suffix();
  const auto temp_path = [&] { return path.string() + temp.substr(name.size()); };
  const RemovedOnInterrupt removed_on_interrupt(dir, temp);
  // O_EXCL|O_NOFOLLOW: a file or link planted under the temp name is never written through.
  const int fd = ::openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                          static_cast<mode_t>(mode & 07777));
  if (fd < 0) {
    return fail(ErrorCategory::io, "cannot create " + temp_path() + ": " + errno_text() +
                                       " (does the directory exist and is it writable?)");
  }
  Status written = write_all(fd, content, temp_path());
  if (written && durability != Durability::no_fsync && ::fsync(fd) != 0) {
    written = fail(ErrorCategory::io, "cannot fsync " + temp_path() + ": " + errno_text());
  }
  if (::close(fd) != 0 && written) {
    written = fail(ErrorCategory::io, "cannot close " + temp_path() + ": " + errno_text());
  }
  if (written) {
    const bool moved = durability == Durability::no_fsync
                           ? replace_by_exchange(dir, temp.c_str(), name.c_str())
                           : ::renameat(dir, temp.c_str(), dir, name.c_str()) == 0;
    if (!moved) {
      written = fail(ErrorCategory::io,
                     "cannot rename " + temp_path() + " to " + path.string() + ": " + errno_text());
    }
  }
  if (!written) {
    ::unlinkat(dir, temp.c_str(), 0);
    return written;
  }
  return {};
}

bool has_content_at(int dir, const char* name, std::string_view content) {
  const int fd = ::openat(dir, name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat info {};
  bool same = ::fstat(fd, &info) == 0 && static_cast<std::size_t>(info.st_size) == content.size();
  char buffer[1 << 16];
  while (same && !content.empty()) {
    const ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, content.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || content.substr(0, static_cast<std::size_t>(n)) !=
                      std::string_view(buffer, static_cast<std::size_t>(n))) {
      same = false;
      break;
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  ::close(fd);
  return same;
}

}  // namespace

Status write_file_atomic(const std::filesystem::path& path, std::string_view content, Durability durability,
                         unsigned mode) {
  if (auto status = write_atomic_at(AT_FDCWD, path.string(), path, content, durability, mode); !status)
    return status;
  if (durability == Durability::fsync) {
    // The rename is durable only once the directory entry is on disk.
    const auto parent = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    const int dir = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }
  return {};
}

bool file_has_content(const std::filesystem::path& path, std::string_view content) {
  return has_content_at(AT_FDCWD, path.c_str(), content);
}

std::error_code fsync_path(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {errno, std::generic_category()};
  std::error_code error;
  if (::fsync(fd) != 0) error = {errno, std::generic_category()};
  ::close(fd);
  return error;
}

Result<Directory> Directory::open(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    const auto category = errno == ENOENT ? ErrorCategory::not_found : ErrorCategory::io;
    return fail(category, "cannot open directory " + path.string() + ": " + errno_text());
  }
  return Directory(fd, path);
}

Directory::Directory(Directory&& other) noexcept : m_fd(other.m_fd), m_path(std::move(other.m_path)) {
  other.m_fd = -1;
}

Directory& Directory::operator=(Directory&& other) noexcept {
  if (this != &other) {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = other.m_fd;
    m_path = std::move(other.m_path);
    other.m_fd = -1;
  }
  return *this;
}

Directory::~Directory() {
  if (m_fd >= 0) ::close(m_fd);
}

Result<std::vector<std::string>> Directory::names() const {
  // fdopendir takes ownership of its descriptor, so it gets a duplicate positioned at the start.
  const int fd = ::openat(m_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* dir = fd < 0 ? nullptr : ::fdopendir(fd);
  if (dir == nullptr) {
    if (fd >= 0) ::close(fd);
    return fail(ErrorCategory::io, "cannot list " + m_path.string() + ": " + errno_text());
  }
  std::vector<std::string> out;
  errno = 0;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") out.emplace_back(name);
    errno = 0;
  }
  const int error = errno;
  ::closedir(dir);
  if (error != 0) {
    return fail(ErrorCategory::io, "cannot list " + m_path.string() + ": " + std::strerror(error));
  }
  return out;
}

Result<std::string> Directory::read(const std::string& name) const {
  const int fd = ::openat(m_fd, name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return detail::open_failed(m_path / name, errno);
  // Small files (a sidecar is ~600 bytes) land in a stack buffer and are copied out at their size:
  // growing a string first allocated 8 KiB for each.
  char first[4096];
  ssize_t n = 0;
  do {
    n = ::read(fd, first, sizeof first);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    const int err = errno;
    ::close(fd);
    return detail::read_failed(m_path / name, err);
  }
  if (static_cast<std::size_t>(n) < sizeof first) {
    ::close(fd);
    return std::string(first, static_cast<std::size_t>(n));
  }
  std::string content(first, sizeof first);
  std::size_t size = content.size();
  while (true) {
    if (content.size() - size < 4096) content.resize(std::max<std::size_t>(8192, 2 * content.size()));
    const std::size_t want = content.size() - size;
    const ssize_t got = ::read(fd, content.data() + size, want);
    if (got < 0) {
      if (errno == EINTR) continue;
      const std::string message = "cannot read " + (m_path / name).string() + ": " + errno_text();
      ::close(fd);
      return fail(ErrorCategory::io, message);
    }
    size += static_cast<std::size_t>(got);
    // On Linux a short read of a regular file is its end, which saves the read that returns 0.
    if (got == 0 || static_cast<std::size_t>(got) < want) break;
  }
  ::close(fd);
  content.resize(size);
  return content;
}

Status Directory::write_atomic(const std::string& name, std::string_view content, Durability durability,
                               unsigned mode) const {
  if (auto status = write_atomic_at(m_fd, name, m_path / name, content, durability, mode); !status)
    return status;
  // The rename is durable only once the directory entry is on disk.
  if (durability == Durability::fsync) ::fsync(m_fd);
  return {};
}

bool Directory::has_content(const std::string& name, std::string_view content) const {
  return has_content_at(m_fd, name.c_str(), content);
}

Status append_file(const std::filesystem::path& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return fail(ErrorCategory::io, "cannot open " + path.string() + " for appending: " + errno_text());
  Status written = write_all(fd, content, path);
  ::close(fd);
  return written;
}

bool is_executable_file(const std::filesystem::path& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

Result<bool> create_private_directory(const std::filesystem::path& path) {
  // mkdir applies the umask to 0700, which can only narrow it; a umask that took the owner's own
  // bits is undone by chmod (only then: the mode is never wider than 0700 at any moment).
  if (::mkdir(path.c_str(), 0700) != 0) {
    if (errno == EEXIST) return false;
    return fail(ErrorCategory::io, "cannot create " + path.string() + ": " + errno_text());
  }
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && (info.st_mode & 07777) == 0700) return true;
  if (::chmod(path.c_str(), 0700) != 0)
    return fail(ErrorCategory::io, "cannot set the mode of " + path.string() + ": " + errno_text());
  return true;
}

}  // namespace relforge::platform
