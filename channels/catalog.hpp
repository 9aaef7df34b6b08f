#pragma once
// A channel as an ObjectStore holds it: variants (folders with the variant marker), their project
// folders, the complete files in each (a wheel plus its FILE.info.json; anything less is an
// unfinished write), and the listing and pages rendered from them. Every channel command reads
// and writes a channel through these, whatever the store.
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "channels/index.hpp"
#include "channels/object_store.hpp"
#include "channels/store.hpp"
#include "core/error.hpp"

namespace relforge::channels {

struct ChannelScan {
  Channel channel = Channel::nightly;
  std::string base;            // "whl/nightly"
  std::set<std::string> keys;  // every object under base, relative to it: "cpu/mini/x.whl"
  std::set<std::string> variants;
  // Every variant project folder -> the complete wheels in it, sorted.
  std::map<ProjectRef, std::vector<std::string>> folders;

  std::string key(const std::string& relative) const { return base + "/" + relative; }
  std::string folder_key(const ProjectRef& ref) const { return base + "/" + ref.first + "/" + ref.second; }
  bool has(const std::string& relative) const { return keys.count(relative) != 0; }
  // The keys that start with `prefix` ("cpu/mini/"), in order: a range for a range-for.
  // (A plain pair of iterators: clang 14 cannot compile libstdc++ 12's std::ranges::subrange.)
  struct KeyRange {
    std::set<std::string>::const_iterator first, last;
    auto begin() const { return first; }
    auto end() const { return last; }
  };
  KeyRange keys_under(const std::string& prefix) const {
    auto first = keys.lower_bound(prefix);
    auto last = first;
    while (last != keys.end() && last->starts_with(prefix)) ++last;
    return {first, last};
  }
};

Result<ChannelScan> scan_channel(ObjectStore& store, Channel channel,
                                 Temporaries temporaries = Temporaries::hide);
// The same, but the contents of project folders only for `projects` (the others are listed by
// name, empty): what a publish needs, without walking the whole channel.
Result<ChannelScan> scan_projects(ObjectStore& store, Channel channel, const std::set<std::string>& projects);

// The scan as it would be after `relative` (keys relative to scan.base) were written: a writer that
// holds the store's lock knows what it added, and need not list the store again.
void add_keys(ChannelScan& scan, const std::vector<std::string>& relative);

// One folder's files from their sidecars, in version order.
Result<std::vector<FileInfo>> read_folder(ObjectStore& store, const ChannelScan& scan, const ProjectRef& ref);

// Files a writer has just added to a folder, as their sidecars say; nothing else in it changed.
using AddedFiles = std::map<ProjectRef, std::vector<FileInfo>>;

// The listing pages are rendered from. Folders of `projects` (every folder when null) are read;
// others get empty lists (their names still reach the root pages). Folders in `fresh`, or every
// folder when `fresh` is null, come from their sidecars; the rest from their project's listing
// cache while its section names exactly the folder's complete files, less those in `added`.
Result<ChannelListing> read_listing(ObjectStore& store, const ChannelScan& scan,
                                    const std::set<std::string>* projects, const std::set<ProjectRef>* fresh,
                                    const AddedFiles* added = nullptr);

// Writes the pages (and the listing caches beside combined project pages) that `touched` changes,
// or every page when `touched` is null; `on_stage("page-written")` after each folder's pages.
Result<std::size_t> write_pages(ObjectStore& store, const ChannelScan& scan, ChannelListing listing,
                                const std::set<ProjectRef>* touched,
                                const std::function<void(std::string_view)>& on_stage = {});

// Every complete file of a channel, over all variants, in version order within each folder.
Result<std::vector<StoredFile>> list_channel(ObjectStore& store, Channel channel);

// The keys of a stored wheel's sidecars, in the order publish writes them (the info last).
std::vector<std::string> sidecar_suffixes();

void sort_by_version(std::vector<FileInfo>& files);

}  // namespace relforge::channels
