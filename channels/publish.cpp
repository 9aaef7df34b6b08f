#include "channels/publish.hpp"

#include <map>
#include <set>
#include <system_error>

#include <nlohmann/json.hpp>

#include "channels/index.hpp"
#include "channels/listing_cache.hpp"
#include "core/text.hpp"
#include "packaging/names.hpp"
#include "packaging/version.hpp"
#include "packaging/wheel_metadata.hpp"
#include "packaging/wheel_name.hpp"
#include "platform/digest.hpp"
#include "platform/file_lock.hpp"
#include "platform/fs.hpp"
#include "signing/bundle.hpp"
#include "signing/keys.hpp"

namespace relforge::channels {
namespace fs = std::filesystem;
namespace {

using Prepared = PreparedWheel;

bool valid_variant(const std::string& variant) {
  if (variant.empty() || variant == "nightly" || variant == "test" || variant.front() == '.') return false;
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
  auto metadata = packaging::read_wheel_metadata(file, packaging::RecordCheck::check);
  if (!metadata) return tl::unexpected(metadata.error());
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
    return fail(ErrorCategory::invalid_input, "variant '" + out.variant + "' is not a valid folder name");
  }
  const fs::path bundle_path = file.string() + ".sigstore.json";
  if (fs::exists(bundle_path) && key) {
    auto text = platform::read_file(bundle_path);
    if (!text) return tl::unexpected(text.error());
    auto verified = signing::verify_bundle(file, *text, *key);
    if (!verified) return tl::unexpected(verified.error());
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
  auto digest = platform::sha256_file(file);
  if (!digest) return tl::unexpected(digest.error());
  std::error_code error;
  out.info.filename = filename;
  out.info.project = name->normalized_name();
  out.info.version = name->version.to_string();
  out.info.sha256 = platform::to_hex(*digest);
  out.info.size = fs::file_size(file, error);
  out.info.metadata_sha256 = platform::to_hex(platform::sha256(metadata->metadata));
  out.info.requires_python = metadata->requires_python;
  out.info.upload_time = options.upload_time;
  out.info.provenance = out.bundle.has_value();
  out.metadata = std::move(metadata->metadata);
  return out;
}

Status store_one(const fs::path& dir, Prepared& item, PublishState& state) {
  const fs::path target = dir / item.info.filename;
  const fs::path info_path = target.string() + ".info.json";
  state = PublishState::added;
  if (fs::exists(target)) {
    auto existing = platform::sha256_file(target);
    if (!existing) return tl::unexpected(existing.error());
    if (platform::to_hex(*existing) != item.info.sha256) {
      return fail(ErrorCategory::conflict,
                  item.info.filename + " is already published in " + dir.string() +
                      " with different bytes (sha256 " + platform::to_hex(*existing) +
                      "); published files are immutable: bump the version or build number");
    }
    if (fs::exists(info_path)) {
      auto text = platform::read_file(info_path);
      if (!text) return tl::unexpected(text.error());
      auto old = info_from_json(*text, info_path.string());
      if (old && old->provenance == item.info.provenance) {
        state = PublishState::unchanged;
        return {};
      }
      // The sidecar is rewritten under the same name, which the cached listing would not notice.
      if (auto status = invalidate_listing(dir); !status) return status;
      if (old) {
        item.info.upload_time = old->upload_time;
        item.info.yanked = old->yanked;
        item.info.yanked_reason = old->yanked_reason;
      }
    }
  } else if (auto status = copy_file_atomic(item.source, target); !status) {
    return status;
  }
  // Each sidecar's bytes are on disk before the info that lists the file; the info's directory
  // fsync then makes every rename in the folder durable at once.
  const auto file_only_sync = platform::Durability::file_only;
  if (auto status = platform::write_file_atomic(target.string() + ".metadata", item.metadata, file_only_sync);
      !status)
    return status;
  if (item.bundle) {
    if (auto status =
            platform::write_file_atomic(target.string() + ".sigstore.json", *item.bundle, file_only_sync);
        !status)
      return status;
    if (auto status = platform::write_file_atomic(
            target.string() + ".provenance", provenance_object(*item.bundle, item.key_id), file_only_sync);
        !status)
      return status;
  }
  // The info file goes last: a file without it is not listed, so a crash here leaves no dangling link.
  return platform::write_file_atomic(info_path, info_to_json(item.info));
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
  // Everything is checked before anything is written: one bad wheel publishes nothing.
  std::vector<Prepared> prepared;
  std::vector<std::string> problems;
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
    else
      problems.push_back(item.error().describe());
  }
  if (!problems.empty()) {
    return fail(ErrorCategory::integrity,
                "refusing to publish (nothing was changed): " + core::join(problems, "; "));
  }
  return prepared;
}

Result<std::vector<PublishedFile>> run_publish(const PublishOptions& options) {
  auto checked = prepare_publish(options);
  if (!checked) return tl::unexpected(checked.error());
  std::vector<Prepared>& prepared = *checked;
  std::error_code error;
  fs::create_directories(options.root, error);
  auto lock = platform::FileLock::acquire(options.root / std::string(k_lock_file));
  if (!lock) return tl::unexpected(lock.error());
  const fs::path base = channel_dir(options.root, options.channel);
  std::vector<PublishedFile> out;
  std::set<std::pair<std::string, std::string>> touched;
  for (auto& item : prepared) {
    const fs::path dir = base / item.variant / item.info.project;
    fs::create_directories(dir, error);
    if (error) return fail(ErrorCategory::io, "cannot create " + dir.string() + ": " + error.message());
    if (!fs::exists(base / item.variant / std::string(k_variant_marker))) {
      if (auto status = platform::write_file_atomic(base / item.variant / std::string(k_variant_marker), "");
          !status) {
        return tl::unexpected(status.error());
      }
    }
    PublishState state = PublishState::added;
    if (auto status = store_one(dir, item, state); !status) return tl::unexpected(status.error());
    touched.insert({item.variant, item.info.project});
    out.push_back({item.info.filename, item.variant, item.info.project, item.info.version, item.info.sha256,
                   item.bundle.has_value(), state});
  }
  if (options.on_stage) options.on_stage("files-written");
  for (const auto& [variant, project] : touched) {
    if (auto status = refresh_project(options.root, options.channel, variant, project); !status) {
      return tl::unexpected(status.error());
    }
    if (options.on_stage) options.on_stage("page-written");
  }
  return out;
}

}  // namespace relforge::channels
