#include "platform/bounded_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include "platform/file_errors.hpp"
#include "platform/unique_fd.hpp"

namespace relforge::platform {

Result<std::string> read_regular_file(const std::filesystem::path& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait until a writer opens it.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) return detail::open_failed(path, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return detail::read_failed(path, errno);
  if (!S_ISREG(st.st_mode)) {
    return fail(ErrorCategory::invalid_input,
                path.string() + " is not a regular file (a FIFO, a device or a folder): name a file");
  }
  const auto too_large = [&] {
    return fail(ErrorCategory::invalid_input, path.string() + " is larger than " + std::to_string(max_bytes) +
                                                  " bytes, the most relforge reads of it");
  };
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) return too_large();
  // The size can change after fstat: the read itself stops one byte past the cap.
  std::string content;
  content.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  while (content.size() <= max_bytes) {
    const std::size_t want = std::min(sizeof buffer, max_bytes + 1 - content.size());
    const ssize_t n = ::read(fd.get(), buffer, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      return detail::read_failed(path, errno);
    }
    if (n == 0) break;
    content.append(buffer, static_cast<std::size_t>(n));
  }
  if (content.size() > max_bytes) return too_large();
  return content;
}

}  // namespace relforge::platform
