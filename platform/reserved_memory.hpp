#pragma once
// Address space reserved without committing memory (an anonymous, private, no-reserve mapping):
// only the pages written are resident, so a buffer the size of a multi-gigabyte entry costs what is used.
#include <cstddef>

#include "core/error.hpp"

namespace relforge::platform {

class ReservedMemory {
public:
  // io error when the address space cannot be reserved; `bytes` 0 reserves one byte.
  static Result<ReservedMemory> reserve(std::size_t bytes);

  ReservedMemory(ReservedMemory&& other) noexcept;
  ReservedMemory& operator=(ReservedMemory&& other) noexcept;
  ReservedMemory(const ReservedMemory&) = delete;
  ReservedMemory& operator=(const ReservedMemory&) = delete;
  ~ReservedMemory();

  char* data() const { return m_data; }
  std::size_t size() const { return m_size; }

private:
  ReservedMemory(char* data, std::size_t size) : m_data(data), m_size(size) {}
  char* m_data = nullptr;
  std::size_t m_size = 0;
};

}  // namespace relforge::platform
