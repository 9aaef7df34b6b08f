#include "channels/index.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "packaging/version.hpp"
#include "platform/fs.hpp"

namespace relforge::channels {
namespace fs = std::filesystem;
namespace {

using Json = nlohmann::ordered_json;

const std::string k_head_open =
    "<!DOCTYPE html>\n<html>\n<head>\n<meta name=\"pypi:repository-version\" content=\"";

Status write_pages(const fs::path& dir, const std::string& html, const std::string& json) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) return fail(ErrorCategory::io, "cannot create " + dir.string() + ": " + error.message());
  // Pages are re-creatable from the store, so a lost page after a power cut costs a rebuild, not data.
  if (auto status = platform::write_file_atomic(dir / "index.json", json, platform::Durability::no_fsync);
      !status) {
    return status;
  }
  return platform::write_file_atomic(dir / "index.html", html, platform::Durability::no_fsync);
}

Result<std::vector<IndexedFile>> variant_files(const fs::path& project_dir, const std::string& prefix) {
  auto files = list_files(project_dir);
  if (!files) return tl::unexpected(files.error());
  std::vector<IndexedFile> out;
  for (auto& info : *files) {
    std::string url = prefix + url_escape_path(info.filename);
    out.push_back({std::move(info), std::move(url)});
  }
  return out;
}

void sort_by_version(std::vector<IndexedFile>& files) {
  std::stable_sort(files.begin(), files.end(), [](const IndexedFile& a, const IndexedFile& b) {
    const auto va = packaging::parse_version(a.info.version);
    const auto vb = packaging::parse_version(b.info.version);
    if (va && vb && *va != *vb) return *va < *vb;
    return a.info.filename < b.info.filename;
  });
}

Status refresh_combined_project(const fs::path& root, Channel channel, const std::string& project) {
  const fs::path base = channel_dir(root, channel);
  std::vector<IndexedFile> all;
  for (const auto& variant : list_variants(root, channel)) {
    if (!fs::is_directory(base / variant / project)) continue;
    auto files = variant_files(base / variant / project, "../" + variant + "/" + project + "/");
    if (!files) return tl::unexpected(files.error());
    all.insert(all.end(), files->begin(), files->end());
  }
  sort_by_version(all);
  return write_pages(base / project, render_project_html(project, all), render_project_json(project, all));
}

Status refresh_combined_root(const fs::path& root, Channel channel) {
  std::set<std::string> projects;
  const fs::path base = channel_dir(root, channel);
  for (const auto& variant : list_variants(root, channel)) {
    for (auto& project : list_projects(base / variant)) projects.insert(std::move(project));
  }
  const std::vector<std::string> sorted(projects.begin(), projects.end());
  return write_pages(base, render_root_html(sorted), render_root_json(sorted));
}

}  // namespace

std::string url_escape_path(std::string_view text) {
  return core::percent_encode(text, "/");
}

std::string html_escape(std::string_view text) {
  return core::html_escape(text);
}

