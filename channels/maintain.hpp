#pragma once
// Channel maintenance: yank (PEP 592), prune (keep the newest N PEP 440 versions per project,
// all variants of a kept version, never a pinned one) and promote (exact files of one version
// from one channel to another, re-verified, complete against the expected variants, optionally
// staged for PyPI without the local label).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "channels/publish.hpp"
#include "channels/pypi_staging.hpp"
#include "channels/store.hpp"
#include "core/error.hpp"

namespace relforge::channels {

enum class DryRun { no, yes };
enum class YankAction { yank, unyank };

struct YankOptions {
  std::filesystem::path root;
  Channel channel = Channel::nightly;
  std::string filename;  // a wheel file name (a path's last component counts)
  std::string reason;
  YankAction action = YankAction::yank;
};

// The variants in which the file was found and marked.
Result<std::vector<std::string>> run_yank(const YankOptions& options);

struct PruneOptions {
  std::filesystem::path root;
  Channel channel = Channel::nightly;
  std::size_t keep = 60;
  std::vector<std::string> pins;  // public versions that are never pruned
  DryRun dry_run = DryRun::no;
};

struct PruneResult {
  std::vector<StoredFile> removed;  // or, with a dry run, what would go
  std::size_t kept_files = 0;
};

Result<PruneResult> run_prune(const PruneOptions& options);

struct PromoteOptions {
  std::filesystem::path root;
  Channel from = Channel::test;
  Channel to = Channel::stable;
  std::string version;                       // public version: "2.7.0" takes 2.7.0+cpu, 2.7.0+cu126, ...
  std::vector<std::string> expect_variants;  // every one must have a file
  std::optional<std::filesystem::path> public_key;
  SignaturePolicy signatures = SignaturePolicy::channel_default;
  std::string upload_time;
  DryRun dry_run = DryRun::no;
  std::optional<std::filesystem::path> pypi_staging;                 // also write label-free copies here
  std::vector<std::string> pypi_variants = k_default_pypi_variants;  // whose files go to PyPI
};

struct PromoteResult {
  std::vector<StoredFile> plan;
  std::vector<PublishedFile> published;  // empty on a dry run
  std::vector<StagedFile> staged;        // with pypi_staging; `planned` on a dry run
};

Result<PromoteResult> run_promote(const PromoteOptions& options);

}  // namespace relforge::channels
