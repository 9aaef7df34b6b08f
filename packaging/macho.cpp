#include "packaging/macho.hpp"

#include <cstdio>

#include "packaging/byte_reader.hpp"
#include "packaging/wheel_elf_policy.hpp"

namespace relforge::packaging {
namespace {

constexpr std::uint32_t k_mh_magic = 0xfeedface;
constexpr std::uint32_t k_mh_magic_64 = 0xfeedfacf;
constexpr std::uint32_t k_fat_magic = 0xcafebabe;
constexpr std::uint32_t k_fat_magic_64 = 0xcafebabf;
// Real universal files have a handful of slices; Java class files put their version (45 and up)
// where nfat_arch is, which is how file(1) tells the two apart too.
constexpr std::uint32_t k_max_slices = 32;
constexpr std::size_t k_max_path = 1024;  // PATH_MAX on macOS
// Real binaries load tens of dylibs and carry a few rpaths; the cap keeps the policy's resolution
// (each dylib against each rpath) small on a crafted file.
constexpr std::size_t k_max_paths = 256;

constexpr std::uint32_t k_lc_load_dylib = 0xc;
constexpr std::uint32_t k_lc_load_weak_dylib = 0x80000018;
constexpr std::uint32_t k_lc_reexport_dylib = 0x8000001f;
constexpr std::uint32_t k_lc_lazy_load_dylib = 0x20;
constexpr std::uint32_t k_lc_load_upward_dylib = 0x80000023;
constexpr std::uint32_t k_lc_rpath = 0x8000001c;
constexpr std::uint32_t k_lc_version_min_macosx = 0x24;
constexpr std::uint32_t k_lc_build_version = 0x32;
constexpr std::uint32_t k_platform_macos = 1;
constexpr std::uint32_t k_mh_execute = 2;

tl::unexpected<Error> malformed_macho(const std::string& what) {
  return fail(ErrorCategory::integrity, "malformed Mach-O file: " + what);
}

std::string arch_name(std::uint32_t cputype, std::uint32_t cpusubtype) {
  switch (cputype) {
    case 7:
      return "i386";
    case 0x01000007:
      // CPU_SUBTYPE_X86_64_H (8) is Haswell's, still x86_64 to the tag.
      return "x86_64";
    case 12:
      return "arm";
    case 0x0100000c:
      return (cpusubtype & 0xffffff) == 2 ? "arm64e" : "arm64";
    case 0x0200000c:
      return "arm64_32";
    case 18:
      return "ppc";
    case 0x01000012:
      return "ppc64";
    default: {
      char text[16];
      std::snprintf(text, sizeof text, "cpu0x%x", cputype);
      return text;
    }
  }
}

// xxxx.yy.zz packed in nibbles, as in LC_BUILD_VERSION and LC_VERSION_MIN_*.
MachOVersion unpack_version(std::uint32_t packed) {
  return {packed >> 16, (packed >> 8) & 0xff, packed & 0xff};
}

std::optional<DylibLoad> dylib_kind(std::uint32_t command) {
  switch (command) {
    case k_lc_load_dylib:
      return DylibLoad::load;
    case k_lc_load_weak_dylib:
      return DylibLoad::weak;
    case k_lc_reexport_dylib:
      return DylibLoad::reexport;
    case k_lc_lazy_load_dylib:
      return DylibLoad::lazy;
    case k_lc_load_upward_dylib:
      return DylibLoad::upward;
    default:
      return std::nullopt;
  }
}

// The lc_str at `name_field` of a load command: an offset from the command's start to a string
// that must end inside the command.
Result<std::string> command_string(std::string_view command, std::uint32_t name_field, ByteOrder order,
                                   const std::string& what) {
  const auto offset = read_u32(command, name_field, order);
  if (!offset || *offset < name_field + 4 || *offset >= command.size())
    return malformed_macho(what + " points its path outside the command");
  const auto text = read_c_string(command, *offset, k_max_path);
  if (!text || text->empty())
    return malformed_macho(what + " has a path that is empty, unterminated, longer than " +
                           std::to_string(k_max_path) + " bytes or not printable ASCII");
  return std::string(*text);
}

Result<MachOSlice> read_thin(std::string_view bytes) {
  const auto raw = read_u32(bytes, 0, ByteOrder::little);
  if (!raw) return malformed_macho("the header is cut short");
  ByteOrder order = ByteOrder::little;
  std::uint32_t magic = *raw;
  if (magic != k_mh_magic && magic != k_mh_magic_64) {
    order = ByteOrder::big;
    magic = *read_u32(bytes, 0, order);
  }
  if (magic != k_mh_magic && magic != k_mh_magic_64)
    return malformed_macho("a slice does not start with a Mach-O magic");
  const std::uint64_t header_size = magic == k_mh_magic_64 ? 32 : 28;
  const auto cputype = read_u32(bytes, 4, order);
  const auto cpusubtype = read_u32(bytes, 8, order);
  const auto filetype = read_u32(bytes, 12, order);
  const auto ncmds = read_u32(bytes, 16, order);
  const auto sizeofcmds = read_u32(bytes, 20, order);
  if (!cputype || !cpusubtype || !filetype || !ncmds || !sizeofcmds || bytes.size() < header_size)
    return malformed_macho("the header is cut short");
  if (*sizeofcmds > bytes.size() - header_size)
    return malformed_macho("the load commands (" + std::to_string(*sizeofcmds) +
                           " bytes) run past the end of the file");
  MachOSlice slice;
  slice.cputype = *cputype;
  slice.arch = arch_name(*cputype, *cpusubtype);
  slice.executable = *filetype == k_mh_execute;
  const std::string_view commands = bytes.substr(header_size, *sizeofcmds);
  std::uint64_t at = 0;
  for (std::uint32_t i = 0; i < *ncmds; ++i) {
    const auto cmd = read_u32(commands, at, order);
    const auto cmdsize = read_u32(commands, at + 4, order);
    if (!cmd || !cmdsize)
      return malformed_macho("load command " + std::to_string(i) + " lies past sizeofcmds");
    if (*cmdsize < 8 || *cmdsize > commands.size() - at)
      return malformed_macho("load command " + std::to_string(i) + " has size " + std::to_string(*cmdsize) +
                             ", outside sizeofcmds");
    const std::string_view command = commands.substr(at, *cmdsize);
    const std::string what = "load command " + std::to_string(i);
    if (const auto kind = dylib_kind(*cmd)) {
      auto path = command_string(command, 8, order, what);
      if (!path) return tl::unexpected(path.error());
      if (slice.dylibs.size() == k_max_paths)
        return malformed_macho("more than " + std::to_string(k_max_paths) + " dylib load commands");
      slice.dylibs.push_back({*kind, std::move(*path)});
    } else if (*cmd == k_lc_rpath) {
      auto path = command_string(command, 8, order, what);
      if (!path) return tl::unexpected(path.error());
      if (slice.rpaths.size() == k_max_paths)
        return malformed_macho("more than " + std::to_string(k_max_paths) + " rpaths");
      slice.rpaths.push_back(std::move(*path));
    } else if (*cmd == k_lc_build_version) {
      const auto platform = read_u32(command, 8, order);
      const auto minos = read_u32(command, 12, order);
      if (!platform || !minos) return malformed_macho(what + " (LC_BUILD_VERSION) is cut short");
      slice.build_platform = *platform;
      if (*platform == k_platform_macos) slice.min_macos = unpack_version(*minos);
    } else if (*cmd == k_lc_version_min_macosx) {
      const auto version = read_u32(command, 8, order);
      if (!version) return malformed_macho(what + " (LC_VERSION_MIN_MACOSX) is cut short");
      slice.min_macos = unpack_version(*version);
    }
    at += *cmdsize;
  }
  return slice;
}

}  // namespace

std::string MachOVersion::to_string() const {
  std::string text = std::to_string(major) + "." + std::to_string(minor);
  if (patch != 0) text += "." + std::to_string(patch);
  return text;
}

Result<std::optional<MachOFile>> read_macho(std::string_view bytes) {
  const auto little = read_u32(bytes, 0, ByteOrder::little);
  const auto big = read_u32(bytes, 0, ByteOrder::big);
  if (!little || !big) return std::optional<MachOFile>{};
  MachOFile file;
  if (*little == k_mh_magic || *little == k_mh_magic_64 || *big == k_mh_magic || *big == k_mh_magic_64) {
    auto slice = read_thin(bytes);
    if (!slice) return tl::unexpected(slice.error());
    file.slices.push_back(std::move(*slice));
    return std::optional<MachOFile>{std::move(file)};
  }
  // The fat header is big-endian by definition; a byte-swapped one is accepted as well.
  ByteOrder order;
  if (*big == k_fat_magic || *big == k_fat_magic_64)
    order = ByteOrder::big;
  else if (*little == k_fat_magic || *little == k_fat_magic_64)
    order = ByteOrder::little;
  else
    return std::optional<MachOFile>{};
  const bool wide = *read_u32(bytes, 0, order) == k_fat_magic_64;
  const auto count = read_u32(bytes, 4, order);
  if (!count || *count == 0 || *count > k_max_slices) return std::optional<MachOFile>{};
  file.universal = true;
  const std::uint64_t stride = wide ? 32 : 20;
  for (std::uint32_t i = 0; i < *count; ++i) {
    const std::uint64_t at = 8 + i * stride;
    const auto cputype = read_u32(bytes, at, order);
    std::optional<std::uint64_t> offset, size;
    if (wide) {
      offset = read_u64(bytes, at + 8, order);
      size = read_u64(bytes, at + 16, order);
    } else {
      offset = read_u32(bytes, at + 8, order);
      size = read_u32(bytes, at + 12, order);
    }
    const std::string what = "universal slice " + std::to_string(i);
    if (!cputype || !offset || !size) return malformed_macho("the fat header is cut short at " + what);
    if (*offset > bytes.size() || *size > bytes.size() - *offset)
      return malformed_macho(what + " (offset " + std::to_string(*offset) + ", " + std::to_string(*size) +
                             " bytes) runs past the end of the file");
    if (*offset < 8 + *count * stride) return malformed_macho(what + " overlaps the fat header");
    auto slice = read_thin(bytes.substr(*offset, *size));
    if (!slice) return tl::unexpected(std::move(slice.error()).with_context(what));
    if (slice->cputype != *cputype)
      return malformed_macho(what + " claims CPU type " + std::to_string(*cputype) + " but holds " +
                             slice->arch);
    for (const auto& seen : file.slices)
      if (seen.arch == slice->arch) return malformed_macho(what + " repeats architecture " + slice->arch);
    file.slices.push_back(std::move(*slice));
  }
  return std::optional<MachOFile>{std::move(file)};
}

namespace {

// [offset, offset + header + sizeofcmds) of the thin file at `offset`, whose first 32 bytes are readable.
std::pair<std::uint64_t, std::uint64_t> commands_range(std::string_view bytes, std::uint64_t offset) {
  const auto little = read_u32(bytes, offset, ByteOrder::little);
  if (!little) return {offset, 0};
  const bool swapped = *little != k_mh_magic && *little != k_mh_magic_64;
  const auto order = swapped ? ByteOrder::big : ByteOrder::little;
  const auto magic = read_u32(bytes, offset, order);
  const auto sizeofcmds = read_u32(bytes, offset + 20, order);
  if (!magic || !sizeofcmds) return {offset, 0};
  const std::uint64_t header = *magic == k_mh_magic_64 ? 32 : 28;
  return {offset, std::min<std::uint64_t>(bytes.size() - offset, header + *sizeofcmds)};
}

}  // namespace

Result<std::optional<MachOFile>> read_macho(ElfImage& image) {
  const std::uint64_t size = image.size();
  // The fat header with its slice table (at most 8 + 32 * 32 bytes) or the thin header.
  if (auto ok = image.cover_prefix(4096); !ok) return tl::unexpected(ok.error());
  const std::string_view bytes(image.data(), size);
  const auto little = read_u32(bytes, 0, ByteOrder::little);
  const auto big = read_u32(bytes, 0, ByteOrder::big);
  if (!little || !big) return std::optional<MachOFile>{};
  std::vector<std::uint64_t> offsets;
  if (*little == k_mh_magic || *little == k_mh_magic_64 || *big == k_mh_magic || *big == k_mh_magic_64) {
    offsets.push_back(0);
  } else if (*big == k_fat_magic || *big == k_fat_magic_64 || *little == k_fat_magic ||
             *little == k_fat_magic_64) {
    const auto order = (*big == k_fat_magic || *big == k_fat_magic_64) ? ByteOrder::big : ByteOrder::little;
    const bool wide = *read_u32(bytes, 0, order) == k_fat_magic_64;
    const auto count = read_u32(bytes, 4, order);
    for (std::uint32_t i = 0; count && *count <= k_max_slices && i < *count; ++i) {
      const std::uint64_t at = 8 + i * (wide ? 32 : 20);
      std::optional<std::uint64_t> offset = read_u64(bytes, at + 8, order);
      if (!wide) {
        const auto narrow = read_u32(bytes, at + 8, order);
        offset = narrow ? std::optional<std::uint64_t>(*narrow) : std::nullopt;
      }
      if (offset && *offset < size) offsets.push_back(*offset);
    }
  }
  // Each slice's header, then its load commands: all the bytes read_macho reads.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> headers;
  for (const auto offset : offsets) headers.emplace_back(offset, std::min<std::uint64_t>(size - offset, 32));
  if (auto ok = image.cover_ranges(headers); !ok) return tl::unexpected(ok.error());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> commands;
  for (const auto offset : offsets) commands.push_back(commands_range(bytes, offset));
  if (auto ok = image.cover_ranges(commands); !ok) return tl::unexpected(ok.error());
  return read_macho(bytes);
}

}  // namespace relforge::packaging
