#include "channels/check.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "channels/catalog.hpp"
#include "channels/identity.hpp"
#include "channels/index.hpp"
#include "channels/listing_cache.hpp"
#include "channels/tombstones.hpp"
#include "core/text.hpp"
#include "platform/digest.hpp"

namespace relforge::channels {
namespace {

const std::string k_rebuild = "run 'relforge index rebuild' (or rerun the interrupted command)";

bool temporary_name(const std::string& name) {
  return name.ends_with(".partial") || name.ends_with(".download") || name.find(".tmp.") != std::string::npos;
}

std::string last_part(const std::string& key) {
  return key.substr(key.rfind('/') + 1);
}

// A page link ("../cpu/mini/x%2B1.whl" from "whl/nightly/mini") as an object key.
std::string resolve(const std::string& dir, const std::string& url) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  const std::string path = dir + "/" + url;
  for (;;) {
    const auto slash = path.find('/', start);
    std::string part = path.substr(start, slash == std::string::npos ? slash : slash - start);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(std::move(part));
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  std::string key;
  for (const auto& part : parts) key += (key.empty() ? "" : "/") + part;
  std::string decoded;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (key[i] == '%' && i + 2 < key.size() && std::isxdigit(static_cast<unsigned char>(key[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(key[i + 2]))) {
      decoded += static_cast<char>(std::stoi(key.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      decoded += key[i];
    }
  }
  return decoded;
}

class Checker {
public:
  Checker(ObjectStore& store, const CheckOptions& options, CheckReport& report)
      : m_store(store), m_options(options), m_report(report) {}

  Status channel(Channel channel) {
    auto scanned = scan_channel(m_store, channel, Temporaries::show);
    if (!scanned) return tl::unexpected(scanned.error());
    const ChannelScan& scan = *scanned;
    for (const auto& key : scan.keys) {
      // The stable channel's folder holds the others; each is checked once, as itself.
      if (channel == Channel::stable && (key.starts_with("nightly/") || key.starts_with("test/"))) continue;
      if (temporary_name(last_part(key))) {
        add("temporary", scan.key(key), "an unfinished write left this temporary object",
            "remove " + m_store.describe(scan.key(key)) + ", then rerun the interrupted command");
      }
    }
    ChannelListing listing;
    for (const auto& variant : scan.variants) listing[variant];
    for (const auto& [ref, wheels] : scan.folders) {
      auto files = folder(scan, ref, wheels);
      if (!files) return tl::unexpected(files.error());
      listing[ref.first][ref.second] = std::move(*files);
    }
    duplicates(scan, listing);
    clashes(scan, listing);
    return pages(scan, listing);
  }

private:
  void add(std::string kind, const std::string& key, std::string message, std::string fix) {
    m_report.problems.push_back({std::move(kind), m_store.describe(key), std::move(message), std::move(fix)});
  }

  bool requires_signature(Channel channel) const {
    if (m_options.signatures == SignaturePolicy::optional) return false;
    return m_options.signatures == SignaturePolicy::require || channel_requires_signatures(channel);
  }

  // One variant project folder: its records, bytes, sidecars and leftovers. Returns the files the
  // pages must list.
  Result<std::vector<FileInfo>> folder(const ChannelScan& scan, const ProjectRef& ref,
                                       const std::vector<std::string>& wheels) {
    const std::string base = scan.folder_key(ref);
    const std::string prefix = ref.first + "/" + ref.second + "/";
    std::map<std::string, Tombstone> dead;
    if (scan.has(prefix + std::string(k_tombstones_file))) {
      auto stones = read_tombstones(m_store, base + "/" + std::string(k_tombstones_file));
      if (!stones) {
        add("bad-tombstones", base + "/" + std::string(k_tombstones_file), stones.error().message(),
            "restore the tombstone record from a backup");
      } else {
        for (auto& stone : *stones) dead.emplace(stone.identity.key(), std::move(stone));
      }
    }
    const auto tombstoned = [&](const std::string& wheel) {
      const auto identity = identity_of(wheel);
      return identity && dead.count(identity->key()) != 0;
    };
    const std::string prune = "rerun 'relforge prune --channel " + std::string(channel_name(scan.channel)) +
                              "' to finish the prune that deleted it";
    std::vector<FileInfo> files;
    std::set<std::string> complete(wheels.begin(), wheels.end());
    for (const auto& wheel : wheels) {
      const std::string key = base + "/" + wheel;
      auto text = m_store.get(key + ".info.json");
      if (!text) return tl::unexpected(text.error());
      if (!text->has_value()) continue;
      auto info = info_from_json(**text, m_store.describe(key + ".info.json"));
      if (!info) {
        add("bad-record", key + ".info.json", info.error().message(), "republish " + wheel);
        continue;
      }
      ++m_report.files;
      if (tombstoned(wheel)) {
        add("tombstoned-file", key, wheel + " is still stored although a tombstone says it was deleted",
            prune);
      }
      if (info->filename != wheel || info->project != ref.second) {
        add("bad-record", key + ".info.json",
            "the record names " + info->project + "/" + info->filename + ", not " + ref.second + "/" + wheel,
            "republish " + wheel);
      } else if (auto problem = record_problem(*info, wheel)) {
        add("bad-record", key + ".info.json", *problem + "; no page may carry it", "republish " + wheel);
      }
      auto head = m_store.head(key);
      if (!head) return tl::unexpected(head.error());
      auto digest = object_sha256(m_store, key, m_options.scratch);
      if (!digest) return tl::unexpected(digest.error());
      if (*digest != info->sha256 || (head->has_value() && (*head)->size != info->size)) {
        add("hash-mismatch", key,
            "the bytes have sha256 " + *digest + " but the record and pages say " + info->sha256 + " (size " +
                std::to_string(info->size) + ")",
            "the file was changed after publishing: restore it from a backup or the original wheel");
      }
      auto metadata = m_store.get(key + ".metadata");
      if (!metadata) return tl::unexpected(metadata.error());
      if (!metadata->has_value()) {
        add("missing-sidecar", key + ".metadata", "the wheel's METADATA (PEP 658) is missing",
            "republish " + wheel + " (the same bytes are accepted)");
      } else if (platform::to_hex(platform::sha256(**metadata)) != info->metadata_sha256) {
        add("hash-mismatch", key + ".metadata", "FILE.metadata does not have the sha256 the pages advertise",
            "republish " + wheel + " after restoring " + m_store.describe(key + ".metadata"));
      }
      if (info->provenance) {
        for (const char* suffix : {".sigstore.json", ".provenance"}) {
          if (!scan.has(prefix + wheel + suffix)) {
            add("missing-sidecar", key + suffix,
                "the record says the file is signed but this sidecar is missing",
                "republish " + wheel + " with its bundle (the same bytes are accepted)");
          }
        }
      } else if (requires_signature(scan.channel)) {
        add("unsigned", key,
            "the " + std::string(channel_name(scan.channel)) +
                " channel requires signatures but this file has none",
            "sign the wheel and republish it with --key, or check with --allow-unsigned");
      }
      files.push_back(std::move(*info));
    }
    sort_by_version(files);
    // Every other object in the folder must be a page, a cache, the tombstones or a sidecar.
    for (const std::string& key : scan.keys_under(prefix)) {
      const std::string name = key.substr(prefix.size());
      if (name.find('/') != std::string::npos || temporary_name(name)) continue;
      // (A listing cache here is an older relforge's: never read, and removed by a rebuild.)
      if (name == "index.html" || name == "index.json" || name == k_listing_cache ||
          name == k_tombstones_file)
        continue;
      std::string wheel = name;
      for (const auto& suffix : sidecar_suffixes()) {
        if (name.ends_with(suffix)) wheel = name.substr(0, name.size() - suffix.size());
      }
      if (complete.count(wheel)) continue;
      if (tombstoned(wheel)) {
        add("orphan", scan.key(key), "left over from a prune that was interrupted", prune);
      } else if (name == wheel && name.ends_with(".whl")) {
        add("orphan", scan.key(key), "a wheel without its FILE.info.json: a publish that did not finish",
            "rerun the publish of " + name + ", or remove " + m_store.describe(scan.key(key)));
      } else {
        add("orphan", scan.key(key), "no complete wheel " + wheel + " belongs to this object",
            "remove the orphan " + m_store.describe(scan.key(key)));
      }
    }
    return files;
  }

  Status pages(const ChannelScan& scan, const ChannelListing& listing) {
    for (const auto& page : render_channel_pages(listing)) {
      const std::string dir = page.dir.empty() ? scan.base : scan.key(page.dir);
      if (page.listing && scan.has(page.dir + "/" + std::string(k_listing_cache))) {
        const std::string cache_key = dir + "/" + std::string(k_listing_cache);
        auto cached = m_store.get(cache_key);
        if (!cached) return tl::unexpected(cached.error());
        if (!cached->has_value() || **cached != *page.listing) {
          add("stale-listing-cache", cache_key, "the listing cache does not match the records", k_rebuild);
        }
      }
      for (const auto& [name, expected] :
           {std::pair<std::string, const std::string*>{"index.html", &page.html},
            {"index.json", &page.json}}) {
        ++m_report.pages;
        const std::string key = dir + "/" + name;
        auto stored = m_store.get(key);
        if (!stored) return tl::unexpected(stored.error());
        if (!stored->has_value()) {
          add("missing-page", key, "the index page is missing", k_rebuild);
          continue;
        }
        if (**stored != *expected) {
          add("stale-page", key, "the index page does not say what the folder's records say", k_rebuild);
        }
        if (name == "index.json") links(scan, dir, **stored);
      }
    }
    return {};
  }

  // One identity, one file: two S3 publishers of equivalent names racing (no lock there), or files
  // copied in by hand, are the only ways to break the rule, and this is where it shows.
  void duplicates(const ChannelScan& scan, const ChannelListing& listing) {
    std::map<std::string, std::pair<std::string, std::string>> seen;  // identity -> (key, sha256)
    for (const auto& [variant, projects] : listing) {
      for (const auto& [project, files] : projects) {
        for (const auto& info : files) {
          const auto identity = identity_of(info.filename);
          if (!identity) continue;
          const std::string key = scan.key(variant + "/" + project + "/" + info.filename);
          const auto [first, fresh] = seen.emplace(identity->key(), std::make_pair(key, info.sha256));
          if (fresh) continue;
          const bool same_file =
              last_part(first->second.first) == info.filename && first->second.second == info.sha256;
          if (same_file) continue;  // one file mirrored into two variants
          add("duplicate-identity", key,
              "the same file identity (" + identity->describe() + ") as " +
                  m_store.describe(first->second.first) +
                  (first->second.second == info.sha256 ? "" : ", with other bytes"),
              "keep one: yank the other (relforge yank), or remove it and run 'relforge index rebuild'");
        }
      }
    }
  }

  // A variant named like a project of the channel (or, in stable, a project named like another
  // channel) shares its folder: one of the two pages there is always wrong. Publish refuses this;
  // a store written before that check, or by hand, shows it here.
  void clashes(const ChannelScan& scan, const ChannelListing& listing) {
    std::set<std::string> projects;
    for (const auto& [variant, folder_projects] : listing)
      for (const auto& [project, files] : folder_projects) projects.insert(project);
    for (const auto& [variant, folder_projects] : listing) {
      if (projects.count(core::to_lower(variant)) == 0) continue;
      add("folder-clash", scan.key(variant),
          "the variant " + variant + " and the project " + core::to_lower(variant) +
              " share this folder, so one of their index pages is always wrong",
          "remove the variant's folder (its wheels can be published again under another --variant), then run "
          "'relforge index rebuild'");
    }
    if (scan.channel != Channel::stable) return;
    for (const std::string other : {"nightly", "test"}) {
      if (projects.count(other) == 0) continue;
      add("folder-clash", scan.key(other),
          "the stable project " + other + " shares this folder with the " + other + " channel",
          "remove the stable project's files and run 'relforge index rebuild'");
    }
  }

  // Every file a stored JSON page names must be complete, with the sha256 the page advertises.
  void links(const ChannelScan& scan, const std::string& dir, const std::string& text) {
    const auto json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
      add("stale-page", dir + "/index.json", "the page is not valid JSON", k_rebuild);
      return;
    }
    if (!json.contains("files") || !json["files"].is_array()) return;
    for (const auto& file : json["files"]) {
      const std::string url = file.value("url", "");
      std::string sha;
      if (file.contains("hashes") && file["hashes"].is_object()) sha = file["hashes"].value("sha256", "");
      const std::string key = resolve(dir, url);
      const std::string relative = key.starts_with(scan.base + "/") ? key.substr(scan.base.size() + 1) : key;
      const std::string wheel = last_part(relative);
      const std::string folder = relative.substr(0, relative.size() - wheel.size());
      const auto slash = folder.find('/');
      bool ok = false;
      if (slash != std::string::npos) {
        const ProjectRef ref{folder.substr(0, slash), folder.substr(slash + 1, folder.size() - slash - 2)};
        const auto found = scan.folders.find(ref);
        if (found != scan.folders.end() &&
            std::binary_search(found->second.begin(), found->second.end(), wheel)) {
          auto info_text = m_store.get(key + ".info.json");
          if (info_text && info_text->has_value()) {
            auto info = info_from_json(**info_text, key);
            ok = info && info->sha256 == sha;
          }
        }
      }
      if (!ok) {
        add("broken-link", dir + "/index.json",
            "the page names " + url + " (sha256 " + sha + "), which is not a complete file with that sha256",
            k_rebuild);
      }
    }
  }

  ObjectStore& m_store;
  const CheckOptions& m_options;
  CheckReport& m_report;
};

}  // namespace

Result<CheckReport> check_store(ObjectStore& store, const CheckOptions& options) {
  CheckReport report;
  Checker checker(store, options, report);
  for (const Channel channel : {Channel::stable, Channel::test, Channel::nightly}) {
    if (auto status = checker.channel(channel); !status) return tl::unexpected(status.error());
  }
  return report;
}

}  // namespace relforge::channels
