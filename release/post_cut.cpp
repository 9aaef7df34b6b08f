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

}  // namespace

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
  spec.environment = hook.environment;
  // git must not find a repository above the scratch directory and act on it.
  spec.environment["GIT_CEILING_DIRECTORIES"] = scratch->path().string();
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
