#pragma once
// An exclusive advisory lock (flock) on a lock file, held for the object's lifetime; used to make
// concurrent publishes, ledger writes and index swaps safe between processes.
#include <chrono>
#include <filesystem>

#include "core/error.hpp"

namespace relforge::platform {

class FileLock {
public:
  // Waits up to `wait` for the lock; conflict when another process still holds it then.
  static Result<FileLock> acquire(const std::filesystem::path& lock_file,
                                  std::chrono::milliseconds wait = std::chrono::seconds(30));
  FileLock(FileLock&&) noexcept;
  FileLock& operator=(FileLock&&) = delete;
  ~FileLock();

private:
  explicit FileLock(int fd) : m_fd(fd) {}
  int m_fd = -1;
};

}  // namespace relforge::platform
