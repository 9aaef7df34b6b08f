#include "packaging/wheel_metadata.hpp"

#include <functional>
#include <memory>
#include <sstream>

#include <zip.h>

#include "core/text.hpp"
#include "packaging/wheel_archive.hpp"

namespace relforge::packaging {
namespace {

struct ZipClose {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
using ZipPtr = std::unique_ptr<zip_t, ZipClose>;

// Reads `index` through `sink` in chunks until the end or until `sink` returns false; integrity
// error naming the member when unreadable.
Status stream_member(zip_t* archive, zip_uint64_t index, const std::string& name, const std::string& where,
                     const std::function<bool(std::string_view)>& sink) {
  std::unique_ptr<zip_file_t, decltype(&zip_fclose)> file(zip_fopen_index(archive, index, 0), &zip_fclose);
  if (!file) return fail(ErrorCategory::integrity, where + ": cannot open member " + name);
  char buffer[65536];
  zip_int64_t got = 0;
  while ((got = zip_fread(file.get(), buffer, sizeof buffer)) > 0) {
    if (!sink(std::string_view(buffer, static_cast<std::size_t>(got)))) return {};
  }
  if (got < 0) return fail(ErrorCategory::integrity, where + ": cannot read member " + name);
  return {};
}

// METADATA is read whole, so no more than ZipReader::read holds: the size a member
// declares is checked first, and the bytes it inflates to as they come.
Result<std::string> read_member(zip_t* archive, zip_uint64_t index, const std::string& where) {
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat_index(archive, index, 0, &stat) != 0) {
    return fail(ErrorCategory::integrity, where + ": cannot stat a member");
  }
  const std::string name = stat.name != nullptr ? stat.name : "?";
  const auto too_large = [&] {
    return fail(ErrorCategory::integrity, where + ": member '" + name + "' declares " +
                                              std::to_string(stat.size) + " bytes, more than the " +
                                              std::to_string(k_max_whole_entry >> 20) +
                                              " MiB read whole: refusing it (a zip bomb, or not metadata)");
  };
  if (stat.size > k_max_whole_entry) return too_large();
  std::string out;
  bool over = false;
  auto status = stream_member(archive, index, name, where, [&](std::string_view chunk) {
    over = out.size() + chunk.size() > k_max_whole_entry;
    if (!over) out.append(chunk);
    return !over;  // a member that lied about its size is not inflated further
  });
  if (!status) return tl::unexpected(status.error());
  if (over) return too_large();
  return out;
}

std::string header_value(const std::string& metadata, std::string_view field) {
  std::istringstream lines(metadata);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line == "\r") break;  // the body starts after the first blank line
    if (line.size() > field.size() + 1 &&
        core::to_lower(line.substr(0, field.size())) == core::to_lower(field) && line[field.size()] == ':') {
      return std::string(core::trim(line.substr(field.size() + 1)));
    }
  }
  return {};
}

}  // namespace

Result<WheelMetadata> read_wheel_metadata(const std::filesystem::path& wheel) {
  const std::string where = "wheel " + wheel.string();
  int error_code = 0;
  ZipPtr archive(zip_open(wheel.c_str(), ZIP_RDONLY, &error_code));
  if (!archive) {
    return fail(std::filesystem::exists(wheel) ? ErrorCategory::integrity : ErrorCategory::not_found,
                where + ": cannot open as a zip archive (libzip error " + std::to_string(error_code) + ")");
  }
  WheelMetadata out;
  const zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  zip_int64_t metadata_index = -1;
  for (zip_int64_t i = 0; i < count; ++i) {
    const std::string name = zip_get_name(archive.get(), static_cast<zip_uint64_t>(i), 0);
    const auto slash = name.find('/');
    if (slash == std::string::npos || name.substr(slash) != "/METADATA") continue;
    if (!name.substr(0, slash).ends_with(".dist-info")) continue;
    if (metadata_index >= 0)
      return fail(ErrorCategory::integrity, where + ": more than one .dist-info/METADATA");
    metadata_index = i;
    out.dist_info = name.substr(0, slash);
  }
  if (metadata_index < 0) return fail(ErrorCategory::integrity, where + ": no .dist-info/METADATA inside");
  auto metadata = read_member(archive.get(), static_cast<zip_uint64_t>(metadata_index), where);
  if (!metadata) return tl::unexpected(metadata.error());
  out.metadata = std::move(*metadata);
  out.name = header_value(out.metadata, "Name");
  out.version = header_value(out.metadata, "Version");
  out.requires_python = header_value(out.metadata, "Requires-Python");
  if (out.name.empty() || out.version.empty()) {
    return fail(ErrorCategory::integrity, where + ": METADATA lacks Name or Version");
  }
  return out;
}

}  // namespace relforge::packaging
