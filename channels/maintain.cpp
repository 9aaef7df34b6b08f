#include "channels/maintain.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <system_error>

#include "channels/index.hpp"
#include "channels/listing_cache.hpp"
#include "core/text.hpp"
#include "packaging/version.hpp"
#include "platform/digest.hpp"
#include "platform/file_lock.hpp"
#include "platform/fs.hpp"

namespace relforge::channels {
namespace fs = std::filesystem;
namespace {

Result<platform::FileLock> lock_store(const fs::path& root) {
  return platform::FileLock::acquire(root / std::string(k_lock_file));
}

std::string public_version(const std::string& version) {
  auto parsed = packaging::parse_version(version);
  return parsed ? parsed->public_string() : version;
}

}  // namespace

Result<std::vector<std::string>> run_yank(const YankOptions& options) {
  const std::string filename = fs::path(options.filename).filename().string();
  auto lock = lock_store(options.root);
  if (!lock) return tl::unexpected(lock.error());
  auto files = list_channel(options.root, options.channel);
  if (!files) return tl::unexpected(files.error());
  std::vector<std::string> variants;
  for (auto& file : *files) {
    if (file.info.filename != filename) continue;
    file.info.yanked = options.action == YankAction::yank;
    file.info.yanked_reason = file.info.yanked ? options.reason : "";
    // The file names stay, so the cached listing would not notice a crash before the refresh.
    if (auto status = invalidate_listing(file.path.parent_path()); !status)
      return tl::unexpected(status.error());
    if (auto status = platform::write_file_atomic(file.path.string() + ".info.json", info_to_json(file.info));
        !status) {
      return tl::unexpected(status.error());
    }
    if (auto status = refresh_project(options.root, options.channel, file.variant, file.info.project);
        !status) {
      return tl::unexpected(status.error());
    }
    variants.push_back(file.variant);
  }
  if (variants.empty()) {
    return fail(ErrorCategory::not_found, filename + " is not published in the " +
                                              std::string(channel_name(options.channel)) + " channel of " +
                                              options.root.string());
  }
  return variants;
}

Result<PruneResult> run_prune(const PruneOptions& options) {
  std::optional<platform::FileLock> lock;
  if (options.dry_run == DryRun::no) {
    auto acquired = lock_store(options.root);
    if (!acquired) return tl::unexpected(acquired.error());
    lock.emplace(std::move(*acquired));
  }
  auto files = list_channel(options.root, options.channel);
  if (!files) return tl::unexpected(files.error());
  std::set<std::string> pins;
  for (const auto& pin : options.pins) pins.insert(public_version(pin));
  // project -> its public versions, newest first
  std::map<std::string, std::vector<packaging::Version>> versions;
  for (const auto& file : *files) {
    auto parsed = packaging::parse_version(file.info.version);
    if (!parsed) return tl::unexpected(parsed.error());
    auto public_part = packaging::parse_version(parsed->public_string());
    auto& list = versions[file.info.project];
    if (std::find(list.begin(), list.end(), *public_part) == list.end()) list.push_back(*public_part);
  }
  std::map<std::string, std::set<std::string>> kept;
  for (auto& [project, list] : versions) {
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return b < a; });
    for (std::size_t i = 0; i < list.size() && i < options.keep; ++i)
      kept[project].insert(list[i].to_string());
  }
  PruneResult result;
  std::set<std::pair<std::string, std::string>> touched;
  for (const auto& file : *files) {
    const std::string version = public_version(file.info.version);
    if (kept[file.info.project].contains(version) || pins.contains(version)) {
      ++result.kept_files;
      continue;
    }
    result.removed.push_back(file);
    touched.insert({file.variant, file.info.project});
  }
  if (options.dry_run == DryRun::yes) return result;
  for (const auto& file : result.removed) {
    // The info goes first so that a crash leaves an unlisted wheel, never a listed missing one.
    std::error_code error;
    for (const char* suffix : {".info.json", "", ".metadata", ".sigstore.json", ".provenance"}) {
      fs::remove(file.path.string() + suffix, error);
    }
  }
  for (const auto& [variant, project] : touched) {
    if (auto status = refresh_project(options.root, options.channel, variant, project); !status) {
      return tl::unexpected(status.error());
    }
  }
  return result;
}

Result<PromoteResult> run_promote(const PromoteOptions& options) {
  if (options.from == options.to)
    return fail(ErrorCategory::invalid_input, "--from and --to name the same channel");
  auto wanted = packaging::parse_version(options.version);
  if (!wanted) return tl::unexpected(wanted.error());
  auto files = list_channel(options.root, options.from);
  if (!files) return tl::unexpected(files.error());
  PromoteResult result;
  std::set<std::string> variants;
  for (auto& file : *files) {
    auto version = packaging::parse_version(file.info.version);
    if (!version) continue;
    const bool match = wanted->has_local()
                           ? *version == *wanted
                           : packaging::parse_version(version->public_string()).value() == *wanted;
    if (!match) continue;
    variants.insert(file.variant);
    result.plan.push_back(std::move(file));
  }
  if (result.plan.empty()) {
    return fail(ErrorCategory::nothing_selected, "no files of version " + options.version + " in the " +
                                                     std::string(channel_name(options.from)) +
                                                     " channel; nothing to promote");
  }
  std::vector<std::string> missing;
  for (const auto& variant : options.expect_variants) {
    if (!variants.contains(variant)) missing.push_back(variant);
  }
  if (!missing.empty()) {
    return fail(ErrorCategory::invalid_input, "version " + options.version + " is incomplete in the " +
                                                  std::string(channel_name(options.from)) +
                                                  " channel: no files for " + core::join(missing, ", ") +
                                                  "; nothing was promoted");
  }
  for (const auto& file : result.plan) {
    auto digest = platform::sha256_file(file.path);
    if (!digest) return tl::unexpected(digest.error());
    if (platform::to_hex(*digest) != file.info.sha256) {
      return fail(ErrorCategory::integrity, file.path.string() + " has sha256 " + platform::to_hex(*digest) +
                                                " but the index says " + file.info.sha256 +
                                                "; the store is corrupt, nothing was promoted");
    }
  }
  if (options.pypi_staging) {
    auto staged = plan_pypi_staging(result.plan, options.pypi_variants, *options.pypi_staging);
    if (!staged) return tl::unexpected(staged.error().with_context("--pypi-staging"));
    result.staged = std::move(*staged);
  }
  if (options.dry_run == DryRun::yes) return result;
  // The PyPI copies are built (and checked against what the folder holds) before anything is
  // promoted, and renamed in only after the promote succeeded.
  if (options.pypi_staging) {
    if (auto built = build_pypi_copies(result.staged, *options.pypi_staging); !built) {
      return tl::unexpected(built.error());
    }
  }
  // One publish for all files: it checks every input before it writes any.
  PublishOptions publish;
  publish.root = options.root;
  publish.channel = options.to;
  publish.signatures = options.signatures;
  publish.public_key = options.public_key;
  publish.upload_time = options.upload_time;
  for (const auto& file : result.plan) {
    publish.files.push_back(file.path);
    publish.file_variants.push_back(file.variant);
  }
  auto published = run_publish(publish);
  if (!published) {
    if (options.pypi_staging) discard_pypi_copies(*options.pypi_staging);
    return tl::unexpected(published.error());
  }
  result.published = std::move(*published);
  if (options.pypi_staging) {
    if (auto committed = commit_pypi_copies(result.staged, *options.pypi_staging); !committed) {
      return tl::unexpected(committed.error());
    }
  }
  return result;
}

}  // namespace relforge::channels
