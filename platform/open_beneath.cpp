#include "platform/open_beneath.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "platform/unique_fd.hpp"

namespace relforge::platform {
namespace {

tl::unexpected<Error> open_error(int error, const std::string& what) {
  // ELOOP: a symlink under O_NOFOLLOW; ENOTDIR: a file where a folder was expected;
  // ENAMETOOLONG: a segment over NAME_MAX, which no file can have.
  if (error == ENOENT || error == ELOOP || error == ENOTDIR || error == EACCES || error == ENXIO ||
      error == ENAMETOOLONG) {
    return fail(ErrorCategory::not_found, what + " not found");
  }
  return fail(ErrorCategory::io, "cannot open " + what + ": " + std::strerror(error));
}

}  // namespace

OpenEntry::OpenEntry(OpenEntry&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1)),
      m_kind(other.m_kind),
      m_size(other.m_size),
      m_mtime_ns(other.m_mtime_ns) {}

OpenEntry& OpenEntry::operator=(OpenEntry&& other) noexcept {
  if (this != &other) {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = std::exchange(other.m_fd, -1);
    m_kind = other.m_kind;
    m_size = other.m_size;
    m_mtime_ns = other.m_mtime_ns;
  }
  return *this;
}

OpenEntry::~OpenEntry() {
  if (m_fd >= 0) ::close(m_fd);
}

std::FILE* OpenEntry::duplicate_stream() const {
  const int fd = ::fcntl(m_fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return nullptr;
  std::FILE* file = ::fdopen(fd, "rb");
  if (file == nullptr) ::close(fd);
  return file;
}

Result<std::string> OpenEntry::read_at(std::uint64_t offset, std::size_t length) const {
  std::string out(length, '\0');
  std::size_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(m_fd, out.data() + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return fail(ErrorCategory::io, std::string("cannot read an open file: ") + std::strerror(errno));
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  out.resize(done);
  return out;
}

Result<OpenEntry> open_beneath(const std::filesystem::path& root, const std::vector<std::string>& segments) {
  UniqueFd current(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (current.get() < 0) return open_error(errno, "the served root " + root.string());
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::string& name = segments[i];
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
        name.find('\0') != std::string::npos) {
      return fail(ErrorCategory::not_found, "path segment not found");
    }
    const bool last = i + 1 == segments.size();
    // O_NONBLOCK: opening a FIFO someone planted must not hang the request thread.
    const int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (last ? 0 : O_DIRECTORY);
    const int fd = ::openat(current.get(), name.c_str(), flags);
    if (fd < 0) return open_error(errno, "path segment");
    current.reset(fd);
  }
  struct stat info {};
  if (::fstat(current.get(), &info) != 0) return open_error(errno, "path");
  EntryKind kind;
  if (S_ISREG(info.st_mode)) {
    kind = EntryKind::file;
  } else if (S_ISDIR(info.st_mode)) {
    kind = EntryKind::folder;
  } else {
    return fail(ErrorCategory::not_found, "not a regular file or folder");
  }
  const std::int64_t mtime =
      static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
  return OpenEntry(current.release(), kind, static_cast<std::uint64_t>(info.st_size), mtime);
}

Result<OpenEntry> open_file(const std::filesystem::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) return open_error(errno, path.string());
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return open_error(errno, path.string());
  if (!S_ISREG(info.st_mode)) return fail(ErrorCategory::not_found, path.string() + " is not a file");
  const std::int64_t mtime =
      static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec;
  return OpenEntry(fd.release(), EntryKind::file, static_cast<std::uint64_t>(info.st_size), mtime);
}

}  // namespace relforge::platform
