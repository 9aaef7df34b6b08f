#include "builders/build_config.hpp"

#include <toml++/toml.h>

#include <algorithm>

#include "core/text.hpp"
#include "platform/fs.hpp"
#include "platform/toml.hpp"

namespace relforge::builders {
namespace {

std::string where(const toml::node& node, const std::string& file) {
  const auto& source = node.source();
  return file + ":" + std::to_string(source.begin.line) + ":" + std::to_string(source.begin.column);
}

Status check_keys(const toml::table& table, const std::vector<std::string>& known, const std::string& context,
                  const std::string& file) {
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      const auto close = core::closest_match(name, known);
      return fail(ErrorCategory::invalid_input,
                  where(node, file) + ": unknown key '" + name + "' in " + context +
                      (close ? "; did you mean '" + std::string(*close) + "'?" : "") +
                      " (known: " + core::join(known, ", ") + ")");
    }
  }
  return {};
}

Result<std::vector<std::string>> strings(const toml::node& node, const std::string& what,
                                         const std::string& file) {
  const auto* array = node.as_array();
  if (array == nullptr)
    return fail(ErrorCategory::invalid_input,
                where(node, file) + ": " + what + " must be an array of strings");
  std::vector<std::string> out;
  for (const auto& item : *array) {
    const auto value = item.value<std::string>();
    if (!value)
      return fail(ErrorCategory::invalid_input, where(item, file) + ": " + what + " must hold strings");
    out.push_back(*value);
  }
  return out;
}

Result<std::int64_t> integer(const toml::node& node, const std::string& what, const std::string& file) {
  const auto value = node.value<std::int64_t>();
  if (!value || *value < 0)
    return fail(ErrorCategory::invalid_input,
                where(node, file) + ": " + what + " must be a non-negative integer");
  return *value;
}

Result<std::string> string(const toml::node& node, const std::string& what, const std::string& file) {
  const auto value = node.value<std::string>();
  if (!value)
    return fail(ErrorCategory::invalid_input, where(node, file) + ": " + what + " must be a string");
  return *value;
}

Status load_recipe(const toml::table& table, Recipe& recipe, const std::string& file) {
  if (auto ok = check_keys(table, {"command", "env", "timeout", "retries", "retryable_exit_codes", "smoke"},
                           "[recipe]", file);
      !ok)
    return ok;
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    if (name == "command") {
      auto value = strings(node, "[recipe] command", file);
      if (!value) return tl::unexpected(value.error());
      if (value->empty())
        return fail(ErrorCategory::invalid_input, where(node, file) + ": [recipe] command is empty");
      recipe.command = *value;
    } else if (name == "smoke") {
      auto value = strings(node, "[recipe] smoke", file);
      if (!value) return tl::unexpected(value.error());
      recipe.smoke = *value;
    } else if (name == "timeout") {
      auto value = integer(node, "[recipe] timeout (seconds)", file);
      if (!value) return tl::unexpected(value.error());
      recipe.timeout = std::chrono::seconds(*value);
    } else if (name == "retries") {
      auto value = integer(node, "[recipe] retries", file);
      if (!value) return tl::unexpected(value.error());
      recipe.retries = static_cast<int>(*value);
    } else if (name == "retryable_exit_codes") {
      const auto* array = node.as_array();
      if (array == nullptr)
        return fail(ErrorCategory::invalid_input,
                    where(node, file) + ": retryable_exit_codes must be an array of integers");
      for (const auto& item : *array) {
        auto value = integer(item, "[recipe] retryable_exit_codes", file);
        if (!value) return tl::unexpected(value.error());
        recipe.retryable_exit_codes.push_back(static_cast<int>(*value));
      }
    } else if (name == "env") {
      const auto* env = node.as_table();
      if (env == nullptr)
        return fail(ErrorCategory::invalid_input, where(node, file) + ": [recipe.env] must be a table");
      for (const auto& [var, value_node] : *env) {
        auto value = string(value_node, "[recipe.env] " + std::string(var.str()), file);
        if (!value) return tl::unexpected(value.error());
        recipe.env[std::string(var.str())] = *value;
      }
    }
  }
  if (recipe.command.empty())
    return fail(ErrorCategory::invalid_input, file + ": [recipe] needs command = [\"bash\", \"build.sh\"]");
  return {};
}

