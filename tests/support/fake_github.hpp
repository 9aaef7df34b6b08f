#pragma once
// The loopback fake of GitHub's REST API (tests/e2e/fake_github.py), started for one test and
// stopped with it; every request it answered is read back from its log, one JSON object a line.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/run.hpp"

namespace relforge::test {

class FakeGitHub {
public:
  // `dir` holds its log and port file; `flags` are fake_github.py's options, shell-quoted.
  FakeGitHub(const std::filesystem::path& dir, const std::string& flags) : m_log(dir / "github.log") {
    const auto port_file = dir / "github.port";
    const RunResult started =
        run_shell("/usr/bin/python3 " + shell_quote(source_path("tests/e2e/fake_github.py").string()) + " " +
                  shell_quote(m_log.string()) + " " + flags + " >" + shell_quote(port_file.string()) +
                  " 2>&1 & echo $!");
    m_pid = std::stoi(started.out);
    for (int i = 0; i < 100 && m_port.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      const std::string text = slurp(port_file);
      if (text.rfind("port ", 0) == 0 && text.back() == '\n') m_port = text.substr(5, text.size() - 6);
    }
    EXPECT_FALSE(m_port.empty()) << "the fake GitHub did not start: " << slurp(port_file);
  }
  FakeGitHub(const FakeGitHub&) = delete;
  FakeGitHub& operator=(const FakeGitHub&) = delete;
  ~FakeGitHub() { run_shell("kill " + std::to_string(m_pid) + " 2>/dev/null"); }

  std::string url() const { return "http://127.0.0.1:" + m_port; }
  std::vector<nlohmann::json> requests() const {
    std::vector<nlohmann::json> out;
    std::istringstream lines(slurp(m_log));
    for (std::string line; std::getline(lines, line);) out.push_back(nlohmann::json::parse(line));
    return out;
  }

private:
  std::filesystem::path m_log;
  int m_pid = 0;
  std::string m_port;
};

}  // namespace relforge::test
