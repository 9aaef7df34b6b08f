#include "channels/object_store.hpp"

#include <algorithm>
#include <system_error>

#include "channels/store.hpp"
#include "platform/digest.hpp"
#include "platform/fs.hpp"

namespace relforge::channels {
namespace fs = std::filesystem;

Error immutable_conflict(const std::string& where, const std::string& existing_sha256) {
  return Error(ErrorCategory::conflict,
               where + " is already published with different bytes" +
                   (existing_sha256.empty() ? std::string() : " (sha256 " + existing_sha256 + ")") +
                   "; published files are immutable: bump the version or build number");
}

FilesystemObjectStore::FilesystemObjectStore(fs::path root) : m_root(std::move(root)) {}

Result<fs::path> FilesystemObjectStore::path_of(const std::string& key) const {
  // Keys come from file names and listings; one that climbs out of the root is a bug or an attack.
  for (const auto& part : fs::path(key)) {
    if (part == ".." || part.is_absolute()) {
      return fail(ErrorCategory::invalid_input, "object key '" + key + "' leaves the store");
    }
  }
  if (key.empty() || key.front() == '/') {
    return fail(ErrorCategory::invalid_input, "object key '" + key + "' is not a relative path");
  }
  return m_root / key;
}

std::string FilesystemObjectStore::describe(const std::string& key) const {
  return (m_root / key).string();
}

Result<PutResult> FilesystemObjectStore::put_if_absent(const std::string& key, const fs::path& file,
                                                       const std::string& sha256_hex, const std::string&) {
  auto target = path_of(key);
  if (!target) return tl::unexpected(target.error());
  std::error_code error;
  fs::create_directories(target->parent_path(), error);
  if (error)
    return fail(ErrorCategory::io,
                "cannot create " + target->parent_path().string() + ": " + error.message());
  if (!fs::exists(*target)) {
    // A hard link from a complete temp copy fails when the name exists: no window where a racing
    // publisher's bytes are replaced.
    const fs::path temp = target->parent_path() / ("." + target->filename().string() + ".partial");
    fs::copy_file(file, temp, fs::copy_options::overwrite_existing, error);
    if (error) {
      return fail(ErrorCategory::io,
                  "cannot copy " + file.string() + " to " + temp.string() + ": " + error.message());
    }
    fs::create_hard_link(temp, *target, error);
    std::error_code ignored;
    fs::remove(temp, ignored);
    if (!error) return PutResult::created;
    if (error != std::errc::file_exists) {
      return fail(ErrorCategory::io, "cannot store " + target->string() + ": " + error.message());
    }
  }
  auto existing = platform::sha256_file(*target);
  if (!existing) return tl::unexpected(existing.error());
  const std::string hex = platform::to_hex(*existing);
  if (hex != sha256_hex) return tl::unexpected(immutable_conflict(target->string(), hex));
  return PutResult::identical;
}

Status FilesystemObjectStore::put(const std::string& key, std::string_view bytes, const std::string&) {
  auto target = path_of(key);
  if (!target) return tl::unexpected(target.error());
  std::error_code error;
  fs::create_directories(target->parent_path(), error);
  if (error)
    return fail(ErrorCategory::io,
                "cannot create " + target->parent_path().string() + ": " + error.message());
  return platform::write_file_atomic(*target, bytes, platform::Durability::no_fsync);
}

Result<std::optional<std::string>> FilesystemObjectStore::get(const std::string& key) {
  auto target = path_of(key);
  if (!target) return tl::unexpected(target.error());
  if (!fs::is_regular_file(*target)) return std::optional<std::string>();
  auto text = platform::read_file(*target);
  if (!text) return tl::unexpected(text.error());
  return std::optional<std::string>(std::move(*text));
}

Status FilesystemObjectStore::download(const std::string& key, const fs::path& to) {
  auto target = path_of(key);
  if (!target) return tl::unexpected(target.error());
  if (!fs::is_regular_file(*target))
    return fail(ErrorCategory::not_found, target->string() + " does not exist");
  return copy_file_atomic(*target, to);
}

Result<std::optional<ObjectInfo>> FilesystemObjectStore::head(const std::string& key) {
  auto target = path_of(key);
  if (!target) return tl::unexpected(target.error());
  std::error_code error;
  const auto size = fs::file_size(*target, error);
  if (error) return std::optional<ObjectInfo>();
  return std::optional<ObjectInfo>(ObjectInfo{key, size, "", ""});
}

Result<std::vector<ObjectInfo>> FilesystemObjectStore::list(const std::string& prefix) {
  std::vector<ObjectInfo> out;
  // Walk only the deepest folder the prefix names, not the whole store.
  const auto slash = prefix.rfind('/');
  const fs::path start = slash == std::string::npos ? m_root : m_root / prefix.substr(0, slash);
  std::error_code error;
  if (!fs::is_directory(start, error)) return out;
  for (auto it = fs::recursive_directory_iterator(start, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (!it->is_regular_file()) continue;
    const std::string name = it->path().filename().string();
    if (name.ends_with(".partial") || name.ends_with(".download")) continue;  // in-flight writes
    std::string key = it->path().lexically_relative(m_root).generic_string();
    if (!key.starts_with(prefix)) continue;
    std::error_code size_error;
    const auto size = it->file_size(size_error);
    out.push_back({std::move(key), size_error ? 0 : size, "", ""});
  }
  if (error) return fail(ErrorCategory::io, "cannot list " + start.string() + ": " + error.message());
  std::sort(out.begin(), out.end(), [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
  return out;
}

Status FilesystemObjectStore::copy(const std::string& from_key, const std::string& to_key) {
  auto from = path_of(from_key);
  if (!from) return tl::unexpected(from.error());
  auto to = path_of(to_key);
  if (!to) return tl::unexpected(to.error());
  std::error_code error;
  fs::create_directories(to->parent_path(), error);
  if (error)
    return fail(ErrorCategory::io, "cannot create " + to->parent_path().string() + ": " + error.message());
  return copy_file_atomic(*from, *to);
}

Status FilesystemObjectStore::remove(const std::string& key) {
  auto target = path_of(key);
  if (!target) return tl::unexpected(target.error());
  std::error_code error;
  fs::remove(*target, error);
  if (error) return fail(ErrorCategory::io, "cannot remove " + target->string() + ": " + error.message());
  return {};
}

}  // namespace relforge::channels
