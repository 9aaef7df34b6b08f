#include "platform/allocator.hpp"

#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>

namespace relforge::platform {
namespace {

constexpr std::uintptr_t k_huge_page = std::uintptr_t{2} << 20;
constexpr int k_mmap_threshold = 256 << 20;

}  // namespace

void tune_heap_for_batch_command(std::size_t huge_bytes) {
  // glibc maps each block over its (growing) threshold by itself and unmaps it on free, and trims
  // the heap's top past 128 KiB: a rebuild renders 200 MB of pages in such blocks, and half of its
  // 50,000 page faults were the same memory given back and touched again.
  mallopt(M_MMAP_THRESHOLD, k_mmap_threshold);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  if (huge_bytes == 0 || huge_bytes >= static_cast<std::size_t>(k_mmap_threshold)) return;
  // Worker threads keep arenas of their own (faulted in 4 KiB at a time): on one shared arena,
  // `index rebuild`'s two threads waited on its lock ~5,000 times a run, each wait a futex call and
  // a context switch, which cost more than the faults they saved (1.4-1.8 s against 1.1-1.25 s).
  // The heap grows by `huge_bytes` now and keeps that top when the block is freed (the trim
  // threshold above), so what the command allocates next comes from memory marked for huge pages.
  // Nothing is touched here: a 2 MiB page is zeroed and mapped at the first touch inside it, so a
  // small job pays for what it uses. Where the kernel has no huge pages, madvise fails and
  // nothing changes.
  void* block = std::malloc(huge_bytes);
  if (block == nullptr) return;
  const auto start = reinterpret_cast<std::uintptr_t>(block);
  const auto begin = (start + k_huge_page - 1) & ~(k_huge_page - 1);
  const auto end = (start + huge_bytes) & ~(k_huge_page - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  std::free(block);
  // What the command allocates next would start at `block`, up to 2 MiB below `begin`, where pages
  // are still faulted in 4 KiB at a time (150 of a publish's 220 faults). That head is taken and
  // kept (reachable from here, never touched past its first bytes): glibc's chunk for a request of
  // n bytes spans n + 8, from 16 bytes before the pointer, so the heap's top then starts at `begin`.
  static void* kept_head = nullptr;
  if (end > begin && begin - start >= 64 && kept_head == nullptr)
    kept_head = std::malloc(begin - start - sizeof(std::size_t));
}

}  // namespace relforge::platform
