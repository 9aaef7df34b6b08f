#pragma once
// The channel store on disk, laid out like download.pytorch.org: stable whl/<variant>/<project>/,
// whl/nightly/<variant>/..., whl/test/<variant>/...; each wheel has beside it FILE.metadata (PEP 658),
// FILE.info.json (what the index needs), and when signed FILE.sigstore.json and FILE.provenance.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace relforge::channels {

enum class Channel { stable, test, nightly };

std::string_view channel_name(Channel channel);
Result<Channel> parse_channel(std::string_view name);
// Stable and test channels require signed wheels unless told otherwise.
bool channel_requires_signatures(Channel channel);

// root/whl, root/whl/test, root/whl/nightly
std::filesystem::path channel_dir(const std::filesystem::path& root, Channel channel);
// The same folders as object-store key prefixes: "whl", "whl/test", "whl/nightly".
std::string channel_key(Channel channel);

inline constexpr std::string_view k_variant_marker = ".relforge-variant";
inline constexpr std::string_view k_lock_file = ".relforge.lock";

// What the index says about one stored wheel (FILE.info.json).
struct FileInfo {
  std::string filename;
  std::string project;  // PEP 503 normalised
  std::string version;  // normal form, local label included
  std::string sha256;
  std::uint64_t size = 0;
  std::string metadata_sha256;
  std::string requires_python;
  std::string upload_time;  // 2025-01-02T03:04:05Z
  bool yanked = false;
  std::string yanked_reason;
  bool provenance = false;  // FILE.provenance exists
};

std::string info_to_json(const FileInfo& info);
Result<FileInfo> info_from_json(std::string_view text, const std::string& where);

// Variants of a channel: folders under channel_dir that carry the variant marker.
std::vector<std::string> list_variants(const std::filesystem::path& root, Channel channel);
// Project folders of one variant, sorted.
std::vector<std::string> list_projects(const std::filesystem::path& variant_dir);
// Names of the complete wheels (wheel + sidecar) in one project folder, sorted; none if no folder.
Result<std::vector<std::string>> list_complete_wheels(const std::filesystem::path& project_dir);
// Complete files of one project folder (a wheel plus its info), sorted by version then name.
Result<std::vector<FileInfo>> list_files(const std::filesystem::path& project_dir);

struct StoredFile {
  std::string variant;
  FileInfo info;
  std::filesystem::path path;  // the wheel
};
// Every complete file of a channel, over all variants.
Result<std::vector<StoredFile>> list_channel(const std::filesystem::path& root, Channel channel);

// Copies `from` to a temp name beside `to` and renames it into place.
Status copy_file_atomic(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace relforge::channels
