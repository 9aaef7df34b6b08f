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
#include "channels/store.hpp"
#include "core/error.hpp"

namespace relforge::channels {

inline constexpr std::string_view k_listing_cache = ".relforge-listing";

std::string render_listing(const std::vector<IndexedFile>& files);
// The files in the order they were written, or nullopt when `text` is not a complete listing.
std::optional<std::vector<FileInfo>> parse_listing(std::string_view text);

// A project folder's files (version order): the cached listing while it names exactly the folder's
// complete files, else the sidecars. Changes that keep the names (a yank) call invalidate_listing.
Result<std::vector<FileInfo>> cached_files(const std::filesystem::path& project_dir);
Status invalidate_listing(const std::filesystem::path& project_dir);

}  // namespace relforge::channels
