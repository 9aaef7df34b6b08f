#pragma once
// Copies of a promoted version for upload to PyPI, which refuses local version labels: the PyPI
// variant's wheels are written again as `2.7.0` instead of `2.7.0+cu130` (dist-info renamed,
// METADATA Version rewritten, RECORD regenerated), built aside and checked before any is renamed in.
#include <filesystem>
#include <string>
#include <vector>

#include "channels/store.hpp"
#include "core/error.hpp"

namespace relforge::channels {

// PyTorch uploads its default CUDA build to PyPI (examples/pytorch/relforge.toml: CUDA 13.0).
inline const std::vector<std::string> k_default_pypi_variants = {"cu130"};

enum class StagingState { planned, staged, unchanged };

struct StagedFile {
  std::string variant;
  std::filesystem::path source;  // the stored wheel
  std::string filename;          // without the local label: "mini-2.7.0-py3-none-any.whl"
  std::filesystem::path target;  // dir / filename
  std::string sha256;            // of the staged copy; empty while planned
  StagingState state = StagingState::planned;
};

// "mini-2.7.0+cu130-py3-none-any.whl" -> "mini-2.7.0-py3-none-any.whl".
Result<std::string> pypi_filename(const std::string& filename);

// The files of `variants` among `files`, with their target names in `dir`. nothing_selected when
// no file belongs to those variants; conflict when two files would get the same name.
Result<std::vector<StagedFile>> plan_pypi_staging(const std::vector<StoredFile>& files,
                                                  const std::vector<std::string>& variants,
                                                  const std::filesystem::path& dir);

// Phase one: writes every planned copy to a temp folder in `dir` and checks its RECORD and METADATA;
// conflict when `dir` already holds a different file of that name (an identical one is `unchanged`).
// Nothing in `dir` itself changes; on failure the temp folder is gone.
Status build_pypi_copies(std::vector<StagedFile>& items, const std::filesystem::path& dir);
// Phase two: renames the built copies into `dir` (marks them `staged`) and removes the temp folder.
Status commit_pypi_copies(std::vector<StagedFile>& items, const std::filesystem::path& dir);
// Drops the temp folder of phase one (when the promote it belongs to failed).
void discard_pypi_copies(const std::filesystem::path& dir);

}  // namespace relforge::channels
