#include "platform/allocator.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace relforge::platform {
namespace {

// The line starting with `field` of the mapping that holds `address` in /proc/self/smaps, with a
// space added at its end ("" when no mapping holds it).
std::string field_of_mapping_at(const void* address, const std::string& field) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long low = 0, high = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &low, &high) == 2) {
      inside = low <= at && at < high;
    } else if (inside && line.rfind(field, 0) == 0) {
      return line + " ";
    }
  }
  return "";
}

// ctest runs each test in a process of its own, so the allocator settings stay in this one.
TEST(Allocator, ABatchCommandsHeapIsMarkedForHugePagesAndNotTouched) {
  if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").fail())
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  tune_heap_for_batch_command(64 << 20);
  // Comes from the heap top grown (and freed) above: inside the range marked for huge pages.
  auto* block = static_cast<char*>(std::malloc(16 << 20));
  ASSERT_NE(block, nullptr);
  const std::string flags = field_of_mapping_at(block + (8 << 20), "VmFlags:");
  EXPECT_NE(flags.find(" hg "), std::string::npos) << flags;
  // Marked, not populated: the 64 MiB are not resident until touched.
  unsigned long resident_kb = 0;
  ASSERT_EQ(std::sscanf(field_of_mapping_at(block, "Rss:").c_str(), "Rss: %lu kB", &resident_kb), 1);
  EXPECT_LT(resident_kb, 16UL << 10);
  std::free(block);
}

TEST(Allocator, WithoutHugeBytesNothingIsMarked) {
  tune_heap_for_batch_command(0);
  auto* block = static_cast<char*>(std::malloc(16 << 20));
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(field_of_mapping_at(block + (8 << 20), "VmFlags:").find(" hg "), std::string::npos);
  std::free(block);
}

}  // namespace
}  // namespace relforge::platform