Result<Runner> load_runner(const toml::table& table, const std::string& file) {
  if (auto ok = check_keys(table, {"name", "labels", "os", "arch", "pythons", "toolkits", "gpus", "slots"},
                           "[[runner]]", file);
      !ok)
    return tl::unexpected(ok.error());
  Runner runner;
  for (const auto& [key, node] : table) {
    const std::string name(key.str());
    if (name == "name" || name == "os" || name == "arch") {
      auto value = string(node, "[[runner]] " + name, file);
      if (!value) return tl::unexpected(value.error());
      (name == "name" ? runner.name : name == "os" ? runner.os : runner.arch) = *value;
    } else if (name == "labels" || name == "pythons") {
      auto value = strings(node, "[[runner]] " + name, file);
      if (!value) return tl::unexpected(value.error());
      if (name == "labels")
        runner.labels = *value;
      else
        for (const auto& version : *value) runner.pythons.push_back({version, "python" + version});
    } else if (name == "gpus" || name == "slots") {
      auto value = integer(node, "[[runner]] " + name, file);
      if (!value) return tl::unexpected(value.error());
      (name == "gpus" ? runner.gpus : runner.slots) = static_cast<int>(*value);
    } else if (name == "toolkits") {
      const auto* kits = node.as_table();
      if (kits == nullptr)
        return fail(ErrorCategory::invalid_input,
                    where(node, file) + ": toolkits must be a table like { cuda = \"13.0\" }");
      for (const auto& [kind, value_node] : *kits) {
        auto value = string(value_node, "toolkits." + std::string(kind.str()), file);
        if (!value) return tl::unexpected(value.error());
        runner.toolkits.push_back({std::string(kind.str()), *value, {}});
      }
    }
  }
  if (runner.name.empty())
    return fail(ErrorCategory::invalid_input, where(table, file) + ": a [[runner]] needs a name");
  if (runner.labels.empty()) runner.labels = {runner.name};
  return runner;
}

}  // namespace

Result<BuildConfig> parse_build_config(std::string_view toml_text, const std::string& file) {
  auto parsed = platform::parse_toml(toml_text, file);
  if (!parsed) return tl::unexpected(parsed.error());
  const toml::table& root = *parsed;
  BuildConfig config;
  if (const auto* build = root.get("build")) {
    const auto* table = build->as_table();
    if (table == nullptr)
      return fail(ErrorCategory::invalid_input, where(*build, file) + ": [build] must be a table");
    if (auto ok = check_keys(*table, {"version", "state_dir"}, "[build]", file); !ok)
      return tl::unexpected(ok.error());
    if (const auto* node = table->get("version")) {
      auto value = string(*node, "[build] version", file);
      if (!value) return tl::unexpected(value.error());
      config.version = *value;
    }
    if (const auto* node = table->get("state_dir")) {
      auto value = string(*node, "[build] state_dir", file);
      if (!value) return tl::unexpected(value.error());
      config.state_dir = *value;
    }
  }
  const auto* recipe = root.get("recipe");
  if (recipe == nullptr || recipe->as_table() == nullptr)
    return fail(ErrorCategory::invalid_input,
                file +
                    ": no [recipe] table: say how a cell is built, e.g. [recipe] command = [\"bash\", "
                    "\"build.sh\"] (see docs/building.md)");
  if (auto ok = load_recipe(*recipe->as_table(), config.recipe, file); !ok) return tl::unexpected(ok.error());
  if (const auto* runners = root.get("runner")) {
    const auto* array = runners->as_array();
    if (array == nullptr)
      return fail(ErrorCategory::invalid_input, where(*runners, file) + ": use [[runner]] tables");
    for (const auto& item : *array) {
      const auto* table = item.as_table();
      if (table == nullptr)
        return fail(ErrorCategory::invalid_input, where(item, file) + ": use [[runner]] tables");
      auto runner = load_runner(*table, file);
      if (!runner) return tl::unexpected(runner.error());
      config.runners.push_back(std::move(*runner));
    }
  }
  return config;
}

Result<BuildConfig> load_build_config(const std::filesystem::path& path) {
  auto text = platform::read_file(path);
  if (!text) return tl::unexpected(text.error());
  auto config = parse_build_config(*text, path.string());
  if (!config) return config;
  config->config_dir = std::filesystem::absolute(path).parent_path();
  return config;
}

}  // namespace relforge::builders
