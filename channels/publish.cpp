#include "channels/publish.hpp"

#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>

#include <nlohmann/json.hpp>

#include "channels/catalog.hpp"
#include "channels/index.hpp"
#include "channels/listing_cache.hpp"
#include "channels/tombstones.hpp"
#include "core/text.hpp"
#include "packaging/names.hpp"
#include "packaging/specifier.hpp"
#include "packaging/version.hpp"
#include "packaging/wheel_diff.hpp"
#include "packaging/wheel_metadata.hpp"
#include "packaging/wheel_name.hpp"
#include "packaging/wheel_repair.hpp"
#include "platform/digest.hpp"
#include "platform/file_snapshot.hpp"
#include "platform/fs.hpp"
#include "platform/private_dir.hpp"
#include "signing/bundle.hpp"
#include "signing/keys.hpp"

namespace relforge::channels {
namespace fs = std::filesystem;
namespace {

using Prepared = PreparedWheel;

// A variant is a folder beside the channel's own pages (index.html, index.json) and, in the stable
// channel, beside the nightly and test channels.
bool valid_variant(const std::string& variant) {
  const std::string lower = core::to_lower(variant);
  if (variant.empty() || lower == "nightly" || lower == "test" || lower == "index.html" ||
      lower == "index.json" || variant.front() == '.')
    return false;
  for (const char c : variant) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  }
  return true;
}

Result<Prepared> prepare(const PublishOptions& options, const fs::path& file,
                         const std::optional<std::string>& variant,
                         const std::optional<signing::PublicKey>& key, bool require_signature) {
  const std::string filename = file.filename().string();
  auto name = packaging::parse_wheel_filename(filename);
  if (!name) return tl::unexpected(name.error());
  // Every check reads one private copy, taken in one read and hashed on the way: a file rewritten
  // or swapped meanwhile cannot pass one check with some bytes and another with others, and the
  // store takes only bytes of this hash (put_if_absent).
  auto snapshot = platform::FileSnapshot::take(file);
  if (!snapshot) return tl::unexpected(snapshot.error());
  const fs::path& copy = (*snapshot)->path();
  const auto about_input = [&snapshot](const Error& error) {
    return tl::unexpected((*snapshot)->about_original(error));
  };
  // What `wheel verify` refuses is never published: one rule for paths, duplicates and RECORD.
  if (auto verified = packaging::verify_wheel(copy); !verified) return about_input(verified.error());
  auto metadata = packaging::read_wheel_metadata(copy);
  if (!metadata) return about_input(metadata.error());
  // Core metadata names are ASCII (PEP 508): a Cyrillic 'е' would make a project that reads as demo.
  if (!packaging::is_valid_project_name(metadata->name)) {
    return fail(ErrorCategory::invalid_input,
                filename + ": its METADATA Name '" + metadata->name +
                    "' is not a valid project name (PEP 508: ASCII letters and digits, with '.', '-' and '_' "
                    "between them); rename the project and rebuild the wheel");
  }
  // pip ignores a Requires-Python it cannot parse and installs the file on every Python.
  if (!metadata->requires_python.empty()) {
    if (auto specifiers = packaging::parse_specifier_set(metadata->requires_python); !specifiers) {
      return fail(ErrorCategory::integrity,
                  filename + ": its METADATA Requires-Python '" + metadata->requires_python +
                      "' is not a PEP 440 specifier set (" + specifiers.error().message() +
                      "); pip would ignore it: fix it and rebuild the wheel");
    }
  }
  auto meta_version = packaging::parse_version(metadata->version);
  if (packaging::normalize_project_name(metadata->name) != name->normalized_name() || !meta_version ||
      meta_version->to_string() != name->version.to_string()) {
    return fail(ErrorCategory::integrity,
                "file name " + filename + " does not match its METADATA (Name: " + metadata->name +
                    ", Version: " + metadata->version + "); rebuild the wheel or rename it to match");
  }
  Prepared out;
  out.source = file;
  if (variant) {
    out.variant = *variant;
  } else if (name->version.has_local()) {
    out.variant = name->version.local_string();
  } else {
    return fail(ErrorCategory::invalid_input, filename +
                                                  " has no local version label to name its variant; "
                                                  "pass --variant (e.g. --variant cpu)");
  }
  if (!valid_variant(out.variant)) {
    return fail(ErrorCategory::invalid_input,
                "variant '" + out.variant + "' of " + filename +
                    " is not a valid folder name (letters, digits, '.', '_' and '-'; not 'nightly', 'test', "
                    "'index.html' or 'index.json'); pass --variant with another name");
  }
  if (options.channel == Channel::stable &&
      (name->normalized_name() == "nightly" || name->normalized_name() == "test")) {
    // The stable channel's combined page of such a project would be the other channel's root page.
    return fail(ErrorCategory::invalid_input,
                filename + ": a project named '" + name->normalized_name() +
                    "' cannot be published to the stable channel, whose folder whl/" +
                    name->normalized_name() + "/ is the " + name->normalized_name() + " channel");
  }
  const fs::path bundle_path = file.string() + ".sigstore.json";
  if (fs::exists(bundle_path) && key) {
    // Bounded and regular files only, as for `verify`: a bundle that is a FIFO or a link to
    // /dev/zero is refused, not read for ever.
    auto text = signing::read_bundle(file);
    if (!text) return tl::unexpected(text.error());
    auto verified = signing::verify_bundle(copy, *text, *key);
    if (!verified) return about_input(verified.error());
    out.bundle = std::move(*text);
    out.key_id = verified->key_id;
  } else if (require_signature) {
    return fail(ErrorCategory::integrity,
                fs::exists(bundle_path)
                    ? filename + " is signed but no --key was given to verify it; the " +
                          std::string(channel_name(options.channel)) + " channel requires verified signatures"
                    : filename + " is not signed (no " + bundle_path.filename().string() + "); the " +
                          std::string(channel_name(options.channel)) +
                          " channel requires signatures: run 'relforge sign' first");
  }
  auto canonical = canonical_filename(filename);
  if (!canonical) return tl::unexpected(canonical.error());
  if (*canonical != filename && out.bundle) {
    // The bundle's subject names the file as signed; a renamed copy would no longer verify.
    return fail(ErrorCategory::invalid_input,
                filename + " is signed under a name that is not its canonical spelling " + *canonical +
                    "; rename the wheel to " + *canonical + " and sign it again");
  }
  auto identity = identity_of(*canonical);
  if (!identity) return tl::unexpected(identity.error());
  out.identity = std::move(*identity);
  out.info.filename = *canonical;
  out.info.project = name->normalized_name();
  out.info.version = name->version.to_string();
  out.info.sha256 = (*snapshot)->sha256();
  out.info.size = (*snapshot)->size();
  out.info.metadata_sha256 = platform::to_hex(platform::sha256(metadata->metadata));
  out.info.requires_python = metadata->requires_python;
  out.info.upload_time = options.upload_time;
  out.info.provenance = out.bundle.has_value();
  out.metadata = std::move(metadata->metadata);
  return out;
}

// Uploads one wheel and its sidecars; FILE.info.json goes last because the listing only counts a
// wheel that has one.
Status store_one(ObjectStore& store, const std::string& folder, const std::string& listing_key,
                 Prepared& item, PublishState& state) {
  const std::string key = folder + "/" + item.info.filename;
  auto put = store.put_if_absent(key, item.source, item.info.sha256, k_wheel_content_type);
  if (!put) return tl::unexpected(put.error());
  state = PublishState::added;
  if (*put == PutResult::identical) {
    auto old_text = store.get(key + ".info.json");
    if (!old_text) return tl::unexpected(old_text.error());
    if (old_text->has_value()) {
      auto old = info_from_json(**old_text, store.describe(key + ".info.json"));
      // A signed file keeps the bundle it was published with: the same bytes again, with any
      // bundle or none, change nothing (a nightly rerun re-signs reproducible bytes) but write a
      // missing bundle back.
      if (old && old->provenance) {
        state = PublishState::unchanged;
        item.info.provenance = true;
        if (!item.bundle) return {};
        auto existing = store.get(key + ".sigstore.json");
        if (!existing) return tl::unexpected(existing.error());
        if (existing->has_value()) return {};
        if (auto status = store.put(key + ".sigstore.json", *item.bundle, k_json_content_type); !status)
          return status;
        return store.put(key + ".provenance", provenance_object(*item.bundle, item.key_id),
                         k_json_content_type);
      }
      if (old && old->provenance == item.info.provenance) {
        state = PublishState::unchanged;
        return {};
      }
      // The info is rewritten under the same name, which the cached listing would not notice.
      if (auto status = store.remove(listing_key); !status) return status;
      if (old) {
        item.info.upload_time = old->upload_time;
        item.info.yanked = old->yanked;
        item.info.yanked_reason = old->yanked_reason;
      }
    }
  }
  if (auto status = store.put(key + ".metadata", item.metadata, k_text_content_type); !status) return status;
  if (item.bundle) {
    if (auto status = store.put(key + ".sigstore.json", *item.bundle, k_json_content_type); !status)
      return status;
    if (auto status =
            store.put(key + ".provenance", provenance_object(*item.bundle, item.key_id), k_json_content_type);
        !status)
      return status;
  }
  return store.put(key + ".info.json", info_to_json(item.info), k_json_content_type);
}

struct KnownWheel {
  std::string variant;
  std::string filename;
};

// What the channel already holds or held for the projects being published: every wheel object
// (complete or not) of a version being published, by identity, and every tombstone.
struct Known {
  std::map<std::string, std::vector<KnownWheel>> wheels;                // identity key -> where
  std::map<std::string, std::pair<Tombstone, std::string>> tombstones;  // identity key -> (it, its key)
};

// The version_key of a stored wheel's name, read from its version field alone; nullopt when that
// is no version (identity_of would refuse the name too).
std::optional<std::string> stored_version_key(std::string_view filename) {
  const auto dash = filename.find('-');
  const auto next = dash == std::string_view::npos ? dash : filename.find('-', dash + 1);
  if (next == std::string_view::npos) return std::nullopt;
  auto version = packaging::parse_version(filename.substr(dash + 1, next - dash - 1));
  if (!version) return std::nullopt;
  return version_key(std::move(*version));
}

Result<Known> known_identities(ObjectStore& store, const ChannelScan& scan,
                               const std::set<std::string>& projects,
                               const std::set<std::string>& version_keys) {
  Known known;
  for (const auto& [ref, wheels] : scan.folders) {
    if (projects.count(ref.second) == 0) continue;
    const std::string prefix = ref.first + "/" + ref.second + "/";
    for (const std::string& object : scan.keys_under(prefix)) {
      const std::string name = object.substr(prefix.size());
      if (!name.ends_with(".whl") || name.find('/') != std::string::npos) continue;
      // Only a file of a version being published can share an identity with one: the rest of a
      // folder's names need no full parse.
      const auto key = stored_version_key(name);
      if (!key || version_keys.count(*key) == 0) continue;
      auto identity = identity_of(name);
      if (!identity) continue;  // not a wheel relforge stored: `index check` reports it
      known.wheels[identity->key()].push_back({ref.first, name});
    }
    const std::string stones_key = scan.folder_key(ref) + "/" + std::string(k_tombstones_file);
    if (!scan.has(prefix + std::string(k_tombstones_file))) continue;
    auto stones = read_tombstones(store, stones_key);
    if (!stones) return tl::unexpected(stones.error());
    for (auto& stone : *stones) {
      const std::string id = stone.identity.key();
      known.tombstones.emplace(id, std::make_pair(std::move(stone), stones_key));
    }
  }
  return known;
}

// "; it differs in: changed minitensor/_C.so (section .text: content), ...": which entries make a
// rebuilt wheel other bytes than the published one, so a non-reproducible build names its cause.
std::string differing_entries(ObjectStore& store, const std::string& key, const fs::path& local) {
  std::optional<fs::path> published = store.local_path(key);
  std::optional<platform::PrivateDir> scratch;  // a downloaded copy, removed on the way out
  if (!published) {
    auto made = platform::PrivateDir::create("relforge-diff-", "for the published " + key);
    if (!made) return "";
    scratch = std::move(*made);
    published = scratch->path() / "published.whl";
    if (!download_as_listed(store, key, *published)) return "";
  }
  auto diff = packaging::diff_wheels(*published, local);
  if (!diff) return "";
  const std::string hint =
      scratch ? "" : " (relforge wheel diff " + published->string() + " " + local.string() + ")";
  return "; it differs in: " + packaging::summarize_diff(*diff) + hint;
}

// A channel's variant folders and its combined project folders share one level (whl/nightly/cpu/
// beside whl/nightly/demo/): a variant named like a project, or the other way round, would make
// each one's page overwrite the other's. Checked for every input before anything is written.
Status check_folder_names(const ChannelScan& scan, const std::vector<Prepared>& prepared) {
  std::set<std::string> projects;
  std::set<std::string> variants;  // lower case: project folder names are
  for (const auto& [ref, files] : scan.folders) projects.insert(ref.second);
  for (const auto& variant : scan.variants) variants.insert(core::to_lower(variant));
  for (const auto& item : prepared) {
    projects.insert(item.info.project);
    variants.insert(core::to_lower(item.variant));
  }
  std::set<std::string> problems;
  for (const auto& item : prepared) {
    const std::string input = item.source.filename().string();
    const std::string variant = core::to_lower(item.variant);
    if (projects.count(variant) != 0) {
      problems.insert(input + ": its variant '" + item.variant +
                      "' is also a project of the channel, and both " + "would be the folder " +
                      scan.key(variant) + "/; pass --variant with another name");
    }
    if (variants.count(item.info.project) != 0) {
      problems.insert(input + ": its project '" + item.info.project + "' is also a variant of the channel, " +
                      "and both would be the folder " + scan.key(item.info.project) +
                      "/; a project of that name cannot be published to this channel");
    }
  }
  if (!problems.empty()) {
    return fail(ErrorCategory::conflict,
                "refusing to publish (nothing was changed): " +
                    core::join(std::vector<std::string>(problems.begin(), problems.end()), "; "));
  }
  return {};
}

// The identity rule, checked for every input before anything is written.
Status check_identities(ObjectStore& store, const ChannelScan& scan, const Known& known,
                        const std::vector<Prepared>& prepared) {
  const std::string channel(channel_name(scan.channel));
  std::vector<std::string> problems;
  std::map<std::string, const Prepared*> batch;
  for (const auto& item : prepared) {
    const std::string id = item.identity.key();
    const std::string input = item.source.filename().string();
    if (auto [other, fresh] = batch.emplace(id, &item); !fresh) {
      const Prepared& first = *other->second;
      if (first.info.sha256 != item.info.sha256) {
        problems.push_back(input + " and " + first.source.filename().string() +
                           " are the same file identity (" + item.identity.describe() +
                           ") with different bytes; publish one of them");
      } else if (first.info.filename != item.info.filename) {
        // Both would be stored, and the channel would hold one identity twice.
        problems.push_back(input + " and " + first.source.filename().string() +
                           " are the same file identity (" + item.identity.describe() +
                           ") under two names (" + first.info.filename + ", " + item.info.filename +
                           "); an identity is published once, under one name: publish one "
                           "of them");
      }
    }
    if (const auto stone = known.tombstones.find(id); stone != known.tombstones.end()) {
      const Tombstone& dead = stone->second.first;
      problems.push_back(input + " is " + dead.filename + " (" + item.identity.describe() +
                         "), deleted from the " + channel + " channel on " + dead.deleted_at + " (" +
                         dead.reason + "; tombstone in " + store.describe(stone->second.second) +
                         "); a deleted file is never published again: bump the version or build number");
      continue;
    }
    const auto found = known.wheels.find(id);
    if (found == known.wheels.end()) continue;
    for (const auto& wheel : found->second) {
      const std::string key = scan.key(wheel.variant + "/" + item.identity.project + "/" + wheel.filename);
      if (wheel.filename != item.info.filename) {
        problems.push_back(input + " is the same file identity (" + item.identity.describe() +
                           ") as the published " + store.describe(key) +
                           "; an identity is published once, under one name: republish that file or bump "
                           "the version or build number");
        break;
      }
      if (wheel.variant == item.variant) {
        // Checked here too, so that one conflicting file in a batch stores none of the others;
        // put_if_absent still decides where there is no record (an unfinished publish).
        const std::string relative = wheel.variant + "/" + item.identity.project + "/" + wheel.filename;
        if (!scan.has(relative + ".info.json")) continue;
        auto text = store.get(key + ".info.json");
        if (!text) return tl::unexpected(text.error());
        if (!text->has_value()) continue;
        auto old = info_from_json(**text, store.describe(key + ".info.json"));
        if (!old) return tl::unexpected(old.error());
        if (old->sha256 != item.info.sha256) {
          problems.push_back(input + ": " + immutable_conflict(store.describe(key), old->sha256).message() +
                             differing_entries(store, key, item.source));
        }
        continue;
      }
      auto stored = object_sha256(store, key, {});
      if (!stored) return tl::unexpected(stored.error());
      if (*stored != item.info.sha256) {
        problems.push_back(input + " has other bytes than the published " + store.describe(key) +
                           " (sha256 " + *stored +
                           ") of the same identity; published files are immutable: bump the "
                           "version or build number" +
                           differing_entries(store, key, item.source));
        break;
      }
    }
  }
  if (!problems.empty()) {
    return fail(ErrorCategory::conflict,
                "refusing to publish (nothing was changed): " + core::join(problems, "; "));
  }
  return {};
}

}  // namespace

