// Wheels as zip archives: the bytes go to a temp file (the readers take a path), then every
// reader a wheel meets runs over them — ZipReader (and the headers it reads by hand), RECORD parsing,
// METADATA, and the ELF scan of each shared library through the lazily inflated entry image. A hostile
// archive must give errors, never a crash or an allocation its bytes do not justify. Invariants:
// read() and digest() agree; RECORD reprints to the same entries; the lazy ELF image finds what
// the whole bytes show.
#include <unistd.h>
#include <zip.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "packaging/wheel_archive.hpp"
#include "packaging/wheel_elf_policy.hpp"
#include "packaging/wheel_entry_image.hpp"
#include "packaging/wheel_metadata.hpp"
#include "packaging/wheel_record.hpp"
#include "platform/digest.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace pk = relforge::packaging;
namespace fs = std::filesystem;

constexpr std::size_t k_max_entries = 64;

// In memory (/dev/shm) where there is one: the file is rewritten for every input.
const fs::path& temp_wheel() {
  static const fs::path path = [] {
    std::error_code ec;
    const fs::path dir = fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
    return dir / ("relforge-fuzz-" + std::to_string(::getpid()) + "-x-1.0-py3-none-any.whl");
  }();
  return path;
}

bool same_entries(const std::vector<pk::RecordEntry>& a, const std::vector<pk::RecordEntry>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].path != b[i].path || a[i].hash != b[i].hash || a[i].size != b[i].size) return false;
  }
  return true;
}

void check_record(std::string_view text) {
  auto entries = pk::parse_record(text);
  if (!entries) return;
  auto again = pk::parse_record(pk::format_record(*entries));
  FUZZ_CHECK(again.has_value(), "a formatted RECORD parses");
  FUZZ_CHECK(same_entries(*entries, *again), "RECORD reprints to the same entries");
  for (const auto& entry : *entries) (void)pk::check_archive_path(entry.path);
}

void check_elf(const pk::ZipReader& reader, const pk::ArchiveEntry& entry, const std::string& bytes) {
  auto whole = pk::read_elf_requirements(bytes);
  auto image = pk::open_entry_image(reader, entry);
  if (!image) return;
  auto lazy = pk::read_elf_requirements(**image);
  if (!whole || !lazy) return;  // a corrupt entry may fail on either path
  FUZZ_CHECK(whole->has_value() == lazy->has_value(), "the lazy image sees the same ELF file");
  if (!whole->has_value()) return;
  FUZZ_CHECK((*whole)->needed == (*lazy)->needed, "the lazy image finds the same DT_NEEDED");
  FUZZ_CHECK((*whole)->versions == (*lazy)->versions, "the lazy image finds the same versions");
}

// The entry as libzip itself inflates it; nullopt when libzip fails.
std::optional<std::string> libzip_bytes(const pk::ZipReader& reader, const pk::ArchiveEntry& entry) {
  zip_file_t* file = zip_fopen_index(reader.handle(), entry.index, 0);
  if (file == nullptr) return std::nullopt;
  std::string out;
  char buffer[65536];
  zip_int64_t got = 0;
  while ((got = zip_fread(file, buffer, sizeof buffer)) > 0 && out.size() <= pk::k_max_whole_entry)
    out.append(buffer, static_cast<std::size_t>(got));
  zip_fclose(file);
  if (got < 0) return std::nullopt;
  return out;
}

void check_archive(const fs::path& path) {
  auto reader = pk::ZipReader::open(path);
  if (!reader) return;
  // The headers libzip hides, read by hand (zip_headers.cpp): one flag per entry libzip lists.
  if (auto fields = reader->unicode_path_fields())
    FUZZ_CHECK(fields->size() == reader->entries().size(), "a Unicode Path flag for every entry");
  std::size_t seen = 0;
  for (const auto& entry : reader->entries()) {
    if (++seen > k_max_entries) break;
    (void)pk::check_archive_path(entry.name);
    auto bytes = reader->read(entry);
    auto digest = reader->digest(entry);
    // read() refuses what exceeds k_max_whole_entry; digest() streams any size.
    const bool over_limit =
        entry.size > pk::k_max_whole_entry || (digest && digest->second > pk::k_max_whole_entry);
    FUZZ_CHECK(bytes.has_value() == digest.has_value() || (!bytes && over_limit),
               "read and digest fail alike");
    if (!bytes || !digest) continue;
    // Deflated entries are inflated by raw_inflate, not libzip: what it accepts, libzip reads alike
    // (it may refuse more: a size the bytes do not have, bytes after the stream's end).
    if (entry.deflated) {
      auto theirs = libzip_bytes(*reader, entry);
      FUZZ_CHECK(theirs.has_value(), "libzip reads what raw_inflate accepts");
      FUZZ_CHECK(*theirs == *bytes, "libzip inflates the same bytes");
    }
    FUZZ_CHECK(digest->second == bytes->size(), "digest counts the bytes read");
    FUZZ_CHECK(digest->first == relforge::platform::sha256(*bytes), "digest hashes the bytes read");
    if (entry.name.ends_with("RECORD")) check_record(*bytes);
    if (bytes->starts_with("\x7f"
                           "ELF"))
      check_elf(*reader, entry, *bytes);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path& path = temp_wheel();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  check_archive(path);
  (void)pk::read_wheel_metadata(path);
  // RECORD parsing on its own too: most inputs are not zips, and this keeps the parser in reach.
  check_record(std::string_view(reinterpret_cast<const char*>(data), size));
  std::error_code ec;
  fs::remove(path, ec);
  return 0;
}
