#include "matrix/names.hpp"

#include <unordered_map>

#include "packaging/wheel_name.hpp"

namespace relforge::matrix {
namespace {

Result<std::string> required_field(const Cell& cell, const std::string& name) {
  const auto value = cell.find(name);
  if (!value) {
    return fail(ErrorCategory::invalid_input, "cell '" + std::string(cell.id()) + "' has no field '" + name +
                                                  "'; wheel names need python_tag, abi_tag and " +
                                                  "platform_tag: add a [[matrix.field]] named " + name +
                                                  " (see docs/config.md)");
  }
  if (value->empty()) {
    return fail(ErrorCategory::invalid_input,
                "cell '" + std::string(cell.id()) + "' has an empty '" + name + "'");
  }
  return std::string(*value);
}

}  // namespace

Result<std::vector<WheelFile>> wheel_names(const Expansion& expansion, std::string_view project,
                                           std::string_view version) {
  if (project.empty()) {
    return fail(ErrorCategory::invalid_input, "wheel names need the project name: set [project] name");
  }
  auto base = packaging::parse_version(version);
  if (!base) {
    return fail(ErrorCategory::invalid_input, "--version '" + std::string(version) +
                                                  "' is not a PEP 440 version: " + base.error().message());
  }
  std::vector<WheelFile> files;
  files.reserve(expansion.cells.size());
  std::unordered_map<std::string, std::size_t> seen;
  for (const auto& cell : expansion.cells) {
    packaging::WheelName wheel;
    wheel.distribution = std::string(project);
    wheel.version = *base;
    const auto local = cell.find("local_version");
    if (local && !local->empty()) {
      if (!base->local.empty()) {
        return fail(ErrorCategory::invalid_input,
                    "--version '" + std::string(version) + "' already has a local label, and cell '" +
                        std::string(cell.id()) + "' adds local_version '" + std::string(*local) + "'");
      }
      auto with_local = packaging::parse_version(base->to_string() + "+" + std::string(*local));
      if (!with_local) {
        return fail(ErrorCategory::invalid_input, "cell '" + std::string(cell.id()) + "': local_version '" +
                                                      std::string(*local) +
                                                      "' is not a valid local version label");
      }
      wheel.version = std::move(*with_local);
    }
    std::string tags;
    for (const char* name : {"python_tag", "abi_tag", "platform_tag"}) {
      auto value = required_field(cell, name);
      if (!value) return tl::unexpected(value.error());
      if (!tags.empty()) tags += '-';
      tags += *value;
    }
    auto tag_set = packaging::parse_tag_set(tags);
    if (!tag_set) {
      return fail(ErrorCategory::invalid_input, "cell '" + std::string(cell.id()) + "': tags '" + tags +
                                                    "' are not valid: " + tag_set.error().message());
    }
    wheel.tag_set = std::move(*tag_set);
    auto file_name = packaging::format_wheel_filename(wheel);
    if (!file_name) {
      return fail(
          ErrorCategory::invalid_input,
          "cell '" + std::string(cell.id()) + "': cannot form a wheel name: " + file_name.error().message());
    }
    if (auto [it, fresh] = seen.emplace(*file_name, files.size()); !fresh) {
      return fail(ErrorCategory::conflict, "cells '" + files[it->second].id + "' and '" +
                                               std::string(cell.id()) + "' would both build " + *file_name +
                                               "; make their tags or local_version differ");
    }
    files.push_back(WheelFile{std::string(cell.id()), std::string(cell.build_id()), std::move(*file_name)});
  }
  return files;
}

}  // namespace relforge::matrix
