#pragma once
// `release status X.Y --store DIR`: each release-matrix cell's wheel for the last RC joined with
// the channel store: published to test, signed (.provenance and .sigstore.json beside it), promoted
// to stable; what is missing is a blocker. Composed here: release/ may not see matrix/ or channels/.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "channels/maintain.hpp"
#include "channels/store.hpp"
#include "core/error.hpp"

namespace relforge::cli {

struct CellBuild {
  std::string cell;
  std::string filename;
  bool published = false;  // in the test channel and not yanked
  bool signed_ = false;    // its .provenance and .sigstore.json are in the test channel
  bool promoted = false;   // in the stable channel
};

struct ReleaseBuilds {
  std::string version;  // the wheels' version: the release branch's X.Y.Z
  std::string rc;       // v2.7.0-rc2; empty when there is no RC yet
  std::vector<CellBuild> cells;
  std::vector<std::string> blockers;  // "cpu-py3.12: mini-2.7.0+cpu-... is not signed"
};

// The pure join. `test_keys` holds every key under the test channel (wheels and sidecars).
ReleaseBuilds join_release_builds(const std::vector<channels::ExpectedFile>& expected,
                                  const std::vector<channels::StoredFile>& test,
                                  const std::set<std::string>& test_keys,
                                  const std::vector<channels::StoredFile>& stable);

// Reads the matrix from `config` and both channels from the store folder `root`.
Result<ReleaseBuilds> read_release_builds(const std::filesystem::path& root,
                                          const std::filesystem::path& config, const std::string& version,
                                          const std::string& rc);

}  // namespace relforge::cli
