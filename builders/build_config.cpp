#include "builders/build_config.hpp"

#include <toml++/toml.h>

#include <cstdint>
#include <utility>

#include "packaging/version.hpp"
#include "platform/fs.hpp"
#include "platform/toml.hpp"
#include "platform/toml_reader.hpp"

namespace relforge::builders {
namespace {

using platform::TomlReader;

// Ranges keep a typo (timeout = 0, slots = -1, a signal number as an exit code) from a silent
// misbehaviour later in the build.
constexpr std::int64_t k_max_timeout = 7 * 24 * 3600;
constexpr std::int64_t k_max_retries = 20;
constexpr std::int64_t k_max_count = 4096;

Result<std::vector<std::string>> string_list(const TomlReader& reader, const toml::node& node,
                                             const std::string& what) {
  const auto* array = node.as_array();
  if (array == nullptr) {
    return reader.fail(TomlReader::location(node),
                       what + " must be an array of strings, not " + TomlReader::type_name(node));
  }
  std::vector<std::string> out;
  for (const auto& item : *array) {
    auto value = reader.string(item, what + " (each element)");
    if (!value) return tl::unexpected(value.error());
    out.push_back(std::move(*value));
  }
  return out;
}

// A table of string values ([recipe.env], toolkits), in file order.
Result<std::vector<std::pair<std::string, std::string>>> string_table(const TomlReader& reader,
                                                                      const toml::node& node,
                                                                      const std::string& what) {
  auto table = reader.table(node, what);
  if (!table) return tl::unexpected(table.error());
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value_node] : TomlReader::ordered(**table)) {
    auto value = reader.string(*value_node, what + " " + std::string(key->str()));
    if (!value) return tl::unexpected(value.error());
    out.emplace_back(std::string(key->str()), std::move(*value));
  }
  return out;
}

Status load_recipe(const TomlReader& reader, const toml::table& table, Recipe& recipe) {
  if (auto ok = reader.check_keys(
          table, {"command", "env", "timeout", "retries", "retryable_exit_codes", "smoke"}, "[recipe]");
      !ok)
    return ok;
  for (const auto& [key, node_ptr] : TomlReader::ordered(table)) {
    const toml::node& node = *node_ptr;
    const std::string name(key->str());
    if (name == "command") {
      auto value = string_list(reader, node, "[recipe] command");
      if (!value) return tl::unexpected(value.error());
      if (value->empty()) return reader.fail(TomlReader::location(node), "[recipe] command is empty");
      recipe.command = *value;
    } else if (name == "smoke") {
      auto value = string_list(reader, node, "[recipe] smoke");
      if (!value) return tl::unexpected(value.error());
      recipe.smoke = *value;
    } else if (name == "timeout") {
      auto value = reader.integer(node, "[recipe] timeout (seconds)", 1, k_max_timeout);
      if (!value) return tl::unexpected(value.error());
      recipe.timeout = std::chrono::seconds(*value);
    } else if (name == "retries") {
      auto value = reader.integer(node, "[recipe] retries", 0, k_max_retries);
      if (!value) return tl::unexpected(value.error());
      recipe.retries = static_cast<int>(*value);
    } else if (name == "retryable_exit_codes") {
      const auto* array = node.as_array();
      if (array == nullptr) {
        return reader.fail(
            TomlReader::location(node),
            "[recipe] retryable_exit_codes must be an array of integers, not " + TomlReader::type_name(node));
      }
      for (const auto& item : *array) {
        auto value = reader.integer(item, "[recipe] retryable_exit_codes (each element)", 1, 255);
        if (!value) return tl::unexpected(value.error());
        recipe.retryable_exit_codes.push_back(static_cast<int>(*value));
      }
    } else if (name == "env") {
      auto env = string_table(reader, node, "[recipe.env]");
      if (!env) return tl::unexpected(env.error());
      for (auto& [var, value] : *env) recipe.env[var] = std::move(value);
    }
  }
  if (recipe.command.empty()) {
    return reader.fail(TomlReader::location(table), "[recipe] needs command = [\"bash\", \"build.sh\"]");
  }
  return {};
}

