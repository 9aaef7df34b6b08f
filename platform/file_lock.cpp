#include "platform/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <thread>

namespace relforge::platform {
namespace {

constexpr auto k_poll_interval = std::chrono::milliseconds(20);

// The holder's pid is written into the lock file only as a hint for the error message; the lock
// itself is the flock, which the kernel releases when the holder exits however it exits.
std::string holder_hint(int fd) {
  char buffer[32] = {};
  const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  if (n <= 0) return "";
  std::string pid(buffer, static_cast<std::size_t>(n));
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) return "";
  return " (held by process " + pid + ")";
}

}  // namespace

Result<FileLock> FileLock::acquire(const std::filesystem::path& lock_file, std::chrono::milliseconds wait) {
  if (lock_file.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(lock_file.parent_path(), ec);
    if (ec) {
      return fail(ErrorCategory::io, "cannot create the directory " + lock_file.parent_path().string() +
                                         " for the lock file: " + ec.message());
    }
  }
  const int fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return fail(ErrorCategory::io,
                "cannot open the lock file " + lock_file.string() + ": " + std::strerror(errno));
  }
  FileLock lock(fd);  // closes the descriptor on every failure path
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) {
      return fail(ErrorCategory::io, "cannot lock " + lock_file.string() + ": " + std::strerror(errno));
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      return fail(ErrorCategory::conflict, "the lock file " + lock_file.string() +
                                               " is held by another process" + holder_hint(fd) +
                                               " after waiting " + std::to_string(wait.count()) +
                                               " ms; wait for the other relforge run to finish and retry");
    }
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(k_poll_interval, deadline - now));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
  return lock;
}

FileLock::FileLock(FileLock&& other) noexcept : m_fd(other.m_fd) {
  other.m_fd = -1;
}

FileLock::~FileLock() {
  if (m_fd >= 0) ::close(m_fd);  // closing the last descriptor releases the flock
}

}  // namespace relforge::platform
