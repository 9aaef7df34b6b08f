#pragma once
// A file read front to back in chunks through one reused buffer, so a multi-gigabyte log costs a
// chunk's worth of memory. read(2), not mmap: under a hypervisor the first touch of every mapped
// page costs a fault of its own, even after MAP_POPULATE; the buffer's pages are touched once.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace relforge::platform {

class FileChunks {
public:
  // not_found / io errors name the path; a folder or device is invalid_input.
  static Result<FileChunks> open(const std::filesystem::path& path, std::size_t chunk = 1 << 20);

  FileChunks(FileChunks&& other) noexcept;
  FileChunks& operator=(FileChunks&& other) noexcept;
  FileChunks(const FileChunks&) = delete;
  FileChunks& operator=(const FileChunks&) = delete;
  ~FileChunks();

  // The next chunk (full unless the file ends inside it; empty at the end), valid until the next
  // call. A file that grows while it is read is read to its end as of the last call.
  Result<std::string_view> next();

private:
  FileChunks() = default;
  std::filesystem::path m_path;
  int m_fd = -1;
  std::string m_buffer;
  std::uint64_t m_offset = 0;
};

}  // namespace relforge::platform
