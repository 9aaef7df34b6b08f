#pragma once
// The channel store every channel command and `serve` take: --root, else $RELFORGE_CHANNEL_ROOT,
// else ./channels; or (--store s3://bucket/prefix) an S3-compatible bucket.
#include <filesystem>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "channels/object_store.hpp"
#include "channels/s3_store.hpp"
#include "cli/runtime.hpp"
#include "core/error.hpp"

namespace relforge::cli {

std::filesystem::path store_root(const Runtime& runtime, const std::string& option);
void add_root_option(CLI::App& command, std::string& root);

// --store s3://bucket/prefix puts the channel tree in an S3-compatible bucket; any other --store
// value is a store directory, like --root.
struct StoreFlags {
  std::string store;
  std::string endpoint;
  std::string region;
  bool is_s3() const { return channels::is_s3_url(store); }
};

// --store, --s3-endpoint and --s3-region; --store excludes `root` (the --root option).
void add_store_options(CLI::App& command, StoreFlags& flags, CLI::Option* root);
// The store a command works on: --store s3://... is a bucket; --store DIR or --root DIR a folder.
Result<std::unique_ptr<channels::ObjectStore>> open_store(const Runtime& runtime, const StoreFlags& flags,
                                                          const std::string& root);
// open_store() for the commands that only work on a store that exists (all but publish): a folder
// that does not exist is not_found, so a mistyped --root never reads, or is made, as an empty store.
Result<std::unique_ptr<channels::ObjectStore>> open_existing_store(const Runtime& runtime,
                                                                   const StoreFlags& flags,
                                                                   const std::string& root);

}  // namespace relforge::cli
