#pragma once
// manylinux policy checks with libelf: the symbol versions (GLIBC_, GLIBCXX_, CXXABI_) and the
// DT_NEEDED libraries an ELF file requires, against what a manylinux_2_X platform tag allows.
#include <cstdint>
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

// A file's bytes at their offsets, made readable on request so that an ELF file can be examined
// without holding all of it (a zip entry inflated only as far as needed). Bytes not yet asked
// for read as zero; data() spans size() bytes throughout.
class ElfImage {
public:
  virtual ~ElfImage() = default;
  virtual std::uint64_t size() const = 0;
  virtual char* data() = 0;
  // Makes [0, end) readable.
  virtual Status cover_prefix(std::uint64_t end) = 0;
  // Makes each [first, first + second) readable; may read the file again from its start.
  virtual Status cover_ranges(std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges) = 0;
};

// How the requirements are found: from the dynamic segment (program headers, PT_DYNAMIC and
// what it points at, all near the start of a shared library), falling back to the section
// headers (often at the very end) when the segment lacks something; or from the sections only.
enum class ElfScan { dynamic_segment, section_headers };

// nullopt when the bytes are not an ELF file; integrity error when it is one libelf cannot read.
Result<std::optional<ElfRequirements>> read_elf_requirements(std::string_view bytes,
                                                             ElfScan scan = ElfScan::dynamic_segment);
Result<std::optional<ElfRequirements>> read_elf_requirements(ElfImage& image,
                                                             ElfScan scan = ElfScan::dynamic_segment);

struct ManylinuxPolicy {
  std::string platform_tag;  // "manylinux_2_28_x86_64"
  int glibc_minor = 0;       // 28: GLIBC_2.28 at most
  std::string glibcxx_max;   // "3.4.25"
  std::string cxxabi_max;    // "1.3.11"
  std::vector<std::string> allowed_libraries;
};

// The policy of a manylinux_2_X_<arch> tag, or of a legacy alias (manylinux2014_x86_64) as the glibc
// it stands for; nullopt for non-manylinux tags (no policy to check).
std::optional<ManylinuxPolicy> manylinux_policy(std::string_view platform_tag);

// Every violation as a sentence naming `file` and the symbol or library ("" when none).
// `bundled` lists library file names shipped in the same wheel (allowed as DT_NEEDED).
std::vector<std::string> policy_violations(std::string_view file, const ElfRequirements& requirements,
                                           const ManylinuxPolicy& policy,
                                           const std::vector<std::string>& bundled);

}  // namespace relforge::packaging
