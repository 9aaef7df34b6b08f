#include "packaging/wheel_archive.hpp"

#include <zip.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>
#include <system_error>

#include "packaging/raw_inflate.hpp"
#include "packaging/zip_headers.hpp"
#include "platform/interrupt_cleanup.hpp"

namespace relforge::packaging {
namespace {

std::string zip_error_text(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

// "64 MiB" for the limits read() is given, bytes otherwise.
std::string limit_text(std::uint64_t limit) {
  constexpr std::uint64_t k_mib = std::uint64_t{1} << 20;
  return limit % k_mib == 0 ? std::to_string(limit / k_mib) + " MiB" : std::to_string(limit) + " bytes";
}

struct ZipFileCloser {
  void operator()(zip_file_t* file) const { zip_fclose(file); }
};
using ZipFilePtr = std::unique_ptr<zip_file_t, ZipFileCloser>;

// The entry opened for reading: inflated by libzip (flags 0) or raw (ZIP_FL_COMPRESSED).
Result<ZipFilePtr> open_entry(::zip* archive, const std::filesystem::path& path, const ArchiveEntry& entry,
                              zip_flags_t flags) {
  ZipFilePtr file(zip_fopen_index(archive, entry.index, flags));
  if (!file) {
    return fail(ErrorCategory::integrity,
                "'" + path.string() + "': cannot open entry '" + entry.name + "': " + zip_strerror(archive));
  }
  return file;
}

tl::unexpected<Error> over_limit(const std::filesystem::path& path, const ArchiveEntry& entry,
                                 std::uint64_t limit) {
  return fail(ErrorCategory::integrity, "'" + path.string() + "': entry '" + entry.name +
                                            "' inflates to more than the " + limit_text(limit) +
                                            " read whole (it declares " + std::to_string(entry.size) +
                                            " bytes): refusing it");
}

// libzip's own files go through stdio's 4 KiB buffers: copying a 1 GiB wheel then costs some
// 400,000 read, write and seek calls. These buffers cut that a thousandfold.
constexpr std::size_t k_read_buffer = 1 << 20;
// The size an entry declares comes from the archive's bytes: a hint for reserving, never a promise
// (a 158-byte zip64 entry can declare 2^63 bytes). Beyond this the string grows as bytes arrive.
constexpr std::uint64_t k_reserve_limit = 64u << 20;
constexpr std::size_t k_write_buffer = 4 << 20;

// The output archive as a libzip source that writes through a large stdio buffer.
struct BufferedOutput {
  explicit BufferedOutput(std::filesystem::path target) : path(std::move(target)) { zip_error_init(&error); }
  ~BufferedOutput() {
    if (file != nullptr) std::fclose(file);
    zip_error_fini(&error);
  }
  BufferedOutput(const BufferedOutput&) = delete;
  BufferedOutput& operator=(const BufferedOutput&) = delete;
  std::filesystem::path path;
  FILE* file = nullptr;
  zip_error_t error;
  std::unique_ptr<char[]> buffer;
};

zip_int64_t buffered_output(void* state, void* data, zip_uint64_t length, zip_source_cmd_t command) {
  auto& out = *static_cast<BufferedOutput*>(state);
  auto failed = [&](int code) {
    zip_error_set(&out.error, code, errno);
    return zip_int64_t{-1};
  };
  switch (command) {
    case ZIP_SOURCE_SUPPORTS:
      return ZIP_SOURCE_SUPPORTS_WRITABLE;
    case ZIP_SOURCE_STAT: {
      auto* st = ZIP_SOURCE_GET_ARGS(zip_stat_t, data, length, &out.error);
      if (st == nullptr) return -1;
      zip_stat_init(st);
      st->valid = ZIP_STAT_SIZE;
      st->size = 0;  // a new, empty archive
      return sizeof(zip_stat_t);
    }
    case ZIP_SOURCE_OPEN:
    case ZIP_SOURCE_CLOSE:
    case ZIP_SOURCE_READ:
    case ZIP_SOURCE_SEEK:
    case ZIP_SOURCE_TELL:
      return 0;
    case ZIP_SOURCE_BEGIN_WRITE:
      out.file = std::fopen(out.path.c_str(), "wb");
      if (out.file == nullptr) return failed(ZIP_ER_OPEN);
      out.buffer = std::make_unique<char[]>(k_write_buffer);
      std::setvbuf(out.file, out.buffer.get(), _IOFBF, k_write_buffer);
      return 0;
    case ZIP_SOURCE_WRITE:
      if (std::fwrite(data, 1, length, out.file) != length) return failed(ZIP_ER_WRITE);
      return static_cast<zip_int64_t>(length);
    case ZIP_SOURCE_SEEK_WRITE: {
      auto* args = ZIP_SOURCE_GET_ARGS(zip_source_args_seek_t, data, length, &out.error);
      if (args == nullptr) return -1;
      if (fseeko(out.file, static_cast<off_t>(args->offset), args->whence) != 0) return failed(ZIP_ER_SEEK);
      return 0;
    }
    case ZIP_SOURCE_TELL_WRITE: {
      const off_t at = ftello(out.file);
      if (at < 0) return failed(ZIP_ER_TELL);
      return static_cast<zip_int64_t>(at);
    }
    case ZIP_SOURCE_COMMIT_WRITE: {
      const int closed = std::fclose(out.file);
      out.file = nullptr;
      if (closed != 0) return failed(ZIP_ER_WRITE);
      return 0;
    }
    case ZIP_SOURCE_ROLLBACK_WRITE:
    case ZIP_SOURCE_REMOVE:
    case ZIP_SOURCE_FREE:
      if (out.file != nullptr) std::fclose(out.file);
      out.file = nullptr;
      if (command != ZIP_SOURCE_FREE) std::remove(out.path.c_str());
      return 0;
    case ZIP_SOURCE_ERROR:
      return zip_error_to_data(&out.error, data, length);
    default:
      zip_error_set(&out.error, ZIP_ER_OPNOTSUPP, 0);
      return -1;
  }
}

}  // namespace

Result<ZipReader> ZipReader::open(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status))
    return fail(ErrorCategory::not_found, "wheel '" + path.string() + "' does not exist");
  if (!std::filesystem::is_regular_file(status)) {
    const std::string kind = std::filesystem::is_directory(status) ? "a folder"
                             : std::filesystem::is_fifo(status)    ? "a FIFO"
                             : std::filesystem::is_socket(status)  ? "a socket"
                                                                   : "a device";
    return fail(ErrorCategory::not_found,
                "'" + path.string() + "' is " + kind + ", not a regular file: name the wheel file itself");
  }
  // One open file for libzip and for reading the headers it hides, so both read the same bytes.
  auto opened = platform::open_file(path);
  if (!opened) return tl::unexpected(opened.error());
  int code = 0;
  ::zip* archive = nullptr;
  auto buffer = std::make_unique<char[]>(k_read_buffer);
  if (FILE* file = opened->duplicate_stream(); file == nullptr) {
    code = ZIP_ER_OPEN;
  } else {
    std::setvbuf(file, buffer.get(), _IOFBF, k_read_buffer);
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* source = zip_source_filep_create(file, 0, -1, &error);  // owns `file` from here
    if (source == nullptr) std::fclose(file);
    if (source != nullptr) archive = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
    if (source != nullptr && archive == nullptr) zip_source_free(source);
    code = zip_error_code_zip(&error);
    zip_error_fini(&error);
  }
  if (archive == nullptr && code == ZIP_ER_EXISTS) {
    return fail(ErrorCategory::integrity, "'" + path.string() +
                                              "' has two entries with the same name: refusing it (tools "
                                              "disagree on which one a duplicate unpacks to)");
  }
  if (archive == nullptr) {
    return fail(ErrorCategory::integrity,
                "'" + path.string() + "' is not a readable zip archive (" + zip_error_text(code) +
                    "): rebuild the wheel; a truncated download or upload is the usual cause");
  }
  ZipReader reader(archive, path);
  reader.m_buffer = std::move(buffer);
  reader.m_file = std::move(*opened);
  int comment_length = 0;
  if (const char* comment = zip_get_archive_comment(archive, &comment_length, ZIP_FL_ENC_RAW))
    reader.m_comment.assign(comment, static_cast<std::size_t>(comment_length));
  const zip_int64_t count = zip_get_num_entries(archive, 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    const auto index = static_cast<zip_uint64_t>(i);
    if (zip_stat_index(archive, index, 0, &st) != 0) {
      return fail(ErrorCategory::integrity, "'" + path.string() + "': cannot read entry " +
                                                std::to_string(i) + ": " + zip_strerror(archive));
    }
    ArchiveEntry entry;
    entry.index = index;
    entry.name = st.name != nullptr ? st.name : "";
    entry.size = st.size;
    entry.compressed_size = st.comp_size;
    entry.crc32 = st.crc;
    entry.deflated = st.comp_method == ZIP_CM_DEFLATE && st.encryption_method == ZIP_EM_NONE &&
                     (st.valid & ZIP_STAT_CRC) != 0;
    entry.mtime = static_cast<std::int64_t>(st.mtime);
    // ENC_STRICT converts a name without the UTF-8 flag from cp437, as Python's zipfile does; it
    // differs from the raw bytes exactly when the name has a byte over 0x7F.
    const char* raw = zip_get_name(archive, index, ZIP_FL_ENC_RAW);
    const char* strict = zip_get_name(archive, index, ZIP_FL_ENC_STRICT);
    entry.unmarked_name = raw != nullptr && strict != nullptr && std::strcmp(raw, strict) != 0;
    zip_uint8_t opsys = 0;
    zip_uint32_t attributes = 0;
    if (zip_file_get_external_attributes(archive, index, 0, &opsys, &attributes) == 0) {
      entry.opsys = opsys;
      entry.external_attributes = attributes;
    }
    reader.m_entries.push_back(std::move(entry));
  }
  return reader;
}

