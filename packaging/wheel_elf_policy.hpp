#pragma once
// manylinux policy checks with libelf: the symbol versions (GLIBC_, GLIBCXX_, CXXABI_) and the
// DT_NEEDED libraries an ELF file requires, against what a manylinux_2_X platform tag allows.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::packaging {

struct VersionedSymbol {
  std::string symbol;   // "pthread_join"
  std::string version;  // "GLIBC_2.34"
};

struct ElfRequirements {
  std::vector<std::string> needed;       // DT_NEEDED, in order
  std::vector<VersionedSymbol> symbols;  // undefined symbols with a version
  std::vector<std::string> versions;     // every version required (from .gnu.version_r)
};

// nullopt when `bytes` is not an ELF file; integrity error when it is one libelf cannot read.
Result<std::optional<ElfRequirements>> read_elf_requirements(std::string_view bytes);

struct ManylinuxPolicy {
  std::string platform_tag;  // "manylinux_2_28_x86_64"
  int glibc_minor = 0;       // 28: GLIBC_2.28 at most
  std::string glibcxx_max;   // "3.4.25"
  std::string cxxabi_max;    // "1.3.11"
  std::vector<std::string> allowed_libraries;
};

// The policy of a manylinux_2_X_<arch> tag; nullopt for non-manylinux tags (no policy to check).
std::optional<ManylinuxPolicy> manylinux_policy(std::string_view platform_tag);

// Every violation as a sentence naming `file` and the symbol or library ("" when none).
// `bundled` lists library file names shipped in the same wheel (allowed as DT_NEEDED).
std::vector<std::string> policy_violations(std::string_view file, const ElfRequirements& requirements,
                                           const ManylinuxPolicy& policy,
                                           const std::vector<std::string>& bundled);

}  // namespace relforge::packaging
