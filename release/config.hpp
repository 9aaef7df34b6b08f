#pragma once
// The `[release]` table of relforge.toml: the version file, the refs a cut starts from, the
// release-only changes a cut commits, and the phase rule for cherry-picks (docs/release.md).
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::release {

// One release-only replacement over `files` (paths or globs over the cut commit's tracked files);
// `to` may use {version} (X.Y) and {branch} (release/X.Y), and $1-style groups when `regex`.
struct Replacement {
  std::vector<std::string> files;
  std::string from;
  std::string to;
  bool regex = false;  // `from` is an RE2 pattern
  std::string origin;  // "relforge.toml:17:1", the rule's place for errors
};

struct ReleaseConfig {
  std::string version_file = "version.txt";
  std::string main_branch = "main";
  std::string last_known_good = "viable/strict";  // cut source when it exists, else main_branch
  std::string channel_file;                       // empty: the repository has no channel file
  std::vector<Replacement> replacements;
  std::vector<std::string> post_cut;  // argv run in a checkout of the release-only commit; empty: none
  int final_rc_milestone = 1;         // once rcN with N >= this exists, only `critical` picks are accepted
};

// Parses relforge.toml text; a missing [release] table gives the defaults. `file` names it in errors.
Result<ReleaseConfig> parse_release_config(std::string_view toml_text, const std::string& file);

}  // namespace relforge::release
