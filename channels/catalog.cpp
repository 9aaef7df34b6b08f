#include "channels/catalog.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "channels/info_scan.hpp"
#include "channels/listing_cache.hpp"
#include "core/parallel.hpp"
#include "packaging/version.hpp"

namespace relforge::channels {
namespace {

constexpr const char* k_html_type = "text/html; charset=utf-8";
constexpr const char* k_simple_json_type = "application/vnd.pypi.simple.v1+json";
constexpr std::string_view k_info_suffix = ".info.json";
constexpr Channel k_all_channels[] = {Channel::stable, Channel::test, Channel::nightly};

std::vector<std::string_view> split_key(std::string_view key) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const auto slash = key.find('/', start);
    parts.push_back(key.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}

}  // namespace

std::vector<std::string> sidecar_suffixes() {
  return {".metadata", ".sigstore.json", ".provenance", ".info.json"};
}

void sort_by_version(std::vector<FileInfo>& files) {
  std::vector<std::pair<std::optional<packaging::Version>, FileInfo>> keyed;
  keyed.reserve(files.size());
  for (auto& info : files) {
    auto version = packaging::parse_version(info.version);
    keyed.emplace_back(version ? std::optional(std::move(*version)) : std::nullopt, std::move(info));
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    if (a.first && b.first && *a.first != *b.first) return *a.first < *b.first;
    return a.second.filename < b.second.filename;
  });
  files.clear();
  for (auto& item : keyed) files.push_back(std::move(item.second));
}

namespace {

// The project folders and complete wheels of the keys in [first, last) (sorted, so a folder's keys
// are adjacent: its entry is looked up once, not per key); scan.variants must be known.
void index_folders(ChannelScan& scan, std::set<std::string>::const_iterator first,
                   std::set<std::string>::const_iterator last) {
  std::string_view folder;  // "variant/project/" of `wheels`
  std::vector<std::string>* wheels = nullptr;
  const std::string* previous = nullptr;
  for (; first != last; ++first) {
    const std::string& key = *first;
    const std::string* before = std::exchange(previous, &key);
    const auto slash = key.find('/');
    const auto second = slash == std::string::npos ? slash : key.find('/', slash + 1);
    if (second == std::string::npos || key.find('/', second + 1) != std::string::npos) continue;
    const std::string_view key_folder = std::string_view(key).substr(0, second + 1);
    if (key_folder != folder) {
      folder = key_folder;
      const std::string variant = key.substr(0, slash);
      wheels = scan.variants.count(variant) == 0
                   ? nullptr
                   : &scan.folders[{variant, key.substr(slash + 1, second - slash - 1)}];
    }
    // A sidecar whose wheel is gone is what a crashed prune leaves; a wheel without its info is a
    // publish that has not finished: neither is a complete file.
    if (wheels == nullptr || !key.ends_with(".whl.info.json")) continue;
    const std::string_view wheel = std::string_view(key).substr(0, key.size() - k_info_suffix.size());
    // The wheel's key sorts right before its info's unless a name between them ("X.whl-y") exists.
    if ((before != nullptr && *before == wheel) || scan.has(std::string(wheel)))
      wheels->emplace_back(wheel.substr(second + 1));
  }
}

// Variants, project folders and complete wheels, from scan.keys.
void index_keys(ChannelScan& scan) {
  for (const auto& key : scan.keys) {
    const auto parts = split_key(key);
    if (parts.size() == 2 && parts[1] == k_variant_marker) scan.variants.emplace(parts[0]);
  }
  index_folders(scan, scan.keys.begin(), scan.keys.end());
}

}  // namespace

