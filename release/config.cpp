#include "release/config.hpp"

#include <algorithm>
#include <array>

#include <toml++/toml.h>

#include "platform/toml.hpp"

namespace relforge::release {
namespace {

constexpr std::array<std::string_view, 6> k_keys = {"version_file", "main_branch", "last_known_good",
                                                    "channel_file", "replace",     "final_rc_milestone"};

std::string where(const std::string& file, const toml::node& node) {
  const auto& source = node.source();
  return file + ":" + std::to_string(source.begin.line) + ":" + std::to_string(source.begin.column);
}

Result<std::string> string_at(const std::string& file, const toml::table& table, std::string_view key,
                              const std::string& context) {
  const toml::node* node = table.get(key);
  if (node == nullptr)
    return fail(ErrorCategory::invalid_input, file + ": " + context + " needs '" + std::string(key) + "'");
  const auto* text = node->as_string();
  if (text == nullptr || text->get().empty())
    return fail(ErrorCategory::invalid_input,
                where(file, *node) + ": " + context + " " + std::string(key) + " must be a non-empty string");
  return text->get();
}

}  // namespace

Result<ReleaseConfig> parse_release_config(std::string_view toml_text, const std::string& file) {
  auto parsed = platform::parse_toml(toml_text, file);
  if (!parsed) return tl::unexpected(parsed.error());
  const toml::table& root = *parsed;
  ReleaseConfig config;
  const toml::node* node = root.get("release");
  if (node == nullptr) return config;
  const toml::table* table = node->as_table();
  if (table == nullptr)
    return fail(ErrorCategory::invalid_input, where(file, *node) + ": [release] must be a table");
  for (const auto& [key, value] : *table) {
    if (std::find(k_keys.begin(), k_keys.end(), key.str()) == k_keys.end()) {
      return fail(ErrorCategory::invalid_input,
                  where(file, value) + ": unknown key '" + std::string(key.str()) +
                      "' in [release] (known: version_file, main_branch, "
                      "last_known_good, channel_file, replace, final_rc_milestone)");
    }
  }
  for (auto [key, target] :
       std::array<std::pair<std::string_view, std::string*>, 4>{{{"version_file", &config.version_file},
                                                                 {"main_branch", &config.main_branch},
                                                                 {"last_known_good", &config.last_known_good},
                                                                 {"channel_file", &config.channel_file}}}) {
    if (table->get(key) == nullptr) continue;
    auto text = string_at(file, *table, key, "[release]");
    if (!text) return tl::unexpected(text.error());
    *target = *text;
  }
  if (const toml::node* milestone = table->get("final_rc_milestone")) {
    const auto* number = milestone->as_integer();
    if (number == nullptr || number->get() < 1)
      return fail(ErrorCategory::invalid_input,
                  where(file, *milestone) + ": [release] final_rc_milestone must be an integer >= 1");
    config.final_rc_milestone = static_cast<int>(number->get());
  }
  if (const toml::node* replace = table->get("replace")) {
    const auto* array = replace->as_array();
    if (array == nullptr)
      return fail(
          ErrorCategory::invalid_input,
          where(file, *replace) + ": [release] replace must be an array of tables ([[release.replace]])");
    for (const auto& item : *array) {
      const auto* entry = item.as_table();
      if (entry == nullptr)
        return fail(ErrorCategory::invalid_input,
                    where(file, item) + ": [[release.replace]] must be a table");
      Replacement r;
      for (auto [key, target] : std::array<std::pair<std::string_view, std::string*>, 3>{
               {{"file", &r.file}, {"from", &r.from}, {"to", &r.to}}}) {
        if (key == "to" && entry->get("to") != nullptr && entry->get("to")->as_string() != nullptr) {
          r.to = entry->get("to")->as_string()->get();  // may be empty: a deletion
          continue;
        }
        auto text = string_at(file, *entry, key, "[[release.replace]]");
        if (!text) return tl::unexpected(text.error());
        *target = *text;
      }
      config.replacements.push_back(std::move(r));
    }
  }
  return config;
}

}  // namespace relforge::release
