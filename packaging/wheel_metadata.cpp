#include "packaging/wheel_metadata.hpp"

#include <map>
#include <memory>
#include <set>
#include <sstream>

#include <zip.h>

#include "core/text.hpp"
#include "platform/digest.hpp"

namespace relforge::packaging {
namespace {

struct ZipClose {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
using ZipPtr = std::unique_ptr<zip_t, ZipClose>;

Result<std::string> read_member(zip_t* archive, zip_uint64_t index, const std::string& where) {
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat_index(archive, index, 0, &stat) != 0) {
    return fail(ErrorCategory::integrity, where + ": cannot stat a member");
  }
  zip_file_t* file = zip_fopen_index(archive, index, 0);
  if (file == nullptr) return fail(ErrorCategory::integrity, where + ": cannot open member " + stat.name);
  std::string out;
  char buffer[65536];
  zip_int64_t got = 0;
  while ((got = zip_fread(file, buffer, sizeof buffer)) > 0)
    out.append(buffer, static_cast<std::size_t>(got));
  zip_fclose(file);
  if (got < 0) return fail(ErrorCategory::integrity, where + ": cannot read member " + stat.name);
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

Status check_record(zip_t* archive, const std::string& dist_info, const std::string& where) {
  const std::string record_name = dist_info + "/RECORD";
  const zip_int64_t record_index = zip_name_locate(archive, record_name.c_str(), 0);
  if (record_index < 0) return fail(ErrorCategory::integrity, where + ": no " + record_name);
  auto record = read_member(archive, static_cast<zip_uint64_t>(record_index), where);
  if (!record) return tl::unexpected(record.error());
  std::map<std::string, std::pair<std::string, std::string>> listed;  // path -> (hash, size)
  std::istringstream lines(*record);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    // Paths with commas are quoted CSV; the last two fields never contain commas.
    const auto last = line.rfind(',');
    const auto middle = last == std::string::npos ? std::string::npos : line.rfind(',', last - 1);
    if (middle == std::string::npos)
      return fail(ErrorCategory::integrity, where + ": bad RECORD line '" + line + "'");
    std::string path = line.substr(0, middle);
    if (path.size() >= 2 && path.front() == '"' && path.back() == '"') {
      path = core::replace_all(path.substr(1, path.size() - 2), "\"\"", "\"");
    }
    listed[path] = {line.substr(middle + 1, last - middle - 1), line.substr(last + 1)};
  }
  const zip_int64_t count = zip_get_num_entries(archive, 0);
  for (zip_int64_t i = 0; i < count; ++i) {
    const std::string name = zip_get_name(archive, static_cast<zip_uint64_t>(i), 0);
    if (name.empty() || name.back() == '/') continue;
    const auto found = listed.find(name);
    if (found == listed.end()) {
      return fail(ErrorCategory::integrity, where + ": " + name + " is not listed in RECORD");
    }
    if (name == record_name || name.ends_with(".jws") || name.ends_with(".p7s")) continue;
    auto bytes = read_member(archive, static_cast<zip_uint64_t>(i), where);
    if (!bytes) return tl::unexpected(bytes.error());
    const std::string expected = "sha256=" + platform::base64url_nopad(platform::sha256(*bytes));
    if (found->second.first != expected || found->second.second != std::to_string(bytes->size())) {
      return fail(ErrorCategory::integrity, where + ": " + name + " does not match its RECORD line (" +
                                                found->second.first + "," + found->second.second +
                                                " listed, " + expected + "," + std::to_string(bytes->size()) +
                                                " inside)");
    }
    listed.erase(found);
  }
  listed.erase(record_name);
  if (!listed.empty()) {
    return fail(ErrorCategory::integrity,
                where + ": RECORD lists " + listed.begin()->first + ", which is not in the archive");
  }
  return {};
}

}  // namespace

Result<WheelMetadata> read_wheel_metadata(const std::filesystem::path& wheel, RecordCheck record) {
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
  if (record == RecordCheck::check) {
    if (auto status = check_record(archive.get(), out.dist_info, where); !status)
      return tl::unexpected(status.error());
  }
  return out;
}

}  // namespace relforge::packaging
