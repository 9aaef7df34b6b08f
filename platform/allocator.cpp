#include "platform/allocator.hpp"

#include <malloc.h>

namespace relforge::platform {

void keep_freed_memory_for_reuse() {
  // glibc maps each block over its (growing) threshold by itself and unmaps it on free, and trims
  // the heap's top past 128 KiB: a rebuild renders 200 MB of pages in such blocks, and half of its
  // 50,000 page faults were the same memory given back and touched again.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

}  // namespace relforge::platform
