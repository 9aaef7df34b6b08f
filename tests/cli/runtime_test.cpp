#include "cli/runtime.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"

namespace relforge::cli {
namespace {

struct RuntimeHarness {
  std::ostringstream out;
  std::ostringstream err;
  std::istringstream in;
  Runtime runtime{out, err, in, [](const std::string&) { return std::optional<std::string>(); }};
};

TEST(ExitCodes, EachCategoryHasItsDocumentedCode) {
  EXPECT_EQ(exit_code_for(ErrorCategory::invalid_input), 2);
  EXPECT_EQ(exit_code_for(ErrorCategory::nothing_selected), 3);
  EXPECT_EQ(exit_code_for(ErrorCategory::not_found), 4);
  EXPECT_EQ(exit_code_for(ErrorCategory::conflict), 5);
  EXPECT_EQ(exit_code_for(ErrorCategory::io), 6);
  EXPECT_EQ(exit_code_for(ErrorCategory::network), 7);
  EXPECT_EQ(exit_code_for(ErrorCategory::auth), 8);
  EXPECT_EQ(exit_code_for(ErrorCategory::integrity), 9);
  EXPECT_EQ(exit_code_for(ErrorCategory::internal), 70);
}

TEST(Runtime, TextErrorGoesToStderrWithContext) {
  RuntimeHarness h;
  Error error(ErrorCategory::not_found, "no such file");
  error.with_context("loading relforge.toml");
  report_error(h.runtime, error);
  EXPECT_EQ(h.out.str(), "");
  EXPECT_EQ(h.err.str(), "relforge: error: loading relforge.toml: no such file\n");
  EXPECT_EQ(h.runtime.exit_code, 4);
}

TEST(Runtime, JsonErrorIsOneObjectOnStderr) {
  RuntimeHarness h;
  h.runtime.json = true;
  report_error(h.runtime, Error(ErrorCategory::integrity, "digest mismatch"));
  EXPECT_EQ(h.out.str(), "");
  const auto body = nlohmann::json::parse(h.err.str());
  EXPECT_EQ(body["error"]["category"], "integrity");
  EXPECT_EQ(body["error"]["message"], "digest mismatch");
  EXPECT_EQ(body["error"]["exit_code"], 9);
}

TEST(RunCli, UnknownCommandIsAUsageError) {
  RuntimeHarness h;
  const char* argv[] = {"relforge", "frobnicate"};
  EXPECT_EQ(run_cli(2, argv, h.runtime), k_exit_usage);
  EXPECT_NE(h.err.str().find("frobnicate"), std::string::npos);
}

TEST(RunCli, HelpListsEveryGroupAndExitsZero) {
  RuntimeHarness h;
  const char* argv[] = {"relforge", "--help"};
  EXPECT_EQ(run_cli(2, argv, h.runtime), 0);
  for (const char* group : {"matrix", "version", "wheel"}) {
    EXPECT_NE(h.out.str().find(group), std::string::npos) << group;
  }
}

}  // namespace
}  // namespace relforge::cli