Result<Runner> load_runner(const TomlReader& reader, const toml::table& table) {
  if (auto ok = reader.check_keys(
          table, {"name", "labels", "os", "arch", "pythons", "toolkits", "gpus", "slots"}, "[[runner]]");
      !ok)
    return tl::unexpected(ok.error());
  Runner runner;
  for (const auto& [key, node_ptr] : TomlReader::ordered(table)) {
    const toml::node& node = *node_ptr;
    const std::string name(key->str());
    if (name == "name" || name == "os" || name == "arch") {
      auto value = reader.string(node, "[[runner]] " + name);
      if (!value) return tl::unexpected(value.error());
      (name == "name" ? runner.name : name == "os" ? runner.os : runner.arch) = *value;
    } else if (name == "labels" || name == "pythons") {
      auto value = string_list(reader, node, "[[runner]] " + name);
      if (!value) return tl::unexpected(value.error());
      if (name == "labels")
        runner.labels = *value;
      else
        for (const auto& version : *value) runner.pythons.push_back({version, "python" + version});
    } else if (name == "gpus" || name == "slots") {
      auto value = reader.integer(node, "[[runner]] " + name, name == "slots" ? 1 : 0, k_max_count);
      if (!value) return tl::unexpected(value.error());
      (name == "gpus" ? runner.gpus : runner.slots) = static_cast<int>(*value);
    } else if (name == "toolkits") {
      auto kits = string_table(reader, node, "[[runner]] toolkits (a table like { cuda = \"13.0\" })");
      if (!kits) return tl::unexpected(kits.error());
      for (auto& [kind, version] : *kits) runner.toolkits.push_back({kind, std::move(version), {}});
    }
  }
  if (runner.name.empty()) return reader.fail(TomlReader::location(table), "a [[runner]] needs a name");
  if (runner.labels.empty()) runner.labels = {runner.name};
  return runner;
}

Status load_container(const TomlReader& reader, const toml::table& table, ContainerConfig& container) {
  if (const auto* node = table.get("container")) {
    auto value = reader.string(*node, "[build] container");
    if (!value) return tl::unexpected(value.error());
    if (*value == "docker")
      container.runtime = ContainerRuntime::docker;
    else if (*value == "podman")
      container.runtime = ContainerRuntime::podman;
    else if (*value == "none")
      container.runtime = ContainerRuntime::none;
    else
      return reader.fail(TomlReader::location(*node), "[build] container = \"" + *value +
                                                          "\" is not a container runtime: use \"docker\", "
                                                          "\"podman\" or \"none\" (build on the host)");
  }
  for (const auto& [key, target] :
       {std::pair<const char*, std::string*>{"image_field", &container.image_field},
        {"container_python", &container.python}}) {
    if (const auto* node = table.get(key)) {
      auto value = reader.string(*node, std::string("[build] ") + key);
      if (!value) return tl::unexpected(value.error());
      if (value->empty())
        return reader.fail(TomlReader::location(*node), std::string("[build] ") + key + " is empty");
      *target = *value;
    }
  }
  return {};
}