std::string render_project_html(const std::string& project, const std::vector<IndexedFile>& files) {
  std::string out = k_head_open + std::string(k_api_version) + "\">\n<title>Links for " +
                    html_escape(project) + "</title>\n</head>\n<body>\n<h1>Links for " +
                    html_escape(project) + "</h1>\n";
  out.reserve(out.size() + files.size() * 400);
  for (const auto& file : files) {
    const auto& info = file.info;
    out += "<a href=\"" + html_escape(file.url) + "#sha256=" + info.sha256 + "\"";
    if (!info.requires_python.empty())
      out += " data-requires-python=\"" + html_escape(info.requires_python) + "\"";
    if (!info.metadata_sha256.empty()) {
      out += " data-dist-info-metadata=\"sha256=" + info.metadata_sha256 +
             "\" data-core-metadata=\"sha256=" + info.metadata_sha256 + "\"";
    }
    if (info.provenance) out += " data-provenance=\"" + html_escape(file.url) + ".provenance\"";
    if (info.yanked) {
      out += info.yanked_reason.empty() ? " data-yanked=\"\""
                                        : " data-yanked=\"" + html_escape(info.yanked_reason) + "\"";
    }
    out += ">" + html_escape(info.filename) + "</a><br/>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

std::string render_project_json(const std::string& project, const std::vector<IndexedFile>& files) {
  Json list = Json::array();
  std::vector<packaging::Version> versions;
  std::set<std::string> seen;
  for (const auto& file : files) {
    const auto& info = file.info;
    Json entry = {
        {"filename", info.filename},
        {"url", file.url},
        {"hashes", {{"sha256", info.sha256}}},
        {"requires-python", info.requires_python.empty() ? Json(nullptr) : Json(info.requires_python)},
        {"core-metadata",
         info.metadata_sha256.empty() ? Json(false) : Json({{"sha256", info.metadata_sha256}})},
        {"yanked",
         info.yanked ? (info.yanked_reason.empty() ? Json(true) : Json(info.yanked_reason)) : Json(false)},
        {"size", info.size},
        {"upload-time", info.upload_time.empty() ? Json(nullptr) : Json(info.upload_time)},
        {"provenance", info.provenance ? Json(file.url + ".provenance") : Json(nullptr)}};
    // No JSON "dist-info-metadata": pip 23.0 parses it as a string and crashes on PEP 691's dict
    // (the reason for PEP 714); HTML pages carry both attribute names instead.
    list.push_back(std::move(entry));
    if (seen.insert(info.version).second) {
      if (auto version = packaging::parse_version(info.version)) versions.push_back(*version);
    }
  }
  std::sort(versions.begin(), versions.end());
  Json version_list = Json::array();
  for (const auto& version : versions) version_list.push_back(version.to_string());
  const Json page = {{"meta", {{"api-version", k_api_version}}},
                     {"name", project},
                     {"versions", version_list},
                     {"files", list}};
  return page.dump() + "\n";
}

std::string render_root_html(const std::vector<std::string>& projects) {
  std::string out =
      k_head_open + std::string(k_api_version) + "\">\n<title>Simple index</title>\n</head>\n<body>\n";
  for (const auto& project : projects) {
    out +=
        "<a href=\"" + html_escape(url_escape_path(project)) + "/\">" + html_escape(project) + "</a><br/>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

std::string render_root_json(const std::vector<std::string>& projects) {
  Json list = Json::array();
  for (const auto& project : projects) list.push_back({{"name", project}});
  const Json page = {{"meta", {{"api-version", k_api_version}}}, {"projects", list}};
  return page.dump() + "\n";
}

Status refresh_project(const fs::path& root, Channel channel, const std::string& variant,
                       const std::string& project) {
  const fs::path variant_dir = channel_dir(root, channel) / variant;
  auto files = variant_files(variant_dir / project, "");
  if (!files) return tl::unexpected(files.error());
  if (auto status = write_pages(variant_dir / project, render_project_html(project, *files),
                                render_project_json(project, *files));
      !status) {
    return status;
  }
  const auto projects = list_projects(variant_dir);
  if (auto status = write_pages(variant_dir, render_root_html(projects), render_root_json(projects));
      !status) {
    return status;
  }
  if (auto status = refresh_combined_project(root, channel, project); !status) return status;
  return refresh_combined_root(root, channel);
}

std::vector<RenderedPage> render_channel_pages(const ChannelListing& listing,
                                               const std::set<ProjectRef>* touched) {
  std::vector<RenderedPage> pages;
  std::map<std::string, std::vector<IndexedFile>> combined;
  std::set<std::string> touched_variants;
  std::set<std::string> touched_projects;
  if (touched) {
    for (const auto& [variant, project] : *touched) {
      touched_variants.insert(variant);
      touched_projects.insert(project);
    }
  }
  std::set<std::string> all_projects;
  for (const auto& [variant, projects] : listing) {
    std::vector<std::string> names;
    for (const auto& [project, infos] : projects) {
      names.push_back(project);
      all_projects.insert(project);
      const bool page = !touched || touched->count({variant, project}) != 0;
      const bool in_combined = !touched || touched_projects.count(project) != 0;
      if (!page && !in_combined) continue;
      std::vector<IndexedFile> files;
      for (const auto& info : infos) files.push_back({info, url_escape_path(info.filename)});
      sort_by_version(files);
      if (page) {
        pages.push_back({variant + "/" + project, render_project_html(project, files),
                         render_project_json(project, files)});
      }
      if (in_combined) {
        auto& all = combined[project];
        for (auto& file : files) {
          file.url = "../" + variant + "/" + project + "/" + file.url;
          all.push_back(std::move(file));
        }
      }
    }
    if (!touched || touched_variants.count(variant) != 0) {
      pages.push_back({variant, render_root_html(names), render_root_json(names)});
    }
  }
  for (auto& [project, files] : combined) {
    sort_by_version(files);
    pages.push_back({project, render_project_html(project, files), render_project_json(project, files)});
  }
  const std::vector<std::string> names(all_projects.begin(), all_projects.end());
  if (!listing.empty()) pages.push_back({"", render_root_html(names), render_root_json(names)});
  return pages;
}

Result<RebuildSummary> rebuild_all(const fs::path& root) {
  RebuildSummary summary;
  for (const Channel channel : {Channel::stable, Channel::test, Channel::nightly}) {
    const fs::path base = channel_dir(root, channel);
    std::map<std::string, std::vector<IndexedFile>> combined;
    const auto variants = list_variants(root, channel);
    if (variants.empty()) continue;
    for (const auto& variant : variants) {
      const auto projects = list_projects(base / variant);
      for (const auto& project : projects) {
        auto files = variant_files(base / variant / project, "");
        if (!files) return tl::unexpected(files.error());
        summary.files += files->size();
        if (auto status = write_pages(base / variant / project, render_project_html(project, *files),
                                      render_project_json(project, *files));
            !status) {
          return tl::unexpected(status.error());
        }
        auto& all = combined[project];
        for (auto& file : *files) {
          file.url = "../" + variant + "/" + project + "/" + file.url;
          all.push_back(std::move(file));
        }
        ++summary.pages;
      }
      if (auto status = write_pages(base / variant, render_root_html(projects), render_root_json(projects));
          !status) {
        return tl::unexpected(status.error());
      }
      ++summary.pages;
    }
    std::vector<std::string> names;
    for (auto& [project, files] : combined) {
      // Per-variant lists are each version-sorted; the combined page re-sorts across variants.
      sort_by_version(files);
      if (auto status = write_pages(base / project, render_project_html(project, files),
                                    render_project_json(project, files));
          !status) {
        return tl::unexpected(status.error());
      }
      names.push_back(project);
      ++summary.pages;
    }
    if (auto status = write_pages(base, render_root_html(names), render_root_json(names)); !status) {
      return tl::unexpected(status.error());
    }
    ++summary.pages;
  }
  return summary;
}

}  // namespace relforge::channels
