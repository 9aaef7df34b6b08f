#include "packaging/pe.hpp"

#include <cstdio>

#include "packaging/byte_reader.hpp"
#include "packaging/wheel_elf_policy.hpp"

namespace relforge::packaging {
namespace {

// A DLL name longer than this is no name Windows' loader takes (MAX_PATH), and bounds the scan.
constexpr std::size_t k_max_name = 260;
// A real module imports from tens of DLLs; far more descriptors than this is a crafted file.
constexpr std::size_t k_max_descriptors = 4096;
// The Windows loader refuses images with more sections than this (PE format specification).
constexpr std::uint16_t k_max_sections = 96;
constexpr std::uint32_t k_dir_import = 1;
constexpr std::uint32_t k_dir_delay_import = 13;

struct Section {
  std::uint32_t virtual_address = 0;
  std::uint32_t raw_size = 0;
  std::uint32_t raw_offset = 0;
};

struct Headers {
  // Lazy reads only: which sections' raw bytes are readable, and the first one a read needed that is not.
  std::vector<bool> covered;
  mutable std::optional<std::size_t> needed;
  std::uint16_t machine = 0;
  bool pe32_plus = false;
  std::uint64_t image_base = 0;
  std::vector<Section> sections;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> directories;  // rva, size
};

tl::unexpected<Error> malformed_pe(const std::string& what) {
  return fail(ErrorCategory::integrity, "malformed PE file: " + what);
}

// Where `rva` lies in the file: its offset and the end of the raw data of the section holding it.
// Only bytes backed by a section's raw data can be read, so an RVA in the zero-filled tail of a
// section (or in no section) has no offset.
struct FileSpan {
  std::uint64_t offset = 0;
  std::uint64_t end = 0;
};
std::optional<FileSpan> rva_to_offset(const Headers& headers, std::uint64_t rva, std::uint64_t file_size) {
  for (std::size_t i = 0; i < headers.sections.size(); ++i) {
    const auto& section = headers.sections[i];
    const std::uint64_t start = section.virtual_address;
    if (rva < start || rva - start >= section.raw_size) continue;
    const std::uint64_t offset = std::uint64_t{section.raw_offset} + (rva - start);
    if (offset >= file_size) return std::nullopt;
    if (!headers.covered.empty() && !headers.covered[i]) {
      headers.needed = i;
      return std::nullopt;
    }
    return FileSpan{offset,
                    std::min<std::uint64_t>(file_size, std::uint64_t{section.raw_offset} + section.raw_size)};
  }
  return std::nullopt;
}

Result<Headers> read_headers(std::string_view bytes, std::uint32_t pe_offset) {
  Headers headers;
  const std::uint64_t coff = std::uint64_t{pe_offset} + 4;
  const auto machine = read_u16(bytes, coff);
  const auto section_count = read_u16(bytes, coff + 2);
  const auto optional_size = read_u16(bytes, coff + 16);
  if (!machine || !section_count || !optional_size) return malformed_pe("the COFF header is cut short");
  headers.machine = *machine;
  const std::uint64_t optional = coff + 20;
  const auto magic = read_u16(bytes, optional);
  if (!magic) return malformed_pe("the optional header is missing (an object file, not an image)");
  if (*magic != 0x10b && *magic != 0x20b)
    return malformed_pe("unknown optional header magic " + std::to_string(*magic));
  headers.pe32_plus = *magic == 0x20b;
  // The data directories follow the standard and Windows-specific fields: 96 bytes in PE32,
  // 112 in PE32+; NumberOfRvaAndSizes sits just before them.
  const std::uint64_t directories_at = optional + (headers.pe32_plus ? 112 : 96);
  const auto count = read_u32(bytes, directories_at - 4);
  std::optional<std::uint64_t> base = read_u64(bytes, optional + 24);
  if (!headers.pe32_plus) {
    const auto base32 = read_u32(bytes, optional + 28);
    base = base32 ? std::optional<std::uint64_t>(*base32) : std::nullopt;
  }
  if (!count || !base) return malformed_pe("the optional header is cut short");
  headers.image_base = *base;
  const std::uint64_t optional_end = optional + *optional_size;
  for (std::uint32_t i = 0; i < *count && i < 16; ++i) {
    const std::uint64_t at = directories_at + std::uint64_t{i} * 8;
    // A directory outside SizeOfOptionalHeader is not part of the header Windows reads.
    if (at + 8 > optional_end) break;
    const auto rva = read_u32(bytes, at);
    const auto size = read_u32(bytes, at + 4);
    if (!rva || !size) return malformed_pe("data directory " + std::to_string(i) + " is cut short");
    headers.directories.emplace_back(*rva, *size);
  }
  const std::uint64_t table = optional_end;
  if (*section_count > k_max_sections)
    return malformed_pe(std::to_string(*section_count) + " sections, more than the " +
                        std::to_string(k_max_sections) + " the Windows loader takes");
  for (std::uint16_t i = 0; i < *section_count; ++i) {
    const std::uint64_t at = table + std::uint64_t{i} * 40;
    const auto virtual_address = read_u32(bytes, at + 12);
    const auto raw_size = read_u32(bytes, at + 16);
    const auto raw_offset = read_u32(bytes, at + 20);
    if (!virtual_address || !raw_size || !raw_offset)
      return malformed_pe("section header " + std::to_string(i) + " lies past the end of the file");
    headers.sections.push_back({*virtual_address, *raw_size, *raw_offset});
  }
  return headers;
}

Result<std::string> name_at(std::string_view bytes, const Headers& headers, std::uint64_t rva,
                            const char* table) {
  const auto span = rva_to_offset(headers, rva, bytes.size());
  if (!span)
    return malformed_pe(std::string(table) + " names a DLL at an address outside the file's sections");
  const auto name = read_c_string(bytes.substr(0, span->end), span->offset, k_max_name);
  if (!name || name->empty())
    return malformed_pe(std::string(table) + " has a DLL name that is empty, unterminated, longer than " +
                        std::to_string(k_max_name) + " bytes or not printable ASCII");
  return std::string(*name);
}

// Walks descriptors of `stride` bytes from the directory's RVA until the all-zero one, reading
// the name RVA at `name_field` of each.
Result<std::vector<std::string>> read_directory(std::string_view bytes, const Headers& headers,
                                                std::uint32_t index, std::uint32_t stride,
                                                std::uint32_t name_field, const char* table) {
  std::vector<std::string> names;
  if (headers.directories.size() <= index) return names;
  const std::uint32_t rva = headers.directories[index].first;
  // The directory's size field is advisory: the loader reads to the closing descriptor.
  if (rva == 0) return names;
  const auto start = rva_to_offset(headers, rva, bytes.size());
  if (!start) return malformed_pe(std::string(table) + " lies outside the file's sections");
  // The loader reads the table by address; past its section's raw bytes there is nothing to read.
  const std::uint64_t end = start->end;
  for (std::size_t i = 0;; ++i) {
    if (i == k_max_descriptors)
      return malformed_pe(std::string(table) + " has more than " + std::to_string(k_max_descriptors) +
                          " entries");
    const std::uint64_t at = start->offset + std::uint64_t{i} * stride;
    if (at > end || end - at < stride)
      return malformed_pe(std::string(table) + " runs past the end of its section without its closing entry");
    bool zero = true;
    for (std::uint32_t b = 0; b < stride && zero; ++b) zero = bytes[at + b] == 0;
    if (zero) break;
    auto name_rva = *read_u32(bytes, at + name_field);
    if (name_rva == 0) break;  // the loader stops at a descriptor without a name, too
    std::uint64_t resolved = name_rva;
    // A delay-load descriptor without the RVA attribute (bit 0) holds virtual addresses (VC6 style).
    if (index == k_dir_delay_import && (*read_u32(bytes, at) & 1u) == 0) {
      if (name_rva < headers.image_base)
        return malformed_pe(std::string(table) + " names a DLL below the image base");
      resolved = name_rva - headers.image_base;
    }
    auto name = name_at(bytes, headers, resolved, table);
    if (!name) return tl::unexpected(name.error());
    names.push_back(std::move(*name));
  }
  return names;
}

}  // namespace

namespace {

// The import tables of a PE file whose headers are readable; with `headers.covered` set, a read
// of a section not yet covered stops the walk with headers.needed naming it.
Result<PeImage> read_tables(std::string_view bytes, const Headers& headers) {
  PeImage image;
  image.machine = headers.machine;
  image.pe32_plus = headers.pe32_plus;
  auto imports = read_directory(bytes, headers, k_dir_import, 20, 12, "the import directory");
  if (!imports) return tl::unexpected(imports.error());
  image.imports = std::move(*imports);
  auto delayed = read_directory(bytes, headers, k_dir_delay_import, 32, 4, "the delay-load import directory");
  if (!delayed) return tl::unexpected(delayed.error());
  image.delay_imports = std::move(*delayed);
  return image;
}

// e_lfanew when the bytes start a PE file; nullopt for anything else ("MZ" without "PE\0\0" is a
// DOS program or no executable at all).
std::optional<std::uint32_t> pe_header_offset(std::string_view bytes) {
  if (bytes.size() < 64 || bytes[0] != 'M' || bytes[1] != 'Z') return std::nullopt;
  const auto pe_offset = *read_u32(bytes, 0x3c);
  const auto signature = read_u32(bytes, pe_offset);
  if (!signature || *signature != 0x00004550u) return std::nullopt;
  return pe_offset;
}

}  // namespace

Result<std::optional<PeImage>> read_pe(std::string_view bytes) {
  const auto pe_offset = pe_header_offset(bytes);
  if (!pe_offset) return std::optional<PeImage>{};
  auto headers = read_headers(bytes, *pe_offset);
  if (!headers) return tl::unexpected(headers.error());
  auto image = read_tables(bytes, *headers);
  if (!image) return tl::unexpected(image.error());
  return std::optional<PeImage>{std::move(*image)};
}

Result<std::optional<PeImage>> read_pe(ElfImage& image) {
  const std::uint64_t size = image.size();
  if (auto ok = image.cover_prefix(4096); !ok) return tl::unexpected(ok.error());
  const std::string_view bytes(image.data(), size);
  if (size < 64 || bytes[0] != 'M' || bytes[1] != 'Z') return std::optional<PeImage>{};
  // The COFF and optional headers and the section table: at most 24 + 65535 + 96 * 40 bytes.
  const std::uint64_t at = *read_u32(bytes, 0x3c);
  if (at < size) {
    if (auto ok = image.cover_ranges({{at, std::min<std::uint64_t>(size - at, 24 + 65535 + 96 * 40)}}); !ok)
      return tl::unexpected(ok.error());
  }
  const auto pe_offset = pe_header_offset(bytes);
  if (!pe_offset) return std::optional<PeImage>{};
  auto headers = read_headers(bytes, *pe_offset);
  if (!headers) return tl::unexpected(headers.error());
  headers->covered.assign(headers->sections.size(), false);
  // Each pass covers the one section the previous one stopped at: the import tables and their names
  // usually share .idata or .rdata, so a DLL of hundreds of MiB is read a few KiB at a time.
  for (std::size_t pass = 0; pass <= headers->sections.size(); ++pass) {
    headers->needed.reset();
    auto tables = read_tables(bytes, *headers);
    if (!headers->needed) {
      if (!tables) return tl::unexpected(tables.error());
      return std::optional<PeImage>{std::move(*tables)};
    }
    const auto& section = headers->sections[*headers->needed];
    const std::uint64_t first = section.raw_offset;
    if (auto ok = image.cover_ranges({{first, std::min<std::uint64_t>(size - first, section.raw_size)}}); !ok)
      return tl::unexpected(ok.error());
    headers->covered[*headers->needed] = true;
  }
  return malformed_pe("the import tables could not be read");  // unreachable: one pass per section at most
}

std::string pe_machine_name(std::uint16_t machine) {
  switch (machine) {
    case k_pe_machine_amd64:
      return "AMD64";
    case k_pe_machine_i386:
      return "I386";
    case k_pe_machine_arm64:
      return "ARM64";
    case 0xa641:
      return "ARM64EC";
    case 0x1c4:
      return "ARMNT";
    default: {
      char text[8];
      std::snprintf(text, sizeof text, "0x%04x", machine);
      return text;
    }
  }
}

}  // namespace relforge::packaging
