#include "release/state.hpp"

#include <re2/re2.h>
#include <algorithm>

#include "core/text.hpp"

namespace relforge::release {

Result<Series> parse_series(const std::string& text) {
  static const RE2 pattern(R"(([0-9]{1,9})\.([0-9]{1,9}))");
  std::uint64_t major = 0, minor = 0;
  if (!RE2::FullMatch(text, pattern, &major, &minor)) {
    return fail(ErrorCategory::invalid_input,
                "'" + text + "' is not a release series: give MAJOR.MINOR, e.g. 2.7");
  }
  return Series{major, minor};
}

Result<Series> newest_series(const Repository& repo) {
  std::optional<Series> best;
  for (const auto& ref : repo.list_refs("refs/heads/release/*")) {
    auto series = parse_series(ref.substr(std::string("refs/heads/release/").size()));
    if (!series) continue;
    if (!best || std::tie(series->major, series->minor) > std::tie(best->major, best->minor)) best = *series;
  }
  if (!best)
    return fail(ErrorCategory::not_found, "no release/X.Y branch: cut one with 'relforge release cut X.Y'");
  return *best;
}

Result<Series> series_or_newest(const Repository& repo, const std::optional<std::string>& text) {
  if (!text) return newest_series(repo);
  auto series = parse_series(*text);
  if (!series) return series;
  auto target = repo.ref_target(series->branch_ref());
  if (!target) return tl::unexpected(target.error());
  if (!*target) {
    return fail(ErrorCategory::not_found, "no branch " + series->branch() +
                                              ": cut it with 'relforge release cut " + series->text() + "'");
  }
  return series;
}

Result<packaging::Version> version_at(const Repository& repo, const ReleaseConfig& config,
                                      const std::string& commit, const std::string& where) {
  auto text = repo.read_file(commit, config.version_file);
  if (!text) return tl::unexpected(text.error());
  if (!*text) {
    return fail(ErrorCategory::not_found, "version file '" + config.version_file + "' is missing on " +
                                              where +
                                              ": add it, or set [release] version_file in relforge.toml");
  }
  const std::string trimmed(core::trim(**text));
  auto version = packaging::parse_version(trimmed);
  if (!version) {
    return fail(ErrorCategory::invalid_input,
                "version file '" + config.version_file + "' on " + where + " holds '" + trimmed +
                    "', which is not a PEP 440 version: " + version.error().message());
  }
  return version;
}

Result<std::vector<RcTag>> rc_tags(const Repository& repo, const std::string& version) {
  std::vector<RcTag> tags;
  const std::string prefix = "refs/tags/v" + version + "-rc";
  for (const auto& ref : repo.list_refs(prefix + "*")) {
    const std::string number = ref.substr(prefix.size());
    if (number.empty() || number.size() > 9 || !std::all_of(number.begin(), number.end(), ::isdigit))
      continue;
    auto target = repo.ref_target(ref);
    if (!target) return tl::unexpected(target.error());
    tags.push_back({std::stoull(number), ref.substr(10), **target});
  }
  std::sort(tags.begin(), tags.end(), [](const RcTag& a, const RcTag& b) { return a.number < b.number; });
  return tags;
}

Result<BranchState> branch_state(const Repository& repo, const ReleaseConfig& config, const Series& series) {
  BranchState state;
  state.series = series;
  auto head = repo.ref_target(series.branch_ref());
  if (!head) return tl::unexpected(head.error());
  if (!*head) return fail(ErrorCategory::not_found, "no branch " + series.branch());
  state.head = **head;
  auto version = version_at(repo, config, state.head, series.branch());
  if (!version) return tl::unexpected(version.error());
  if (version->release.size() != 3 || version->release[0] != series.major ||
      version->release[1] != series.minor || version->is_prerelease() || version->has_local() ||
      version->is_postrelease()) {
    return fail(ErrorCategory::invalid_input, "version file on " + series.branch() + " says '" +
                                                  version->to_string() + "', expected " + series.text() +
                                                  ".Z: fix it on the branch");
  }
  state.version = version->to_string();
  auto rcs = rc_tags(repo, state.version);
  if (!rcs) return tl::unexpected(rcs.error());
  state.rcs = std::move(*rcs);
  auto final_tag = repo.ref_target("refs/tags/v" + state.version);
  if (!final_tag) return tl::unexpected(final_tag.error());
  if (*final_tag) {
    // A tag of the same name made elsewhere (on main, by hand) must not end the RC cycle.
    auto on_branch = repo.is_descendant_or_equal(state.head, **final_tag);
    if (!on_branch) return tl::unexpected(on_branch.error());
    bool is_final = *on_branch;
    if (is_final) {
      auto tagged = version_at(repo, config, **final_tag, "v" + state.version);
      is_final = tagged && tagged->to_string() == state.version;
    }
    (is_final ? state.final_tag_commit : state.stray_final_commit) = **final_tag;
  }
  if (!state.rcs.empty() && state.rcs.back().number >= static_cast<std::uint64_t>(config.final_rc_milestone))
    state.phase = Phase::final_rc;
  return state;
}

Status require_clean(const Repository& repo, const std::string& action) {
  auto dirty = repo.dirty_paths();
  if (!dirty) return tl::unexpected(dirty.error());
  if (dirty->empty()) return {};
  std::vector<std::string> shown(dirty->begin(),
                                 dirty->begin() + static_cast<long>(std::min<std::size_t>(dirty->size(), 5)));
  return fail(ErrorCategory::conflict, "refusing to " + action + ": the work tree has uncommitted changes (" +
                                           core::join(shown, ", ") + (dirty->size() > 5 ? ", ..." : "") +
                                           "); commit or stash them first");
}

}  // namespace relforge::release
