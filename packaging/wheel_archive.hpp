#pragma once
// Zip archives for wheels through libzip: read entries (whole or streamed), and write a new
// archive whose unchanged entries are copied still compressed (no inflate/deflate) and whose
// new entries are deflated; libzip writes ZIP64 records whenever an entry or offset needs them.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "platform/digest.hpp"
#include "platform/open_beneath.hpp"

struct zip;

namespace relforge::packaging {

struct ArchiveEntry {
  std::uint64_t index = 0;
  std::string name;
  std::uint64_t size = 0;  // uncompressed
  std::uint64_t compressed_size = 0;
  std::uint32_t crc32 = 0;
  bool deflated = false;  // deflate and not encrypted: inflated by raw_inflate, not libzip
  std::uint32_t external_attributes = 0;
  std::uint8_t opsys = 0;
  std::int64_t mtime = 0;
  // Non-ASCII bytes without the UTF-8 flag (bit 11): libzip guessed the encoding of `name`, while
  // Python's zipfile (pip) reads such a name as cp437.
  bool unmarked_name = false;
};

// What read() holds in memory by default: METADATA, WHEEL, RECORD and entry_points.txt are KiB to a
// few MiB in real wheels; a larger one is refused rather than inflated (a zip bomb's 2 GiB entry).
constexpr std::uint64_t k_max_whole_entry = std::uint64_t{64} << 20;

class ZipReader {
public:
  // integrity error when the file is not a readable zip (naming it); not_found when absent or
  // not a regular file (saying what it is).
  static Result<ZipReader> open(const std::filesystem::path& path);
  ZipReader(ZipReader&&) noexcept;
  ZipReader& operator=(ZipReader&&) noexcept;
  ~ZipReader();

  const std::vector<ArchiveEntry>& entries() const { return m_entries; }
  const std::filesystem::path& path() const { return m_path; }
  // The end-of-central-directory comment, raw: empty in every wheel a build backend writes.
  const std::string& comment() const { return m_comment; }
  // The whole entry; integrity error naming it and its declared size when that size, or the bytes
  // it inflates to, exceed `limit` (the declared size is the archive's claim, not a promise).
  Result<std::string> read(const ArchiveEntry& entry, std::uint64_t limit = k_max_whole_entry) const;
  // Streams the entry through `sink` in chunks (bounded memory); fails on a CRC/inflate error, and
  // when a deflated entry inflates to another size than it declares or hides bytes after its end.
  Status stream(const ArchiveEntry& entry, const std::function<void(std::string_view)>& sink) const;
  // sha256 and byte count, streamed.
  Result<std::pair<platform::Sha256Digest, std::uint64_t>> digest(const ArchiveEntry& entry) const;

  // Per entry: whether its central record or local header holds Info-ZIP's Unicode Path extra
  // field (0x7075), whose name libzip reads in place of the entry's own and hides the field.
  Result<std::vector<bool>> unicode_path_fields() const;

  ::zip* handle() const { return m_zip; }

private:
  // stream() that fails once more than `limit` bytes have come out, inflating no further.
  Status stream_at_most(const ArchiveEntry& entry, std::uint64_t limit,
                        const std::function<void(std::string_view)>& sink) const;
  // stream_at_most() of a deflated entry: its raw bytes through raw_inflate.
  Status inflate_at_most(const ArchiveEntry& entry, std::uint64_t limit,
                         const std::function<void(std::string_view)>& sink) const;

  ZipReader(::zip* archive, std::filesystem::path path) : m_zip(archive), m_path(std::move(path)) {}
  ::zip* m_zip = nullptr;
  std::filesystem::path m_path;
  std::vector<ArchiveEntry> m_entries;
  std::string m_comment;
  std::unique_ptr<char[]> m_buffer;           // stdio's buffer for the archive file; outlives m_zip
  std::optional<platform::OpenEntry> m_file;  // the file libzip reads, for the headers it hides
};

// One entry of an archive to write: a raw copy of a source entry, or new bytes.
struct PlannedEntry {
  std::string name;
  const ArchiveEntry* copy_from = nullptr;  // copied compressed from the reader when set
  std::string bytes;                        // otherwise these bytes, deflated
  std::uint32_t external_attributes = 0644u << 16;
  std::int64_t mtime = 315532800;  // 1980-01-01, the zip epoch
};

// Writes `entries` in order to a temp file beside `target` and renames it into place, so a failed
// write or rename leaves no partial wheel (io error saying so when a folder is in the way). Copies use
// `source`'s compressed bytes as they are. A failure of `before_rename` (called once the archive is complete)
// removes it and is returned as it is.
Status write_zip(const std::filesystem::path& target, const ZipReader* source,
                 const std::vector<PlannedEntry>& entries, const std::function<Status()>& before_rename = {});

}  // namespace relforge::packaging
