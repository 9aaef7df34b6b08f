#pragma once
// What makes a recipe's output independent of where and when it runs: the environment every
// recipe gets (the executor adds `umask 022`), and the time a build stamps without a commit.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace relforge::builders {

// 1980-01-01T00:00:00Z, the zip format's first day: SOURCE_DATE_EPOCH when there is no commit.
inline constexpr std::int64_t k_default_source_date_epoch = 315532800;

// SOURCE_DATE_EPOCH, TZ=UTC, LC_ALL=LANG=C.UTF-8, TMPDIR=WORK/tmp, PYTHONHASHSEED=0, and
// -ffile-prefix-map SOURCE=. and WORK=. in CFLAGS, CXXFLAGS, RELFORGE_PREFIX_MAP and (as
// -Xcompiler) NVCC_APPEND_FLAGS; `source` and `work` are the folders as the recipe sees them.
std::map<std::string, std::string> reproducible_environment(const std::filesystem::path& source,
                                                            const std::filesystem::path& work,
                                                            std::int64_t source_date_epoch);

}  // namespace relforge::builders