ZipReader::ZipReader(ZipReader&& other) noexcept
    : m_zip(other.m_zip),
      m_path(std::move(other.m_path)),
      m_entries(std::move(other.m_entries)),
      m_comment(std::move(other.m_comment)),
      m_buffer(std::move(other.m_buffer)),
      m_file(std::move(other.m_file)) {
  other.m_zip = nullptr;
}

ZipReader& ZipReader::operator=(ZipReader&& other) noexcept {
  if (this != &other) {
    if (m_zip != nullptr) zip_discard(m_zip);
    m_zip = other.m_zip;
    m_path = std::move(other.m_path);
    m_entries = std::move(other.m_entries);
    m_comment = std::move(other.m_comment);
    m_buffer = std::move(other.m_buffer);
    m_file = std::move(other.m_file);
    other.m_zip = nullptr;
  }
  return *this;
}

ZipReader::~ZipReader() {
  if (m_zip != nullptr) zip_discard(m_zip);
}

Result<std::vector<bool>> ZipReader::unicode_path_fields() const {
  const auto read_at = [this](std::uint64_t offset, std::size_t length) {
    return m_file->read_at(offset, length);
  };
  auto flags = packaging::unicode_path_fields(read_at, m_file->size(), m_comment.size());
  if (flags && flags->size() != m_entries.size())
    return fail(ErrorCategory::integrity, "'" + m_path.string() + "': its central directory holds " +
                                              std::to_string(flags->size()) + " entries, libzip read " +
                                              std::to_string(m_entries.size()));
  if (!flags) return fail(flags.error().category(), "'" + m_path.string() + "': " + flags.error().message());
  return flags;
}

