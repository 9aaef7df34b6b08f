#include "release/tags.hpp"

#include <regex>

namespace relforge::release {
namespace {

Status push_refs(const Repository& repo, const std::optional<std::string>& remote,
                 const std::vector<std::string>& refs, std::vector<std::string>& pushed,
                 const std::string& done) {
  if (!remote) return {};
  std::vector<std::string> specs;
  for (const auto& ref : refs) specs.push_back(ref + ":" + ref);
  if (auto ok = repo.push(*remote, specs); !ok) return with_context(Status(tl::unexpected(ok.error())), done);
  pushed = specs;
  return {};
}

}  // namespace

Result<StatusResult> run_release_status(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                                        const std::optional<std::string>& series_text) {
  auto series = series_or_newest(repo, series_text);
  if (!series) return tl::unexpected(series.error());
  StatusResult result;
  auto state = branch_state(repo, config, *series);
  if (!state) return tl::unexpected(state.error());
  result.state = std::move(*state);
  auto picks = ledger.list(series->text());
  if (!picks) return tl::unexpected(picks.error());
  result.picks = std::move(*picks);
  const auto& s = result.state;
  result.rc_needed = s.rcs.empty() || s.rcs.back().commit != s.head;
  if (s.final_tag_commit) {
    result.blockers.push_back("v" + s.version + " is already final");
  } else if (s.rcs.empty()) {
    result.blockers.push_back("no release candidate of " + s.version + " yet: run 'relforge release rc'");
  } else if (s.rcs.back().commit != s.head) {
    result.blockers.push_back(s.series.branch() + " moved since " + s.rcs.back().name + ": tag a new RC");
  }
  for (const auto& pick : result.picks) {
    if (pick.state == "requested" || pick.state == "approved" || pick.state == "conflict") {
      result.blockers.push_back("pick #" + std::to_string(pick.id) + " (" + pick.sha.substr(0, 12) + ") is " +
                                pick.state);
    }
  }
  return result;
}

Result<TagResult> run_release_rc(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                                 const TagOptions& options) {
  auto series = series_or_newest(repo, options.series);
  if (!series) return tl::unexpected(series.error());
  auto state = branch_state(repo, config, *series);
  if (!state) return tl::unexpected(state.error());
  if (state->final_tag_commit) {
    return fail(ErrorCategory::conflict, "v" + state->version +
                                             " is already final: start a patch release with "
                                             "'relforge release patch " +
                                             series->text() + ".N' first");
  }
  if (!state->rcs.empty() && state->rcs.back().commit == state->head) {
    return fail(ErrorCategory::conflict, state->rcs.back().name + " already tags the head of " +
                                             series->branch() + ": apply a pick before tagging another RC");
  }
  TagResult result;
  const std::uint64_t number = state->rcs.empty() ? 1 : state->rcs.back().number + 1;
  result.version = state->version;
  result.tag = "v" + state->version + "-rc" + std::to_string(number);
  result.commit = state->head;
  if (auto ok = repo.create_annotated_tag(
          result.tag, result.commit,
          "Release candidate " + state->version + "-rc" + std::to_string(number) + "\n");
      !ok)
    return tl::unexpected(ok.error());
  if (auto ok = ledger.clear_needs_rc(series->text()); !ok) return tl::unexpected(ok.error());
  if (auto ok = ledger.log(series->text(), 0, "rc", result.tag + " " + result.commit); !ok)
    return tl::unexpected(ok.error());
  if (auto ok =
          push_refs(repo, options.push, {"refs/tags/" + result.tag}, result.pushed, "the tag exists locally");
      !ok)
    return tl::unexpected(ok.error());
  return result;
}

Result<TagResult> run_release_final(const Repository& repo, const ReleaseConfig& config, Ledger& ledger,
                                    const TagOptions& options) {
  auto status = run_release_status(repo, config, ledger, options.series);
  if (!status) return tl::unexpected(status.error());
  if (!status->blockers.empty()) {
    std::string list;
    for (const auto& blocker : status->blockers) list += "\n  - " + blocker;
    return fail(ErrorCategory::conflict,
                "release " + status->state.series.text() + " cannot be final yet:" + list);
  }
  const auto& last = status->state.rcs.back();
  TagResult result;
  result.version = status->state.version;
  result.tag = "v" + result.version;
  result.commit = last.commit;
  if (auto ok = repo.create_annotated_tag(result.tag, result.commit,
                                          "Release " + result.version + " (" + last.name + ")\n");
      !ok)
    return tl::unexpected(ok.error());
  if (auto ok = ledger.log(status->state.series.text(), 0, "final", result.tag + " " + result.commit); !ok)
    return tl::unexpected(ok.error());
  if (auto ok =
          push_refs(repo, options.push, {"refs/tags/" + result.tag}, result.pushed, "the tag exists locally");
      !ok)
    return tl::unexpected(ok.error());
  return result;
}

Result<PatchResult> run_release_patch(const Repository& repo, const ReleaseConfig& config,
                                      const PatchOptions& options) {
  static const std::regex pattern(R"(([0-9]{1,9})\.([0-9]{1,9})\.([0-9]{1,9}))");
  std::smatch match;
  if (!std::regex_match(options.version, match, pattern)) {
    return fail(ErrorCategory::invalid_input,
                "'" + options.version + "' is not a patch version: give X.Y.Z, e.g. 2.7.1");
  }
  auto series = parse_series(match[1].str() + "." + match[2].str());
  if (!series) return tl::unexpected(series.error());
  auto exists = series_or_newest(repo, series->text());
  if (!exists) return tl::unexpected(exists.error());
  auto state = branch_state(repo, config, *series);
  if (!state) return tl::unexpected(state.error());
  auto next = packaging::parse_version(options.version);
  auto current = packaging::parse_version(state->version);
  if (!(*current < *next)) {
    return fail(ErrorCategory::invalid_input, "patch " + options.version + " would not move " +
                                                  series->branch() + " forward: it is at " + state->version);
  }
  if (!state->final_tag_commit) {
    return fail(ErrorCategory::conflict,
                state->version + " is not final yet (no tag v" + state->version +
                    "): finish it with 'relforge release final' before a patch cycle");
  }
  if (auto head = repo.head_branch(); head && *head == series->branch()) {
    if (auto ok = require_clean(repo, "start patch " + options.version); !ok)
      return tl::unexpected(ok.error());
  }
  PatchResult result;
  result.branch = series->branch();
  result.previous_version = state->version;
  result.version = options.version;
  auto commit = repo.write_commit(state->head, {{config.version_file, options.version + "\n"}},
                                  "[RELEASE-ONLY CHANGES] Start patch release " + options.version + "\n");
  if (!commit) return tl::unexpected(commit.error());
  if (auto ok = repo.advance_branch(series->branch_ref(), state->head, *commit, "relforge release patch");
      !ok)
    return tl::unexpected(ok.error());
  result.commit = *commit;
  if (auto ok = push_refs(repo, options.push, {series->branch_ref()}, result.pushed,
                          "the patch commit exists locally");
      !ok)
    return tl::unexpected(ok.error());
  return result;
}

}  // namespace relforge::release
