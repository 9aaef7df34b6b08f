#include "builders/reproducible.hpp"

namespace relforge::builders {

std::map<std::string, std::string> reproducible_environment(const std::filesystem::path& source,
                                                            const std::filesystem::path& work,
                                                            std::int64_t source_date_epoch) {
  // -ffile-prefix-map covers __FILE__, debug info and profile paths; the work dir is mapped after
  // the source so that a work dir inside the source still maps to ".".
  const std::string maps =
      "-ffile-prefix-map=" + source.string() + "=. -ffile-prefix-map=" + work.string() + "=.";
  const std::string nvcc_maps =
      "-Xcompiler=-ffile-prefix-map=" + source.string() + "=.,-ffile-prefix-map=" + work.string() + "=.";
  return {{"SOURCE_DATE_EPOCH", std::to_string(source_date_epoch)},
          {"TZ", "UTC"},
          {"LANG", "C.UTF-8"},
          {"LC_ALL", "C.UTF-8"},
          {"TMPDIR", (work / "tmp").string()},
          {"PYTHONHASHSEED", "0"},
          {"RELFORGE_PREFIX_MAP", maps},
          {"CFLAGS", maps},
          {"CXXFLAGS", maps},
          {"NVCC_APPEND_FLAGS", nvcc_maps}};
}

}  // namespace relforge::builders
