#include "platform/reserved_memory.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace relforge::platform {

Result<ReservedMemory> ReservedMemory::reserve(std::size_t bytes) {
  const std::size_t size = std::max<std::size_t>(bytes, 1);
  void* map =
      ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map == MAP_FAILED) {
    return fail(ErrorCategory::io, "cannot reserve " + std::to_string(bytes) +
                                       " bytes of address space: " + std::strerror(errno));
  }
  return ReservedMemory(static_cast<char*>(map), size);
}

ReservedMemory::ReservedMemory(ReservedMemory&& other) noexcept
    : m_data(std::exchange(other.m_data, nullptr)), m_size(std::exchange(other.m_size, 0)) {}

ReservedMemory& ReservedMemory::operator=(ReservedMemory&& other) noexcept {
  if (this != &other) {
    if (m_data != nullptr) ::munmap(m_data, m_size);
    m_data = std::exchange(other.m_data, nullptr);
    m_size = std::exchange(other.m_size, 0);
  }
  return *this;
}

ReservedMemory::~ReservedMemory() {
  if (m_data != nullptr) ::munmap(m_data, m_size);
}

}  // namespace relforge::platform
