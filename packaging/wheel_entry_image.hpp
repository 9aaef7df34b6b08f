#pragma once
// An ElfImage over one zip entry: the entry is inflated only as far as the ELF reader asks, into
// a reserved (not committed) mapping of the entry's size, so memory follows the bytes asked for.
#include <memory>

#include "core/error.hpp"
#include "packaging/wheel_archive.hpp"
#include "packaging/wheel_elf_policy.hpp"

namespace relforge::packaging {

// io error when the mapping cannot be reserved; integrity errors (later) name a corrupt entry.
Result<std::unique_ptr<ElfImage>> open_entry_image(const ZipReader& reader, const ArchiveEntry& entry);

}  // namespace relforge::packaging
