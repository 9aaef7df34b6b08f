#include "channels/listing_cache.hpp"

#include <algorithm>
#include <charconv>
#include <system_error>

#include "core/text.hpp"

namespace relforge::channels {
namespace {

// Tab-separated, one file per line under its variant's line, text fields percent-encoded: parsing
// it is a split, which keeps a combined page's refresh far below re-reading ~1,000 JSON sidecars.
// Version 1 was one file per variant folder; nothing reads those any more (rebuild removes them).
constexpr std::string_view k_header = "relforge-listing 2";
constexpr std::string_view k_variant_line = "variant ";
constexpr std::size_t k_fields = 11;

// Only what would break a line or a field is escaped: control bytes and '%' itself. Runs between
// them are appended whole (this runs over every field of every file a rebuild lists).
void encode(std::string& out, std::string_view text) {
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte != 0x7f && byte != '%') continue;
    static constexpr char k_hex[] = "0123456789ABCDEF";
    out.append(text.data() + run, i - run);
    const char escaped[] = {'%', k_hex[byte >> 4U], k_hex[byte & 15U]};
    out.append(escaped, 3);
    run = i + 1;
  }
  out.append(text.data() + run, text.size() - run);
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

std::string listing_cache_key(const std::string& base, const std::string& project) {
  return base + "/" + project + "/" + std::string(k_listing_cache);
}

std::string render_listing_section(std::string_view variant, const std::vector<IndexedFile>& files) {
  std::size_t estimate = k_variant_line.size() + variant.size() + 8;
  for (const auto& file : files) {
    const FileInfo& info = file.info;
    estimate += 48 + info.filename.size() + info.project.size() + info.version.size() + info.sha256.size() +
                info.metadata_sha256.size() + info.requires_python.size() + info.upload_time.size() +
                info.yanked_reason.size();
  }
  std::string out;
  out.reserve(estimate);
  out += k_variant_line;
  encode(out, variant);
  out += '\n';
  for (const auto& file : files) {
    const FileInfo& info = file.info;
    for (const std::string_view field : {std::string_view(info.filename), std::string_view(info.project),
                                         std::string_view(info.version), std::string_view(info.sha256)}) {
      encode(out, field);
      out += '\t';
    }
    out += std::to_string(info.size);
    for (const std::string_view field :
         {std::string_view(info.metadata_sha256), std::string_view(info.requires_python),
          std::string_view(info.upload_time)}) {
      out += '\t';
      encode(out, field);
    }
    out += info.yanked ? "\t1\t" : "\t0\t";
    encode(out, info.yanked_reason);
    out += info.provenance ? "\t1\n" : "\t0\n";
  }
  return out;
}

std::string render_listing(const std::vector<std::string>& sections) {
  std::size_t size = k_header.size() + 8;
  for (const auto& section : sections) size += section.size();
  std::string out;
  out.reserve(size);
  out += k_header;
  out += '\n';
  for (const auto& section : sections) out += section;
  out += "end\n";  // a truncated cache is never mistaken for a shorter listing
  return out;
}

std::optional<CachedListing> parse_listing(std::string_view text) {
  auto lines = core::split(text, '\n');
  if (lines.size() < 3 || lines.front() != k_header || !lines.back().empty() ||
      lines[lines.size() - 2] != "end") {
    return std::nullopt;
  }
  CachedListing listing;
  std::vector<FileInfo>* files = nullptr;
  for (std::size_t n = 1; n + 2 < lines.size(); ++n) {
    if (lines[n].starts_with(k_variant_line) && lines[n].find('\t') == std::string_view::npos) {
      auto variant = decode(lines[n].substr(k_variant_line.size()));
      if (!variant) return std::nullopt;
      const auto [at, fresh] = listing.try_emplace(std::move(*variant));
      if (!fresh) return std::nullopt;
      files = &at->second;
      continue;
    }
    const auto fields = core::split(lines[n], '\t');
    if (files == nullptr || fields.size() != k_fields) return std::nullopt;
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
    files->push_back(std::move(info));
  }
  return listing;
}

std::optional<std::vector<FileInfo>> take_section(CachedListing& cached, const std::string& variant,
                                                  const std::vector<std::string>& wheels) {
  const auto found = cached.find(variant);
  if (found == cached.end()) return std::nullopt;
  std::vector<std::string_view> names;
  names.reserve(found->second.size());
  for (const auto& info : found->second) names.emplace_back(info.filename);
  std::sort(names.begin(), names.end());
  if (!std::equal(names.begin(), names.end(), wheels.begin(), wheels.end())) return std::nullopt;
  return std::move(found->second);
}

}  // namespace relforge::channels
