#include "cli/environment.hpp"

#include <string_view>
#include <system_error>

namespace relforge::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view k_config_name = "relforge.toml";

// `ci workflow|plan --config` is a path the generated workflow uses inside the checkout (relative
// to the repository root, run from there), not a file found from here: discovery would turn it
// into this machine's absolute path.
bool config_is_written_not_read(const CLI::App& command) {
  return command.get_parent() != nullptr && command.get_parent()->get_name() == "ci" &&
         command.get_parent()->get_parent() != nullptr &&
         command.get_parent()->get_parent()->get_parent() == nullptr;
}

void apply_defaults(CLI::App& command, const Runtime& runtime, const std::optional<fs::path>& config,
                    const std::optional<std::string>& state_dir) {
  if (CLI::Option* option = command.get_option_no_throw("--config");
      option != nullptr && config && !config_is_written_not_read(command)) {
    // Only a relforge.toml default is replaced ("" means: the command finds its own, e.g. the
    // repository root of `release`); there the variable is the default, not the walk.
    const std::string shown = option->get_default_str();
    std::string current = option->capture_default_str()->get_default_str();  // the bound value
    option->default_str(shown);
    // A std::filesystem::path prints quoted.
    if (current.size() >= 2 && current.front() == '"' && current.back() == '"')
      current = current.substr(1, current.size() - 2);
    if (current == k_config_name || current == "./relforge.toml") {
      option->run_callback_for_default()->default_val(config->string());
    } else if (current.empty()) {
      if (auto env = runtime.getenv("RELFORGE_CONFIG"); env && !env->empty())
        option->run_callback_for_default()->default_val(*env);
    }
  }
  if (CLI::Option* option = command.get_option_no_throw("--state-dir");
      option != nullptr && state_dir && !config_is_written_not_read(command)) {
    option->run_callback_for_default()->default_val(*state_dir);
  }
  for (CLI::App* sub : command.get_subcommands([](const CLI::App*) { return true; }))
    apply_defaults(*sub, runtime, config, state_dir);
}

}  // namespace

std::optional<fs::path> discover_config(const Runtime& runtime, const fs::path& start) {
  if (auto env = runtime.getenv("RELFORGE_CONFIG"); env && !env->empty()) return fs::path(*env);
  std::error_code error;
  fs::path dir = fs::absolute(start, error);
  if (error) return std::nullopt;
  for (; !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_regular_file(dir / k_config_name, error)) return dir / k_config_name;
    if (dir == dir.parent_path()) break;
  }
  return std::nullopt;
}

Result<fs::path> find_config(const Runtime& runtime, const std::string& explicit_path,
                             const fs::path& start) {
  std::error_code error;
  if (!explicit_path.empty()) {
    if (!fs::is_regular_file(explicit_path, error))
      return fail(ErrorCategory::not_found, explicit_path + ": no such config file");
    return fs::path(explicit_path);
  }
  if (auto found = discover_config(runtime, start)) {
    if (!fs::is_regular_file(*found, error))
      return fail(ErrorCategory::not_found,
                  found->string() + ": no such config file (named by $RELFORGE_CONFIG)");
    return *found;
  }
  return fail(ErrorCategory::not_found,
              "no relforge.toml in " + start.string() + " or any folder above it (or set $RELFORGE_CONFIG)");
}

void apply_environment_defaults(CLI::App& app, const Runtime& runtime) {
  std::error_code error;
  const fs::path here = fs::current_path(error);
  const auto config = error ? std::nullopt : discover_config(runtime, here);
  std::optional<std::string> state_dir = runtime.getenv("RELFORGE_STATE_DIR");
  if (state_dir && state_dir->empty()) state_dir.reset();
  apply_defaults(app, runtime, config, state_dir);
}

bool terminal_status_allowed(const Runtime& runtime, bool stderr_is_terminal) {
  if (!stderr_is_terminal) return false;
  if (auto no_color = runtime.getenv("NO_COLOR"); no_color && !no_color->empty()) return false;
  if (runtime.getenv("TERM").value_or("") == "dumb") return false;
  return true;
}

}  // namespace relforge::cli
