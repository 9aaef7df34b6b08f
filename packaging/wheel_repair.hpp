#pragma once
// Wheel repair and verification: set the version (local label, dist-info rename, METADATA and
// WHEEL rewritten), retag the platform after the manylinux ELF or Windows/macOS binary check, rebuild RECORD,
// and copy every unchanged entry still compressed. `verify_wheel` checks paths, duplicates and RECORD.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace relforge::packaging {

enum class Overwrite { refuse, replace };

struct RepairOptions {
  std::filesystem::path wheel;
  std::filesystem::path out_dir;
  std::optional<std::string> platform;  // "manylinux_2_28_x86_64": checked, then retagged
  std::optional<std::string> local;     // "cu130": the version's local label ("" drops it)
  std::optional<std::string> version;   // a new public version ("0.3.0.dev20260101")
  Overwrite overwrite = Overwrite::replace;
  std::vector<std::string> allow_dlls = {};  // DLL globs a Windows wheel may import unbundled
  // Set: a reproducible wheel — entries sorted (.dist-info last, RECORD at the end), each with this
  // time (SOURCE_DATE_EPOCH) and mode 0644, or 0755 when any execute bit was set.
  std::optional<std::int64_t> source_date_epoch = std::nullopt;
};

struct RepairResult {
  std::filesystem::path output;
  std::string version;
  std::vector<std::string> tags;
  std::size_t copied = 0;     // entries copied compressed
  std::size_t rewritten = 0;  // entries written anew (METADATA, WHEEL, RECORD, ...)
  std::size_t elf_files = 0;  // ELF files checked against the policy
  std::size_t binaries = 0;   // PE and Mach-O files checked against the Windows/macOS policy
};

// integrity error listing every policy violation (file and symbol) when the platform is refused;
// a Windows or macOS wheel (by --plat, else by its own tags) passes check_wheel_binaries first.
Result<RepairResult> repair_wheel(const RepairOptions& options);

struct VerifyResult {
  std::size_t entries = 0;
  std::size_t hashed = 0;
  std::uint64_t bytes = 0;
};

// integrity/invalid_input errors name the entry: unsafe path ('..', '//', absolute, backslash, ':'),
// an archive comment, a name pip reads otherwise (non-ASCII without the UTF-8 flag, Info-ZIP's
// Unicode Path field), a non-regular file, a duplicate (also after ASCII case folding, Unicode
// normalisation (NFC), Windows dropping trailing dots and spaces), a dist-info folder pip refuses
// (not one, not the file name's, Wheel-Version not numbers 1.N...), RECORD mismatch (sha256/384/512).
Result<VerifyResult> verify_wheel(const std::filesystem::path& wheel);

struct InspectResult {
  std::string filename;
  std::string name;
  std::string version;
  std::vector<std::string> tags;  // from WHEEL
  std::string dist_info;
  std::vector<std::string> files;
  std::vector<std::string> elf_files;
  std::vector<std::string> glibc_versions;  // the newest GLIBC_/GLIBCXX_/CXXABI_ needed, per prefix
  std::vector<std::string> needed;          // DT_NEEDED of every ELF file, deduplicated
};

Result<InspectResult> inspect_wheel(const std::filesystem::path& wheel);

}  // namespace relforge::packaging
