#pragma once
// What differs between two wheels, entry by entry: added/removed entries, changed bytes (with the
// METADATA/WHEEL fields, the ELF sections and symbols, or the text lines that changed), and zip
// attributes (time, mode, order) that make equal contents into different archive bytes.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace relforge::packaging {

enum class EntryChange { added, removed, changed };

struct FieldChange {
  std::string field;  // "Version", "Tag"
  std::vector<std::string> before, after;
};

struct EntryDiff {
  std::string name;
  EntryChange change = EntryChange::changed;
  std::uint64_t size_before = 0, size_after = 0;
  std::string sha256_before, sha256_after;  // hex; empty on the side that lacks the entry
  bool content_changed = false;             // false: only its zip attributes differ
  std::vector<std::string> attributes;      // "mtime 2026-01-01T00:00:00Z -> ...", "mode 0644 -> 0755"
  std::vector<FieldChange> fields;          // METADATA and WHEEL header fields
  std::vector<std::string> sections;        // ELF: ".text: 4096 -> 4112 bytes", ".comment: added"
  std::vector<std::string> symbols;         // ELF: "+name", "-name" (.symtab and .dynsym)
  std::vector<std::string> lines;  // text: "-old line", "+new line"; ELF: strings of .rodata/.data/.comment
  std::size_t more = 0;            // lines/symbols left out of the lists above
};

struct WheelDiff {
  bool identical = false;  // the two files have the same bytes
  std::vector<EntryDiff> entries;
  bool order_changed = false;  // the same entries, written in another order
  // Equal entries and order but different bytes (compression, zip extras or comment).
  bool archive_only = false;
};

// not_found/integrity errors name the wheel that cannot be read as a zip.
Result<WheelDiff> diff_wheels(const std::filesystem::path& before, const std::filesystem::path& after);

// "changed minitensor/_C.so (sections .text, .symtab), RECORD (2 lines)": one line per difference,
// at most `limit` entries, for error messages.
std::string summarize_diff(const WheelDiff& diff, std::size_t limit = 8);

}  // namespace relforge::packaging