Status ZipReader::stream(const ArchiveEntry& entry, const std::function<void(std::string_view)>& sink) const {
  return stream_at_most(entry, std::numeric_limits<std::uint64_t>::max(), sink);
}

Status ZipReader::stream_at_most(const ArchiveEntry& entry, std::uint64_t limit,
                                 const std::function<void(std::string_view)>& sink) const {
  if (entry.deflated) return inflate_at_most(entry, limit, sink);
  auto opened = open_entry(m_zip, m_path, entry, 0);
  if (!opened) return tl::unexpected(opened.error());
  const ZipFilePtr& file = *opened;
  // Not zero-filled: each entry streamed cleared 1 MiB first, however small the entry.
  constexpr std::size_t k_buffer = std::size_t{1} << 20;
  const auto buffer = std::make_unique_for_overwrite<char[]>(k_buffer);
  std::uint64_t total = 0;
  for (;;) {
    const zip_int64_t got = zip_fread(file.get(), buffer.get(), k_buffer);
    if (got < 0) {
      return fail(ErrorCategory::integrity, "'" + m_path.string() + "': entry '" + entry.name +
                                                "' is corrupt: " + zip_file_strerror(file.get()));
    }
    if (got == 0) break;
    total += static_cast<std::uint64_t>(got);
    if (total > limit) return over_limit(m_path, entry, limit);
    sink(std::string_view(buffer.get(), static_cast<std::size_t>(got)));
  }
  return {};
}

