#pragma once
// A new folder only this user can enter (mkdtemp: a name nobody could guess or plant beforehand,
// mode 0700) for downloads and scratch work; removed with everything in it when the object goes.
#include <filesystem>
#include <string_view>

#include "core/error.hpp"

namespace relforge::platform {

class PrivateDir {
public:
  // A new folder "<prefix>XXXXXX" in `parent` (empty: $TMPDIR, else /tmp); `purpose` ("for the
  // download of X") goes into the io error that names the parent when it cannot be made.
  static Result<PrivateDir> create(std::string_view prefix, std::string_view purpose,
                                   const std::filesystem::path& parent = {});
  PrivateDir(PrivateDir&& other) noexcept;
  PrivateDir& operator=(PrivateDir&& other) noexcept;
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  ~PrivateDir();

  const std::filesystem::path& path() const { return m_path; }
  // Leaves the folder and its contents in place (evidence a report points to).
  void keep() { m_keep = true; }

private:
  explicit PrivateDir(std::filesystem::path path) : m_path(std::move(path)) {}
  void remove();
  std::filesystem::path m_path;
  bool m_keep = false;
};

}  // namespace relforge::platform
