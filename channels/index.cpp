#include "channels/index.hpp"
#include "channels/listing_cache.hpp"
#include "core/parallel.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "packaging/version.hpp"

namespace relforge::channels {
namespace {

using core::append_html_escaped;
using core::append_json_string;

const std::string k_head_open =
    "<!DOCTYPE html>\n<html>\n<head>\n<meta name=\"pypi:repository-version\" content=\"";

using Versions = std::vector<std::optional<packaging::Version>>;

Versions parse_versions(const std::vector<IndexedFile>& files) {
  Versions versions;
  versions.reserve(files.size());
  for (const auto& file : files) {
    auto version = packaging::parse_version(file.info.version);
    versions.push_back(version ? std::optional(std::move(*version)) : std::nullopt);
  }
  return versions;
}

// Version order, then file name, with `versions` (files[i]'s parsed version) kept beside their
// files: a folder's are parsed once, for its own page and again for the combined one.
void sort_by_version(std::vector<IndexedFile>& files, Versions& versions) {
  std::vector<std::size_t> order(files.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (versions[a] && versions[b] && *versions[a] != *versions[b]) return *versions[a] < *versions[b];
    return files[a].info.filename < files[b].info.filename;
  });
  std::vector<IndexedFile> sorted_files;
  Versions sorted_versions;
  sorted_files.reserve(files.size());
  sorted_versions.reserve(files.size());
  for (const std::size_t i : order) {
    sorted_files.push_back(std::move(files[i]));
    sorted_versions.push_back(std::move(versions[i]));
  }
  files = std::move(sorted_files);
  versions = std::move(sorted_versions);
}

}  // namespace

std::string url_escape_path(std::string_view text) {
  return core::percent_encode(text, "/");
}

