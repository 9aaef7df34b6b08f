// `relforge release notes vA..vB` and `relforge release publish-notes vA..vB`: the commits between
// two tags as categorised Markdown, and the GitHub Release of the second tag created or updated.
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "packaging/version.hpp"
#include "platform/fs.hpp"
#include "release/git.hpp"
#include "release/github_release.hpp"
#include "release/notes.hpp"

namespace relforge::cli {
namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

struct NotesOptions {
  std::string range;  // "v2.6.0..v2.7.0"
  std::string repo = ".";
  std::string config;  // default: relforge.toml at the repository root, when it exists
  std::string github_repo;
  std::string api_url = "https://api.github.com";
  std::string token_env = "GITHUB_TOKEN";
  bool labels = false;  // fetch each PR's labels (needs --github-repo)
};

void add_notes_options(CLI::App& command, NotesOptions& options) {
  command.add_option("range", options.range, "Two tags: vA..vB (the commits in vB and not in vA)")
      ->required();
  command.add_option("--repo", options.repo, "The repository (default: the current directory)");
  command.add_option("--config", options.config,
                     "relforge.toml with [release.notes] (default: at the repo root)");
  command.add_option("--github-repo", options.github_repo,
                     "owner/name: links PRs, and the repository of --labels");
  command.add_option("--api-url", options.api_url, "The GitHub REST API")->capture_default_str();
  command.add_option("--token-env", options.token_env, "The environment variable holding the GitHub token")
      ->capture_default_str();
  command.add_flag("--labels", options.labels, "Group by PR labels too (one GitHub request per PR)");
}

release::GitHubApi api_of(const NotesOptions& options, Runtime& runtime) {
  return {options.api_url, options.github_repo, runtime.getenv(options.token_env).value_or("")};
}

Result<release::ReleaseNotes> run_release_notes(const NotesOptions& options, Runtime& runtime) {
  const auto dots = options.range.find("..");
  if (dots == std::string::npos || dots == 0 || dots + 2 >= options.range.size() ||
      options.range.find("..", dots + 2) != std::string::npos) {
    return fail(ErrorCategory::invalid_input,
                "'" + options.range + "' is not a range; give two tags as vA..vB (e.g. v2.6.0..v2.7.0)");
  }
  const std::string from = options.range.substr(0, dots), to = options.range.substr(dots + 2);
  auto repo = release::Repository::open(options.repo);
  if (!repo) return tl::unexpected(repo.error());
  release::NotesConfig config = release::default_notes_config();
  const fs::path path = options.config.empty() ? repo->workdir() / "relforge.toml" : fs::path(options.config);
  if (!options.config.empty() || fs::exists(path)) {
    auto text = platform::read_file(path);
    if (!text) return tl::unexpected(text.error());
    auto parsed = release::parse_notes_config(*text, path.string());
    if (!parsed) return tl::unexpected(parsed.error());
    config = std::move(*parsed);
  }
  // Tags, not any revision: "v1.1.0#x" or "main~0" would name a GitHub Release of a tag that is not.
  const auto tag_commit = [&](const std::string& tag, const char* which) -> Result<std::string> {
    if (!release::is_valid_tag_name(tag))
      return fail(ErrorCategory::invalid_input, "the range's " + std::string(which) + " end '" + tag +
                                                    "' is not a tag name (git check-ref-format); give two "
                                                    "tags as vA..vB");
    auto target = repo->ref_target("refs/tags/" + tag);
    if (!target) return tl::unexpected(target.error());
    if (!*target)
      return fail(ErrorCategory::not_found, "the range's " + std::string(which) + " end '" + tag +
                                                "' is no tag of this repository (refs/tags/" + tag +
                                                "): create it or fetch the tags");
    return **target;
  };
  auto from_commit = tag_commit(from, "first");
  if (!from_commit) return tl::unexpected(from_commit.error());
  auto to_commit = tag_commit(to, "second");
  if (!to_commit) return tl::unexpected(to_commit.error());
  auto shas = repo->commit_ids_between(*to_commit, *from_commit);
  if (!shas) return tl::unexpected(shas.error());
  std::vector<release::CommitInfo> commits;
  for (const auto& sha : *shas) {
    auto info = repo->commit_info(sha);
    if (!info) return tl::unexpected(info.error());
    commits.push_back(std::move(*info));
  }
  if (!options.github_repo.empty() && !release::is_github_repo(options.github_repo))
    return fail(ErrorCategory::invalid_input,
                "--github-repo '" + options.github_repo + "' is not a GitHub repository (owner/name)");
  if (options.labels && options.github_repo.empty())
    return fail(ErrorCategory::invalid_input,
                "--labels reads PR labels from GitHub: pass --github-repo owner/name");
  const auto api = api_of(options, runtime);
  std::map<int, std::vector<std::string>> labels;  // a PR can own several commits (merge commits)
  std::vector<release::NoteCommit> notes;
  for (const auto& commit : commits) {
    release::NoteCommit note{commit.sha, commit.message, commit.author_name, {}};
    const auto pr = release::pr_number(commit.message);
    if (options.labels && pr) {
      if (!labels.contains(*pr)) {
        auto fetched = release::pull_request_labels(api, *pr);
        if (!fetched) return tl::unexpected(fetched.error());
        labels[*pr] = std::move(*fetched);
      }
      note.labels = labels[*pr];
    }
    notes.push_back(std::move(note));
  }
  return release::build_notes(notes, config, from, to);
}

Json notes_json(const release::ReleaseNotes& notes, const std::string& markdown) {
  Json sections = Json::array();
  for (const auto& section : notes.sections) {
    Json entries = Json::array();
    for (const auto& entry : section.entries) {
      entries.push_back({{"sha", entry.sha},
                         {"text", entry.text},
                         {"pr", entry.pr ? Json(*entry.pr) : Json(nullptr)},
                         {"author", entry.author}});
    }
    sections.push_back({{"title", section.title}, {"entries", entries}});
  }
  return {{"from", notes.from_tag},   {"to", notes.to_tag},   {"commits", notes.commits},
          {"skipped", notes.skipped}, {"sections", sections}, {"markdown", markdown}};
}

void register_notes(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<NotesOptions>();
  CLI::App* command = group.add_subcommand(
      "notes", "Release notes for vA..vB: commits grouped by PR label or conventional prefix, as Markdown");
  add_notes_options(*command, *options);
  add_json_flag(*command, runtime);
  command->callback([&runtime, options] {
    auto notes = run_release_notes(*options, runtime);
    if (!notes) return report_error(runtime, notes.error());
    const std::string markdown = release::render_markdown(*notes, options->github_repo);
    runtime.out << (runtime.json ? json_text(notes_json(*notes, markdown)) + "\n" : markdown);
    finish(runtime, {});
  });
}

void register_publish_notes(CLI::App& group, Runtime& runtime) {
  auto options = std::make_shared<NotesOptions>();
  auto name = std::make_shared<std::string>();
  auto draft = std::make_shared<bool>(false);
  auto dry_run = std::make_shared<bool>(false);
  CLI::App* command = group.add_subcommand(
      "publish-notes", "Create or update the GitHub Release of vB with the notes of vA..vB (REST API)");
  add_notes_options(*command, *options);
  command->get_option("--github-repo")->required();
  command->add_option("--name", *name, "The release title (default: the tag)");
  command->add_flag("--draft", *draft, "Create it as a draft");
  command->add_flag("--dry-run", *dry_run, "Print the release that would be written; call nothing");
  add_json_flag(*command, runtime);
  command->callback([&runtime, options, name, draft, dry_run] {
    auto notes = run_release_notes(*options, runtime);
    if (!notes) return report_error(runtime, notes.error());
    release::GitHubRelease release{notes->to_tag, name->empty() ? notes->to_tag : *name,
                                   release::render_markdown(*notes, options->github_repo), false, *draft};
    const std::string tag = notes->to_tag;
    auto version =
        packaging::parse_version(tag.size() > 1 && (tag[0] == 'v' || tag[0] == 'V') ? tag.substr(1) : tag);
    release.prerelease = version && version->is_prerelease();
    if (*dry_run) {
      runtime.out << (runtime.json
                          ? json_text(Json{{"dry_run", true},
                                           {"tag", release.tag},
                                           {"name", release.name},
                                           {"prerelease", release.prerelease},
                                           {"body", release.body}}) +
                                "\n"
                          : "would write the GitHub Release " + release.tag + " of " + options->github_repo +
                                (release.prerelease ? " (pre-release)" : "") + ":\n\n" + release.body);
      return finish(runtime, {});
    }
    const auto api = api_of(*options, runtime);
    if (api.token.empty()) {
      return report_error(runtime, Error(ErrorCategory::auth, "no GitHub token: set $" + options->token_env +
                                                                  " to a token with contents:write on " +
                                                                  options->github_repo));
    }
    auto published = release::upsert_release(api, release);
    if (!published) return report_error(runtime, published.error());
    if (runtime.json) {
      runtime.out << json_text(Json{{"tag", release.tag},
                                    {"created", published->created},
                                    {"id", published->id},
                                    {"html_url", published->html_url},
                                    {"prerelease", release.prerelease}})
                  << '\n';
    } else {
      runtime.out << (published->created ? "created" : "updated") << " the GitHub Release " << release.tag
                  << ": " << published->html_url << '\n';
    }
    finish(runtime, {});
  });
}

}  // namespace

void register_release_notes(CLI::App& group, Runtime& runtime) {
  register_notes(group, runtime);
  register_publish_notes(group, runtime);
}

}  // namespace relforge::cli
