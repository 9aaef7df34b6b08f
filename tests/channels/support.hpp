#pragma once
// Test wheels (written by tests/fixtures/channels/make_wheel.py) and temp directories.
#include <filesystem>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/run.hpp"

namespace relforge::test {

class ChannelTempDir {
public:
  ChannelTempDir() {
    std::random_device random;
    m_path = std::filesystem::temp_directory_path() / ("relforge-channels-" + std::to_string(random()));
    std::filesystem::create_directories(m_path);
  }
  ~ChannelTempDir() { std::filesystem::remove_all(m_path); }
  ChannelTempDir(const ChannelTempDir&) = delete;
  ChannelTempDir& operator=(const ChannelTempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
};

// Writes NAME-VERSION-py3-none-any.whl into `dir`; `extra` are more make_wheel.py arguments.
inline std::filesystem::path make_wheel(const std::filesystem::path& dir, const std::string& name,
                                        const std::string& version, const std::string& extra = "") {
  const auto result = run_shell(
      "/usr/bin/python3 " + shell_quote(source_path("tests/fixtures/channels/make_wheel.py").string()) + " " +
      shell_quote(dir.string()) + " " + shell_quote(name) + " " + shell_quote(version) + " " + extra);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::string path = result.out;
  while (!path.empty() && path.back() == '\n') path.pop_back();
  return path;
}

}  // namespace relforge::test
