#pragma once
// Channel maintenance over any ObjectStore: yank (PEP 592), prune (nightly, or test when allowed;
// never stable: keep the newest N PEP 440 versions per project, all variants of a kept version,
// never a pinned one; tombstones first, pages next, files last) and promote (exact files of one
// version from one channel to another, re-verified, complete against the expected variants, none
// yanked when the store's lock is taken for the copy, optionally staged for PyPI without the local
// label). Each overload without a store works on the
// directory `options.root`.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "channels/object_store.hpp"
#include "channels/publish.hpp"
#include "channels/pypi_staging.hpp"
#include "channels/store.hpp"
#include "core/error.hpp"

namespace relforge::channels {

enum class DryRun { no, yes };
enum class YankAction { yank, unyank };
enum class TestPruning { refuse, allow };
using StageHook = std::function<void(std::string_view stage)>;

struct YankOptions {
  std::filesystem::path root;
  Channel channel = Channel::nightly;
  std::string filename;  // a wheel file name (a path's last component counts; any equivalent spelling)
  std::string reason;
  YankAction action = YankAction::yank;
  StageHook on_stage{};  // "info-written" (every file marked, no page yet), "page-written"
};

struct YankedFile {
  std::string variant;
  std::string filename;  // as stored, whatever spelling the options named it by
};

// Every stored file of the named identity, found and marked.
Result<std::vector<YankedFile>> run_yank(const YankOptions& options, ObjectStore& store);
Result<std::vector<YankedFile>> run_yank(const YankOptions& options);

struct PruneOptions {
  std::filesystem::path root;
  Channel channel = Channel::nightly;
  std::size_t keep = 60;
  std::vector<std::string> pins;  // public versions that are never pruned
  DryRun dry_run = DryRun::no;
  TestPruning test = TestPruning::refuse;  // the test channel is pruned only when allowed
  std::string deleted_at{};                // 2025-01-02T03:04:05Z, from the caller's clock (tombstones)
  // "tombstoned" (every tombstone written), "page-written", "file-removed" (after each file).
  StageHook on_stage{};
};

struct PruneResult {
  std::vector<StoredFile> removed;  // or, with a dry run, what would go
  std::size_t kept_files = 0;
  std::size_t leftovers = 0;  // objects of earlier, interrupted prunes removed now
};

Result<PruneResult> run_prune(const PruneOptions& options, ObjectStore& store);
Result<PruneResult> run_prune(const PruneOptions& options);

// One file the release matrix says a complete release has: the cell that builds it and its name.
struct ExpectedFile {
  std::string cell;
  std::string filename;
};

struct PromoteOptions {
  std::filesystem::path root;
  Channel from = Channel::test;
  Channel to = Channel::stable;
  std::string version;                       // public version: "2.7.0" takes 2.7.0+cpu, 2.7.0+cu126, ...
  std::vector<std::string> expect_variants;  // every one must have a file
  // Non-empty: the promote is complete or nothing is copied: every expected file (of the wanted
  // version) is in `from`, signed, and no other file of that version is.
  std::vector<ExpectedFile> expected_files;
  std::optional<std::filesystem::path> public_key;
  SignaturePolicy signatures = SignaturePolicy::channel_default;
  std::string upload_time;
  DryRun dry_run = DryRun::no;
  std::optional<std::filesystem::path> pypi_staging;                 // also write label-free copies here
  std::vector<std::string> pypi_variants = k_default_pypi_variants;  // whose files go to PyPI
  // Where a store that is not a folder has the promoted files downloaded (removed afterwards);
  // empty: the system temp folder, looked up only when a download needs it.
  std::filesystem::path work_dir;
  StageHook on_stage;  // the publish's stages ("files-written", "page-written")
};

struct PromoteResult {
  std::vector<StoredFile> plan;
  std::size_t cells_checked = 0;         // expected files found complete (0 without expected_files)
  std::vector<PublishedFile> published;  // empty on a dry run
  std::vector<StagedFile> staged;        // with pypi_staging; `planned` on a dry run
};

Result<PromoteResult> run_promote(const PromoteOptions& options, ObjectStore& store);
Result<PromoteResult> run_promote(const PromoteOptions& options);

}  // namespace relforge::channels
