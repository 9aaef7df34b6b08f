#include "packaging/zip_headers.hpp"

#include <optional>
#include <string_view>

#include "packaging/byte_reader.hpp"

namespace relforge::packaging {
namespace {

constexpr std::uint32_t k_end_signature = 0x06054b50, k_zip64_locator_signature = 0x07064b50,
                        k_zip64_end_signature = 0x06064b50, k_central_signature = 0x02014b50,
                        k_local_signature = 0x04034b50;
constexpr std::uint16_t k_zip64_field = 0x0001, k_unicode_path_field = 0x7075;

tl::unexpected<Error> unreadable(const std::string& what) {
  return fail(ErrorCategory::integrity, "its " + what + " cannot be read as the zip format lays it out");
}

// Exactly `length` bytes at `offset`, or the error naming `what`.
Result<std::string> read_exactly(const ReadAt& read_at, std::uint64_t offset, std::size_t length,
                                 const std::string& what) {
  auto bytes = read_at(offset, length);
  if (!bytes) return tl::unexpected(bytes.error());
  if (bytes->size() != length) return unreadable(what);
  return bytes;
}

// The data of the first extra field with `id`, if any.
std::optional<std::string_view> extra_field(std::string_view extra, std::uint16_t id) {
  for (std::size_t at = 0; at + 4 <= extra.size();) {
    const auto size = *read_u16(extra, at + 2);
    if (*read_u16(extra, at) == id) return extra.substr(at + 4, size);
    at += 4 + std::size_t{size};
  }
  return std::nullopt;
}

struct CentralDirectory {
  std::uint64_t offset = 0, size = 0, count = 0;
};

// The end of central directory record (after it only the comment), and the ZIP64 one its locator
// points to when there is one: Python's zipfile and libzip both take the ZIP64 values then.
Result<CentralDirectory> find_central_directory(const ReadAt& read_at, std::uint64_t file_size,
                                                std::size_t comment_length) {
  if (file_size < 22 + std::uint64_t{comment_length}) return unreadable("end of central directory");
  const std::uint64_t end_at = file_size - 22 - comment_length;
  auto end = read_exactly(read_at, end_at, 22, "end of central directory");
  if (!end) return tl::unexpected(end.error());
  if (read_u32(*end, 0) != k_end_signature) return unreadable("end of central directory");
  CentralDirectory directory{*read_u32(*end, 16), *read_u32(*end, 12), *read_u16(*end, 10)};
  if (end_at >= 20) {
    auto locator = read_exactly(read_at, end_at - 20, 20, "ZIP64 end locator");
    if (!locator) return tl::unexpected(locator.error());
    if (read_u32(*locator, 0) == k_zip64_locator_signature) {
      auto end64 = read_exactly(read_at, *read_u64(*locator, 8), 56, "ZIP64 end of central directory");
      if (!end64) return tl::unexpected(end64.error());
      if (read_u32(*end64, 0) != k_zip64_end_signature) return unreadable("ZIP64 end of central directory");
      directory = {*read_u64(*end64, 48), *read_u64(*end64, 40), *read_u64(*end64, 32)};
    }
  }
  if (directory.offset > end_at || directory.size > end_at - directory.offset)
    return unreadable("central directory");
  return directory;
}

// The local header's offset: the record's own field, or the ZIP64 field's when that one is full.
std::optional<std::uint64_t> local_header_offset(std::string_view record, std::string_view extra) {
  const std::uint32_t offset = *read_u32(record, 42);
  if (offset != 0xffffffffu) return offset;
  const auto zip64 = extra_field(extra, k_zip64_field);
  if (!zip64) return std::nullopt;
  std::uint64_t at = 0;
  if (*read_u32(record, 24) == 0xffffffffu) at += 8;  // uncompressed size
  if (*read_u32(record, 20) == 0xffffffffu) at += 8;  // compressed size
  return read_u64(*zip64, at);
}

}  // namespace

Result<std::vector<bool>> unicode_path_fields(const ReadAt& read_at, std::uint64_t file_size,
                                              std::size_t comment_length) {
  auto directory = find_central_directory(read_at, file_size, comment_length);
  if (!directory) return tl::unexpected(directory.error());
  auto central = read_exactly(read_at, directory->offset, static_cast<std::size_t>(directory->size),
                              "central directory");
  if (!central) return tl::unexpected(central.error());
  const std::string_view bytes = *central;
  std::vector<bool> flags;
  std::size_t at = 0;
  for (std::uint64_t i = 0; i < directory->count; ++i) {
    if (read_u32(bytes, at) != k_central_signature || bytes.size() - at < 46)
      return unreadable("central directory");
    const std::string_view record = bytes.substr(at, 46);
    const std::size_t name = *read_u16(record, 28), extra = *read_u16(record, 30),
                      comment = *read_u16(record, 32);
    if (bytes.size() - at - 46 < name + extra + comment) return unreadable("central directory");
    const std::string_view fields = bytes.substr(at + 46 + name, extra);
    at += 46 + name + extra + comment;
    if (extra_field(fields, k_unicode_path_field)) {
      flags.push_back(true);
      continue;
    }
    const auto offset = local_header_offset(record, fields);
    if (!offset) return unreadable("central directory");
    auto local = read_exactly(read_at, *offset, 30, "local header of entry " + std::to_string(i));
    if (!local) return tl::unexpected(local.error());
    if (read_u32(*local, 0) != k_local_signature)
      return unreadable("local header of entry " + std::to_string(i));
    const std::size_t local_extra = *read_u16(*local, 28);
    auto local_fields = read_exactly(read_at, *offset + 30 + *read_u16(*local, 26), local_extra,
                                     "local header of entry " + std::to_string(i));
    if (!local_fields) return tl::unexpected(local_fields.error());
    flags.push_back(extra_field(*local_fields, k_unicode_path_field).has_value());
  }
  return flags;
}

}  // namespace relforge::packaging
