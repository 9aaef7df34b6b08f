#pragma once
// Temp directories for the signing tests.
#include <filesystem>
#include <random>
#include <string>

namespace relforge::test {

class TempDir {
public:
  TempDir() {
    std::random_device random;
    m_path = std::filesystem::temp_directory_path() / ("relforge-signing-" + std::to_string(random()));
    std::filesystem::create_directories(m_path);
  }
  ~TempDir() { std::filesystem::remove_all(m_path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
};

}  // namespace relforge::test
