#include "cli/environment.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace relforge::cli {
namespace {

namespace fs = std::filesystem;

struct Harness {
  std::map<std::string, std::string> env;
  std::ostringstream out, err;
  std::istringstream in;
  Runtime runtime{out, err, in, [this](const std::string& name) -> std::optional<std::string> {
                    auto found = env.find(name);
                    if (found == env.end()) return std::nullopt;
                    return found->second;
                  }};
};

TEST(Environment, StatusLineOnlyOnAColourTerminal) {
  Harness h;
  EXPECT_TRUE(terminal_status_allowed(h.runtime, true));
  EXPECT_FALSE(terminal_status_allowed(h.runtime, false));
  h.env["NO_COLOR"] = "";  // the convention: set and not empty
  EXPECT_TRUE(terminal_status_allowed(h.runtime, true));
  h.env["NO_COLOR"] = "1";
  EXPECT_FALSE(terminal_status_allowed(h.runtime, true));
  h.env.erase("NO_COLOR");
  h.env["TERM"] = "dumb";
  EXPECT_FALSE(terminal_status_allowed(h.runtime, true));
  h.env["TERM"] = "xterm-256color";
  EXPECT_TRUE(terminal_status_allowed(h.runtime, true));
}

TEST(Environment, ConfigIsFlagThenVariableThenTheWalkUp) {
  const fs::path dir = fs::temp_directory_path() / ("relforge-env-test-" + std::to_string(::getpid()));
  fs::create_directories(dir / "a" / "b");
  std::ofstream(dir / "relforge.toml") << "";
  std::ofstream(dir / "other.toml") << "";
  Harness h;
  EXPECT_EQ(discover_config(h.runtime, dir / "a" / "b"), dir / "relforge.toml");
  EXPECT_EQ(*find_config(h.runtime, "", dir / "a"), dir / "relforge.toml");
  h.env["RELFORGE_CONFIG"] = (dir / "other.toml").string();
  EXPECT_EQ(*find_config(h.runtime, "", dir / "a"), dir / "other.toml");
  EXPECT_EQ(*find_config(h.runtime, (dir / "relforge.toml").string(), dir / "a"), dir / "relforge.toml");
  h.env["RELFORGE_CONFIG"] = (dir / "gone.toml").string();
  const auto missing = find_config(h.runtime, "", dir / "a");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().category(), ErrorCategory::not_found);
  EXPECT_NE(missing.error().message().find("RELFORGE_CONFIG"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace relforge::cli
