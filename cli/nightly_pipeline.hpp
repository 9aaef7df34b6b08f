#pragma once
// `relforge nightly` as a sequence of module calls: nightly version, build (plan, run, repair,
// smoke test), sign with provenance from the build ledger, publish to the channel store.
// The caller passes in the date, clock, PATH and progress sink; nothing here prints.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "builders/executor.hpp"
#include "channels/publish.hpp"
#include "cli/nightly_signing.hpp"
#include "core/error.hpp"
#include "matrix/select.hpp"

namespace relforge::cli {

struct NightlyOptions {
  std::filesystem::path config = "relforge.toml";
  std::filesystem::path root;  // the channel store
  std::string channel = "nightly";
  matrix::Selection selection;
  int jobs = 0;
  std::string date;                                 // YYYYMMDD (UTC), chosen by the caller
  std::optional<std::filesystem::path> key;         // private key: sign every built wheel
  std::optional<std::filesystem::path> public_key;  // default: the key's .pub sibling
  std::optional<std::filesystem::path> state_dir;   // default: [build] state_dir
  std::string base_url;                             // where the root is served; default file://ROOT
  builders::Resume resume = builders::Resume::no;
  std::string path_env = "/usr/bin:/bin";
  // The caller's environment, for the container client (HOME, DOCKER_HOST, ...).
  std::function<std::optional<std::string>(const std::string&)> getenv = [](const std::string&) {
    return std::optional<std::string>();
  };
  std::string upload_time;  // 2025-01-02T03:04:05Z, from the caller's clock
  std::function<std::int64_t()> now_unix = [] { return std::int64_t{0}; };
  std::function<void(const std::string& line)> on_line = [](const std::string&) {};
};

struct NightlyOutput {
  std::string version;  // the public nightly version, X.Y.Z.devYYYYMMDD
  std::string version_source;
  std::vector<builders::CellOutcome> cells;
  std::vector<SignedWheel> signed_wheels;
  std::vector<channels::PublishedFile> published;
  std::vector<std::string> install;  // one pip command per published variant
  std::size_t built = 0, waiting = 0, failed = 0;
};

// The nightly version from the config's version file (when its folder has one) or [build] version.
Result<std::string> nightly_version(const std::filesystem::path& config, const std::string& date,
                                    std::string* source = nullptr);

// Errors for the run as a whole (bad config, nothing selected, unusable key, nothing buildable
// here, publish refused); failing cells are outcomes: built wheels are still signed and published.
Result<NightlyOutput> run_nightly(const NightlyOptions& options);

}  // namespace relforge::cli