// libzip checks a deflated entry's CRC but not its size, and ignores bytes after the stream's end;
// here both are refused, since another unzip tool may read either differently.
Status ZipReader::inflate_at_most(const ArchiveEntry& entry, std::uint64_t limit,
                                  const std::function<void(std::string_view)>& sink) const {
  const std::string where = "'" + m_path.string() + "': entry '" + entry.name + "'";
  auto opened = open_entry(m_zip, m_path, entry, ZIP_FL_COMPRESSED);
  if (!opened) return tl::unexpected(opened.error());
  const ZipFilePtr& raw = *opened;
  auto read = [&](char* into, std::size_t size) -> Result<std::size_t> {
    const zip_int64_t got = zip_fread(raw.get(), into, size);
    if (got < 0)
      return fail(ErrorCategory::integrity, std::string("cannot be read: ") + zip_file_strerror(raw.get()));
    return static_cast<std::size_t>(got);
  };
  auto inflated = inflate_raw(read, std::min(limit, entry.size), sink);
  if (!inflated) return fail(inflated.error().category(), where + " " + inflated.error().message());
  if (inflated->size > limit) return over_limit(m_path, entry, limit);
  if (inflated->size > entry.size) {
    return fail(ErrorCategory::integrity, where + " inflates to more than the " + std::to_string(entry.size) +
                                              " bytes it declares: the archive is corrupt");
  }
  if (inflated->size < entry.size) {
    return fail(ErrorCategory::integrity, where + " inflates to " + std::to_string(inflated->size) +
                                              " bytes, but declares " + std::to_string(entry.size) +
                                              ": the archive is corrupt");
  }
  if (inflated->crc32 != entry.crc32) {
    return fail(ErrorCategory::integrity, where + " is corrupt: its CRC-32 does not match its bytes");
  }
  return {};
}

Result<std::string> ZipReader::read(const ArchiveEntry& entry, std::uint64_t limit) const {
  if (entry.size > limit) {
    return fail(ErrorCategory::integrity,
                "'" + m_path.string() + "': entry '" + entry.name + "' declares " +
                    std::to_string(entry.size) + " bytes, more than the " + limit_text(limit) +
                    " read whole: refusing it (a zip bomb, or not a wheel's metadata)");
  }
  std::string out;
  out.reserve(static_cast<std::size_t>(std::min(entry.size, k_reserve_limit)));
  auto status = stream_at_most(entry, limit, [&out](std::string_view chunk) { out.append(chunk); });
  if (!status) return tl::unexpected(status.error());
  return out;
}

Result<std::pair<platform::Sha256Digest, std::uint64_t>> ZipReader::digest(const ArchiveEntry& entry) const {
  platform::Sha256 hasher;
  std::uint64_t size = 0;
  auto status = stream(entry, [&](std::string_view chunk) {
    hasher.update(chunk);
    size += chunk.size();
  });
  if (!status) return tl::unexpected(status.error());
  return std::make_pair(hasher.finish(), size);
}

