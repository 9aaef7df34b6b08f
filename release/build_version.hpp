#pragma once
// The version and channel of a build from its context (version file, git ref, variant, UTC date),
// as PyTorch derives them. Pure: the caller reads the repository, environment and clock.
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace relforge::release {

struct BuildVersionInputs {
  std::string version_file_text;       // version.txt at the build's commit ("2.8.0a0\n")
  std::string ref;                     // "refs/tags/v2.7.0-rc2", "release/2.7", "main", ...
  std::string base_ref;                // the target branch of a pull request; empty otherwise
  std::optional<std::string> channel;  // nightly | test | release; derived from the refs when absent
  std::string variant;                 // local label ("cu130"); empty means none (macOS)
  std::string date;                    // the UTC build date, YYYYMMDD or YYYY-MM-DD (nightly)
};

struct BuildVersion {
  std::string version;  // "2.8.0.dev20260415+cu130", "2.7.0+cu130"
  std::string channel;  // nightly | test | release
  std::string base;     // "2.8.0"
  std::string source;   // where the base came from: "version file" or the tag
};

// "v2.7.0-rc2" (or refs/tags/v2.7.0-rc2) → "2.7.0"; nullopt for anything else.
std::optional<std::string> rc_tag_version(std::string_view ref);
// A final tag vX.Y.Z → "release"; an RC tag, a release/X.Y branch, or a pull request into one →
// "test"; otherwise "nightly". build_version: a detached "HEAD" → by the version file (a0: nightly).
std::string channel_for_ref(std::string_view ref, std::string_view base_ref = {});

Result<BuildVersion> build_version(const BuildVersionInputs& inputs);

}  // namespace relforge::release
