#include "release/post_cut.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <system_error>

#include "core/text.hpp"
#include "platform/private_dir.hpp"
#include "platform/process.hpp"

extern char** environ;

namespace relforge::release {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> slurp(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(path, ec))) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// git's own list of what it clears before entering another repository (local_repo_env), the
// config variables it reads from the environment, and what else locates a repository: any of
// them inherited (git exports GIT_DIR to hooks and `rebase -x`) would send the hook's git to
// the real repository while the cut is still only a plan.
bool locates_a_repository(std::string_view name) {
  static constexpr std::string_view k_names[] = {"GIT_DIR",
                                                 "GIT_WORK_TREE",
                                                 "GIT_IMPLICIT_WORK_TREE",
                                                 "GIT_INDEX_FILE",
                                                 "GIT_OBJECT_DIRECTORY",
                                                 "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                                                 "GIT_COMMON_DIR",
                                                 "GIT_NAMESPACE",
                                                 "GIT_PREFIX",
                                                 "GIT_GRAFT_FILE",
                                                 "GIT_SHALLOW_FILE",
                                                 "GIT_REPLACE_REF_BASE",
                                                 "GIT_NO_REPLACE_OBJECTS",
                                                 "GIT_QUARANTINE_PATH",
                                                 "GIT_CEILING_DIRECTORIES",
                                                 "GIT_DISCOVERY_ACROSS_FILESYSTEM",
                                                 "GIT_INTERNAL_SUPER_PREFIX"};
  if (name.starts_with("GIT_CONFIG")) return true;  // GIT_CONFIG, _PARAMETERS, _COUNT, _KEY_n, _GLOBAL...
  for (const auto known : k_names) {
    if (name == known) return true;
  }
  return false;
}

std::map<std::string, std::string> current_environment() {
  std::map<std::string, std::string> out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto eq = text.find('=');
    if (eq != std::string_view::npos) out.emplace(text.substr(0, eq), text.substr(eq + 1));
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> hook_environment(const std::map<std::string, std::string>& inherited,
                                                    const std::map<std::string, std::string>& added,
                                                    const std::string& ceiling) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : inherited) {
    if (!locates_a_repository(name)) out.emplace(name, value);
  }
  for (const auto& [name, value] : added) out[name] = value;
  out["GIT_CEILING_DIRECTORIES"] = ceiling;
  return out;
}

std::string last_lines(std::string_view text, std::size_t count) {
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  std::size_t start = text.size();
  for (std::size_t seen = 0; start > 0; --start) {
    if (text[start - 1] == '\n' && ++seen == count) break;
  }
  return std::string(text.substr(start));
}

Result<std::map<std::string, std::string>> run_post_cut(const Repository& repo, const std::string& commit,
                                                        const PostCutHook& hook) {
  auto scratch = platform::PrivateDir::create("relforge-post-cut-", "for the post_cut hook");
  if (!scratch) return tl::unexpected(scratch.error());
  const fs::path tree = scratch->path() / "checkout";
  std::error_code ec;
  fs::create_directory(tree, ec);
  if (ec) return fail(ErrorCategory::io, "creating " + tree.string() + ": " + ec.message());
  auto paths = repo.export_files(commit, tree);
  if (!paths) return tl::unexpected(paths.error());

  const std::string shown = core::join(hook.argv, " ");
  platform::ProcessSpec spec;
  spec.argv = hook.argv;
  spec.working_dir = tree;
  // git must not find a repository above the scratch directory, nor be pointed at one, and act on it.
  spec.environment = hook_environment(current_environment(), hook.environment, scratch->path().string());
  spec.environment_mode = platform::EnvironmentMode::clean;
  spec.output_file = scratch->path() / "output.log";
  spec.timeout = hook.timeout;
  auto ran = platform::run_process(spec);
  if (!ran) {
    return fail(ErrorCategory::io, "post_cut hook '" + shown + "' could not start: " + ran.error().message() +
                                       "; fix [release] post_cut in relforge.toml (nothing was cut)");
  }
  if (ran->exit_code != 0 || ran->timed_out || ran->signal != 0) {
    const std::string how = ran->timed_out     ? "timed out"
                            : ran->signal != 0 ? "was killed by signal " + std::to_string(ran->signal)
                                               : "exited with " + std::to_string(ran->exit_code);
    const std::string tail = last_lines(slurp(*spec.output_file).value_or(""), 20);
    return fail(ErrorCategory::io, "post_cut hook '" + shown + "' " + how +
                                       "; nothing was cut. Its last output lines:\n" +
                                       (tail.empty() ? "(no output)" : tail));
  }
  std::map<std::string, std::string> changed;
  for (const auto& path : *paths) {
    auto now = slurp(tree / path);
    if (!now) {
      return fail(ErrorCategory::invalid_input,
                  "post_cut hook '" + shown + "' deleted or replaced the tracked file '" + path +
                      "'; a release-only commit may change files, not remove them (nothing was cut)");
    }
    auto before = repo.read_file(commit, path);
    if (!before) return tl::unexpected(before.error());
    if (*before != *now) changed.emplace(path, std::move(*now));
  }
  return changed;
}

}  // namespace relforge::release