std::string provenance_object(const std::string& bundle_json, const std::string& key_id) {
  const auto bundle = nlohmann::json::parse(bundle_json, nullptr, false);
  nlohmann::ordered_json envelope = {{"statement", ""}, {"signature", ""}};
  if (!bundle.is_discarded() && bundle.contains("dsseEnvelope")) {
    const auto& dsse = bundle["dsseEnvelope"];
    envelope["statement"] = dsse.value("payload", "");
    if (dsse.contains("signatures") && !dsse["signatures"].empty()) {
      envelope["signature"] = dsse["signatures"][0].value("sig", "");
    }
  }
  const nlohmann::ordered_json object = {
      {"version", 1},
      {"attestation_bundles",
       {{{"publisher", {{"kind", "relforge-key"}, {"key_id", key_id}}},
         {"attestations",
          {{{"version", 1},
            {"verification_material",
             {{"public_key_hint", key_id}, {"transparency_entries", nlohmann::ordered_json::array()}}},
            {"envelope", envelope}}}}}}}};
  return object.dump(2) + "\n";
}

Result<std::vector<PreparedWheel>> prepare_publish(const PublishOptions& options) {
  if (options.files.empty()) return fail(ErrorCategory::invalid_input, "no files to publish");
  const bool require = options.signatures == SignaturePolicy::require ||
                       (options.signatures == SignaturePolicy::channel_default &&
                        channel_requires_signatures(options.channel));
  std::optional<signing::PublicKey> key;
  if (options.public_key) {
    auto loaded = signing::PublicKey::load(*options.public_key);
    if (!loaded) return tl::unexpected(loaded.error());
    key = std::move(*loaded);
  }
  // A mistyped path is a missing file, not a corrupt wheel: say so before opening anything.
  std::vector<std::string> missing;
  for (const auto& file : options.files) {
    std::error_code error;
    if (!fs::is_regular_file(file, error)) missing.push_back(file.string());
  }
  if (!missing.empty()) {
    return fail(ErrorCategory::not_found,
                "no such file: " + core::join(missing, ", ") + " (nothing was published; check the path)");
  }
  // Everything is checked before anything is written: one bad wheel publishes nothing.
  std::vector<Prepared> prepared;
  std::vector<std::string> problems;
  std::set<ErrorCategory> categories;
  if (!options.file_variants.empty() && options.file_variants.size() != options.files.size()) {
    return fail(ErrorCategory::internal, "publish: one variant per file expected");
  }
  for (std::size_t i = 0; i < options.files.size(); ++i) {
    const auto& file = options.files[i];
    auto item =
        prepare(options, file, options.file_variants.empty() ? options.variant : options.file_variants[i],
                key, require);
    if (item)
      prepared.push_back(std::move(*item));
    else {
      problems.push_back(item.error().describe());
      categories.insert(item.error().category());
    }
  }
  if (!problems.empty()) {
    // One kind of problem keeps its exit code (a bad name is 2, a missing signature 9); a mix is 9.
    return fail(categories.size() == 1 ? *categories.begin() : ErrorCategory::integrity,
                "refusing to publish (nothing was changed): " + core::join(problems, "; "));
  }
  return prepared;
}

