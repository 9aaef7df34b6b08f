#include "channels/catalog.hpp"
#include "channels/index.hpp"
#include "channels/listing_cache.hpp"

namespace relforge::channels {

Result<RebuildSummary> rebuild_store(ObjectStore& store) {
  auto lock = store.lock();
  if (!lock) return tl::unexpected(lock.error());
  RebuildSummary summary;
  for (const Channel channel : {Channel::stable, Channel::test, Channel::nightly}) {
    auto scan = scan_channel(store, channel);
    if (!scan) return tl::unexpected(scan.error());
    if (scan->variants.empty()) continue;
    auto listing = read_listing(store, *scan, nullptr, nullptr);
    if (!listing) return tl::unexpected(listing.error());
    for (const auto& [variant, projects] : *listing) {
      for (const auto& [project, files] : projects) summary.files += files.size();
    }
    auto pages = write_pages(store, *scan, std::move(*listing), nullptr);
    if (!pages) return tl::unexpected(pages.error());
    summary.pages += *pages;
    // An older relforge cached a listing in every variant folder: nothing reads them any more.
    for (const auto& [ref, wheels] : scan->folders) {
      const std::string old_cache = ref.first + "/" + ref.second + "/" + std::string(k_listing_cache);
      if (!scan->has(old_cache)) continue;
      if (auto status = store.remove(scan->key(old_cache)); !status) return tl::unexpected(status.error());
    }
  }
  return summary;
}

Result<RebuildSummary> rebuild_all(const std::filesystem::path& root) {
  FilesystemObjectStore store(root);
  return rebuild_store(store);
}

}  // namespace relforge::channels
