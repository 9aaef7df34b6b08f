#include "platform/fs.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace relforge::platform {
namespace {

std::string errno_text() { return std::strerror(errno); }

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

std::string temp_suffix() {
  std::random_device device;
  return ".tmp." + std::to_string(::getpid()) + "." + std::to_string(device());
}

}  // namespace

Result<std::string> read_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const auto category = errno == ENOENT ? ErrorCategory::not_found : ErrorCategory::io;
    return fail(category, "cannot open " + path.string() + ": " + errno_text());
  }
  std::string content;
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string message = "cannot read " + path.string() + ": " + errno_text();
      ::close(fd);
      return fail(ErrorCategory::io, message);
    }
    if (n == 0) break;
    content.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return content;
}

Status write_file_atomic(const std::filesystem::path& path, std::string_view content,
                         Durability durability) {
  std::filesystem::path temp = path;
  temp += temp_suffix();
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    return fail(ErrorCategory::io, "cannot create " + temp.string() + ": " + errno_text() +
                                       " (does the directory exist and is it writable?)");
  }
  Status written = write_all(fd, content, temp);
  if (written && durability == Durability::fsync && ::fsync(fd) != 0) {
    written = fail(ErrorCategory::io, "cannot fsync " + temp.string() + ": " + errno_text());
  }
  if (::close(fd) != 0 && written) {
    written = fail(ErrorCategory::io, "cannot close " + temp.string() + ": " + errno_text());
  }
  if (written && ::rename(temp.c_str(), path.c_str()) != 0) {
    written = fail(ErrorCategory::io, "cannot rename " + temp.string() + " to " + path.string() +
                                          ": " + errno_text());
  }
  if (!written) {
    ::unlink(temp.c_str());
    return written;
  }
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

Status append_file(const std::filesystem::path& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return fail(ErrorCategory::io, "cannot open " + path.string() + " for appending: " + errno_text());
  Status written = write_all(fd, content, path);
  ::close(fd);
  return written;
}

}  // namespace relforge::platform
