#include "channels/store.hpp"

#include <algorithm>
#include <functional>
#include <system_error>

#include "packaging/version.hpp"
#include "platform/fs.hpp"

namespace relforge::channels {
namespace fs = std::filesystem;

std::string_view channel_name(Channel channel) {
  switch (channel) {
    case Channel::stable:
      return "stable";
    case Channel::test:
      return "test";
    case Channel::nightly:
      return "nightly";
  }
  return "stable";
}

Result<Channel> parse_channel(std::string_view name) {
  if (name == "stable") return Channel::stable;
  if (name == "test") return Channel::test;
  if (name == "nightly") return Channel::nightly;
  return fail(ErrorCategory::invalid_input,
              "unknown channel '" + std::string(name) + "' (channels: stable, test, nightly)");
}

bool channel_requires_signatures(Channel channel) {
  return channel != Channel::nightly;
}

fs::path channel_dir(const fs::path& root, Channel channel) {
  if (channel == Channel::stable) return root / "whl";
  return root / "whl" / std::string(channel_name(channel));
}

std::string channel_key(Channel channel) {
  if (channel == Channel::stable) return "whl";
  return "whl/" + std::string(channel_name(channel));
}

std::vector<std::string> list_variants(const fs::path& root, Channel channel) {
  std::vector<std::string> out;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(channel_dir(root, channel), error)) {
    if (entry.is_directory() && fs::exists(entry.path() / std::string(k_variant_marker))) {
      out.push_back(entry.path().filename().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> list_projects(const fs::path& variant_dir) {
  std::vector<std::string> out;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(variant_dir, error)) {
    if (entry.is_directory()) out.push_back(entry.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

constexpr std::string_view k_info_suffix = ".info.json";

// The complete wheels among a folder's entry names: a sidecar whose wheel is gone is what a
// crashed prune leaves, and a wheel without its sidecar is a publish that has not finished.
std::vector<std::string> complete_wheels(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  std::vector<std::string> out;
  for (const auto& name : names) {
    if (!name.ends_with(".whl.info.json")) continue;
    const std::string_view wheel = std::string_view(name).substr(0, name.size() - k_info_suffix.size());
    if (std::binary_search(names.begin(), names.end(), wheel, std::less<>())) out.emplace_back(wheel);
  }
  return out;
}

}  // namespace

Result<std::vector<std::string>> list_complete_wheels(const fs::path& project_dir) {
  auto dir = platform::Directory::open(project_dir);
  if (!dir) {
    if (dir.error().category() == ErrorCategory::not_found) return std::vector<std::string>{};
    return tl::unexpected(dir.error());
  }
  auto names = dir->names();
  if (!names) return tl::unexpected(names.error());
  return complete_wheels(std::move(*names));
}

Result<std::vector<FileInfo>> list_files(const fs::path& project_dir) {
  auto dir = platform::Directory::open(project_dir);
  if (!dir) {
    if (dir.error().category() == ErrorCategory::not_found) return std::vector<FileInfo>{};
    return tl::unexpected(dir.error());
  }
  // One directory scan answers "does the wheel exist" for every sidecar, without a stat each.
  auto names = dir->names();
  if (!names) return tl::unexpected(names.error());
  std::vector<std::pair<packaging::Version, FileInfo>> found;
  for (const auto& wheel : complete_wheels(std::move(*names))) {
    const std::string name = wheel + std::string(k_info_suffix);
    auto text = dir->read(name);
    if (!text) return tl::unexpected(text.error());
    auto info = info_from_json(*text, (project_dir / name).string());
    if (!info) return tl::unexpected(info.error());
    auto version = packaging::parse_version(info->version);
    if (!version) return tl::unexpected(version.error());
    found.emplace_back(std::move(*version), std::move(*info));
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return a.second.filename < b.second.filename;
  });
  std::vector<FileInfo> out;
  out.reserve(found.size());
  for (auto& item : found) out.push_back(std::move(item.second));
  return out;
}

Result<std::vector<StoredFile>> list_channel(const fs::path& root, Channel channel) {
  std::vector<StoredFile> out;
  const fs::path base = channel_dir(root, channel);
  for (const auto& variant : list_variants(root, channel)) {
    for (const auto& project : list_projects(base / variant)) {
      auto files = list_files(base / variant / project);
      if (!files) return tl::unexpected(files.error());
      for (auto& info : *files) {
        fs::path path = base / variant / project / info.filename;
        out.push_back({variant, std::move(info), std::move(path)});
      }
    }
  }
  return out;
}

Status copy_file_atomic(const fs::path& from, const fs::path& to) {
  const fs::path temp = to.parent_path() / ("." + to.filename().string() + ".partial");
  std::error_code error;
  fs::copy_file(from, temp, fs::copy_options::overwrite_existing, error);
  // The bytes reach the disk before the name does: a sidecar written next must never describe a
  // wheel that a power cut left empty.
  if (!error) error = platform::fsync_path(temp);
  if (!error) fs::rename(temp, to, error);
  if (error) {
    fs::remove(temp);
    return fail(ErrorCategory::io,
                "cannot copy " + from.string() + " to " + to.string() + ": " + error.message());
  }
  return {};
}

}  // namespace relforge::channels
