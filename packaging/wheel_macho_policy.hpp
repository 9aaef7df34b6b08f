#pragma once
// The macOS wheel policy: each Mach-O file holds the architectures the platform tag names
// (universal2 = x86_64 + arm64, intel = i386 + x86_64, ...), each of those slices needs no newer
// macOS than the tag's, and every dylib it loads is a system library (/usr/lib/, /System/Library/)
// or resolves to a file in the same wheel through @rpath (LC_RPATH), @loader_path or @executable_path.
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "packaging/macho.hpp"

namespace relforge::packaging {

struct MacosPolicy {
  std::string platform_tag;        // "macosx_11_0_arm64"
  MachOVersion version;            // 11.0
  std::string arch;                // the tag's arch part: "arm64", "universal2", "x86_64"
  std::vector<std::string> archs;  // every one required: {"arm64"}; {"x86_64", "arm64"} for universal2
  bool any_arch = false;           // "universal": any one of `archs` will do
};

// The policy of a macosx_X_Y_ARCH tag; nullopt for any other tag or an arch it cannot check.
std::optional<MacosPolicy> macos_policy(std::string_view platform_tag);

// Every violation as a sentence naming `file` (the path inside the wheel) and the arch, version
// or dylib with what to do. `wheel_files` holds every file path in the wheel.
std::vector<std::string> macho_violations(std::string_view file, const MachOFile& binary,
                                          const MacosPolicy& policy,
                                          const std::set<std::string>& wheel_files);

}  // namespace relforge::packaging
