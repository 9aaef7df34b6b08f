#include "channels/object_store_publish.hpp"

#include <set>

namespace relforge::channels {
namespace {

constexpr const char* k_wheel_type = "application/octet-stream";
constexpr const char* k_text_type = "text/plain; charset=utf-8";
constexpr const char* k_json_type = "application/json";
constexpr const char* k_html_type = "text/html; charset=utf-8";
constexpr const char* k_simple_json_type = "application/vnd.pypi.simple.v1+json";

std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const auto slash = key.find('/', start);
    parts.push_back(key.substr(start, slash - start));
    if (slash == std::string::npos) return parts;
    start = slash + 1;
  }
}

Status put_pages(ObjectStore& store, const std::string& base, const std::vector<RenderedPage>& pages,
                 const PublishOptions* options) {
  for (const auto& page : pages) {
    const std::string dir = page.dir.empty() ? base : base + "/" + page.dir;
    if (auto status = store.put(dir + "/index.json", page.json, k_simple_json_type); !status) return status;
    if (auto status = store.put(dir + "/index.html", page.html, k_html_type); !status) return status;
    if (options && options->on_stage) options->on_stage("page-written");
  }
  return {};
}

// Uploads one wheel and its sidecars; FILE.info.json goes last because the listing only counts a
// wheel that has one.
Status store_one(ObjectStore& store, const std::string& key, PreparedWheel& item, PublishState& state) {
  auto put = store.put_if_absent(key, item.source, item.info.sha256, k_wheel_type);
  if (!put) return tl::unexpected(put.error());
  state = PublishState::added;
  if (*put == PutResult::identical) {
    auto old_text = store.get(key + ".info.json");
    if (!old_text) return tl::unexpected(old_text.error());
    if (old_text->has_value()) {
      auto old = info_from_json(**old_text, store.describe(key + ".info.json"));
      if (old && old->provenance == item.info.provenance) {
        state = PublishState::unchanged;
        return {};
      }
      if (old) {
        item.info.upload_time = old->upload_time;
        item.info.yanked = old->yanked;
        item.info.yanked_reason = old->yanked_reason;
      }
    }
  }
  if (auto status = store.put(key + ".metadata", item.metadata, k_text_type); !status) return status;
  if (item.bundle) {
    if (auto status = store.put(key + ".sigstore.json", *item.bundle, k_json_type); !status) return status;
    if (auto status =
            store.put(key + ".provenance", provenance_object(*item.bundle, item.key_id), k_json_type);
        !status)
      return status;
  }
  return store.put(key + ".info.json", info_to_json(item.info), k_json_type);
}

}  // namespace

Result<ChannelListing> read_channel_listing(ObjectStore& store, Channel channel,
                                            const std::set<std::string>* projects) {
  const std::string base = channel_key(channel);
  auto objects = store.list(base + "/");
  if (!objects) return tl::unexpected(objects.error());
  std::set<std::string> keys;
  for (const auto& object : *objects) keys.insert(object.key.substr(base.size() + 1));
  ChannelListing listing;
  std::set<std::string> variants;
  for (const auto& key : keys) {
    const auto parts = split_key(key);
    if (parts.size() == 2 && parts[1] == k_variant_marker) variants.insert(parts[0]);
  }
  for (const auto& variant : variants) listing[variant];
  for (const auto& key : keys) {
    const auto parts = split_key(key);
    if (parts.size() != 3 || variants.count(parts[0]) == 0 || !parts[2].ends_with(".whl.info.json")) continue;
    const std::string wheel = key.substr(0, key.size() - std::string_view(".info.json").size());
    if (keys.count(wheel) == 0) continue;  // a crashed prune: the info outlived its wheel
    auto& files = listing[parts[0]][parts[1]];
    if (projects && projects->count(parts[1]) == 0) continue;
    auto text = store.get(base + "/" + key);
    if (!text) return tl::unexpected(text.error());
    if (!text->has_value()) continue;  // removed since the listing
    auto info = info_from_json(**text, store.describe(base + "/" + key));
    if (!info) return tl::unexpected(info.error());
    files.push_back(std::move(*info));
  }
  return listing;
}

Result<std::vector<PublishedFile>> run_publish_to_store(const PublishOptions& options, ObjectStore& store) {
  auto checked = prepare_publish(options);
  if (!checked) return tl::unexpected(checked.error());
  const std::string base = channel_key(options.channel);
  std::vector<PublishedFile> out;
  std::set<ProjectRef> touched;
  std::set<std::string> marked;
  for (auto& item : *checked) {
    const std::string variant_key = base + "/" + item.variant;
    if (marked.insert(item.variant).second) {
      auto marker = store.head(variant_key + "/" + std::string(k_variant_marker));
      if (!marker) return tl::unexpected(marker.error());
      if (!marker->has_value()) {
        if (auto status = store.put(variant_key + "/" + std::string(k_variant_marker), "", k_text_type);
            !status) {
          return tl::unexpected(status.error());
        }
      }
    }
    PublishState state = PublishState::added;
    const std::string key = variant_key + "/" + item.info.project + "/" + item.info.filename;
    if (auto status = store_one(store, key, item, state); !status) {
      return tl::unexpected(
          Error(status.error())
              .with_context("publishing " + item.info.filename + " (no index page was changed)"));
    }
    touched.insert({item.variant, item.info.project});
    out.push_back({item.info.filename, item.variant, item.info.project, item.info.version, item.info.sha256,
                   item.bundle.has_value(), state});
  }
  if (options.on_stage) options.on_stage("files-written");
  std::set<std::string> projects;
  for (const auto& ref : touched) projects.insert(ref.second);
  auto listing = read_channel_listing(store, options.channel, &projects);
  if (!listing) return tl::unexpected(listing.error());
  if (auto status = put_pages(store, base, render_channel_pages(*listing, &touched), &options); !status) {
    return tl::unexpected(status.error());
  }
  return out;
}

Result<RebuildSummary> rebuild_store(ObjectStore& store) {
  RebuildSummary summary;
  for (const Channel channel : {Channel::stable, Channel::test, Channel::nightly}) {
    auto listing = read_channel_listing(store, channel);
    if (!listing) return tl::unexpected(listing.error());
    if (listing->empty()) continue;
    for (const auto& [variant, projects] : *listing) {
      for (const auto& [project, files] : projects) summary.files += files.size();
    }
    const auto pages = render_channel_pages(*listing);
    if (auto status = put_pages(store, channel_key(channel), pages, nullptr); !status) {
      return tl::unexpected(status.error());
    }
    summary.pages += pages.size();
  }
  return summary;
}

}  // namespace relforge::channels
