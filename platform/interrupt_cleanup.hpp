#pragma once
// The temp files of writes in progress, removed when SIGINT, SIGTERM or SIGHUP ends the process:
// an interrupted command leaves nothing half-written beside its outputs, then dies of the signal
// as it would have. Up to 64 files at once (past that a file is left, as a crash would leave it).
#include <filesystem>
#include <string>

namespace relforge::platform {

// Installs the handlers (main() calls it once). A signal the parent set to be ignored stays ignored.
void install_interrupt_cleanup();

// While alive, the file at `path` (or `name` in the open directory `dir`, which must stay open)
// is removed if one of those signals arrives. Made before the file is created, ended after it is
// renamed or removed.
class RemovedOnInterrupt {
public:
  explicit RemovedOnInterrupt(const std::filesystem::path& path);
  RemovedOnInterrupt(int dir, const std::string& name);
  ~RemovedOnInterrupt();
  RemovedOnInterrupt(const RemovedOnInterrupt&) = delete;
  RemovedOnInterrupt& operator=(const RemovedOnInterrupt&) = delete;

private:
  int m_slot = -1;
};

}  // namespace relforge::platform
