#include "channels/store.hpp"

#include <algorithm>
#include <system_error>

#include <nlohmann/json.hpp>

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

std::string info_to_json(const FileInfo& info) {
  const nlohmann::ordered_json json = {{"filename", info.filename},
                                       {"project", info.project},
                                       {"version", info.version},
                                       {"sha256", info.sha256},
                                       {"size", info.size},
                                       {"metadata_sha256", info.metadata_sha256},
                                       {"requires_python", info.requires_python},
                                       {"upload_time", info.upload_time},
                                       {"yanked", info.yanked},
                                       {"yanked_reason", info.yanked_reason},
                                       {"provenance", info.provenance}};
  return json.dump(1) + "\n";
}

Result<FileInfo> info_from_json(std::string_view text, const std::string& where) {
  const auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    return fail(ErrorCategory::integrity, where + " is not a JSON object (run 'relforge index rebuild')");
  }
  try {
    FileInfo info;
    info.filename = json.at("filename");
    info.project = json.at("project");
    info.version = json.at("version");
    info.sha256 = json.at("sha256");
    info.size = json.at("size");
    info.metadata_sha256 = json.value("metadata_sha256", "");
    info.requires_python = json.value("requires_python", "");
    info.upload_time = json.value("upload_time", "");
    info.yanked = json.value("yanked", false);
    info.yanked_reason = json.value("yanked_reason", "");
    info.provenance = json.value("provenance", false);
    return info;
  } catch (const nlohmann::json::exception& error) {
    return fail(ErrorCategory::integrity, where + ": " + error.what());
  }
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

Result<std::vector<FileInfo>> list_files(const fs::path& project_dir) {
  std::vector<std::pair<packaging::Version, FileInfo>> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(project_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".whl.info.json")) continue;
    const fs::path wheel = project_dir / name.substr(0, name.size() - std::string_view(".info.json").size());
    if (!fs::exists(wheel)) continue;  // a crashed prune: the info outlived its wheel
    auto text = platform::read_file(entry.path());
    if (!text) return tl::unexpected(text.error());
    auto info = info_from_json(*text, entry.path().string());
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
  if (!error) fs::rename(temp, to, error);
  if (error) {
    fs::remove(temp);
    return fail(ErrorCategory::io,
                "cannot copy " + from.string() + " to " + to.string() + ": " + error.message());
  }
  return {};
}

}  // namespace relforge::channels
