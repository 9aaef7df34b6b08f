#pragma once
// A variant project's listing, cached beside its pages (.relforge-listing), so that refreshing a
// combined page after one publish re-reads the sidecars of the touched variant only. The cache is
// used only while its file names equal the folder's complete files; otherwise the sidecars win.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "channels/index.hpp"
#include "channels/object_store.hpp"
#include "channels/store.hpp"
#include "core/error.hpp"

namespace relforge::channels {

inline constexpr std::string_view k_listing_cache = ".relforge-listing";

std::string render_listing(const std::vector<IndexedFile>& files);
// The files in the order they were written, or nullopt when `text` is not a complete listing.
std::optional<std::vector<FileInfo>> parse_listing(std::string_view text);

// The cached listing under `cache_key` while it names exactly `wheels` (sorted); else nullopt.
// Changes that keep the names (a yank) remove the cache first.
Result<std::optional<std::vector<FileInfo>>> read_cached_listing(ObjectStore& store,
                                                                 const std::string& cache_key,
                                                                 const std::vector<std::string>& wheels);

// A project folder on disk (version order): the cache while it names exactly the folder's complete
// files, else the sidecars.
Result<std::vector<FileInfo>> cached_files(const std::filesystem::path& project_dir);
Status invalidate_listing(const std::filesystem::path& project_dir);

}  // namespace relforge::channels
