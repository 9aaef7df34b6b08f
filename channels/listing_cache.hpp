#pragma once
// A channel project's listing, cached beside its combined pages (PROJECT/.relforge-listing) with
// one section per variant, so that refreshing a combined page after one publish re-reads the
// sidecars of the touched variant only. A section is used only while its file names equal its
// folder's complete files; otherwise the sidecars win.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "channels/index.hpp"
#include "channels/store.hpp"

namespace relforge::channels {

inline constexpr std::string_view k_listing_cache = ".relforge-listing";

// variant -> its files, in the order they were written.
using CachedListing = std::map<std::string, std::vector<FileInfo>>;

// The key of a project's cache in the channel whose folder key is `base` ("whl/nightly").
std::string listing_cache_key(const std::string& base, const std::string& project);

// One variant's part of a cache; render_listing joins the parts, in the order given, into the file.
std::string render_listing_section(std::string_view variant, const std::vector<IndexedFile>& files);
std::string render_listing(const std::vector<std::string>& sections);
// The sections, or nullopt when `text` is not a complete listing (or names a variant twice).
std::optional<CachedListing> parse_listing(std::string_view text);

// The variant's files while they name exactly `wheels` (sorted); else nullopt.
std::optional<std::vector<FileInfo>> take_section(CachedListing& cached, const std::string& variant,
                                                  const std::vector<std::string>& wheels);

}  // namespace relforge::channels
