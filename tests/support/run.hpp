#pragma once
// Test helper: runs a shell command line (the real relforge binary, python3, pip, ...) and
// captures stdout, stderr and the exit code separately.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/paths.hpp"

namespace relforge::test {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Single-quotes `text` for /bin/sh.
inline std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

// Runs `command` under /bin/sh with `input` on stdin.
inline RunResult run_shell(const std::string& command, const std::string& input = "") {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("relforge-run-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  std::filesystem::create_directories(dir);
  const auto in_path = dir / "in", out_path = dir / "out", err_path = dir / "err";
  std::ofstream(in_path, std::ios::binary) << input;
  const std::string line = "( " + command + " ) <" + shell_quote(in_path) + " >" + shell_quote(out_path) +
                           " 2>" + shell_quote(err_path);
  const int status = std::system(line.c_str());
  RunResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = slurp(out_path);
  result.err = slurp(err_path);
  std::filesystem::remove_all(dir);
  return result;
}

// Runs the relforge binary under test with `args` (already shell-quoted as needed).
inline RunResult relforge(const std::string& args, const std::string& input = "") {
  return run_shell(shell_quote(relforge::test::relforge_binary()) + " " + args, input);
}

inline std::filesystem::path source_path(const std::string& relative) {
  return std::filesystem::path(relforge::test::source_dir()) / relative;
}

}  // namespace relforge::test
