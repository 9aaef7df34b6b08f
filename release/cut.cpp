#include "release/cut.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "release/post_cut.hpp"
#include "release/replace.hpp"
#include "release/state.hpp"

namespace relforge::release {
namespace {

std::string expand(const std::string& text, const Series& series) {
  return core::replace_all(core::replace_all(text, "{version}", series.text()), "{branch}", series.branch());
}

// The release-only changes: version file, channel file, string replacements.
Result<std::map<std::string, std::string>> release_only_files(const Repository& repo,
                                                              const ReleaseConfig& config,
                                                              const std::string& from, const Series& series,
                                                              const std::string& release_version,
                                                              std::vector<FileChange>& changes) {
  std::map<std::string, std::string> files;
  auto old_version = repo.read_file(from, config.version_file);
  if (!old_version) return tl::unexpected(old_version.error());
  files[config.version_file] = release_version + "\n";
  changes.push_back(
      {config.version_file, std::string(core::trim(old_version->value_or(""))) + " -> " + release_version});
  if (!config.channel_file.empty()) {
    auto channel = repo.read_file(from, config.channel_file);
    if (!channel) return tl::unexpected(channel.error());
    if (!*channel) {
      return fail(ErrorCategory::not_found, "channel file '" + config.channel_file +
                                                "' (from [release] channel_file) "
                                                "is missing at the cut commit: add it or fix relforge.toml");
    }
    files[config.channel_file] = "test\n";
    changes.push_back({config.channel_file, std::string(core::trim(**channel)) + " -> test"});
  }
  std::optional<std::vector<std::string>> tracked;  // listed once, on the first glob
  for (const auto& rule : config.replacements) {
    std::vector<std::string> paths;
    for (const auto& pattern : rule.files) {
      if (!is_glob(pattern)) {
        paths.push_back(pattern);
        continue;
      }
      if (!tracked) {
        auto listed = repo.list_files(from);
        if (!listed) return tl::unexpected(listed.error());
        tracked = std::move(*listed);
      }
      const std::size_t before = paths.size();
      for (const auto& path : *tracked)
        if (glob_matches(pattern, path)) paths.push_back(path);
      if (paths.size() == before) {
        return fail(ErrorCategory::invalid_input,
                    rule.origin + ": '" + pattern +
                        "' in [[release.replace]] files matches no tracked file "
                        "at the cut commit: fix the glob in relforge.toml");
      }
    }
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
    const std::string to = expand(rule.to, series);
    bool changed = false;
    for (const auto& path : paths) {
      std::string text;
      if (auto pending = files.find(path); pending != files.end()) {
        text = pending->second;
      } else {
        auto content = repo.read_file(from, path);
        if (!content) return tl::unexpected(content.error());
        if (!*content) {
          return fail(ErrorCategory::not_found, rule.origin + ": '" + path +
                                                    "' named in [[release.replace]] is missing at "
                                                    "the cut commit: fix relforge.toml");
        }
        text = **content;
      }
      auto outcome = apply_rule(text, rule.from, to, rule.regex);
      if (!outcome) return tl::unexpected(outcome.error());
      if (outcome->text == text) continue;
      changed = true;
      files[path] = std::move(outcome->text);
      changes.push_back({path, std::to_string(outcome->count) + " x " + (rule.regex ? "/" : "'") + rule.from +
                                   (rule.regex ? "/" : "'") + " -> '" + to + "'"});
    }
    if (!changed) {
      // A rule that changes nothing is a stale config, not a no-op.
      return fail(ErrorCategory::invalid_input,
                  rule.origin + ": [[release.replace]] " + (rule.regex ? "pattern /" : "'") + rule.from +
                      (rule.regex ? "/" : "'") + " changes nothing in " + core::join(paths, ", ") +
                      ": update or remove the rule in relforge.toml");
    }
  }
  return files;
}

}  // namespace

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FileChange, path, summary)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PlannedCommit, branch, parent, message, changes, sha)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CutResult, series, branch, orig_ref, from_ref, from_sha, release_version,
                                   main_version, release_commit, main_commit)