Status load_ci(const TomlReader& reader, const toml::table& table, CiConfig& ci) {
  if (auto ok =
          reader.check_keys(table,
                            {"owner", "relforge_version", "relforge_index", "labels", "host_runner_prefixes",
                             "store", "secrets", "signing_key_secret", "public_key", "python"},
                            "[ci]");
      !ok)
    return ok;
  for (const auto& [key, node_ptr] : TomlReader::ordered(table)) {
    const toml::node& node = *node_ptr;
    const std::string name(key->str());
    const std::string what = "[ci] " + name;
    if (name == "labels" || name == "host_runner_prefixes" || name == "secrets") {
      auto value = string_list(reader, node, what);
      if (!value) return tl::unexpected(value.error());
      (name == "labels" ? ci.labels : name == "secrets" ? ci.secrets : ci.host_runner_prefixes) = *value;
      for (const auto& item : *value)
        if (item.empty()) return reader.fail(TomlReader::location(node), what + " has an empty element");
      if (name == "secrets")
        for (const auto& secret : *value)
          if (secret.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
                  std::string::npos ||
              (secret[0] >= '0' && secret[0] <= '9'))
            return reader.fail(TomlReader::location(node),
                               what + ": '" + secret + "' is not a secret name (letters, digits, _)");
      continue;
    }
    auto value = reader.string(node, what);
    if (!value) return tl::unexpected(value.error());
    // It becomes `pip install relforge==VERSION` in every job: refused here, not when the jobs run.
    if (name == "relforge_version") {
      if (auto version = packaging::parse_version(*value); !version)
        return reader.fail(TomlReader::location(node),
                           what + ": " + version.error().message() + " (the jobs install relforge==VERSION)");
    }
    std::string* target = name == "owner"                ? &ci.owner
                          : name == "relforge_version"   ? &ci.relforge_version
                          : name == "relforge_index"     ? &ci.relforge_index
                          : name == "store"              ? &ci.store
                          : name == "signing_key_secret" ? &ci.signing_key_secret
                          : name == "public_key"         ? &ci.public_key
                                                         : &ci.python;
    *target = *value;
  }
  if (!ci.relforge_version.empty() && ci.relforge_index.empty())
    return reader.fail(TomlReader::location(table),
                       "[ci] relforge_version needs relforge_index: the index URL the jobs install it from");
  return {};
}

}  // namespace

Result<BuildConfig> parse_build_config(std::string_view toml_text, const std::string& file,
                                       RecipeRequired required) {
  auto parsed = platform::parse_toml(toml_text, file);
  if (!parsed) return tl::unexpected(parsed.error());
  const toml::table& root = *parsed;
  const TomlReader reader(file);
  BuildConfig config;
  if (const auto* build = root.get("build")) {
    auto table = reader.table(*build, "[build]");
    if (!table) return tl::unexpected(table.error());
    if (auto ok = reader.check_keys(
            **table, {"version", "state_dir", "container", "image_field", "container_python"}, "[build]");
        !ok)
      return tl::unexpected(ok.error());
    if (auto ok = load_container(reader, **table, config.container); !ok) return tl::unexpected(ok.error());
    if (const auto* node = (*table)->get("version")) {
      auto value = reader.string(*node, "[build] version");
      if (!value) return tl::unexpected(value.error());
      config.version = *value;
    }
    if (const auto* node = (*table)->get("state_dir")) {
      auto value = reader.string(*node, "[build] state_dir");
      if (!value) return tl::unexpected(value.error());
      config.state_dir = *value;
    }
  }
  const auto* recipe = root.get("recipe");
  if (recipe == nullptr && required == RecipeRequired::yes) {
    return reader.fail({},
                       "no [recipe] table: say how a cell is built, e.g. [recipe] command = [\"bash\", "
                       "\"build.sh\"] (see docs/building.md)");
  }
  if (recipe != nullptr) {
    auto recipe_table = reader.table(*recipe, "[recipe]");
    if (!recipe_table) return tl::unexpected(recipe_table.error());
    if (auto ok = load_recipe(reader, **recipe_table, config.recipe); !ok) return tl::unexpected(ok.error());
  }
  if (const auto* ci = root.get("ci")) {
    auto table = reader.table(*ci, "[ci]");
    if (!table) return tl::unexpected(table.error());
    if (auto ok = load_ci(reader, **table, config.ci); !ok) return tl::unexpected(ok.error());
  }
  if (const auto* runners = root.get("runner")) {
    auto tables = reader.tables(*runners, "runner");
    if (!tables) return tl::unexpected(tables.error());
    for (const auto* table : *tables) {
      auto runner = load_runner(reader, *table);
      if (!runner) return tl::unexpected(runner.error());
      config.runners.push_back(std::move(*runner));
    }
  }
  return config;
}

Result<BuildConfig> load_build_config(const std::filesystem::path& path, RecipeRequired recipe) {
  auto text = platform::read_file(path);
  if (!text) return tl::unexpected(text.error());
  auto config = parse_build_config(*text, path.string(), recipe);
  if (!config) return config;
  config->config_dir = std::filesystem::absolute(path).parent_path();
  return config;
}

}  // namespace relforge::builders
