#include "platform/file_chunks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "platform/file_errors.hpp"

namespace relforge::platform {

Result<FileChunks> FileChunks::open(const std::filesystem::path& path, std::size_t chunk) {
  FileChunks out;
  out.m_path = path;
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer; it is refused below instead.
  out.m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (out.m_fd < 0) return detail::open_failed(path, errno);
  struct stat info {};
  if (::fstat(out.m_fd, &info) != 0) return detail::read_failed(path, errno);
  if (!S_ISREG(info.st_mode))
    return fail(ErrorCategory::invalid_input, path.string() + " is not a regular file");
  ::fcntl(out.m_fd, F_SETFL, ::fcntl(out.m_fd, F_GETFL) & ~O_NONBLOCK);
  (void)::posix_fadvise(out.m_fd, 0, 0, POSIX_FADV_SEQUENTIAL);  // larger read-ahead; only a hint
  out.m_buffer.resize(std::max<std::size_t>(chunk, 1));
  return out;
}

FileChunks::FileChunks(FileChunks&& other) noexcept
    : m_path(std::move(other.m_path)),
      m_fd(std::exchange(other.m_fd, -1)),
      m_buffer(std::move(other.m_buffer)),
      m_offset(other.m_offset) {}

FileChunks& FileChunks::operator=(FileChunks&& other) noexcept {
  if (this != &other) {
    if (m_fd >= 0) ::close(m_fd);
    m_path = std::move(other.m_path);
    m_fd = std::exchange(other.m_fd, -1);
    m_buffer = std::move(other.m_buffer);
    m_offset = other.m_offset;
  }
  return *this;
}

FileChunks::~FileChunks() {
  if (m_fd >= 0) ::close(m_fd);
}

Result<std::string_view> FileChunks::next() {
  std::size_t filled = 0;
  while (filled < m_buffer.size()) {
    const ssize_t got = ::read(m_fd, m_buffer.data() + filled, m_buffer.size() - filled);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      return fail(ErrorCategory::io, "cannot read " + m_path.string() + " at offset " +
                                         std::to_string(m_offset + filled) + ": " + std::strerror(errno));
    }
    if (got == 0) break;
    filled += static_cast<std::size_t>(got);
  }
  m_offset += filled;
  return std::string_view(m_buffer.data(), filled);
}

}  // namespace relforge::platform
