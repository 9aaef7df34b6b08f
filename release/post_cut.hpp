#pragma once
// `[release] post_cut`: a command run in a scratch checkout of the release-only commit (after the
// replacements); what it changes in tracked files joins that same commit (docs/release.md).
#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "release/git.hpp"

namespace relforge::release {

struct PostCutHook {
  std::vector<std::string> argv;                   // empty: no hook
  std::map<std::string, std::string> environment;  // added to the inherited environment
  std::chrono::milliseconds timeout = std::chrono::minutes(10);
};

// The environment the hook runs with: `inherited` without the variables that point git at a
// repository or its config (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_CONFIG*, ...), plus
// `added`, plus GIT_CEILING_DIRECTORIES=`ceiling`; so git in the hook finds no repository at all.
std::map<std::string, std::string> hook_environment(const std::map<std::string, std::string>& inherited,
                                                    const std::map<std::string, std::string>& added,
                                                    const std::string& ceiling);

// The last `count` lines of `text` (a trailing newline does not count as an empty line).
std::string last_lines(std::string_view text, std::size_t count);

// Exports `commit`'s tracked files to a temporary directory, runs the hook there and returns the
// tracked files it changed (path → new content). A non-zero exit, a signal, a timeout, or a
// deleted tracked file is an error quoting the output's last lines; the directory is always removed.
Result<std::map<std::string, std::string>> run_post_cut(const Repository& repo, const std::string& commit,
                                                        const PostCutHook& hook);

}  // namespace relforge::release