namespace {

// Whether one full ref name equals the other or is a folder of it: git cannot hold both.
bool refs_clash(const std::string& a, const std::string& b) {
  const auto inside = [](const std::string& folder, const std::string& path) {
    return path.size() > folder.size() && path.starts_with(folder) && path[folder.size()] == '/';
  };
  return a == b || inside(a, b) || inside(b, a);
}

// The names the cut plans, checked before anything is written: a bad name or two planned refs
// that git cannot hold together (a ref and a ref inside it) would leave a half-done cut.
Status check_planned_names(const ReleaseConfig& config, const CutOptions& options, const Series& series) {
  if (options.bump_via) {
    const std::string& name = *options.bump_via;
    std::string why;
    if (name == "HEAD" || name.starts_with("-")) {
      why = "it is not a branch name git accepts ('HEAD' or a leading '-')";
    } else if (name.starts_with("refs/")) {
      why = "give the branch name without refs/heads/";
    } else if (!is_valid_branch_name(name)) {
      why = "it is not a branch name git accepts (see 'git check-ref-format --branch')";
    }
    if (!why.empty())
      return fail(ErrorCategory::invalid_input, "--bump-via '" + name + "': " + why + "; nothing was cut");
  }
  std::vector<std::pair<std::string, std::string>> planned = {
      {series.branch_ref(), "the release branch"},
      {"refs/heads/orig/" + series.branch(), "the release branch's backup"},
      {"refs/heads/" + config.main_branch, "[release] main_branch"}};
  if (options.bump_via) planned.emplace_back("refs/heads/" + *options.bump_via, "--bump-via");
  for (std::size_t i = 0; i < planned.size(); ++i) {
    for (std::size_t j = i + 1; j < planned.size(); ++j) {
      if (!refs_clash(planned[i].first, planned[j].first)) continue;
      return fail(ErrorCategory::invalid_input,
                  planned[j].second + " " + planned[j].first + " clashes with " + planned[i].second + " " +
                      planned[i].first + " (git cannot hold a ref and a ref inside it): " +
                      (planned[j].second == "--bump-via" ? "choose another --bump-via branch"
                                                         : "rename [release] main_branch") +
                      "; nothing was cut");
    }
  }
  return {};
}

// Everything the cut checks and computes before a ref moves; objects only when `write_objects`.
Result<CutResult> plan_cut(const Repository& repo, const ReleaseConfig& config, const CutOptions& options,
                           const Series& series, bool write_objects, Plan& plan) {
  CutResult result;
  result.series = series.text();
  result.branch = series.branch();
  result.orig_ref = "refs/heads/orig/" + series.branch();
  if (auto ok = check_planned_names(config, options, series); !ok) return tl::unexpected(ok.error());
  if (options.dry_run == DryRun::no) {
    if (auto ok = require_clean(repo, "cut " + result.branch); !ok) return tl::unexpected(ok.error());
  }
  std::vector<std::string> must_not_exist = {series.branch_ref(), result.orig_ref};
  if (options.bump_via) must_not_exist.push_back("refs/heads/" + *options.bump_via);
  for (const auto& ref : must_not_exist) {
    auto existing = repo.ref_target(ref);
    if (!existing) return tl::unexpected(existing.error());
    if (*existing) {
      const bool is_bump = options.bump_via && ref == "refs/heads/" + *options.bump_via;
      return fail(
          ErrorCategory::conflict,
          ref + " already exists (at " + existing->value().substr(0, 12) + "): " +
              (is_bump ? "choose another --bump-via branch"
                       : "release " + result.series + " was already cut; use 'relforge release status " +
                             result.series + "'"));
    }
    if (auto clash = repo.clashing_refs(ref); !clash.empty()) {
      return fail(ErrorCategory::conflict, "cannot create " + ref + ": the existing ref " + clash.front() +
                                               " is in the way (git cannot hold a ref and a ref inside "
                                               "it): rename or delete " +
                                               clash.front() + "; nothing was cut");
    }
  }
  const std::string main_ref = "refs/heads/" + config.main_branch;
  auto main_head = repo.ref_target(main_ref);
  if (!main_head) return tl::unexpected(main_head.error());
  if (!*main_head)
    return fail(ErrorCategory::not_found, "no branch '" + config.main_branch + "' ([release] main_branch)");
  if (options.from) {
    result.from_ref = *options.from;
  } else {
    auto lkg = repo.resolve_commit(config.last_known_good);
    result.from_ref = lkg ? config.last_known_good : config.main_branch;
  }
  auto from = repo.resolve_commit(result.from_ref);
  if (!from) return tl::unexpected(from.error());
  result.from_sha = *from;

  auto main_version = version_at(repo, config, **main_head, config.main_branch);
  if (!main_version) return tl::unexpected(main_version.error());
  result.release_version = result.series + ".0";
  result.main_version = std::to_string(series.major) + "." + std::to_string(series.minor + 1) + ".0a0";
  auto release_version = packaging::parse_version(result.release_version);
  // Main must be below X.Y.0 (e.g. X.Y.0a0): at X.Y.0 the cut would only repeat the release.
  if (!(*main_version < *release_version)) {
    return fail(ErrorCategory::invalid_input,
                "cutting " + result.series + " would take the version backwards: " + config.main_branch +
                    " is already at " + main_version->to_string() + ", not below " + result.release_version);
  }
  if (auto at_from = version_at(repo, config, result.from_sha, result.from_ref); !at_from)
    return tl::unexpected(at_from.error());

  auto& rc = result.release_commit;
  rc.branch = result.branch;
  rc.parent = result.from_sha;
  rc.message = "[RELEASE-ONLY CHANGES] Branch Cut for Release " + result.series + "\n";
  auto files = release_only_files(repo, config, result.from_sha, series, result.release_version, rc.changes);
  if (!files) return tl::unexpected(files.error());
  auto& mc = result.main_commit;
  mc.branch = options.bump_via ? *options.bump_via : config.main_branch;
  mc.parent = **main_head;
  mc.message = "Bump version to " + result.main_version + "\n";
  mc.changes.push_back({config.version_file, main_version->to_string() + " -> " + result.main_version});
  if (!config.post_cut.empty() && !write_objects) {
    rc.changes.push_back({"[post_cut]", "runs '" + core::join(config.post_cut, " ") +
                                            "' on the cut; the tracked files it changes join this commit"});
  }
  if (write_objects) {
    auto release_sha = repo.write_commit(rc.parent, *files, rc.message);
    if (!release_sha) return tl::unexpected(release_sha.error());
    if (!config.post_cut.empty()) {
      PostCutHook hook;
      hook.argv = config.post_cut;
      hook.environment = {{"RELFORGE_RELEASE_VERSION", result.release_version},
                          {"RELFORGE_RELEASE_SERIES", result.series},
                          {"RELFORGE_RELEASE_BRANCH", result.branch}};
      auto changed = run_post_cut(repo, *release_sha, hook);
      if (!changed) return tl::unexpected(changed.error());
      for (auto& [path, content] : *changed) {
        rc.changes.push_back({path, "changed by post_cut '" + core::join(config.post_cut, " ") + "'"});
        (*files)[path] = std::move(content);
      }
      // The hook's edits land in the same release-only commit, written afresh on the same parent.
      if (!changed->empty()) release_sha = repo.write_commit(rc.parent, *files, rc.message);
      if (!release_sha) return tl::unexpected(release_sha.error());
    }
    auto main_sha =
        repo.write_commit(mc.parent, {{config.version_file, result.main_version + "\n"}}, mc.message);
    if (!main_sha) return tl::unexpected(main_sha.error());
    rc.sha = *release_sha;
    mc.sha = *main_sha;
  }
  const auto subject = [](const PlannedCommit& c) { return c.message.substr(0, c.message.find('\n')); };
  const std::string bump_ref = "refs/heads/" + mc.branch;
  plan.refs.push_back(
      {result.orig_ref, "", result.from_sha, result.from_sha, "backup of " + result.from_ref});
  plan.refs.push_back({series.branch_ref(), "", rc.sha, rc.sha,
                       "new commit on " + rc.parent.substr(0, 12) + ": " + subject(rc)});
  plan.refs.push_back({bump_ref, options.bump_via ? "" : mc.parent, mc.sha, mc.sha,
                       "new commit on " + mc.parent.substr(0, 12) + ": " + subject(mc)});
  for (const auto& change : rc.changes) plan.files.push_back({rc.branch + ":" + change.path, change.summary});
  for (const auto& change : mc.changes) plan.files.push_back({mc.branch + ":" + change.path, change.summary});
  // The release branch and its backup, and main's bump (or the --bump-via branch), in one push.
  plan.push_refs = {series.branch_ref(), result.orig_ref, bump_ref};
  return result;
}

}  // namespace

Result<CutResult> run_release_cut(const Repository& repo, const ReleaseConfig& config,
                                  const CutOptions& options) {
  auto series = parse_series(options.series);
  if (!series) return tl::unexpected(series.error());
  TxOptions tx;
  tx.mode = options.abort ? TxMode::abort : options.dry_run == DryRun::yes ? TxMode::dry_run : TxMode::run;
  tx.hook = options.hook;
  auto outcome = run_transaction(repo, nullptr, "cut " + series->text(), tx, options.push.value_or(""),
                                 [&](bool write_objects) -> Result<Plan> {
                                   Plan plan;
                                   auto cut = plan_cut(repo, config, options, *series, write_objects, plan);
                                   if (!cut) return tl::unexpected(cut.error());
                                   plan.result = nlohmann::json(*cut).dump();
                                   return plan;
                                 });
  if (!outcome) return tl::unexpected(outcome.error());
  CutResult result = nlohmann::json::parse(outcome->plan.result).get<CutResult>();
  result.executed = outcome->executed;
  result.pushed = outcome->plan.pushed;
  result.resumed = outcome->resumed;
  result.aborted = outcome->aborted;
  result.plan = std::move(outcome->plan);
  return result;
}

}  // namespace relforge::release
