#include "triage/rules.hpp"

#include <string>
#include <utility>

#include <toml++/toml.h>

#include "platform/fs.hpp"
#include "platform/toml.hpp"
#include "platform/toml_reader.hpp"
#include "triage/compiled_rules.hpp"
#include "triage/hs_pattern.hpp"

namespace relforge::triage {
namespace {

using platform::TomlReader;

Result<std::string> string_field(const TomlReader& reader, const toml::table& table, const std::string& key,
                                 const std::string& where, bool required) {
  const auto* node = table.get(key);
  if (node == nullptr) {
    if (required) return reader.fail(TomlReader::location(table), where + ": missing `" + key + "`");
    return std::string();
  }
  return reader.string(*node, "`" + key + "` in " + where);
}

Status parse_preprocess(const TomlReader& reader, const toml::table& table, RuleSpec& spec) {
  if (auto ok = reader.check_keys(table, {"ignore", "skip_block"}, "[preprocess]"); !ok) return ok;
  if (const auto* ignore = table.get("ignore")) {
    const auto* array = ignore->as_array();
    if (array == nullptr) {
      return reader.fail(
          TomlReader::location(*ignore),
          "`ignore` in [preprocess] must be an array of regexes, not " + TomlReader::type_name(*ignore));
    }
    for (const auto& item : *array) {
      auto text = reader.string(item, "each `ignore` entry in [preprocess]");
      if (!text) return tl::unexpected(text.error());
      spec.ignore.push_back(std::move(*text));
    }
  }
  if (const auto* blocks = table.get("skip_block")) {
    auto tables = reader.tables(*blocks, "preprocess.skip_block");
    if (!tables) return tl::unexpected(tables.error());
    std::size_t index = 0;
    for (const auto* block : *tables) {
      const std::string where = "[[preprocess.skip_block]] #" + std::to_string(++index);
      if (auto ok = reader.check_keys(*block, {"start", "end"}, where); !ok) return ok;
      auto start = string_field(reader, *block, "start", where, true);
      if (!start) return tl::unexpected(start.error());
      auto end = string_field(reader, *block, "end", where, true);
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
  const TomlReader reader{std::string(origin)};
  RuleSpec spec;
  if (auto ok = reader.check_keys(root, {"preprocess", "rule"}, "the rules file"); !ok)
    return tl::unexpected(ok.error());
  if (const auto* pre = root.get("preprocess")) {
    auto table = reader.table(*pre, "[preprocess]");
    if (!table) return tl::unexpected(table.error());
    if (auto ok = parse_preprocess(reader, **table, spec); !ok) return tl::unexpected(ok.error());
  }
  const auto* rules = root.get("rule");
  if (rules == nullptr) return reader.fail({}, "no rules; add [[rule]] tables with `name` and `pattern`");
  auto tables = reader.tables(*rules, "rule");
  if (!tables) return tl::unexpected(tables.error());
  if (tables->empty()) {
    return reader.fail(TomlReader::location(*rules),
                       "no rules; add [[rule]] tables with `name` and `pattern`");
  }
  std::size_t index = 0;
  for (const auto* table : *tables) {
    std::string where = "[[rule]] #" + std::to_string(++index);
    if (auto ok = reader.check_keys(*table, {"name", "pattern", "category", "flaky", "summary"}, where);
        !ok) {
      return tl::unexpected(ok.error());
    }
    Rule rule;
    auto name = string_field(reader, *table, "name", where, true);
    if (!name) return tl::unexpected(name.error());
    rule.name = *name;
    where += " (" + rule.name + ")";
    auto pattern = string_field(reader, *table, "pattern", where, true);
    if (!pattern) return tl::unexpected(pattern.error());
    rule.pattern = *pattern;
    auto category = string_field(reader, *table, "category", where, false);
    if (!category) return tl::unexpected(category.error());
    if (!category->empty()) rule.category = *category;
    if (const auto* flaky = table->get("flaky")) {
      auto value = reader.boolean(*flaky, "`flaky` in " + where);
      if (!value) return tl::unexpected(value.error());
      rule.flaky = *value;
    }
    if (const auto* summary = table->get("summary")) {
      auto value = reader.boolean(*summary, "`summary` in " + where);
      if (!value) return tl::unexpected(value.error());
      rule.summary = *value;
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
  // One Hyperscan database serves both the raw lines and the chunks of cleaned ones; the set of
  // cleaned-line patterns is compiled only where the raw one cannot be (compiling is most of the
  // start-up time).
  compiled->raw_prefilter = RawPrefilter::build(spec);
  if (compiled->raw_prefilter == nullptr) {
    std::vector<std::string> hyperscan;
    for (const auto& pattern : patterns) {
      auto translated = to_hyperscan(pattern, /*drop_anchors=*/false);
      if (!translated) break;  // RE2::Set alone, as off x86-64 (chunks are ASCII: (?i) folds alike)
      hyperscan.push_back(std::move(translated->text));
    }
    if (hyperscan.size() == patterns.size()) compiled->fast_set = HyperscanSet::compile(hyperscan);
  }
  return std::shared_ptr<const CompiledRules>(std::move(compiled));
}

Result<std::shared_ptr<const CompiledRules>> default_rules() {
  auto spec = parse_rule_spec(default_rules_toml(), "<built-in rules>");
  if (!spec) return tl::unexpected(spec.error());
  return compile_rules(*spec);
}

}  // namespace relforge::triage
