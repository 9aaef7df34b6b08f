#pragma once
// For a command that builds a large result in memory and then exits (`index rebuild`): memory it
// frees stays in the process for its next allocation instead of going back to the kernel and
// being faulted in again. Not for servers, whose resident size should fall after a peak.
namespace relforge::platform {

void keep_freed_memory_for_reuse();

}  // namespace relforge::platform