Result<ChannelScan> scan_channel(ObjectStore& store, Channel channel, Temporaries temporaries) {
  ChannelScan scan;
  scan.channel = channel;
  scan.base = channel_key(channel);
  std::vector<std::string> prefixes = {scan.base + "/"};
  if (temporaries == Temporaries::hide) {
    // Stable's folder holds the other channels' folders: one walk of it read the whole store. Its
    // folders are listed one by one instead, the other channels' skipped. (children() hides temp
    // files, which only `index check` asks for; it walks the lot.)
    auto top = store.children(scan.base + "/");
    if (!top) return tl::unexpected(top.error());
    prefixes.clear();
    for (const auto& entry : *top) {
      const std::string key = scan.base + "/" + entry;
      const bool other_channel =
          std::any_of(std::begin(k_all_channels), std::end(k_all_channels),
                      [&](Channel c) { return c != channel && channel_key(c) + "/" == key; });
      if (other_channel) continue;
      if (entry.ends_with('/'))
        prefixes.push_back(key);
      else
        scan.keys.insert(entry);
    }
  }
  // The variants' folders are walked side by side (a folder store lists on every core).
  std::vector<std::vector<std::string>> listed(prefixes.size());
  auto walked = core::parallel_for(prefixes.size(), [&](std::size_t i) -> Status {
    auto keys = store.list_keys(prefixes[i], temporaries);
    if (!keys) return tl::unexpected(keys.error());
    listed[i] = std::move(*keys);
    return {};
  });
  if (!walked) return tl::unexpected(walked.error());
  for (const auto& keys : listed) {
    // Sorted keys: each insert lands at the end of what the previous prefix added.
    for (const auto& key : keys) scan.keys.emplace_hint(scan.keys.end(), key.substr(scan.base.size() + 1));
  }
  index_keys(scan);
  return scan;
}

Result<ChannelScan> scan_projects(ObjectStore& store, Channel channel,
                                  const std::set<std::string>& projects) {
  ChannelScan scan;
  scan.channel = channel;
  scan.base = channel_key(channel);
  auto top = store.children(scan.base + "/");
  if (!top) return tl::unexpected(top.error());
  for (const auto& entry : *top) {
    if (!entry.ends_with('/')) {
      scan.keys.insert(entry);
      continue;
    }
    const std::string variant = entry.substr(0, entry.size() - 1);
    // The channel's combined project folders outnumber its variants: one look for the marker
    // tells them apart without listing each.
    auto marker = store.head(scan.base + "/" + entry + std::string(k_variant_marker));
    if (!marker) return tl::unexpected(marker.error());
    if (!*marker) continue;
    auto inner = store.children(scan.base + "/" + entry);
    if (!inner) return tl::unexpected(inner.error());
    for (const auto& name : *inner) {
      if (!name.ends_with('/')) {
        scan.keys.insert(entry + name);
        continue;
      }
      const std::string project = name.substr(0, name.size() - 1);
      scan.folders[{variant, project}];  // listed by name even when not read
      if (projects.count(project) == 0) continue;
      // Only the folder's own files count (index_keys reads three-part keys), and their names are
      // all a scan needs: no walk of deeper folders, no stat per file.
      auto files = store.file_keys(scan.base + "/" + entry + name);
      if (!files) return tl::unexpected(files.error());
      for (const auto& file : *files) scan.keys.insert(file.substr(scan.base.size() + 1));
    }
  }
  index_keys(scan);
  return scan;
}

void add_keys(ChannelScan& scan, const std::vector<std::string>& relative) {
  scan.keys.insert(relative.begin(), relative.end());
  // Only the folders the new keys fall in are indexed again (re-indexing every key was 3% of a
  // publish), a new variant's all of them. Folders listed by name only (scan_projects) stay listed.
  std::set<std::string> new_variants;
  for (const auto& key : relative) {
    const auto parts = split_key(key);
    if (parts.size() == 2 && parts[1] == k_variant_marker && scan.variants.emplace(parts[0]).second)
      new_variants.emplace(parts[0]);
  }
  std::set<ProjectRef> folders;
  for (const auto& key : relative) {
    const auto parts = split_key(key);
    if (parts.size() < 3) continue;
    const std::string variant(parts[0]);
    if (scan.variants.count(variant) != 0 && new_variants.count(variant) == 0)
      folders.emplace(variant, std::string(parts[1]));
  }
  // A new variant's folders were never indexed (index_folders skips unmarked variants).
  for (const auto& variant : new_variants) {
    const auto keys = scan.keys_under(variant + "/");
    index_folders(scan, keys.begin(), keys.end());
  }
  for (const auto& ref : folders) {
    if (const auto found = scan.folders.find(ref); found != scan.folders.end()) found->second.clear();
    const auto keys = scan.keys_under(ref.first + "/" + ref.second + "/");
    index_folders(scan, keys.begin(), keys.end());
  }
}

