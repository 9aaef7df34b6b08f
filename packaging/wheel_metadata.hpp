#pragma once
// Reads a wheel's core metadata (the .dist-info/METADATA bytes, served as PEP 658 `.metadata`)
// and checks its RECORD: every listed file's hash (sha256/384/512, streamed) and size, and no
// unlisted files. METADATA and RECORD are read whole only up to k_max_whole_entry (64 MiB).
#include <filesystem>
#include <string>

#include "core/error.hpp"

namespace relforge::packaging {

struct WheelMetadata {
  std::string dist_info;        // "mini-1.0+cpu.dist-info"
  std::string metadata;         // METADATA, byte for byte
  std::string name;             // Name:
  std::string version;          // Version:
  std::string requires_python;  // Requires-Python: (empty when absent)
};

enum class RecordCheck { check, skip };

// invalid_input/integrity errors name the wheel and what is wrong (missing METADATA, bad RECORD line,
// hash mismatch of a member).
Result<WheelMetadata> read_wheel_metadata(const std::filesystem::path& wheel,
                                          RecordCheck record = RecordCheck::check);

}  // namespace relforge::packaging