std::string render_project_html(const std::string& project, const std::vector<IndexedFile>& files) {
  std::size_t estimate = 256;
  for (const auto& file : files) {
    estimate += 160 + 2 * file.url.size() + file.info.filename.size() + file.info.sha256.size() +
                2 * file.info.metadata_sha256.size() + file.info.requires_python.size();
  }
  std::string out;
  out.reserve(estimate);
  out += k_head_open;
  out += k_api_version;
  out += "\">\n<title>Links for ";
  append_html_escaped(out, project);
  out += "</title>\n</head>\n<body>\n<h1>Links for ";
  append_html_escaped(out, project);
  out += "</h1>\n";
  for (const auto& file : files) {
    const auto& info = file.info;
    out += "<a href=\"";
    append_html_escaped(out, file.url);
    // Records are checked where they are read (record_problem); escaped here all the same.
    out += "#sha256=";
    append_html_escaped(out, info.sha256);
    out += '"';
    if (!info.requires_python.empty()) {
      out += " data-requires-python=\"";
      append_html_escaped(out, info.requires_python);
      out += '"';
    }
    if (!info.metadata_sha256.empty()) {
      out += " data-dist-info-metadata=\"sha256=";
      append_html_escaped(out, info.metadata_sha256);
      out += "\" data-core-metadata=\"sha256=";
      append_html_escaped(out, info.metadata_sha256);
      out += '"';
    }
    if (info.provenance) {
      out += " data-provenance=\"";
      append_html_escaped(out, file.url);
      out += ".provenance\"";
    }
    if (info.yanked) {
      out += " data-yanked=\"";
      append_html_escaped(out, info.yanked_reason);
      out += '"';
    }
    out += '>';
    append_html_escaped(out, info.filename);
    out += "</a><br/>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

// Written by hand rather than through a JSON DOM: building ~15 nodes per file dominated the
// rebuild. The output is byte-identical to nlohmann's compact dump() (tests compare them).
std::string render_project_json(const std::string& project, const std::vector<IndexedFile>& files) {
  std::vector<packaging::Version> versions;
  std::set<std::string_view> seen;
  for (const auto& file : files) {
    if (seen.insert(file.info.version).second) {
      if (auto version = packaging::parse_version(file.info.version)) versions.push_back(std::move(*version));
    }
  }
  std::sort(versions.begin(), versions.end());
  std::size_t estimate = 256 + versions.size() * 40;
  for (const auto& file : files) {
    estimate += 260 + 2 * file.url.size() + file.info.filename.size() + file.info.sha256.size() +
                file.info.metadata_sha256.size() + file.info.requires_python.size();
  }
  std::string out;
  out.reserve(estimate);
  out += "{\"meta\":{\"api-version\":";
  append_json_string(out, k_api_version);
  out += "},\"name\":";
  append_json_string(out, project);
  out += ",\"versions\":[";
  for (std::size_t i = 0; i < versions.size(); ++i) {
    if (i) out += ',';
    append_json_string(out, versions[i].to_string());
  }
  out += "],\"files\":[";
  bool first = true;
  for (const auto& file : files) {
    const auto& info = file.info;
    if (!first) out += ',';
    first = false;
    out += "{\"filename\":";
    append_json_string(out, info.filename);
    out += ",\"url\":";
    append_json_string(out, file.url);
    out += ",\"hashes\":{\"sha256\":";
    append_json_string(out, info.sha256);
    out += "},\"requires-python\":";
    if (info.requires_python.empty()) {
      out += "null";
    } else {
      append_json_string(out, info.requires_python);
    }
    // No JSON "dist-info-metadata": pip 23.0 parses it as a string and crashes on PEP 691's dict
    // (the reason for PEP 714); HTML pages carry both attribute names instead.
    out += ",\"core-metadata\":";
    if (info.metadata_sha256.empty()) {
      out += "false";
    } else {
      out += "{\"sha256\":";
      append_json_string(out, info.metadata_sha256);
      out += '}';
    }
    out += ",\"yanked\":";
    if (!info.yanked) {
      out += "false";
    } else if (info.yanked_reason.empty()) {
      out += "true";
    } else {
      append_json_string(out, info.yanked_reason);
    }
    out += ",\"size\":";
    out += std::to_string(info.size);
    out += ",\"upload-time\":";
    if (info.upload_time.empty()) {
      out += "null";
    } else {
      append_json_string(out, info.upload_time);
    }
    out += ",\"provenance\":";
    if (info.provenance) {
      append_json_string(out, file.url + ".provenance");
    } else {
      out += "null";
    }
    out += '}';
  }
  out += "]}\n";
  return out;
}

std::string render_root_html(const std::vector<std::string>& projects) {
  std::string out;
  out.reserve(256 + projects.size() * 64);
  out += k_head_open;
  out += k_api_version;
  out += "\">\n<title>Simple index</title>\n</head>\n<body>\n";
  for (const auto& project : projects) {
    out += "<a href=\"";
    append_html_escaped(out, url_escape_path(project));
    out += "/\">";
    append_html_escaped(out, project);
    out += "</a><br/>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

std::string render_root_json(const std::vector<std::string>& projects) {
  std::string out = "{\"meta\":{\"api-version\":";
  append_json_string(out, k_api_version);
  out += "},\"projects\":[";
  for (std::size_t i = 0; i < projects.size(); ++i) {
    if (i) out += ',';
    out += "{\"name\":";
    append_json_string(out, projects[i]);
    out += '}';
  }
  out += "]}\n";
  return out;
}

namespace {

// Pages are handed over a batch at a time and dropped once written: holding a channel's ~70 MB of
// pages cost a page fault per 4 KiB, and a batch's freed memory is reused by the next one.
constexpr std::size_t k_folder_batch = 64;
constexpr std::size_t k_combined_batch = 8;  // combined pages are ~20x a variant's

// Runs `render` over 0..count-1 in batches (each on every core), passing each batch's pages to `sink`.
Status in_batches(std::size_t count, std::size_t batch,
                  const std::function<void(std::size_t, RenderedPage&)>& render, const PageSink& sink) {
  std::vector<RenderedPage> pages;
  for (std::size_t first = 0; first < count; first += batch) {
    const std::size_t size = std::min(batch, count - first);
    pages.assign(size, RenderedPage{});
    (void)core::parallel_for(size, [&](std::size_t i) -> Status {
      render(first + i, pages[i]);
      return {};
    });
    if (auto status = sink(pages); !status) return status;
  }
  return {};
}

}  // namespace

Status render_channel_pages(ChannelListing listing, const std::set<ProjectRef>* touched,
                            const PageSink& sink) {
  std::set<std::string> touched_variants;
  std::set<std::string> touched_projects;
  if (touched) {
    for (const auto& [variant, project] : *touched) {
      touched_variants.insert(variant);
      touched_projects.insert(project);
    }
  }
  // The folders to render, in listing order; each is sorted and rendered on its own core.
  struct Folder {
    const std::string* variant;
    const std::string* project;
    std::vector<FileInfo>* infos;
    bool page;
    bool in_combined;
    std::vector<IndexedFile> files;
    Versions versions;    // of `files`
    std::string section;  // of the combined project's listing cache
  };
  std::vector<Folder> folders;
  std::vector<std::size_t> with_page;  // indexes into folders, in listing order
  for (auto& [variant, projects] : listing) {
    for (auto& [project, infos] : projects) {
      const bool page = !touched || touched->count({variant, project}) != 0;
      const bool in_combined = !touched || touched_projects.count(project) != 0;
      if (!page && !in_combined) continue;
      if (page) with_page.push_back(folders.size());
      folders.push_back({&variant, &project, &infos, page, in_combined, {}, {}, {}});
    }
  }
  // Folders without a page of their own come first: their files are only merged.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < folders.size(); ++i) {
    if (!folders[i].page) order.push_back(i);
  }
  const std::size_t merged_only = order.size();
  order.insert(order.end(), with_page.begin(), with_page.end());
  const auto prepare = [&](Folder& folder, RenderedPage* page) {
    folder.files.reserve(folder.infos->size());
    for (auto& info : *folder.infos) {
      std::string url = url_escape_path(info.filename);
      folder.files.push_back({std::move(info), std::move(url)});
    }
    folder.versions = parse_versions(folder.files);
    sort_by_version(folder.files, folder.versions);
    const std::string& project = *folder.project;
    if (page) {
      *page = RenderedPage{*folder.variant + "/" + project, render_project_html(project, folder.files),
                           render_project_json(project, folder.files), std::nullopt};
    }
    if (folder.in_combined) {
      folder.section = render_listing_section(*folder.variant, folder.files);
      for (auto& file : folder.files) file.url = "../" + *folder.variant + "/" + project + "/" + file.url;
    }
  };
  (void)core::parallel_for(merged_only, [&](std::size_t i) -> Status {
    prepare(folders[order[i]], nullptr);
    return {};
  });
  auto rendered = in_batches(
      order.size() - merged_only, k_folder_batch,
      [&](std::size_t i, RenderedPage& page) { prepare(folders[order[merged_only + i]], &page); }, sink);
  if (!rendered) return rendered;

  struct Combined {
    std::vector<IndexedFile> files;
    Versions versions;
    std::vector<std::string> sections;  // in variant order
  };
  std::vector<RenderedPage> roots;  // the variants' root pages
  std::map<std::string, Combined> combined;
  std::set<std::string> all_projects;
  std::size_t next = 0;
  for (const auto& [variant, projects] : listing) {
    std::vector<std::string> names;
    for (const auto& [project, infos] : projects) {
      names.push_back(project);
      all_projects.insert(project);
      if (next == folders.size() || folders[next].infos != &infos) continue;
      auto& folder = folders[next++];
      if (folder.in_combined) {
        auto& all = combined[project];
        std::move(folder.files.begin(), folder.files.end(), std::back_inserter(all.files));
        std::move(folder.versions.begin(), folder.versions.end(), std::back_inserter(all.versions));
        all.sections.push_back(std::move(folder.section));
      }
    }
    if (!touched || touched_variants.count(variant) != 0) {
      roots.push_back({variant, render_root_html(names), render_root_json(names), std::nullopt});
    }
  }
  if (!roots.empty()) {
    if (auto status = sink(roots); !status) return status;
  }
  std::vector<std::pair<const std::string*, Combined*>> merged;
  for (auto& [project, all] : combined) merged.emplace_back(&project, &all);
  rendered = in_batches(
      merged.size(), k_combined_batch,
      [&](std::size_t i, RenderedPage& page) {
        const auto& [project, all] = merged[i];
        sort_by_version(all->files, all->versions);
        page = {*project, render_project_html(*project, all->files),
                render_project_json(*project, all->files), render_listing(all->sections)};
        std::vector<IndexedFile>().swap(all->files);  // written: its memory goes to the next batch
        Versions().swap(all->versions);
      },
      sink);
  if (!rendered) return rendered;
  if (listing.empty()) return {};
  const std::vector<std::string> names(all_projects.begin(), all_projects.end());
  std::vector<RenderedPage> root = {{"", render_root_html(names), render_root_json(names), std::nullopt}};
  return sink(root);
}

std::vector<RenderedPage> render_channel_pages(const ChannelListing& listing,
                                               const std::set<ProjectRef>* touched) {
  std::vector<RenderedPage> pages;
  (void)render_channel_pages(ChannelListing(listing), touched,
                             [&](std::vector<RenderedPage>& batch) -> Status {
                               std::move(batch.begin(), batch.end(), std::back_inserter(pages));
                               return {};
                             });
  return pages;
}

}  // namespace relforge::channels
