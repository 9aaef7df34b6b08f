#pragma once
// Reads a wheel's core metadata (the .dist-info/METADATA bytes, served as PEP 658 `.metadata`),
// whole only up to k_max_whole_entry (64 MiB). It checks nothing else: RECORD, names and structure
// are verify_wheel's (packaging/wheel_repair.hpp), which every caller runs first.
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

// integrity errors name the wheel and what is wrong (no METADATA or two, no Name or Version, too large).
Result<WheelMetadata> read_wheel_metadata(const std::filesystem::path& wheel);

}  // namespace relforge::packaging
