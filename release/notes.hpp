#pragma once
// Release notes: the commits between two tags grouped into categories by PR label or by
// conventional-commit prefix ("feat:", "fix(cuda)!:"), each with its PR number from a squash
// ("Title (#123)") or merge ("Merge pull request #123 from …") message, rendered as Markdown. A
// subject ends at the first line break, LF or CR.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::release {

struct NotesCategory {
  std::string title;                  // "Bug fixes"
  std::vector<std::string> prefixes;  // conventional types: "fix"
  std::vector<std::string> labels;    // PR labels: "release notes: bug fixes"
};

struct NotesConfig {
  std::vector<NotesCategory> categories;            // in output order; the first that claims a commit wins
  std::string breaking_title = "Breaking changes";  // "type!:" or "BREAKING CHANGE:" in the body
  std::string other_title = "Other changes";
  std::vector<std::string> skip_prefixes = {"chore", "ci", "test", "style"};  // left out entirely
  std::vector<std::string> skip_labels = {"skip-release-notes"};
};

NotesConfig default_notes_config();

struct NoteCommit {
  std::string sha;
  std::string message;  // the whole commit message
  std::string author;
  std::vector<std::string> labels;  // of its PR, when they were fetched
};

struct NoteEntry {
  std::string sha;
  std::string text;  // the subject without the conventional prefix and the "(#123)" suffix
  std::optional<int> pr;
  std::string author;
};

struct NoteSection {
  std::string title;
  std::vector<NoteEntry> entries;
};

struct ReleaseNotes {
  std::string from_tag, to_tag;
  std::vector<NoteSection> sections;  // non-empty ones, in config order (breaking first)
  std::size_t commits = 0;            // between the tags
  std::size_t skipped = 0;            // left out by skip_prefixes / skip_labels
};

// The PR a commit message names: "(#123)" at the end of the subject, or GitHub's merge subject.
std::optional<int> pr_number(std::string_view message);

// `commits` newest first, as git log lists them; output keeps that order within a section.
ReleaseNotes build_notes(const std::vector<NoteCommit>& commits, const NotesConfig& config,
                         std::string from_tag, std::string to_tag);

// Commit text as inert Markdown, the rules of the relay's PR comment: one line (controls removed,
// CR/LF as spaces), valid UTF-8, < > & as entities, Markdown punctuation and '@' backslash-escaped
// (no HTML, links, images, emphasis, headings, lists or mentions).
std::string markdown_text(std::string_view raw);

// Markdown: "## <title>" per section, "- text (#123)" per entry; `repo` ("owner/name") links PRs.
// Commit text and tag names go through markdown_text.
std::string render_markdown(const ReleaseNotes& notes, const std::string& repo);

// Parses relforge.toml's [release.notes] table (missing: the defaults); `file` names it in errors.
Result<NotesConfig> parse_notes_config(std::string_view toml_text, const std::string& file);

}  // namespace relforge::release
