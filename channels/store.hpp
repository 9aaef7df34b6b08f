#pragma once
// The channel store, laid out like download.pytorch.org: stable whl/<variant>/<project>/,
// whl/nightly/<variant>/..., whl/test/<variant>/...; each wheel has beside it FILE.metadata (PEP 658),
// FILE.info.json (what the index needs), and when signed FILE.sigstore.json and FILE.provenance.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
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

// A yank reason pip may show whoever installs: one line of UTF-8 text without control characters.
bool valid_yank_reason(std::string_view reason);
// Why a record may not go into a page as it is (hashes that are no lowercase sha256 hex, a yank
// reason `yank` would refuse, a file name other than its object's `stored_name`); nullopt: it may.
std::optional<std::string> record_problem(const FileInfo& info, std::string_view stored_name);

struct StoredFile {
  std::string variant;
  FileInfo info;
  std::filesystem::path path;  // the wheel, as ObjectStore::describe names it (a path for a folder)
  std::string key;             // the wheel's object key: "whl/nightly/cpu/mini/FILE.whl"
};

// Copies `from` to a temp name beside `to` and renames it into place.
Status copy_file_atomic(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace relforge::channels
