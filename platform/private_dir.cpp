#include "platform/private_dir.hpp"

#include <cerrno>
#include <cstdlib>  // mkdtemp (POSIX)
#include <cstring>
#include <string>
#include <system_error>
#include <utility>

namespace relforge::platform {

namespace fs = std::filesystem;

Result<PrivateDir> PrivateDir::create(std::string_view prefix, std::string_view purpose,
                                      const fs::path& parent) {
  fs::path folder = parent;
  if (folder.empty()) {
    std::error_code error;
    folder = fs::temp_directory_path(error);
    if (error)
      return fail(ErrorCategory::io, "no temporary folder " + std::string(purpose) + " (" + error.message() +
                                         "): set TMPDIR to a folder that exists");
  }
  std::string pattern = (folder / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return fail(ErrorCategory::io, "cannot create a private folder " + std::string(purpose) + " in " +
                                       folder.string() + ": " + std::strerror(errno) +
                                       " (does it exist, and is it writable?)");
  }
  return PrivateDir(fs::path(std::move(pattern)));
}

PrivateDir::PrivateDir(PrivateDir&& other) noexcept
    : m_path(std::exchange(other.m_path, {})), m_keep(other.m_keep) {}

PrivateDir& PrivateDir::operator=(PrivateDir&& other) noexcept {
  if (this != &other) {
    remove();
    m_path = std::exchange(other.m_path, {});
    m_keep = other.m_keep;
  }
  return *this;
}

PrivateDir::~PrivateDir() {
  remove();
}

void PrivateDir::remove() {
  if (m_path.empty() || m_keep) return;
  std::error_code ignored;
  fs::remove_all(m_path, ignored);
}

}  // namespace relforge::platform
