#pragma once
// Index pages: PEP 503 HTML (with #sha256, data-requires-python, data-yanked, both core-metadata
// attributes, data-provenance, the repository-version meta) and PEP 691 JSON (API 1.3), rendered
// in memory and written with atomic renames, per variant and combined over a channel's variants.
#include <filesystem>
#include <string>
#include <vector>

#include "channels/store.hpp"
#include "core/error.hpp"

namespace relforge::channels {

inline constexpr std::string_view k_api_version = "1.3";

struct IndexedFile {
  FileInfo info;
  std::string url;  // relative to the project page: "mini-1.0%2Bcpu-py3-none-any.whl"
};

std::string url_escape_path(std::string_view text);  // '+' -> %2B, etc.; '/' kept
std::string html_escape(std::string_view text);

std::string render_project_html(const std::string& project, const std::vector<IndexedFile>& files);
std::string render_project_json(const std::string& project, const std::vector<IndexedFile>& files);
std::string render_root_html(const std::vector<std::string>& projects);
std::string render_root_json(const std::vector<std::string>& projects);

// Rewrites the pages one variant's project touches: its project page, the variant's root page,
// the combined project page and the combined root page.
Status refresh_project(const std::filesystem::path& root, Channel channel, const std::string& variant,
                       const std::string& project);

struct RebuildSummary {
  std::size_t pages = 0;
  std::size_t files = 0;
};
// Every page of every channel, from the store's listing.
Result<RebuildSummary> rebuild_all(const std::filesystem::path& root);

}  // namespace relforge::channels
