#include "cli/build_setup.hpp"

#include <gtest/gtest.h>

#include <map>

namespace relforge::cli {
namespace {

TEST(VenvCache, RelforgeCacheDirThenXdgCacheHomeThenHomeAndOnlyAbsolutePaths) {
  std::map<std::string, std::string> env;
  const auto getenv = [&env](const std::string& name) -> std::optional<std::string> {
    const auto found = env.find(name);
    if (found == env.end()) return std::nullopt;
    return found->second;
  };
  EXPECT_EQ(venv_cache(getenv), std::filesystem::path());  // none set: the build uses <state>/venvs
  env["HOME"] = "/home/rm";
  EXPECT_EQ(venv_cache(getenv), "/home/rm/.cache/relforge/venvs");
  env["XDG_CACHE_HOME"] = "relative/cache";  // the XDG spec: a relative value is ignored
  EXPECT_EQ(venv_cache(getenv), "/home/rm/.cache/relforge/venvs");
  env["XDG_CACHE_HOME"] = "/var/cache/rm";
  EXPECT_EQ(venv_cache(getenv), "/var/cache/rm/relforge/venvs");
  env["RELFORGE_CACHE_DIR"] = "";
  EXPECT_EQ(venv_cache(getenv), "/var/cache/rm/relforge/venvs");
  env["RELFORGE_CACHE_DIR"] = "/ci/cache";
  EXPECT_EQ(venv_cache(getenv), "/ci/cache/venvs");
}

}  // namespace
}  // namespace relforge::cli
