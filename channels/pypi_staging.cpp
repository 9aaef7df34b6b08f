#include "channels/pypi_staging.hpp"

#include <algorithm>
#include <map>
#include <system_error>

#include "packaging/version.hpp"
#include "packaging/wheel_metadata.hpp"
#include "packaging/wheel_name.hpp"
#include "packaging/wheel_repair.hpp"
#include "platform/digest.hpp"

namespace relforge::channels {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view k_temp_folder = ".relforge-staging";

fs::path temp_dir(const fs::path& dir) {
  return dir / std::string(k_temp_folder);
}

// The copy must read back as the public version it is named for, with a RECORD that matches.
Status check_copy(const fs::path& copy, const std::string& expected_version) {
  if (auto verified = packaging::verify_wheel(copy); !verified) return tl::unexpected(verified.error());
  auto metadata = packaging::read_wheel_metadata(copy);
  if (!metadata) return tl::unexpected(metadata.error());
  auto version = packaging::parse_version(metadata->version);
  if (!version || version->to_string() != expected_version) {
    return fail(ErrorCategory::internal, copy.string() + ": METADATA says Version: " + metadata->version +
                                             ", expected " + expected_version + " after stripping the label");
  }
  return {};
}

Status build_one(StagedFile& item, const fs::path& dir) {
  auto name = packaging::parse_wheel_filename(item.source.filename().string());
  if (!name) return tl::unexpected(name.error());
  const fs::path built = temp_dir(dir) / item.filename;
  if (name->version.has_local()) {
    packaging::RepairOptions repair;
    repair.wheel = item.source;
    repair.out_dir = temp_dir(dir);
    repair.local = "";  // drops the label
    auto result = packaging::repair_wheel(repair);
    if (!result) return tl::unexpected(result.error().with_context("staging " + item.source.string()));
    if (result->output != built) {
      return fail(ErrorCategory::internal,
                  "staging wrote " + result->output.string() + ", expected " + built.string());
    }
  } else if (auto copied = copy_file_atomic(item.source, built); !copied) {
    return copied;
  }
  if (auto checked = check_copy(built, name->version.public_string()); !checked) return checked;
  auto digest = platform::sha256_file(built);
  if (!digest) return tl::unexpected(digest.error());
  item.sha256 = platform::to_hex(*digest);
  item.state = StagingState::staged;
  if (fs::exists(item.target)) {
    auto existing = platform::sha256_file(item.target);
    if (!existing) return tl::unexpected(existing.error());
    if (platform::to_hex(*existing) != item.sha256) {
      return fail(ErrorCategory::conflict,
                  item.target.string() + " exists with different bytes (sha256 " +
                      platform::to_hex(*existing) + ", the new copy of " + item.source.filename().string() +
                      " has " + item.sha256 +
                      "); PyPI files are immutable: remove it if it was never uploaded, or stage elsewhere");
    }
    item.state = StagingState::unchanged;
  }
  return {};
}

}  // namespace

Result<std::string> pypi_filename(const std::string& filename) {
  auto name = packaging::parse_wheel_filename(filename);
  if (!name) return tl::unexpected(name.error());
  auto stripped = *name;
  auto version = packaging::parse_version(name->version.public_string());
  if (!version) return tl::unexpected(version.error());
  stripped.version = *version;
  return packaging::format_wheel_filename(stripped);
}

Result<std::vector<StagedFile>> plan_pypi_staging(const std::vector<StoredFile>& files,
                                                  const std::vector<std::string>& variants,
                                                  const fs::path& dir) {
  std::vector<StagedFile> out;
  std::map<std::string, const StagedFile*> by_name;
  for (const auto& file : files) {
    if (std::find(variants.begin(), variants.end(), file.variant) == variants.end()) continue;
    auto filename = pypi_filename(file.info.filename);
    if (!filename) return tl::unexpected(filename.error());
    out.push_back({file.variant, file.path, *filename, dir / *filename, "", StagingState::planned});
  }
  std::vector<std::string> clashes;
  for (const auto& item : out) {
    auto [found, fresh] = by_name.emplace(item.filename, &item);
    if (!fresh) {
      clashes.push_back(item.filename + " (from " + found->second->variant + "/" +
                        found->second->source.filename().string() + " and " + item.variant + "/" +
                        item.source.filename().string() + ")");
    }
  }
  if (!clashes.empty()) {
    std::string list;
    for (const auto& clash : clashes) list += (list.empty() ? "" : "; ") + clash;
    return fail(ErrorCategory::conflict, "the PyPI variants collide once the local label is stripped: " +
                                             list + "; name one PyPI variant per platform (--pypi-variant)");
  }
  if (out.empty()) {
    std::string names;
    for (const auto& variant : variants) names += (names.empty() ? "" : ", ") + variant;
    return fail(ErrorCategory::nothing_selected,
                "no file of the PyPI variant(s) " + names +
                    " in this version; nothing to stage for PyPI (choose it with --pypi-variant)");
  }
  return out;
}

Status build_pypi_copies(std::vector<StagedFile>& items, const fs::path& dir) {
  std::error_code error;
  fs::remove_all(temp_dir(dir), error);  // a crashed earlier run's leftovers
  fs::create_directories(temp_dir(dir), error);
  if (error) {
    return fail(ErrorCategory::io, "cannot create " + temp_dir(dir).string() + ": " + error.message());
  }
  for (auto& item : items) {
    if (auto built = build_one(item, dir); !built) {
      discard_pypi_copies(dir);
      return built;
    }
  }
  return {};
}

Status commit_pypi_copies(std::vector<StagedFile>& items, const fs::path& dir) {
  for (auto& item : items) {
    if (item.state != StagingState::staged) continue;
    std::error_code error;
    fs::rename(temp_dir(dir) / item.filename, item.target, error);
    if (error) {
      return fail(ErrorCategory::io, "cannot move the staged " + item.filename + " into " + dir.string() +
                                         ": " + error.message());
    }
  }
  discard_pypi_copies(dir);
  return {};
}

void discard_pypi_copies(const fs::path& dir) {
  std::error_code error;
  fs::remove_all(temp_dir(dir), error);
}

}  // namespace relforge::channels
