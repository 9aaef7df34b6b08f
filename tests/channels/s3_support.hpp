#pragma once
// A real S3 server for tests: s3rver (npm, in the source tree's node_modules) on a loopback port
// with one bucket, its objects readable on disk. A missing s3rver fails the test (`make deps`).
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/run.hpp"

namespace relforge::test {

// s3rver accepts exactly this key pair (its built-in account) and does not check V4 signatures.
inline constexpr const char* k_s3rver_key = "S3RVER";
inline constexpr const char* k_s3rver_secret = "S3RVER";

class S3rver {
public:
  S3rver(const std::filesystem::path& dir, const std::string& bucket)
      : m_data(dir / "s3rver"), m_bucket(bucket) {
    const auto script = source_path("node_modules/s3rver/bin/s3rver.js");
    if (!std::filesystem::exists(script)) {
      ADD_FAILURE() << script << " is missing: run 'make deps' (npm ci) in the source tree";
      return;
    }
    std::filesystem::create_directories(m_data);
    const auto log = dir / "s3rver.log";
    // s3rver encrypts its continuation tokens with DES, which Node 17+ only offers through
    // OpenSSL's legacy provider.
    const auto started =
        run_shell("node --openssl-legacy-provider " + shell_quote(script.string()) + " -d " +
                  shell_quote(m_data.string()) + " -a 127.0.0.1 -p 0 --silent --configure-bucket " +
                  shell_quote(bucket) + " >" + shell_quote(log.string()) + " 2>&1 & echo $!");
    m_pid = std::atoi(started.out.c_str());
    // Node takes a moment to start; its banner names the port it bound.
    for (int i = 0; i < 600 && m_port == 0; ++i) {
      const std::string text = slurp(log);
      const auto at = text.find("listening on 127.0.0.1:");
      if (at != std::string::npos) {
        m_port = std::atoi(text.c_str() + at + std::string_view("listening on 127.0.0.1:").size());
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    if (m_port == 0) ADD_FAILURE() << "s3rver did not start: " << slurp(log);
  }
  ~S3rver() {
    if (m_pid > 0) ::kill(m_pid, SIGTERM);
  }
  S3rver(const S3rver&) = delete;
  S3rver& operator=(const S3rver&) = delete;

  int port() const { return m_port; }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(m_port); }
  const std::string& bucket() const { return m_bucket; }
  // Where s3rver keeps an object's bytes on disk.
  std::filesystem::path object_file(const std::string& key) const {
    return m_data / m_bucket / (key + "._S3rver_object");
  }

private:
  std::filesystem::path m_data;
  std::string m_bucket;
  int m_pid = 0;
  int m_port = 0;
};

}  // namespace relforge::test
