#pragma once
// PE/COFF (Windows .dll/.pyd/.exe) read by hand from untrusted bytes: the machine type and the
// DLLs named by the import and delay-load import directories. Every offset is bounds-checked.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::packaging {

inline constexpr std::uint16_t k_pe_machine_i386 = 0x14c;
inline constexpr std::uint16_t k_pe_machine_amd64 = 0x8664;
inline constexpr std::uint16_t k_pe_machine_arm64 = 0xaa64;

struct PeImage {
  std::uint16_t machine = 0;
  bool pe32_plus = false;                  // 64-bit optional header
  std::vector<std::string> imports;        // import directory DLL names, in order, as written
  std::vector<std::string> delay_imports;  // delay-load import directory DLL names
};

// nullopt when the bytes are not a PE file (no "MZ", or no "PE\0\0" where e_lfanew points);
// integrity error naming the broken structure when they are one that cannot be read whole.
Result<std::optional<PeImage>> read_pe(std::string_view bytes);

class ElfImage;  // packaging/wheel_elf_policy.hpp: a file's bytes, made readable on request

// The same over an image made readable only as far as needed: the headers, then the sections
// holding the import tables and their names (a few KiB of a DLL of hundreds of MiB).
Result<std::optional<PeImage>> read_pe(ElfImage& image);

// "AMD64", "I386", "ARM64", or "0x1234" for any other machine.
std::string pe_machine_name(std::uint16_t machine);

}  // namespace relforge::packaging
