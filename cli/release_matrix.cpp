#include "cli/release_matrix.hpp"

#include "matrix/config.hpp"
#include "matrix/expand.hpp"
#include "matrix/names.hpp"
#include "packaging/version.hpp"

namespace relforge::cli {

namespace fs = std::filesystem;

Result<std::vector<channels::ExpectedFile>> release_matrix_files(const fs::path& config,
                                                                 const std::string& matrix_channel,
                                                                 std::string_view version) {
  auto parsed = packaging::parse_version(version);
  if (!parsed) return tl::unexpected(parsed.error());
  auto spec = matrix::load_spec(config);
  if (!spec) return tl::unexpected(spec.error());
  auto expansion = matrix::expand(*spec, matrix_channel);
  if (!expansion) return tl::unexpected(expansion.error());
  auto names = matrix::wheel_names(*expansion, spec->project, parsed->public_string());
  if (!names) return tl::unexpected(names.error().with_context(config.string()));
  std::vector<channels::ExpectedFile> files;
  files.reserve(names->size());
  for (auto& name : *names) files.push_back({std::move(name.id), std::move(name.file_name)});
  return files;
}

}  // namespace relforge::cli
