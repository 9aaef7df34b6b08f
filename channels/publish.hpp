#pragma once
// Publishing wheels into a channel: every input is checked first (RECORD, file name, Name and
// Requires-Python of METADATA, signature and subject digest when required), a file identity is
// stored once under its canonical name, with the bundle it was first signed with, and never again
// once deleted; files land before the index pages that name them, and the store's lock serialises
// concurrent publishers.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "channels/identity.hpp"
#include "channels/object_store.hpp"
#include "channels/store.hpp"
#include "core/error.hpp"

namespace relforge::channels {

enum class SignaturePolicy { channel_default, require, optional };

struct PublishOptions {
  std::filesystem::path root;  // for run_publish(options) only: a store directory
  Channel channel = Channel::nightly;
  std::optional<std::string> variant;  // default: the version's local label (+cpu -> cpu)
  std::vector<std::filesystem::path> files;
  std::vector<std::string> file_variants;  // when set, one per file (promote keeps each file's variant)
  SignaturePolicy signatures = SignaturePolicy::channel_default;
  std::optional<std::filesystem::path> public_key;  // verifies FILE.sigstore.json
  std::string upload_time;                          // 2025-01-02T03:04:05Z, from the caller's clock
  // Called at "checked" (every wheel checked, nothing written), "files-written" (wheels stored, no
  // page touched yet) and "page-written"; tests crash or change the input files here.
  std::function<void(std::string_view stage)> on_stage;
};

enum class PublishState { added, unchanged };

struct PublishedFile {
  std::string filename;
  std::string variant;
  std::string project;
  std::string version;
  std::string sha256;
  bool signed_bundle = false;  // the stored file has a bundle (a republish without one keeps it)
  PublishState state = PublishState::added;
};

Result<std::vector<PublishedFile>> run_publish(const PublishOptions& options, ObjectStore& store);
// The same into the directory `options.root`.
Result<std::vector<PublishedFile>> run_publish(const PublishOptions& options);

// A wheel that passed every check, ready to store.
struct PreparedWheel {
  std::filesystem::path source;
  std::string variant;
  FileInfo info;  // info.filename is the canonical name the file is stored under
  FileIdentity identity;
  std::string metadata;               // the wheel's METADATA, served as FILE.metadata
  std::optional<std::string> bundle;  // the verified FILE.sigstore.json
  std::string key_id;
};

// Every check run_publish makes, with nothing written: one bad wheel fails the whole set.
Result<std::vector<PreparedWheel>> prepare_publish(const PublishOptions& options);

// run_publish's writing half, for a caller that checked `prepared` (prepare_publish) and holds
// `held`, the store's lock, so that what it read under that lock still holds when the files land.
Result<std::vector<PublishedFile>> publish_prepared(const PublishOptions& options,
                                                    std::vector<PreparedWheel> prepared, ObjectStore& store,
                                                    const StoreLock& held);

// The PEP 740 provenance object for a verified bundle's DSSE envelope.
std::string provenance_object(const std::string& bundle_json, const std::string& key_id);

}  // namespace relforge::channels
