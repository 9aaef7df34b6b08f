#include "channels/listing_cache.hpp"

#include <algorithm>
#include <charconv>
#include <set>
#include <system_error>

#include "channels/catalog.hpp"
#include "core/text.hpp"
#include "platform/fs.hpp"

namespace relforge::channels {
namespace {

// Tab-separated, one file per line, text fields percent-encoded: parsing it is a split, which
// keeps a combined page's refresh far below re-reading ~1,000 JSON sidecars.
constexpr std::string_view k_header = "relforge-listing 1";
constexpr std::size_t k_fields = 11;

// Only what would break a line or a field is escaped: control bytes and '%' itself.
std::string encode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f && c != '%') {
      out += c;
      continue;
    }
    static constexpr char k_hex[] = "0123456789ABCDEF";
    out += '%';
    out += k_hex[byte >> 4U];
    out += k_hex[byte & 15U];
  }
  return out;
}

std::optional<std::string> decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    unsigned value = 0;
    if (i + 2 >= text.size()) return std::nullopt;
    const auto [end, error] = std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
    if (error != std::errc() || end != text.data() + i + 3) return std::nullopt;
    out += static_cast<char>(value);
    i += 2;
  }
  return out;
}

}  // namespace

std::string render_listing(const std::vector<IndexedFile>& files) {
  std::size_t estimate = k_header.size() + 8;
  for (const auto& file : files) {
    const FileInfo& info = file.info;
    estimate += 48 + info.filename.size() + info.project.size() + info.version.size() + info.sha256.size() +
                info.metadata_sha256.size() + info.requires_python.size() + info.upload_time.size() +
                info.yanked_reason.size();
  }
  std::string out;
  out.reserve(estimate);
  out += k_header;
  out += '\n';
  for (const auto& file : files) {
    const FileInfo& info = file.info;
    for (const std::string_view field : {std::string_view(info.filename), std::string_view(info.project),
                                         std::string_view(info.version), std::string_view(info.sha256)}) {
      out += encode(field);
      out += '\t';
    }
    out += std::to_string(info.size);
    for (const std::string_view field :
         {std::string_view(info.metadata_sha256), std::string_view(info.requires_python),
          std::string_view(info.upload_time)}) {
      out += '\t';
      out += encode(field);
    }
    out += info.yanked ? "\t1\t" : "\t0\t";
    out += encode(info.yanked_reason);
    out += info.provenance ? "\t1\n" : "\t0\n";
  }
  out += "end\n";  // a truncated cache is never mistaken for a shorter listing
  return out;
}

std::optional<std::vector<FileInfo>> parse_listing(std::string_view text) {
  auto lines = core::split(text, '\n');
  if (lines.size() < 3 || lines.front() != k_header || !lines.back().empty() ||
      lines[lines.size() - 2] != "end") {
    return std::nullopt;
  }
  std::vector<FileInfo> files;
  files.reserve(lines.size() - 3);
  for (std::size_t n = 1; n + 2 < lines.size(); ++n) {
    const auto fields = core::split(lines[n], '\t');
    if (fields.size() != k_fields) return std::nullopt;
    FileInfo info;
    std::string* text_fields[] = {&info.filename,
                                  &info.project,
                                  &info.version,
                                  &info.sha256,
                                  nullptr,
                                  &info.metadata_sha256,
                                  &info.requires_python,
                                  &info.upload_time,
                                  nullptr,
                                  &info.yanked_reason,
                                  nullptr};
    for (std::size_t i = 0; i < k_fields; ++i) {
      if (text_fields[i] == nullptr) continue;
      auto decoded = decode(fields[i]);
      if (!decoded) return std::nullopt;
      *text_fields[i] = std::move(*decoded);
    }
    const auto [end, error] =
        std::from_chars(fields[4].data(), fields[4].data() + fields[4].size(), info.size);
    if (error != std::errc() || end != fields[4].data() + fields[4].size()) return std::nullopt;
    if ((fields[8] != "0" && fields[8] != "1") || (fields[10] != "0" && fields[10] != "1"))
      return std::nullopt;
    info.yanked = fields[8] == "1";
    info.provenance = fields[10] == "1";
    files.push_back(std::move(info));
  }
  return files;
}

Result<std::optional<std::vector<FileInfo>>> read_cached_listing(ObjectStore& store,
                                                                 const std::string& cache_key,
                                                                 const std::vector<std::string>& wheels) {
  auto text = store.get(cache_key);
  if (!text) return tl::unexpected(text.error());
  if (!text->has_value()) return std::optional<std::vector<FileInfo>>();
  auto cached = parse_listing(**text);
  if (!cached) return std::optional<std::vector<FileInfo>>();
  std::vector<std::string_view> names;
  names.reserve(cached->size());
  for (const auto& info : *cached) names.emplace_back(info.filename);
  std::sort(names.begin(), names.end());
  if (!std::equal(names.begin(), names.end(), wheels.begin(), wheels.end()))
    return std::optional<std::vector<FileInfo>>();
  return cached;
}

Result<std::vector<FileInfo>> cached_files(const std::filesystem::path& project_dir) {
  FilesystemObjectStore store(project_dir);
  auto objects = store.list("");
  if (!objects) return tl::unexpected(objects.error());
  std::set<std::string> keys;
  for (const auto& object : *objects) keys.insert(object.key);
  std::vector<std::string> wheels;
  for (const auto& key : keys) {
    if (key.ends_with(".whl.info.json") && keys.count(key.substr(0, key.size() - 10)))
      wheels.push_back(key.substr(0, key.size() - 10));
  }
  auto cached = read_cached_listing(store, std::string(k_listing_cache), wheels);
  if (!cached) return tl::unexpected(cached.error());
  if (*cached) return std::move(**cached);
  std::vector<FileInfo> files;
  for (const auto& wheel : wheels) {
    auto text = store.get(wheel + ".info.json");
    if (!text) return tl::unexpected(text.error());
    if (!text->has_value()) continue;
    auto info = info_from_json(**text, store.describe(wheel + ".info.json"));
    if (!info) return tl::unexpected(info.error());
    files.push_back(std::move(*info));
  }
  sort_by_version(files);
  return files;
}

Status invalidate_listing(const std::filesystem::path& project_dir) {
  std::error_code error;
  std::filesystem::remove(project_dir / std::string(k_listing_cache), error);
  if (error) {
    return fail(ErrorCategory::io, "cannot remove the listing cache in " + project_dir.string() + ": " +
                                       error.message() + " (check the store's permissions)");
  }
  return {};
}

}  // namespace relforge::channels
