#pragma once
// Publishing into any ObjectStore (an S3 bucket, or a folder through FilesystemObjectStore) with
// the checks of run_publish: wheels and sidecars are uploaded first, FILE.info.json last, and the
// affected index pages after every file, so a page never names a missing object.
#include <vector>

#include "channels/index.hpp"
#include "channels/object_store.hpp"
#include "channels/publish.hpp"
#include "core/error.hpp"

namespace relforge::channels {

// `options.root` is not used; `store` is where the channel tree lives. There is no lock: two
// publishers into one bucket can race on the index pages (never on a wheel's bytes).
Result<std::vector<PublishedFile>> run_publish_to_store(const PublishOptions& options, ObjectStore& store);

// Re-renders every index page of every channel from the store's listing.
Result<RebuildSummary> rebuild_store(ObjectStore& store);

// The listing of one channel; with `projects` set, FileInfo is read only for those projects.
Result<ChannelListing> read_channel_listing(ObjectStore& store, Channel channel,
                                            const std::set<std::string>* projects = nullptr);

}  // namespace relforge::channels