namespace {

enum class Order { version, any };

// The listing cache under `key`; nullopt when it is absent or not a complete listing.
Result<std::optional<CachedListing>> read_cached_listing(ObjectStore& store, const std::string& key) {
  auto text = store.get(key);
  if (!text) return tl::unexpected(text.error());
  if (!text->has_value()) return std::optional<CachedListing>();
  return parse_listing(**text);
}

// The folders' files from their sidecars, each folder in version order (or in any, for a listing
// the renderer sorts anyway): every sidecar is fetched in one get_many (a folder store reads them
// on every core) and parsed where it arrives.
Result<std::vector<std::vector<FileInfo>>> read_folders(ObjectStore& store, const ChannelScan& scan,
                                                        const std::vector<ProjectRef>& refs, Order order) {
  std::vector<std::string> keys;
  std::vector<std::size_t> first_key;  // refs[i]'s keys are keys[first_key[i]..first_key[i + 1])
  for (const auto& ref : refs) {
    first_key.push_back(keys.size());
    const auto found = scan.folders.find(ref);
    if (found == scan.folders.end()) continue;
    for (const auto& wheel : found->second)
      keys.push_back(scan.folder_key(ref) + "/" + wheel + std::string(k_info_suffix));
  }
  first_key.push_back(keys.size());
  std::vector<std::optional<FileInfo>> parsed(keys.size());
  auto read = store.get_many(keys, [&](std::size_t i, std::optional<std::string> text) -> Status {
    if (!text) return {};                 // removed since the listing
    auto plain = scan_plain_info(*text);  // the common case, without naming the key
    auto info = plain ? Result<FileInfo>(std::move(*plain)) : info_from_json(*text, store.describe(keys[i]));
    if (!info) return tl::unexpected(info.error());
    // Every field goes into a page: a record that names another file or carries bytes no page
    // may hold is refused, not rendered.
    const std::string_view key = keys[i];
    const std::string_view wheel =
        key.substr(key.rfind('/') + 1, key.size() - key.rfind('/') - 1 - k_info_suffix.size());
    if (auto problem = record_problem(*info, wheel)) {
      return fail(ErrorCategory::integrity, store.describe(keys[i]) +
                                                " is not a valid file record: " + *problem +
                                                " (republish the file or restore the record from a backup)");
    }
    parsed[i] = std::move(*info);
    return {};
  });
  if (!read) return tl::unexpected(read.error());
  std::vector<std::vector<FileInfo>> out(refs.size());
  auto sorted = core::parallel_for(refs.size(), [&](std::size_t r) -> Status {
    for (std::size_t i = first_key[r]; i < first_key[r + 1]; ++i) {
      if (parsed[i]) out[r].push_back(std::move(*parsed[i]));
    }
    if (order == Order::version) sort_by_version(out[r]);
    return {};
  });
  if (!sorted) return tl::unexpected(sorted.error());
  return out;
}

// The files `added` names for the folder `ref`; null when none.
const std::vector<FileInfo>* added_to(const AddedFiles* added, const ProjectRef& ref) {
  if (added == nullptr) return nullptr;
  const auto found = added->find(ref);
  return found == added->end() ? nullptr : &found->second;
}

// `wheels` (sorted) less the names of `added`; nullopt when one of those is not among them.
std::optional<std::vector<std::string>> without(const std::vector<std::string>& wheels,
                                                const std::vector<FileInfo>& added) {
  std::set<std::string_view> names;
  for (const auto& info : added) names.insert(info.filename);
  std::vector<std::string> out;
  out.reserve(wheels.size());
  for (const auto& wheel : wheels) {
    if (names.erase(wheel) == 0) out.push_back(wheel);
  }
  if (!names.empty()) return std::nullopt;
  return out;
}

}  // namespace

Result<std::vector<FileInfo>> read_folder(ObjectStore& store, const ChannelScan& scan,
                                          const ProjectRef& ref) {
  auto read = read_folders(store, scan, {ref}, Order::version);
  if (!read) return tl::unexpected(read.error());
  return std::move(read->front());
}

