#pragma once
// `relforge verify --rebuild`: reads a signed wheel's provenance (source commit, cell, builder
// image), rebuilds that cell from that commit in a clean work directory and compares the bytes.
// Nothing is published and the checkout is not touched: the rebuild clones the commit.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "packaging/wheel_diff.hpp"
#include "signing/bundle.hpp"

namespace relforge::cli {

struct RebuildOptions {
  std::filesystem::path wheel;                // the published wheel; WHEEL.sigstore.json beside it
  std::filesystem::path config;               // relforge.toml in a checkout of the repository
  std::optional<std::filesystem::path> work;  // default: a fresh folder under the temp dir
  std::string path_env = "/usr/bin:/bin";
  // The caller's environment: the container client's variables and the user's cache come from it.
  std::function<std::optional<std::string>(const std::string&)> getenv = [](const std::string&) {
    return std::optional<std::string>();
  };
  std::function<std::int64_t()> monotonic_ms;
  std::function<void(const std::string&)> on_line = [](const std::string&) {};
};

struct RebuildResult {
  std::string cell;
  std::string commit;
  std::string image;  // from the provenance; empty when built on a host
  bool reproduced = false;
  std::filesystem::path rebuilt;  // the rebuilt wheel (kept, with its work dir, when not reproduced)
  std::filesystem::path work;
  packaging::WheelDiff diff;
  std::int64_t rebuild_ms = 0;         // the whole verification: clone, build, compare
  std::int64_t original_build_ms = 0;  // finishedOn - startedOn of the provenance (0: unknown)
};

// Errors, each named: not_found when the wheel has no provenance, the commit is not in the
// repository, the cell is no longer in that commit's matrix, or the builder image is not available;
// io when the rebuild itself fails. A rebuild with other bytes is a result (reproduced = false).
Result<RebuildResult> verify_rebuild(const RebuildOptions& options, const signing::VerifiedBundle& bundle);

}  // namespace relforge::cli
