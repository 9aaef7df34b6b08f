#pragma once
// A file read as a sequence of memory-mapped windows: no copy into a user buffer, and at most one
// window mapped at a time, so a multi-gigabyte log costs a window's worth of memory, not its size.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "core/error.hpp"

namespace relforge::platform {

class MappedWindows {
public:
  // not_found / io errors name the path; `window` is rounded up to whole pages.
  static Result<MappedWindows> open(const std::filesystem::path& path, std::size_t window = 16 << 20);

  MappedWindows(MappedWindows&& other) noexcept;
  MappedWindows& operator=(MappedWindows&& other) noexcept;
  MappedWindows(const MappedWindows&) = delete;
  MappedWindows& operator=(const MappedWindows&) = delete;
  ~MappedWindows();

  // The next window (empty at the end of the file); the previous window is unmapped first.
  Result<std::string_view> next();
  std::uint64_t size() const { return m_size; }

private:
  MappedWindows() = default;
  void unmap();
  std::filesystem::path m_path;
  int m_fd = -1;
  std::uint64_t m_size = 0;
  std::uint64_t m_offset = 0;
  std::size_t m_window = 0;
  void* m_mapped = nullptr;
  std::size_t m_mapped_bytes = 0;
};

}  // namespace relforge::platform
