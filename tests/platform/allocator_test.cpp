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

// The allocations that follow come from the marked range, not from the unmarked up to 2 MiB below
// its first 2 MiB boundary. In a process of its own: the heap must be as a command finds it.
TEST(Allocator, TheNextAllocationsStartInsideTheMarkedRange) {
  if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").fail())
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        tune_heap_for_batch_command(64 << 20);
        auto* first = static_cast<char*>(std::malloc(256 << 10));  // past tcache and fast bins
        const std::string flags = first ? field_of_mapping_at(first, "VmFlags:") : "";
        std::fprintf(stderr, "flags of the first block's mapping: %s\n", flags.c_str());
        std::exit(first && flags.find(" hg ") != std::string::npos ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "flags of the first block's mapping");
}

// In a process of its own even when the whole binary runs at once: a heap the test above marked
// would still be marked here.
TEST(Allocator, WithoutHugeBytesNothingIsMarked) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        tune_heap_for_batch_command(0);
        auto* block = static_cast<char*>(std::malloc(16 << 20));
        const std::string flags = block ? field_of_mapping_at(block + (8 << 20), "VmFlags:") : "";
        std::fprintf(stderr, "flags of the block's mapping: %s\n", flags.c_str());
        std::exit(block && flags.find(" hg ") == std::string::npos ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "flags of the block's mapping");
}

}  // namespace
}  // namespace relforge::platform
