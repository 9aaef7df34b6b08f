#pragma once
// Mach-O (macOS .so/.dylib/executables) read by hand from untrusted bytes: thin 32/64-bit files
// in either byte order and universal (fat, fat64) files with either byte order of the fat header.
// Per architecture: the minimum macOS, the dylibs it loads, its rpaths. Every offset is bounds-checked.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::packaging {

struct MachOVersion {
  unsigned major = 0;
  unsigned minor = 0;
  unsigned patch = 0;
  std::string to_string() const;  // "11.0", "10.15.4"
  auto operator<=>(const MachOVersion&) const = default;
};

enum class DylibLoad { load, weak, reexport, lazy, upward };

struct DylibReference {
  DylibLoad kind = DylibLoad::load;
  std::string path;  // "/usr/lib/libSystem.B.dylib", "@rpath/libfoo.dylib"
};

struct MachOSlice {
  std::uint32_t cputype = 0;
  std::string arch;                             // "x86_64", "arm64", "i386", "ppc", ... or "cpu0x..."
  bool executable = false;                      // MH_EXECUTE (not a dylib or bundle)
  std::optional<MachOVersion> min_macos;        // LC_BUILD_VERSION (macOS) or LC_VERSION_MIN_MACOSX
  std::optional<std::uint32_t> build_platform;  // LC_BUILD_VERSION's platform (1 = macOS)
  std::vector<DylibReference> dylibs;           // in load-command order
  std::vector<std::string> rpaths;              // LC_RPATH, in order
};

struct MachOFile {
  bool universal = false;  // a fat header with one slice per architecture
  std::vector<MachOSlice> slices;
};

// nullopt when the bytes are not Mach-O (including a Java class file, which shares the fat magic);
// integrity error naming the broken structure when they are Mach-O that cannot be read whole.
Result<std::optional<MachOFile>> read_macho(std::string_view bytes);

class ElfImage;  // packaging/wheel_elf_policy.hpp: a file's bytes, made readable on request

// The same over an image made readable only where it is read: the fat header and each slice's
// header and load commands (the first KiB of each slice), never the code.
Result<std::optional<MachOFile>> read_macho(ElfImage& image);

}  // namespace relforge::packaging