namespace {

// zip_file_set_mtime converts through the local time zone, so the same wheel written under two TZ
// settings would differ; the DOS fields are written from UTC instead, clamped to what they hold.
int set_dos_time_utc(::zip* out, zip_uint64_t index, std::int64_t mtime) {
  const std::int64_t clamped = std::clamp<std::int64_t>(mtime, 315532800, 4354819198);
  const auto seconds = static_cast<time_t>(clamped);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  const auto time = static_cast<zip_uint16_t>((utc.tm_hour << 11) | (utc.tm_min << 5) | (utc.tm_sec / 2));
  const auto date =
      static_cast<zip_uint16_t>(((utc.tm_year - 80) << 9) | ((utc.tm_mon + 1) << 5) | utc.tm_mday);
  return zip_file_set_dostime(out, index, time, date, 0);
}

}  // namespace

Status write_zip(const std::filesystem::path& target, const ZipReader* source,
                 const std::vector<PlannedEntry>& entries, const std::function<Status()>& before_rename) {
  const auto temp = target.parent_path() / ("." + target.filename().string() + ".partial");
  std::error_code ec;
  // Known before a byte is written: the rename at the end could never replace a folder.
  const auto folder_in_the_way = [&] {
    return fail(ErrorCategory::io, "cannot write '" + target.string() +
                                       "': a folder is in the way: remove or rename it, or write elsewhere");
  };
  if (std::filesystem::is_directory(target, ec)) return folder_in_the_way();
  const platform::RemovedOnInterrupt removed_on_interrupt(temp);
  std::filesystem::remove(temp, ec);
  BufferedOutput output(temp);  // outlives `out`: every path below closes or discards it
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* sink = zip_source_function_create(buffered_output, &output, &error);
  ::zip* out = sink != nullptr ? zip_open_from_source(sink, ZIP_CREATE | ZIP_TRUNCATE, &error) : nullptr;
  if (out == nullptr) {
    if (sink != nullptr) zip_source_free(sink);
    const std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    return fail(ErrorCategory::io, "cannot create '" + temp.string() + "': " + text);
  }
  zip_error_fini(&error);
  auto abandon = [&](std::string message) {
    zip_discard(out);
    std::filesystem::remove(temp, ec);
    return fail(ErrorCategory::io, "writing '" + target.string() + "': " + message);
  };
  for (const auto& entry : entries) {
    zip_source_t* data = nullptr;
    if (entry.copy_from != nullptr) {
      // ZIP_FL_COMPRESSED hands over the deflated bytes as they are: no inflate, no deflate.
      data = zip_source_zip(out, source->handle(), entry.copy_from->index, ZIP_FL_COMPRESSED, 0, -1);
    } else {
      data = zip_source_buffer(out, entry.bytes.data(), entry.bytes.size(), 0);
    }
    if (data == nullptr) return abandon("entry '" + entry.name + "': " + zip_strerror(out));
    const zip_int64_t index = zip_file_add(out, entry.name.c_str(), data, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      zip_source_free(data);
      return abandon("entry '" + entry.name + "': " + zip_strerror(out));
    }
    const auto at = static_cast<zip_uint64_t>(index);
    if (entry.copy_from == nullptr && zip_set_file_compression(out, at, ZIP_CM_DEFLATE, 6) != 0)
      return abandon("entry '" + entry.name + "': " + zip_strerror(out));
    if (zip_file_set_external_attributes(out, at, 0, ZIP_OPSYS_UNIX, entry.external_attributes) != 0 ||
        set_dos_time_utc(out, at, entry.mtime) != 0)
      return abandon("entry '" + entry.name + "': " + zip_strerror(out));
  }
  if (zip_close(out) != 0) {
    const std::string message = zip_strerror(out);
    return abandon(message);
  }
  if (before_rename) {
    if (auto ok = before_rename(); !ok) {
      std::filesystem::remove(temp, ec);
      return ok;
    }
  }
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    const std::string reason = ec.message();
    std::filesystem::remove(temp, ec);
    if (std::filesystem::is_directory(target, ec)) return folder_in_the_way();
    return fail(ErrorCategory::io, "cannot move '" + temp.string() + "' to '" + target.string() +
                                       "': " + reason +
                                       " (nothing was written: remove or rename what is in the way)");
  }
  return {};
}

}  // namespace relforge::packaging
