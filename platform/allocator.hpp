#pragma once
// For a command that builds a large result in memory and then exits (`index rebuild`, `publish`,
// `matrix expand`, `version sort`): memory it frees stays in the process for its next allocation
// instead of going back to the kernel and being faulted in again, and the first `huge_bytes` of the
// main heap are backed by 2 MiB pages where the kernel offers them (one page fault per 2 MiB
// instead of one per 4 KiB). Not for servers, whose resident size should fall after a peak.
#include <cstddef>

namespace relforge::platform {

// Address space, not memory: only the 2 MiB pages a command touches become resident. Below the
// 256 MiB from which a block is mapped by itself (and so could not be the heap's top).
constexpr std::size_t k_batch_huge_bytes = std::size_t{192} << 20;

void tune_heap_for_batch_command(std::size_t huge_bytes = k_batch_huge_bytes);

}  // namespace relforge::platform
