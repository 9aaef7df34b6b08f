#include "packaging/wheel_archive.hpp"

#include <zip.h>

#include <system_error>

namespace relforge::packaging {
namespace {

std::string zip_error_text(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

struct ZipFileCloser {
  void operator()(zip_file_t* file) const { zip_fclose(file); }
};

}  // namespace

Result<ZipReader> ZipReader::open(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return fail(ErrorCategory::not_found, "wheel '" + path.string() + "' does not exist");
  int code = 0;
  ::zip* archive = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
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
    entry.mtime = static_cast<std::int64_t>(st.mtime);
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
    : m_zip(other.m_zip), m_path(std::move(other.m_path)), m_entries(std::move(other.m_entries)) {
  other.m_zip = nullptr;
}

ZipReader& ZipReader::operator=(ZipReader&& other) noexcept {
  if (this != &other) {
    if (m_zip != nullptr) zip_discard(m_zip);
    m_zip = other.m_zip;
    m_path = std::move(other.m_path);
    m_entries = std::move(other.m_entries);
    other.m_zip = nullptr;
  }
  return *this;
}

ZipReader::~ZipReader() {
  if (m_zip != nullptr) zip_discard(m_zip);
}

Status ZipReader::stream(const ArchiveEntry& entry, const std::function<void(std::string_view)>& sink) const {
  std::unique_ptr<zip_file_t, ZipFileCloser> file(zip_fopen_index(m_zip, entry.index, 0));
  if (!file) {
    return fail(ErrorCategory::integrity,
                "'" + m_path.string() + "': cannot open entry '" + entry.name + "': " + zip_strerror(m_zip));
  }
  std::string buffer(1 << 20, '\0');
  for (;;) {
    const zip_int64_t got = zip_fread(file.get(), buffer.data(), buffer.size());
    if (got < 0) {
      return fail(ErrorCategory::integrity, "'" + m_path.string() + "': entry '" + entry.name +
                                                "' is corrupt: " + zip_file_strerror(file.get()));
    }
    if (got == 0) break;
    sink(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
  }
  return {};
}

Result<std::string> ZipReader::read(const ArchiveEntry& entry) const {
  std::string out;
  out.reserve(static_cast<std::size_t>(entry.size));
  auto status = stream(entry, [&out](std::string_view chunk) { out.append(chunk); });
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

Status write_zip(const std::filesystem::path& target, const ZipReader* source,
                 const std::vector<PlannedEntry>& entries) {
  const auto temp = target.parent_path() / ("." + target.filename().string() + ".partial");
  std::error_code ec;
  std::filesystem::remove(temp, ec);
  int code = 0;
  ::zip* out = zip_open(temp.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  if (out == nullptr) {
    return fail(ErrorCategory::io, "cannot create '" + temp.string() + "': " + zip_error_text(code));
  }
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
        zip_file_set_mtime(out, at, static_cast<time_t>(entry.mtime), 0) != 0)
      return abandon("entry '" + entry.name + "': " + zip_strerror(out));
  }
  if (zip_close(out) != 0) {
    const std::string message = zip_strerror(out);
    return abandon(message);
  }
  std::filesystem::rename(temp, target, ec);
  if (ec)
    return fail(ErrorCategory::io,
                "cannot move '" + temp.string() + "' to '" + target.string() + "': " + ec.message());
  return {};
}

}  // namespace relforge::packaging
