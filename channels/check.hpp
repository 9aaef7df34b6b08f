#pragma once
// `index check`: verifies a store as clients and later commands rely on it. Every complete file's
// bytes match its record (hashed as a stream), every wheel has its sidecars, nothing is left over
// (sidecars without a wheel, unfinished writes, files a tombstone says are gone), listing caches
// and index pages say exactly what the sidecars say, and every link on a page names a complete
// file with the advertised sha256. Each problem says where it is and what fixes it.
#include <filesystem>
#include <string>
#include <vector>

#include "channels/object_store.hpp"
#include "channels/publish.hpp"
#include "core/error.hpp"

namespace relforge::channels {

struct CheckOptions {
  SignaturePolicy signatures = SignaturePolicy::channel_default;  // optional: unsigned files are fine
  std::filesystem::path scratch;  // downloads to hash; empty: the system temp folder, when needed
};

struct CheckProblem {
  std::string kind;  // "hash-mismatch", "missing-sidecar", "orphan", "temporary", "stale-page", ...
  std::string where;
  std::string message;
  std::string fix;
};

struct CheckReport {
  std::size_t files = 0;
  std::size_t pages = 0;
  std::vector<CheckProblem> problems;
};

Result<CheckReport> check_store(ObjectStore& store, const CheckOptions& options);

}  // namespace relforge::channels
