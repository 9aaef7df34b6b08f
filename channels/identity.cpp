#include "channels/identity.hpp"

#include <algorithm>

#include "core/text.hpp"
#include "packaging/wheel_name.hpp"

namespace relforge::channels {

std::string FileIdentity::key() const {
  // '|' and ',' appear in no project name, version, build tag or wheel tag.
  return project + "|" + version_key + "|" + build + "|" + core::join(tags, ",");
}

std::string FileIdentity::describe() const {
  return project + " " + version + (build.empty() ? "" : " build " + build) + " " + core::join(tags, ".");
}

std::string version_key(packaging::Version version) {
  // packaging.utils.canonicalize_version: PEP 440 compares releases as if padded with zeros.
  while (version.release.size() > 1 && version.release.back() == 0) version.release.pop_back();
  return version.to_string();
}

Result<FileIdentity> identity_of(const std::string& filename) {
  auto name = packaging::parse_wheel_filename(filename);
  if (!name) return tl::unexpected(name.error());
  FileIdentity identity;
  identity.project = name->normalized_name();
  identity.version = name->version.to_string();
  identity.version_key = version_key(name->version);
  if (name->build) identity.build = name->build->to_string();
  for (const auto& tag : name->tags()) identity.tags.push_back(tag.to_string());
  std::sort(identity.tags.begin(), identity.tags.end());
  identity.tags.erase(std::unique(identity.tags.begin(), identity.tags.end()), identity.tags.end());
  return identity;
}

Result<std::string> canonical_filename(const std::string& filename) {
  auto name = packaging::parse_wheel_filename(filename);
  if (!name) return tl::unexpected(name.error());
  return packaging::format_wheel_filename(*name);
}

}  // namespace relforge::channels
