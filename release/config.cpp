#include "release/config.hpp"

#include <array>
#include <string>
#include <utility>

#include <toml++/toml.h>

#include "platform/diagnostics.hpp"
#include "platform/toml.hpp"
#include "platform/toml_reader.hpp"
#include "release/replace.hpp"

namespace relforge::release {
namespace {

using platform::TomlReader;

// A string that must not be empty; `to` alone may be (a replacement that deletes).
Result<std::string> text(const TomlReader& reader, const toml::table& table, const std::string& key,
                         const std::string& context, bool may_be_empty) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return reader.fail(TomlReader::location(table), context + " needs '" + key + "'");
  auto value = reader.string(*node, "'" + key + "' in " + context);
  if (!value) return value;
  if (value->empty() && !may_be_empty) {
    return reader.fail(TomlReader::location(*node), "'" + key + "' in " + context + " must not be empty");
  }
  return value;
}

}  // namespace

Result<ReleaseConfig> parse_release_config(std::string_view toml_text, const std::string& file) {
  auto parsed = platform::parse_toml(toml_text, file);
  if (!parsed) return tl::unexpected(parsed.error());
  const toml::table& root = *parsed;
  const TomlReader reader(file);
  ReleaseConfig config;
  const toml::node* node = root.get("release");
  if (node == nullptr) return config;
  auto release = reader.table(*node, "[release]");
  if (!release) return tl::unexpected(release.error());
  const toml::table& table = **release;
  if (auto ok = reader.check_keys(table,
                                  {"version_file", "main_branch", "last_known_good", "channel_file",
                                   "replace", "final_rc_milestone", "notes", "post_cut"},
                                  "[release]");
      !ok) {
    return tl::unexpected(ok.error());
  }
  for (auto [key, target] :
       std::array<std::pair<const char*, std::string*>, 4>{{{"version_file", &config.version_file},
                                                            {"main_branch", &config.main_branch},
                                                            {"last_known_good", &config.last_known_good},
                                                            {"channel_file", &config.channel_file}}}) {
    if (table.get(key) == nullptr) continue;
    auto value = text(reader, table, key, "[release]", false);
    if (!value) return tl::unexpected(value.error());
    *target = *value;
  }
  if (const toml::node* milestone = table.get("final_rc_milestone")) {
    auto value = reader.integer(*milestone, "'final_rc_milestone' in [release]", 1, 1000);
    if (!value) return tl::unexpected(value.error());
    config.final_rc_milestone = static_cast<int>(*value);
  }
  if (const toml::node* hook = table.get("post_cut")) {
    auto argv = reader.strings(*hook, "'post_cut' in [release]");
    if (!argv) return tl::unexpected(argv.error());
    if (argv->front().empty())
      return reader.fail(TomlReader::location(*hook), "'post_cut' in [release] must start with a program");
    config.post_cut = std::move(*argv);
  }
  if (const toml::node* replace = table.get("replace")) {
    auto entries = reader.tables(*replace, "release.replace");
    if (!entries) return tl::unexpected(entries.error());
    for (const toml::table* entry : *entries) {
      if (auto ok =
              reader.check_keys(*entry, {"file", "files", "from", "to", "regex"}, "[[release.replace]]");
          !ok)
        return tl::unexpected(ok.error());
      Replacement r;
      r.origin = platform::where(file, TomlReader::location(*entry));
      const toml::node* one = entry->get("file");
      const toml::node* many = entry->get("files");
      if ((one == nullptr) == (many == nullptr)) {
        return reader.fail(
            TomlReader::location(*entry),
            "[[release.replace]] needs exactly one of 'file' (a path) and 'files' (paths or globs)");
      }
      if (one != nullptr) {
        auto value = text(reader, *entry, "file", "[[release.replace]]", false);
        if (!value) return tl::unexpected(value.error());
        r.files.push_back(*value);
      } else {
        auto values = reader.strings(*many, "'files' in [[release.replace]]");
        if (!values) return tl::unexpected(values.error());
        for (const auto& value : *values) {
          if (value.empty())
            return reader.fail(TomlReader::location(*many),
                               "'files' in [[release.replace]] has an empty entry");
        }
        r.files = *values;
      }
      for (auto [key, target] :
           std::array<std::pair<const char*, std::string*>, 2>{{{"from", &r.from}, {"to", &r.to}}}) {
        auto value = text(reader, *entry, key, "[[release.replace]]", std::string_view(key) == "to");
        if (!value) return tl::unexpected(value.error());
        *target = *value;
      }
      if (const toml::node* regex = entry->get("regex")) {
        auto value = reader.boolean(*regex, "'regex' in [[release.replace]]");
        if (!value) return tl::unexpected(value.error());
        r.regex = *value;
        if (r.regex) {
          // Checked here so a bad pattern names its line, not the cut that tripped over it.
          if (auto ok = check_regex_rule(r.from, r.to); !ok)
            return reader.fail(TomlReader::location(*entry->get("from")),
                               ok.error().message() + " (in [[release.replace]])");
        }
      }
      config.replacements.push_back(std::move(r));
    }
  }
  return config;
}

}  // namespace relforge::release
