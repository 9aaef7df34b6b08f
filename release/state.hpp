#pragma once
// What release/ reads from a repository: release series and branch names, the version file at a
// commit, the RC and final tags of a version, and the cherry-pick phase of a release branch.
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "packaging/version.hpp"
#include "release/config.hpp"
#include "release/git.hpp"

namespace relforge::release {

struct Series {
  std::uint64_t major = 0;
  std::uint64_t minor = 0;
  std::string text() const { return std::to_string(major) + "." + std::to_string(minor); }
  std::string branch() const { return "release/" + text(); }
  std::string branch_ref() const { return "refs/heads/" + branch(); }
};

struct RcTag {
  std::uint64_t number = 0;
  std::string name;    // v2.7.0-rc1
  std::string commit;  // the commit it points at (peeled)
};

enum class Phase { open, final_rc };  // final_rc: only critical picks, each needs a new RC

struct BranchState {
  Series series;
  std::string head;
  std::string version;     // the version file at the head, X.Y.Z
  std::vector<RcTag> rcs;  // of `version`, ascending
  // vX.Y.Z when it is on the branch (reachable from the head) at a commit whose version file says
  // X.Y.Z, as `release final` tags it; a vX.Y.Z elsewhere is `stray_final_commit` and not final.
  std::optional<std::string> final_tag_commit;
  std::optional<std::string> stray_final_commit;
  Phase phase = Phase::open;
};

// "2.7" → Series; invalid_input for anything but MAJOR.MINOR.
Result<Series> parse_series(const std::string& text);
// The newest release/X.Y branch; not_found when there is none.
Result<Series> newest_series(const Repository& repo);
Result<Series> series_or_newest(const Repository& repo, const std::optional<std::string>& text);

// The version file at `commit`, parsed; not_found when missing, invalid_input when unparsable.
Result<packaging::Version> version_at(const Repository& repo, const ReleaseConfig& config,
                                      const std::string& commit, const std::string& where);
Result<std::vector<RcTag>> rc_tags(const Repository& repo, const std::string& version);
Result<BranchState> branch_state(const Repository& repo, const ReleaseConfig& config, const Series& series);

// Refuses (conflict) when tracked files are modified; `action` names what was refused.
Status require_clean(const Repository& repo, const std::string& action);

}  // namespace relforge::release
