#pragma once
// Helpers the end-to-end tests share: a throwaway folder, checked text edits, fake commit ids and
// the JSON a successful `--json` command prints.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/run.hpp"

namespace relforge::test {

// A fresh folder under the temp directory, removed with everything in it when this goes.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("relforge-e2e-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// Sets an environment variable for one scope and puts the old value (or its absence) back.
class ScopedEnv {
public:
  ScopedEnv(std::string name, const std::string& value) : m_name(std::move(name)) {
    if (const char* old = std::getenv(m_name.c_str())) m_old = old;
    ::setenv(m_name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (m_old)
      ::setenv(m_name.c_str(), m_old->c_str(), 1);
    else
      ::unsetenv(m_name.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  std::string m_name;
  std::optional<std::string> m_old;
};

// `text` with the first `from` replaced by `to`; a missing `from` fails the test.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// A 40-hex-digit commit id that reads as its number: aaaa...a42.
inline std::string sha_of(int n) {
  const std::string digits = std::to_string(n);
  return std::string(40 - digits.size(), 'a') + digits;
}

// The JSON on stdout of a command expected to exit with `exit_code` and print nothing on stderr.
inline nlohmann::json parse_json(const RunResult& result, int exit_code = 0) {
  EXPECT_EQ(result.exit_code, exit_code) << result.err;
  EXPECT_EQ(result.err, "");
  return nlohmann::json::parse(result.out, nullptr, false);
}

}  // namespace relforge::test
