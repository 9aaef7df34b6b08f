#pragma once
// The Windows and macOS checks of a wheel: every PE file against each win_* platform tag and
// every Mach-O file against each macosx_* tag (wheel_pe_policy, wheel_macho_policy), with what
// each binary is and needs, so that a Linux job can vouch for wheels built on other runners.
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "packaging/wheel_archive.hpp"

namespace relforge::packaging {

struct BinaryReport {
  std::string file;                    // the path inside the wheel
  std::string format;                  // "pe" or "macho"
  std::vector<std::string> archs;      // "AMD64"; "x86_64", "arm64" (one per slice)
  std::vector<std::string> min_macos;  // "arm64 11.0", one per slice that records it
  std::vector<std::string> imports;    // DLLs (delay-loaded ones marked "(delay)") or dylibs
  std::vector<std::string> findings;   // policy violations; empty when the file passes
};

struct BinaryCheck {
  std::vector<std::string> platforms;  // the win_*/macosx_* tags checked
  std::vector<BinaryReport> binaries;
  std::size_t finding_count() const;
};

struct BinaryCheckOptions {
  std::vector<std::string> allow_dlls;  // globs of DLLs the user's machine provides (cudart64_*.dll)
};

// Checks `reader`'s files against each Windows or macOS tag in `platforms` (others are skipped).
// A file that looks like a binary but cannot be read whole is a finding, never passed over; a
// .dll/.pyd/.exe that is no PE file (or a .so/.dylib no Mach-O file) is one too.
// Errors only when the archive itself cannot be read.
Result<BinaryCheck> check_wheel_binaries(const ZipReader& reader, const std::vector<std::string>& platforms,
                                         const BinaryCheckOptions& options);

// The platform tags of the wheel's file name (PEP 427), then the check above.
Result<BinaryCheck> check_wheel_binaries(const std::filesystem::path& wheel,
                                         const BinaryCheckOptions& options);

// An integrity error listing every finding under the wheel's name and what to do; success when none.
Status binary_check_status(const std::string& wheel, const BinaryCheck& check);

}  // namespace relforge::packaging
