#pragma once
// Index pages: PEP 503 HTML (with #sha256, data-requires-python, data-yanked, both core-metadata
// attributes, data-provenance, the repository-version meta) and PEP 691 JSON (API 1.3), rendered
// in memory per variant and combined over a channel's variants; catalog.hpp writes them to a store.
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "channels/object_store.hpp"
#include "channels/store.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

namespace relforge::channels {

inline constexpr std::string_view k_api_version = "1.3";

struct IndexedFile {
  FileInfo info;
  std::string url;  // relative to the project page: "mini-1.0%2Bcpu-py3-none-any.whl"
};

std::string url_escape_path(std::string_view text);  // '+' -> %2B, etc.; '/' kept
using core::html_escape;                             // the one in core/text

std::string render_project_html(const std::string& project, const std::vector<IndexedFile>& files);
std::string render_project_json(const std::string& project, const std::vector<IndexedFile>& files);
std::string render_root_html(const std::vector<std::string>& projects);
std::string render_root_json(const std::vector<std::string>& projects);

struct RebuildSummary {
  std::size_t pages = 0;
  std::size_t files = 0;
};
// Re-renders every page (and listing cache) of every channel from the sidecars the store holds,
// under the store's lock; pages whose content is unchanged are left alone.
Result<RebuildSummary> rebuild_store(ObjectStore& store);
// The same for the store directory `root`.
Result<RebuildSummary> rebuild_all(const std::filesystem::path& root);

// One channel's files as read from an object store: variant -> project -> files (any order). A
// project whose pages are not re-rendered may have an empty list (only its name is needed).
using ChannelListing = std::map<std::string, std::map<std::string, std::vector<FileInfo>>>;
using ProjectRef = std::pair<std::string, std::string>;  // (variant, project)

struct RenderedPage {
  std::string dir;  // relative to the channel's folder: "cpu/mini", "cpu", "mini", "" (its root)
  std::string html;
  std::string json;
  std::optional<std::string> listing;  // combined project pages: the .relforge-listing beside them
};
// The pages publish, prune, yank and rebuild write, rendered in memory, project pages before the
// root pages that link them: every page of the listing, or (with `touched`) only the pages that
// publishing into those projects changes.
std::vector<RenderedPage> render_channel_pages(const ChannelListing& listing,
                                               const std::set<ProjectRef>* touched = nullptr);
// The same pages, in the same order, handed to `sink` on the calling thread a batch at a time (each
// batch rendered on every core, dropped when `sink` returns); stops at the first error `sink`
// returns. The listing's files are moved into the pages, not copied.
using PageSink = std::function<Status(std::vector<RenderedPage>& batch)>;
Status render_channel_pages(ChannelListing listing, const std::set<ProjectRef>* touched,
                            const PageSink& sink);

}  // namespace relforge::channels