Result<std::vector<PublishedFile>> run_publish(const PublishOptions& options, ObjectStore& store) {
  auto checked = prepare_publish(options);
  if (!checked) return tl::unexpected(checked.error());
  if (options.on_stage) options.on_stage("checked");
  auto lock = store.lock();
  if (!lock) return tl::unexpected(lock.error());
  return publish_prepared(options, std::move(*checked), store, **lock);
}

Result<std::vector<PublishedFile>> publish_prepared(const PublishOptions& options,
                                                    std::vector<PreparedWheel> prepared, ObjectStore& store,
                                                    const StoreLock& /*held*/) {
  std::set<std::string> projects;
  for (const auto& item : prepared) projects.insert(item.info.project);
  // Only the projects being published are read: one publish costs the same in any size of store.
  auto scan = scan_projects(store, options.channel, projects);
  if (!scan) return tl::unexpected(scan.error());
  std::set<std::string> version_keys;
  for (const auto& item : prepared) version_keys.insert(item.identity.version_key);
  auto known = known_identities(store, *scan, projects, version_keys);
  if (!known) return tl::unexpected(known.error());
  if (auto status = check_folder_names(*scan, prepared); !status) return tl::unexpected(status.error());
  if (auto status = check_identities(store, *scan, *known, prepared); !status)
    return tl::unexpected(status.error());

  std::vector<PublishedFile> out;
  std::set<ProjectRef> touched;
  AddedFiles added;                  // what the folders' listing caches do not name yet
  std::vector<std::string> written;  // relative to scan->base
  for (auto& item : prepared) {
    const std::string marker = scan->key(item.variant + "/" + std::string(k_variant_marker));
    if (!scan->has(item.variant + "/" + std::string(k_variant_marker))) {
      if (auto status = store.put(marker, "", k_text_content_type); !status)
        return tl::unexpected(status.error());
    }
    PublishState state = PublishState::added;
    if (auto status = store_one(store, scan->key(item.variant + "/" + item.info.project),
                                listing_cache_key(scan->base, item.info.project), item, state);
        !status) {
      return tl::unexpected(Error(status.error())
                                .with_context("publishing " + item.source.filename().string() +
                                              " (no index page was changed)"));
    }
    touched.insert({item.variant, item.info.project});
    if (state == PublishState::added) added[{item.variant, item.info.project}].push_back(item.info);
    const std::string stored = item.variant + "/" + item.info.project + "/" + item.info.filename;
    written.push_back(item.variant + "/" + std::string(k_variant_marker));
    written.push_back(stored);
    for (const auto& suffix : sidecar_suffixes()) {
      if (item.bundle || (suffix != ".sigstore.json" && suffix != ".provenance"))
        written.push_back(stored + suffix);
    }
    out.push_back({item.info.filename, item.variant, item.info.project, item.info.version, item.info.sha256,
                   item.info.provenance, state});
  }
  if (options.on_stage) options.on_stage("files-written");
  // The pages are rendered from what the store now holds, so a rerun after a crash repairs them: the
  // first scan plus what was just written, as the lock keeps every other writer out.
  add_keys(*scan, written);
  // Every folder's cache is good while it names the folder's files less those just added: a file
  // whose sidecar was rewritten in place (store_one, yank) had the cache removed.
  const std::set<ProjectRef> none_from_sidecars;
  auto listing = read_listing(store, *scan, &projects, &none_from_sidecars, &added);
  if (!listing) return tl::unexpected(listing.error());
  auto pages = write_pages(store, *scan, std::move(*listing), &touched, options.on_stage);
  if (!pages) return tl::unexpected(pages.error());
  return out;
}

Result<std::vector<PublishedFile>> run_publish(const PublishOptions& options) {
  FilesystemObjectStore store(options.root);
  return run_publish(options, store);
}

}  // namespace relforge::channels
