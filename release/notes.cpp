#include "release/notes.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include <toml++/toml.h>

#include "core/utf8.hpp"

#include "platform/toml.hpp"
#include "platform/toml_reader.hpp"

namespace relforge::release {
namespace {

// A lone CR ends the line too: GitHub's Markdown reads it as a line break, so text after it could
// start a heading of its own.
std::string_view first_line(std::string_view message) {
  return message.substr(0, std::min(message.find_first_of("\r\n"), message.size()));
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::optional<int> digits(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  int value = 0;
  for (const char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// A conventional-commit header "type(scope)!: text": the lower-cased type, whether it has "!",
// and the text; nullopt when the subject is not one.
struct Conventional {
  std::string type;
  bool breaking = false;
  std::string_view text;
};

std::optional<Conventional> conventional(std::string_view subject) {
  std::size_t i = 0;
  while (i < subject.size() && std::isalpha(static_cast<unsigned char>(subject[i]))) ++i;
  if (i == 0 || i > 20) return std::nullopt;
  Conventional out;
  for (std::size_t k = 0; k < i; ++k)
    out.type += static_cast<char>(std::tolower(static_cast<unsigned char>(subject[k])));
  if (i < subject.size() && subject[i] == '(') {
    const auto close = subject.find(')', i);
    if (close == std::string_view::npos) return std::nullopt;
    i = close + 1;
  }
  if (i < subject.size() && subject[i] == '!') {
    out.breaking = true;
    ++i;
  }
  if (i >= subject.size() || subject[i] != ':') return std::nullopt;
  out.text = trim(subject.substr(i + 1));
  if (out.text.empty()) return std::nullopt;
  return out;
}

// "Title (#123)" -> "Title".
std::string_view without_pr_suffix(std::string_view subject) {
  subject = trim(subject);
  if (subject.empty() || subject.back() != ')') return subject;
  const auto open = subject.rfind("(#");
  if (open == std::string_view::npos || !digits(subject.substr(open + 2, subject.size() - open - 3)))
    return subject;
  return trim(subject.substr(0, open));
}

constexpr std::string_view k_merge_prefix = "Merge pull request #";

// The subject a person wrote: a GitHub merge commit's is the PR title in the message's body.
std::string_view written_subject(std::string_view message) {
  const std::string_view subject = first_line(message);
  if (subject.rfind(k_merge_prefix, 0) != 0) return subject;
  const auto blank = message.find("\n\n");
  if (blank == std::string_view::npos) return subject;
  const std::string_view title = trim(first_line(message.substr(blank + 2)));
  return title.empty() ? subject : title;
}

bool has_any(const std::vector<std::string>& wanted, const std::vector<std::string>& have) {
  return std::any_of(wanted.begin(), wanted.end(), [&](const std::string& w) {
    return std::find(have.begin(), have.end(), w) != have.end();
  });
}

}  // namespace

NotesConfig default_notes_config() {
  NotesConfig config;
  config.categories = {
      {"New features", {"feat"}, {"release notes: new features", "topic: new features"}},
      {"Bug fixes", {"fix"}, {"release notes: bug fixes", "topic: bug fixes"}},
      {"Performance", {"perf"}, {"release notes: performance", "topic: performance"}},
      {"Documentation", {"docs"}, {"release notes: docs", "topic: docs"}},
      {"Build and packaging", {"build", "deps"}, {"release notes: build", "topic: build"}},
  };
  return config;
}

std::optional<int> pr_number(std::string_view message) {
  const std::string_view subject = trim(first_line(message));
  if (subject.rfind(k_merge_prefix, 0) == 0) {
    const std::string_view rest = subject.substr(k_merge_prefix.size());
    return digits(rest.substr(0, rest.find(' ')));
  }
  if (subject.empty() || subject.back() != ')') return std::nullopt;
  const auto open = subject.rfind("(#");
  if (open == std::string_view::npos) return std::nullopt;
  return digits(subject.substr(open + 2, subject.size() - open - 3));
}

ReleaseNotes build_notes(const std::vector<NoteCommit>& commits, const NotesConfig& config,
                         std::string from_tag, std::string to_tag) {
  ReleaseNotes notes;
  notes.from_tag = std::move(from_tag);
  notes.to_tag = std::move(to_tag);
  notes.commits = commits.size();
  std::vector<NoteSection> sections;
  sections.push_back({config.breaking_title, {}});
  for (const auto& category : config.categories) sections.push_back({category.title, {}});
  sections.push_back({config.other_title, {}});
  for (const auto& commit : commits) {
    const std::string_view subject = written_subject(commit.message);
    const auto header = conventional(subject);
    const std::string type = header ? header->type : "";
    if (has_any(config.skip_labels, commit.labels) ||
        (!type.empty() && std::find(config.skip_prefixes.begin(), config.skip_prefixes.end(), type) !=
                              config.skip_prefixes.end())) {
      ++notes.skipped;
      continue;
    }
    NoteEntry entry{commit.sha, std::string(without_pr_suffix(header ? header->text : subject)),
                    pr_number(commit.message), commit.author};
    if (!entry.text.empty())
      entry.text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(entry.text[0])));
    std::size_t section = sections.size() - 1;
    if ((header && header->breaking) || commit.message.find("\nBREAKING CHANGE:") != std::string::npos) {
      section = 0;
    } else {
      for (std::size_t i = 0; i < config.categories.size() && section == sections.size() - 1; ++i) {
        if (has_any(config.categories[i].labels, commit.labels)) section = i + 1;
      }
      for (std::size_t i = 0; i < config.categories.size() && section == sections.size() - 1; ++i) {
        const auto& prefixes = config.categories[i].prefixes;
        if (!type.empty() && std::find(prefixes.begin(), prefixes.end(), type) != prefixes.end())
          section = i + 1;
      }
    }
    sections[section].entries.push_back(std::move(entry));
  }
  for (auto& section : sections) {
    if (!section.entries.empty()) notes.sections.push_back(std::move(section));
  }
  return notes;
}

std::string markdown_text(std::string_view raw) {
  const std::string text = core::to_valid_utf8(raw);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '\n':
      case '\r':
      case '\t':
        out += ' ';
        break;
      // The relay's set (triage/pr.cpp md_text): with [ ] and ! escaped no link or image opens.
      case '\\':
      case '[':
      case ']':
      case '*':
      case '_':
      case '`':
      case '#':
      case '|':
      case '!':
      case '@':
      case '~':
        out += '\\';
        out += c;
        break;
      default:
        // Other controls (ESC, BEL, DEL) have no business in notes or on a terminal.
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) break;
        // At the start of an entry, "- x", "+ x", "1. x" and "= x" would open a list or a heading.
        if (out.empty() && (c == '-' || c == '+' || c == '=')) out += '\\';
        if ((c == '.' || c == ')') && !out.empty() &&
            out.find_first_not_of("0123456789") == std::string::npos)
          out += '\\';
        out += c;
    }
  }
  return out;
}

