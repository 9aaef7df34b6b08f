#include "triage/rules.hpp"

#include <set>

#include <toml++/toml.h>

#include "platform/fs.hpp"
#include "platform/toml.hpp"
#include "triage/compiled_rules.hpp"

namespace relforge::triage {
namespace {

Result<std::string> string_field(const toml::table& table, std::string_view key, const std::string& where,
                                 bool required) {
  const auto* node = table.get(key);
  if (node == nullptr) {
    if (required) return fail(ErrorCategory::invalid_input, where + ": missing `" + std::string(key) + "`");
    return std::string();
  }
  const auto* value = node->as_string();
  if (value == nullptr) {
    return fail(ErrorCategory::invalid_input, where + ": `" + std::string(key) + "` must be a string");
  }
  return value->get();
}

Status check_keys(const toml::table& table, const std::set<std::string>& allowed, const std::string& where) {
  for (const auto& [key, value] : table) {
    (void)value;
    if (allowed.count(std::string(key.str())) == 0) {
      std::string list;
      for (const auto& name : allowed) list += (list.empty() ? "" : ", ") + name;
      return fail(ErrorCategory::invalid_input,
                  where + ": unknown key `" + std::string(key.str()) + "` (allowed: " + list + ")");
    }
  }
  return {};
}

Status parse_preprocess(const toml::table& table, RuleSpec& spec) {
  if (auto ok = check_keys(table, {"ignore", "skip_block"}, "[preprocess]"); !ok) return ok;
  if (const auto* ignore = table.get("ignore")) {
    const auto* array = ignore->as_array();
    if (array == nullptr)
      return fail(ErrorCategory::invalid_input, "[preprocess]: `ignore` must be an array of regexes");
    for (const auto& item : *array) {
      const auto* text = item.as_string();
      if (text == nullptr)
        return fail(ErrorCategory::invalid_input, "[preprocess]: `ignore` entries must be strings");
      spec.ignore.push_back(text->get());
    }
  }
  if (const auto* blocks = table.get("skip_block")) {
    const auto* array = blocks->as_array();
    if (array == nullptr)
      return fail(ErrorCategory::invalid_input, "[preprocess]: use [[preprocess.skip_block]] tables");
    std::size_t index = 0;
    for (const auto& item : *array) {
      const std::string where = "[[preprocess.skip_block]] #" + std::to_string(++index);
      const auto* block = item.as_table();
      if (block == nullptr) return fail(ErrorCategory::invalid_input, where + ": must be a table");
      if (auto ok = check_keys(*block, {"start", "end"}, where); !ok) return ok;
      auto start = string_field(*block, "start", where, true);
      if (!start) return tl::unexpected(start.error());
      auto end = string_field(*block, "end", where, true);
      if (!end) return tl::unexpected(end.error());
      spec.skip_blocks.push_back({*start, *end});
    }
  }
  return {};
}

Result<std::unique_ptr<re2::RE2>> compile_one(const std::string& pattern, const std::string& what) {
  re2::RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(64 << 20);
  auto re = std::make_unique<re2::RE2>(pattern, options);
  if (!re->ok()) {
    return fail(ErrorCategory::invalid_input, what + ": invalid regex `" + pattern + "`: " + re->error() +
                                                  " (RE2 syntax: no backreferences or lookaround)");
  }
  return re;
}

Result<std::unique_ptr<re2::RE2::Set>> build_set(const std::vector<std::string>& patterns) {
  re2::RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(256 << 20);
  auto set = std::make_unique<re2::RE2::Set>(options, re2::RE2::UNANCHORED);
  for (const auto& pattern : patterns) {
    std::string error;
    // (?m): the set runs over many lines at once, so ^ and $ must mean line boundaries.
    if (set->Add("(?m)" + pattern, &error) < 0) {
      return fail(ErrorCategory::invalid_input, "invalid regex `" + pattern + "`: " + error);
    }
  }
  if (!set->Compile()) return fail(ErrorCategory::internal, "RE2 ran out of memory compiling the rule set");
  return set;
}

}  // namespace

Result<RuleSpec> parse_rule_spec(std::string_view toml_text, std::string_view origin) {
  auto parsed = platform::parse_toml(toml_text, origin);
  if (!parsed) return tl::unexpected(parsed.error());
  const toml::table& root = *parsed;
  RuleSpec spec;
  if (auto ok = check_keys(root, {"preprocess", "rule"}, std::string(origin)); !ok)
    return tl::unexpected(ok.error());
  if (const auto* pre = root.get("preprocess")) {
    if (pre->as_table() == nullptr) return fail(ErrorCategory::invalid_input, "[preprocess] must be a table");
    if (auto ok = parse_preprocess(*pre->as_table(), spec); !ok) return tl::unexpected(ok.error());
  }
  const auto* rules = root.get("rule");
  if (rules == nullptr || rules->as_array() == nullptr || rules->as_array()->empty()) {
    return fail(ErrorCategory::invalid_input,
                std::string(origin) + ": no rules; add [[rule]] tables with `name` and `pattern`");
  }
  std::set<std::string> seen;
  std::size_t index = 0;
  for (const auto& item : *rules->as_array()) {
    std::string where = "[[rule]] #" + std::to_string(++index);
    const auto* table = item.as_table();
    if (table == nullptr) return fail(ErrorCategory::invalid_input, where + ": must be a table");
    if (auto ok = check_keys(*table, {"name", "pattern", "category", "flaky"}, where); !ok) {
      return tl::unexpected(ok.error());
    }
    Rule rule;
    auto name = string_field(*table, "name", where, true);
    if (!name) return tl::unexpected(name.error());
    rule.name = *name;
    where += " (" + rule.name + ")";
    if (!seen.insert(rule.name).second)
      return fail(ErrorCategory::invalid_input, where + ": duplicate rule name");
    auto pattern = string_field(*table, "pattern", where, true);
    if (!pattern) return tl::unexpected(pattern.error());
    rule.pattern = *pattern;
    auto category = string_field(*table, "category", where, false);
    if (!category) return tl::unexpected(category.error());
    if (!category->empty()) rule.category = *category;
    if (const auto* flaky = table->get("flaky")) {
      if (flaky->as_boolean() == nullptr)
        return fail(ErrorCategory::invalid_input, where + ": `flaky` must be true or false");
      rule.flaky = flaky->as_boolean()->get();
    }
    spec.rules.push_back(std::move(rule));
  }
  return spec;
}

Result<RuleSpec> load_rule_spec(const std::filesystem::path& path) {
  auto text = platform::read_file(path);
  if (!text) return tl::unexpected(Error(text.error()).with_context("loading rules"));
  return with_context(parse_rule_spec(*text, path.string()), "loading rules " + path.string());
}

Result<std::shared_ptr<const CompiledRules>> compile_rules(const RuleSpec& spec) {
  auto compiled = std::make_shared<CompiledRules>();
  compiled->spec = spec;
  std::vector<std::string> patterns;
  for (const auto& rule : spec.rules) {
    auto re = compile_one(rule.pattern, "rule `" + rule.name + "`");
    if (!re) return tl::unexpected(re.error());
    compiled->rules.push_back(std::move(*re));
    patterns.push_back(rule.pattern);
  }
  for (const auto& pattern : spec.ignore) {
    auto re = compile_one(pattern, "[preprocess] ignore");
    if (!re) return tl::unexpected(re.error());
    compiled->ignore.push_back(std::move(*re));
  }
  std::vector<std::string> starts;
  for (const auto& block : spec.skip_blocks) {
    auto start = compile_one(block.start, "[[preprocess.skip_block]] start");
    if (!start) return tl::unexpected(start.error());
    auto end = compile_one(block.end, "[[preprocess.skip_block]] end");
    if (!end) return tl::unexpected(end.error());
    compiled->block_start.push_back(std::move(*start));
    compiled->block_end.push_back(std::move(*end));
    starts.push_back(block.start);
  }
  // Block starts ride in the same set after the rules: one DFA pass per chunk finds both.
  patterns.insert(patterns.end(), starts.begin(), starts.end());
  auto set = build_set(patterns);
  if (!set) return tl::unexpected(set.error());
  compiled->rule_set = std::move(*set);
  return std::shared_ptr<const CompiledRules>(std::move(compiled));
}

Result<std::shared_ptr<const CompiledRules>> default_rules() {
  auto spec = parse_rule_spec(default_rules_toml(), "<built-in rules>");
  if (!spec) return tl::unexpected(spec.error());
  return compile_rules(*spec);
}

}  // namespace relforge::triage
