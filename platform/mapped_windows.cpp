#include "platform/mapped_windows.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "platform/file_errors.hpp"

namespace relforge::platform {

Result<MappedWindows> MappedWindows::open(const std::filesystem::path& path, std::size_t window) {
  MappedWindows out;
  out.m_path = path;
  out.m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (out.m_fd < 0) return detail::open_failed(path, errno);
  struct stat info {};
  if (::fstat(out.m_fd, &info) != 0)
    return fail(ErrorCategory::io, "cannot stat " + path.string() + ": " + std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return fail(ErrorCategory::invalid_input, path.string() + " is not a regular file");
  out.m_size = static_cast<std::uint64_t>(info.st_size);
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  out.m_window = (std::max(window, page) + page - 1) / page * page;
  return out;
}

MappedWindows::MappedWindows(MappedWindows&& other) noexcept
    : m_path(std::move(other.m_path)),
      m_fd(std::exchange(other.m_fd, -1)),
      m_size(other.m_size),
      m_offset(other.m_offset),
      m_window(other.m_window),
      m_mapped(std::exchange(other.m_mapped, nullptr)),
      m_mapped_bytes(std::exchange(other.m_mapped_bytes, 0)) {}

MappedWindows& MappedWindows::operator=(MappedWindows&& other) noexcept {
  if (this != &other) {
    unmap();
    if (m_fd >= 0) ::close(m_fd);
    m_path = std::move(other.m_path);
    m_fd = std::exchange(other.m_fd, -1);
    m_size = other.m_size;
    m_offset = other.m_offset;
    m_window = other.m_window;
    m_mapped = std::exchange(other.m_mapped, nullptr);
    m_mapped_bytes = std::exchange(other.m_mapped_bytes, 0);
  }
  return *this;
}

MappedWindows::~MappedWindows() {
  unmap();
  if (m_fd >= 0) ::close(m_fd);
}

void MappedWindows::unmap() {
  if (m_mapped != nullptr) ::munmap(m_mapped, m_mapped_bytes);
  m_mapped = nullptr;
  m_mapped_bytes = 0;
}

Result<std::string_view> MappedWindows::next() {
  unmap();
  if (m_offset >= m_size) return std::string_view();
  const auto bytes = static_cast<std::size_t>(std::min<std::uint64_t>(m_window, m_size - m_offset));
  // MAP_POPULATE faults the window in with one call instead of one fault per page.
  void* mapped =
      ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_POPULATE, m_fd, static_cast<off_t>(m_offset));
  if (mapped == MAP_FAILED) {
    return fail(ErrorCategory::io, "cannot map " + m_path.string() + " at offset " +
                                       std::to_string(m_offset) + ": " + std::strerror(errno));
  }
  ::madvise(mapped, bytes, MADV_SEQUENTIAL);
  m_mapped = mapped;
  m_mapped_bytes = bytes;
  m_offset += bytes;
  return std::string_view(static_cast<const char*>(mapped), bytes);
}

}  // namespace relforge::platform