std::string render_markdown(const ReleaseNotes& notes, const std::string& repo) {
  std::string out =
      "# " + markdown_text(notes.to_tag) + "\n\nChanges since " + markdown_text(notes.from_tag) + ".\n";
  for (const auto& section : notes.sections) {
    out += "\n## " + section.title + "\n\n";
    for (const auto& entry : section.entries) {
      out += "- " + markdown_text(entry.text);
      if (entry.pr) {
        const std::string number = std::to_string(*entry.pr);
        out += repo.empty() ? " (#" + number + ")"
                            : " ([#" + number + "](https://github.com/" + repo + "/pull/" + number + "))";
      } else {
        out += " (" + entry.sha.substr(0, 12) + ")";
      }
      out += '\n';
    }
  }
  if (notes.sections.empty()) out += "\nNo changes.\n";
  return out;
}

Result<NotesConfig> parse_notes_config(std::string_view toml_text, const std::string& file) {
  using platform::TomlReader;
  auto parsed = platform::parse_toml(toml_text, file);
  if (!parsed) return tl::unexpected(parsed.error());
  NotesConfig config = default_notes_config();
  const toml::node* release = parsed->get("release");
  const toml::node* node = release && release->is_table() ? release->as_table()->get("notes") : nullptr;
  if (node == nullptr) return config;
  const TomlReader reader(file);
  auto table = reader.table(*node, "[release.notes]");
  if (!table) return tl::unexpected(table.error());
  if (auto ok = reader.check_keys(
          **table, {"breaking_title", "other_title", "skip_prefixes", "skip_labels", "category"},
          "[release.notes]");
      !ok)
    return tl::unexpected(ok.error());
  const auto list = [&](const toml::table& t, const char* key, std::string_view context,
                        std::vector<std::string>& out) -> Status {
    const toml::node* value = t.get(key);
    if (value == nullptr) return {};
    if (value->is_array() && value->as_array()->empty()) {
      out.clear();
      return {};
    }
    auto strings = reader.strings(*value, "'" + std::string(key) + "' in " + std::string(context));
    if (!strings) return tl::unexpected(strings.error());
    out = std::move(*strings);
    return {};
  };
  for (auto [key, target] : {std::pair<const char*, std::string*>{"breaking_title", &config.breaking_title},
                             std::pair<const char*, std::string*>{"other_title", &config.other_title}}) {
    if (const toml::node* value = (*table)->get(key)) {
      auto text = reader.string(*value, "'" + std::string(key) + "' in [release.notes]");
      if (!text) return tl::unexpected(text.error());
      *target = std::move(*text);
    }
  }
  if (auto ok = list(**table, "skip_prefixes", "[release.notes]", config.skip_prefixes); !ok)
    return tl::unexpected(ok.error());
  if (auto ok = list(**table, "skip_labels", "[release.notes]", config.skip_labels); !ok)
    return tl::unexpected(ok.error());
  if (const toml::node* categories = (*table)->get("category")) {
    auto entries = reader.tables(*categories, "release.notes.category");
    if (!entries) return tl::unexpected(entries.error());
    config.categories.clear();
    for (const toml::table* entry : *entries) {
      if (auto ok = reader.check_keys(*entry, {"title", "prefixes", "labels"}, "[[release.notes.category]]");
          !ok)
        return tl::unexpected(ok.error());
      NotesCategory category;
      const toml::node* title = entry->get("title");
      if (title == nullptr)
        return reader.fail(TomlReader::location(*entry), "[[release.notes.category]] needs 'title'");
      auto text = reader.string(*title, "'title' in [[release.notes.category]]");
      if (!text) return tl::unexpected(text.error());
      category.title = std::move(*text);
      if (auto ok = list(*entry, "prefixes", "[[release.notes.category]]", category.prefixes); !ok)
        return tl::unexpected(ok.error());
      if (auto ok = list(*entry, "labels", "[[release.notes.category]]", category.labels); !ok)
        return tl::unexpected(ok.error());
      for (auto& prefix : category.prefixes)
        std::transform(prefix.begin(), prefix.end(), prefix.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      config.categories.push_back(std::move(category));
    }
  }
  return config;
}

}  // namespace relforge::release