Result<ChannelListing> read_listing(ObjectStore& store, const ChannelScan& scan,
                                    const std::set<std::string>* projects, const std::set<ProjectRef>* fresh,
                                    const AddedFiles* added) {
  ChannelListing listing;
  for (const auto& variant : scan.variants) listing[variant];
  std::map<std::string, std::optional<CachedListing>> caches;  // project -> its cache, read once
  std::vector<ProjectRef> unread;
  for (const auto& [ref, wheels] : scan.folders) {
    auto& files = listing[ref.first][ref.second];
    if (projects && projects->count(ref.second) == 0) continue;
    if (fresh && fresh->count(ref) == 0) {
      // Re-reading every sidecar of every other variant made one publish cost a rebuild.
      auto cache = caches.find(ref.second);
      if (cache == caches.end()) {
        auto cached = read_cached_listing(store, listing_cache_key(scan.base, ref.second));
        if (!cached) return tl::unexpected(cached.error());
        cache = caches.emplace(ref.second, std::move(*cached)).first;
      }
      if (cache->second) {
        // A folder a publish added to: the cache names what was there before, and the files added
        // need not be read back from the sidecars just written.
        const std::vector<FileInfo>* new_files = added_to(added, ref);
        const auto before = new_files ? without(wheels, *new_files) : std::nullopt;
        const std::vector<std::string>* names = new_files ? (before ? &*before : nullptr) : &wheels;
        auto section = names ? take_section(*cache->second, ref.first, *names) : std::nullopt;
        // A cache is believed only where each of its records could go into a page.
        if (section && std::none_of(section->begin(), section->end(), [](const FileInfo& info) {
              return record_problem(info, info.filename).has_value();
            })) {
          files = std::move(*section);
          if (new_files) files.insert(files.end(), new_files->begin(), new_files->end());
          continue;
        }
      }
    }
    unread.push_back(ref);
  }
  auto read = read_folders(store, scan, unread, Order::any);
  if (!read) return tl::unexpected(read.error());
  for (std::size_t i = 0; i < unread.size(); ++i)
    listing[unread[i].first][unread[i].second] = std::move((*read)[i]);
  return listing;
}

Result<std::size_t> write_pages(ObjectStore& store, const ChannelScan& scan, ChannelListing listing,
                                const std::set<ProjectRef>* touched,
                                const std::function<void(std::string_view)>& on_stage) {
  // The batches come in page order: project pages land before the root pages that link them.
  std::size_t count = 0;
  auto written =
      render_channel_pages(std::move(listing), touched, [&](std::vector<RenderedPage>& batch) -> Status {
        count += batch.size();
        std::vector<std::string> dirs;
        dirs.reserve(batch.size());
        std::vector<ObjectPut> puts;
        for (const auto& page : batch) {
          const std::string& dir = dirs.emplace_back(page.dir.empty() ? scan.base : scan.key(page.dir));
          if (page.listing)
            puts.push_back({dir + "/" + std::string(k_listing_cache), *page.listing, k_text_content_type});
          puts.push_back({dir + "/index.json", page.json, k_simple_json_type});
          puts.push_back({dir + "/index.html", page.html, k_html_type});
        }
        // Nothing watches the stages: the batch is put at once (in parallel on a folder store).
        if (!on_stage) return store.put_many(puts);
        for (const auto& put : puts) {
          if (auto status = store.put(put.key, put.bytes, put.content_type); !status) return status;
          if (put.key.ends_with("/index.html")) on_stage("page-written");
        }
        return {};
      });
  if (!written) return tl::unexpected(written.error());
  return count;
}

Result<std::vector<StoredFile>> list_channel(ObjectStore& store, Channel channel) {
  auto scan = scan_channel(store, channel);
  if (!scan) return tl::unexpected(scan.error());
  std::vector<ProjectRef> refs;
  for (const auto& entry : scan->folders) refs.push_back(entry.first);
  auto folders = read_folders(store, *scan, refs, Order::version);
  if (!folders) return tl::unexpected(folders.error());
  std::vector<StoredFile> out;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    const ProjectRef& ref = refs[i];
    for (auto& info : (*folders)[i]) {
      std::string key = scan->folder_key(ref) + "/" + info.filename;
      std::filesystem::path path = store.describe(key);
      out.push_back({ref.first, std::move(info), std::move(path), std::move(key)});
    }
  }
  return out;
}

}  // namespace relforge::channels
