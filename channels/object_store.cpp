#include "channels/object_store.hpp"

#include <algorithm>
#include <memory>
#include <system_error>

#include "channels/store.hpp"
#include "core/parallel.hpp"
#include "platform/digest.hpp"
#include "platform/file_lock.hpp"
#include "platform/file_snapshot.hpp"
#include "platform/fs.hpp"
#include "platform/fs_walk.hpp"
#include "platform/interrupt_cleanup.hpp"
#include "platform/private_dir.hpp"

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
  // (Split by hand: a std::filesystem::path per key was 4% of a rebuild that checks 100,000.)
  for (std::size_t start = 0;;) {
    const auto slash = key.find('/', start);
    if (std::string_view(key).substr(start, slash == std::string::npos ? slash : slash - start) == "..")
      return fail(ErrorCategory::invalid_input, "object key '" + key + "' leaves the store");
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (key.empty() || key.front() == '/') {
    return fail(ErrorCategory::invalid_input, "object key '" + key + "' is not a relative path");
  }
  return m_root / key;
}

std::string FilesystemObjectStore::describe(const std::string& key) const {
  return (m_root / key).string();
}

std::optional<fs::path> FilesystemObjectStore::local_path(const std::string& key) const {
  auto target = path_of(key);
  if (!target) return std::nullopt;
  return *target;
}

namespace {
class FolderLock final : public StoreLock {
public:
  explicit FolderLock(platform::FileLock lock) : m_lock(std::move(lock)) {}

private:
  platform::FileLock m_lock;
};

// Pages and listing caches are re-creatable from the store (`index rebuild`): a power cut may cost
// a rebuild, never data, so only they skip the fsync.
platform::Durability durability_of(const std::string& key) {
  const bool page = key.ends_with("/index.html") || key.ends_with("/index.json") ||
                    key.ends_with("/.relforge-listing") || key == "index.html" || key == "index.json";
  return page ? platform::Durability::no_fsync : platform::Durability::fsync;
}
}  // namespace

Result<std::unique_ptr<StoreLock>> FilesystemObjectStore::lock() {
  std::error_code error;
  fs::create_directories(m_root, error);
  if (error) return fail(ErrorCategory::io, "cannot create " + m_root.string() + ": " + error.message());
  auto lock = platform::FileLock::acquire(m_root / std::string(k_lock_file));
  if (!lock) return tl::unexpected(lock.error());
  return std::unique_ptr<StoreLock>(std::make_unique<FolderLock>(std::move(*lock)));
}

Result<fs::path> scratch_folder(const fs::path& chosen) {
  if (!chosen.empty()) return chosen;
  std::error_code error;
  auto temp = fs::temp_directory_path(error);
  if (error)
    return fail(ErrorCategory::io,
                "no temp folder for downloads (" + error.message() + "): set TMPDIR to a folder that exists");
  return temp;
}

Status download_as_listed(ObjectStore& store, const std::string& key, const fs::path& target) {
  auto info = store.head(key);
  if (!info) return tl::unexpected(info.error());
  if (!info->has_value()) return fail(ErrorCategory::not_found, store.describe(key) + " does not exist");
  return store.download(key, target, (*info)->size);
}

Result<std::string> object_sha256(ObjectStore& store, const std::string& key, const fs::path& scratch) {
  if (auto local = store.local_path(key)) {
    auto digest = platform::sha256_file(*local);
    if (!digest) return tl::unexpected(digest.error());
    return platform::to_hex(*digest);
  }
  auto folder = scratch_folder(scratch);
  if (!folder) return tl::unexpected(folder.error());
  std::error_code error;
  fs::create_directories(*folder, error);
  if (error) return fail(ErrorCategory::io, "cannot create " + folder->string() + ": " + error.message());
  // A folder of its own: a name in a shared temp folder could be planted (a link) beforehand.
  auto work =
      platform::PrivateDir::create(".relforge-hash-", "for the download of " + store.describe(key), *folder);
  if (!work) return tl::unexpected(work.error());
  const fs::path target = work->path() / "object";
  if (auto status = download_as_listed(store, key, target); !status) return tl::unexpected(status.error());
  auto digest = platform::sha256_file(target);
  if (!digest) return tl::unexpected(digest.error());
  return platform::to_hex(*digest);
}

Result<fs::path> FilesystemObjectStore::writable_path_of(const std::string& key) const {
  auto target = path_of(key);
  if (!target) return target;
  std::error_code error;
  fs::create_directories(target->parent_path(), error);
  if (error)
    return fail(ErrorCategory::io,
                "cannot create " + target->parent_path().string() + ": " + error.message());
  return target;
}

Result<PutResult> FilesystemObjectStore::put_if_absent(const std::string& key, const fs::path& file,
                                                       const std::string& sha256_hex, const std::string&) {
  auto target = writable_path_of(key);
  if (!target) return tl::unexpected(target.error());
  std::error_code error;
  if (!fs::exists(*target)) {
    // A hard link from a complete temp copy fails when the name exists: no window where a racing
    // publisher's bytes are replaced.
    const fs::path temp = target->parent_path() / ("." + target->filename().string() + ".partial");
    std::error_code ignored;
    // Only the bytes that were checked are stored: a file rewritten since has another hash. Readable
    // as the sidecars are (0666 less the umask): a web server running as another user serves it.
    // A temp file a crash left behind is removed first, or it would keep its own mode.
    const platform::RemovedOnInterrupt removed_on_interrupt(temp);
    fs::remove(temp, ignored);
    auto copied = platform::copy_file_hashing(file, temp, 0666);
    if (!copied) {
      fs::remove(temp, ignored);
      return tl::unexpected(copied.error());
    }
    if (*copied != sha256_hex) {
      fs::remove(temp, ignored);
      return fail(ErrorCategory::integrity, file.string() + " changed while it was being published (sha256 " +
                                                *copied + ", checked as " + sha256_hex +
                                                "); nothing was stored under " + key + ": publish it again");
    }
    // The bytes reach the disk before the name does: a sidecar written next must never describe a
    // wheel that a power cut left empty.
    error = platform::fsync_path(temp);
    if (error) {
      fs::remove(temp, ignored);
      return fail(ErrorCategory::io,
                  "cannot copy " + file.string() + " to " + temp.string() + ": " + error.message());
    }
    fs::create_hard_link(temp, *target, error);
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
  auto target = writable_path_of(key);
  if (!target) return tl::unexpected(target.error());
  // An unchanged object is left as it is: no rename, so its mtime and ETag stay stable.
  if (platform::file_has_content(*target, bytes)) return {};
  return platform::write_file_atomic(*target, bytes, durability_of(key));
}

Result<std::optional<std::string>> FilesystemObjectStore::get(const std::string& key) {
  auto target = path_of(key);
  if (!target) return tl::unexpected(target.error());
  if (!fs::is_regular_file(*target)) return std::optional<std::string>();
  auto text = platform::read_file(*target);
  if (!text) return tl::unexpected(text.error());
  return std::optional<std::string>(std::move(*text));
}

Status ObjectStore::get_many(const std::vector<std::string>& keys, const ObjectVisitor& visit) {
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto bytes = get(keys[i]);
    if (!bytes) return tl::unexpected(bytes.error());
    if (auto status = visit(i, std::move(*bytes)); !status) return status;
  }
  return {};
}

Status ObjectStore::put_many(const std::vector<ObjectPut>& objects) {
  for (const auto& object : objects) {
    if (auto status = put(object.key, object.bytes, object.content_type); !status) return status;
  }
  return {};
}

Status FilesystemObjectStore::get_many(const std::vector<std::string>& keys, const ObjectVisitor& visit) {
  // Runs of keys in one folder: a folder's sidecars are opened relative to one directory handle,
  // and folders are read on every core (a rebuild reads 100,000 of them).
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  const auto folder_of = [](const std::string& key) {
    const auto slash = key.rfind('/');
    return std::string_view(key).substr(0, slash == std::string::npos ? 0 : slash);
  };
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (runs.empty() || folder_of(keys[runs.back().first]) != folder_of(keys[i])) runs.emplace_back(i, i);
    runs.back().second = i + 1;
  }
  return core::parallel_for(runs.size(), [&](std::size_t r) -> Status {
    // Not a structured binding: clang before 16 cannot capture one in the lambda below.
    const std::size_t first = runs[r].first;
    const std::size_t last = runs[r].second;
    for (std::size_t i = first; i < last; ++i) {
      if (auto checked = path_of(keys[i]); !checked) return tl::unexpected(checked.error());
    }
    const std::string folder(folder_of(keys[first]));
    auto dir = platform::Directory::open(folder.empty() ? m_root : m_root / folder);
    if (!dir) {
      if (dir.error().category() != ErrorCategory::not_found) return tl::unexpected(dir.error());
      for (std::size_t i = first; i < last; ++i) {
        if (auto status = visit(i, std::nullopt); !status) return status;
      }
      return {};
    }
    std::vector<std::string> names;
    names.reserve(last - first);
    for (std::size_t i = first; i < last; ++i)
      names.push_back(keys[i].substr(folder.empty() ? 0 : folder.size() + 1));
    return dir->read_each(names, [&](std::size_t n, Result<std::string> text) -> Status {
      if (!text && text.error().category() != ErrorCategory::not_found) return tl::unexpected(text.error());
      return visit(first + n, text ? std::optional(std::move(*text)) : std::nullopt);
    });
  });
}

Status FilesystemObjectStore::put_many(const std::vector<ObjectPut>& objects) {
  // Runs of objects in one folder go to one thread: two threads creating files in one folder wait
  // on its lock in the kernel.
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  const auto folder_of = [](const std::string& key) {
    return std::string_view(key).substr(0, key.rfind('/') + 1);
  };
  for (std::size_t i = 0; i < objects.size(); ++i) {
    if (runs.empty() || folder_of(objects[runs.back().first].key) != folder_of(objects[i].key))
      runs.emplace_back(i, i);
    runs.back().second = i + 1;
  }
  return core::parallel_for(runs.size(), [&](std::size_t r) -> Status {
    const auto [first, last] = runs[r];
    for (std::size_t i = first; i < last; ++i) {
      if (auto checked = path_of(objects[i].key); !checked) return tl::unexpected(checked.error());
    }
    // Each run's folder is opened once and its files written through that handle: no path walk
    // and no folder check per file (a rebuild writes ~5,300).
    auto folder = writable_path_of(objects[first].key);
    if (!folder) return tl::unexpected(folder.error());
    auto dir = platform::Directory::open(folder->parent_path());
    if (!dir) return tl::unexpected(dir.error());
    for (std::size_t i = first; i < last; ++i) {
      const auto& object = objects[i];
      const std::string name = object.key.substr(object.key.rfind('/') + 1);
      if (dir->has_content(name, object.bytes)) continue;  // as put(): an unchanged object stays
      if (auto status = dir->write_atomic(name, object.bytes, durability_of(object.key)); !status)
        return status;
    }
    return {};
  });
}

Status FilesystemObjectStore::download(const std::string& key, const fs::path& to, std::uint64_t max_bytes) {
  auto target = path_of(key);
  if (!target) return tl::unexpected(target.error());
  if (!fs::is_regular_file(*target))
    return fail(ErrorCategory::not_found, target->string() + " does not exist");
  std::error_code error;
  if (const auto size = fs::file_size(*target, error); !error && size > max_bytes) {
    return fail(ErrorCategory::integrity, target->string() + " holds " + std::to_string(size) +
                                              " bytes, more than the " + std::to_string(max_bytes) +
                                              " its record says; run 'relforge index check'");
  }
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

namespace {

bool temporary_name(std::string_view name) {
  return name.ends_with(".partial") || name.ends_with(".download") ||
         name.find(".tmp.") != std::string_view::npos;
}

// The files under `prefix`, walking only the deepest folder the prefix names (not the whole store).
Result<std::vector<platform::WalkedFile>> walk_prefix(const fs::path& root, const std::string& prefix,
                                                      Temporaries temporaries, bool sizes) {
  const auto slash = prefix.rfind('/');
  const std::string folder_key = slash == std::string::npos ? "" : prefix.substr(0, slash + 1);
  const fs::path start = folder_key.empty() ? root : root / folder_key.substr(0, slash);
  std::vector<platform::WalkedFile> files;
  platform::WalkFilter filter;
  filter.enter = [&prefix](std::string_view key) {
    return key.starts_with(prefix) || prefix.starts_with(key);
  };
  filter.keep = [&prefix, temporaries](std::string_view key, std::string_view name) {
    if (temporary_name(name) && temporaries == Temporaries::hide) return false;  // in-flight writes
    return key.starts_with(prefix);
  };
  filter.sizes = sizes;
  if (auto status = platform::walk_files(start, folder_key, filter, files); !status)
    return tl::unexpected(status.error());
  return files;
}

}  // namespace

Result<std::vector<ObjectInfo>> FilesystemObjectStore::list(const std::string& prefix,
                                                            Temporaries temporaries) {
  auto walked = walk_prefix(m_root, prefix, temporaries, true);
  if (!walked) return tl::unexpected(walked.error());
  auto& files = *walked;
  std::vector<ObjectInfo> out;
  out.reserve(files.size());
  for (auto& file : files) out.push_back({std::move(file.key), file.size, "", ""});
  std::sort(out.begin(), out.end(), [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
  return out;
}

Result<std::vector<std::string>> FilesystemObjectStore::list_keys(const std::string& prefix,
                                                                  Temporaries temporaries) {
  auto walked = walk_prefix(m_root, prefix, temporaries, false);
  if (!walked) return tl::unexpected(walked.error());
  std::vector<std::string> out;
  out.reserve(walked->size());
  for (auto& file : *walked) out.push_back(std::move(file.key));
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<std::string>> ObjectStore::list_keys(const std::string& prefix, Temporaries temporaries) {
  auto objects = list(prefix, temporaries);
  if (!objects) return tl::unexpected(objects.error());
  std::vector<std::string> out;
  out.reserve(objects->size());
  for (auto& object : *objects) out.push_back(std::move(object.key));
  return out;
}

Result<std::vector<std::string>> ObjectStore::children(const std::string& prefix) {
  auto objects = list(prefix);
  if (!objects) return tl::unexpected(objects.error());
  std::vector<std::string> out;
  for (const auto& object : *objects) {
    const std::string rest = object.key.substr(prefix.size());
    const auto slash = rest.find('/');
    std::string child = slash == std::string::npos ? rest : rest.substr(0, slash + 1);
    if (out.empty() || out.back() != child) out.push_back(std::move(child));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<std::vector<std::string>> FilesystemObjectStore::children(const std::string& prefix) {
  std::vector<std::string> out;
  const fs::path dir = prefix.empty() ? m_root : m_root / prefix;
  if (!prefix.empty()) {
    if (auto checked = path_of(prefix.substr(0, prefix.size() - 1)); !checked)
      return tl::unexpected(checked.error());
  }
  std::error_code error;
  for (auto it = fs::directory_iterator(dir, error); !error && it != fs::directory_iterator();
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (temporary_name(name)) continue;
    std::error_code type_error;
    out.push_back(it->is_directory(type_error) ? name + "/" : name);
  }
  if (error && error != std::errc::no_such_file_or_directory)
    return fail(ErrorCategory::io, "cannot list " + dir.string() + ": " + error.message());
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<std::string>> ObjectStore::file_keys(const std::string& prefix) {
  auto objects = list(prefix);
  if (!objects) return tl::unexpected(objects.error());
  std::vector<std::string> out;
  for (auto& object : *objects) {
    if (object.key.find('/', prefix.size()) == std::string::npos) out.push_back(std::move(object.key));
  }
  return out;
}

Result<std::vector<std::string>> FilesystemObjectStore::file_keys(const std::string& prefix) {
  if (auto checked = path_of(prefix.empty() ? "." : prefix.substr(0, prefix.size() - 1)); !checked)
    return tl::unexpected(checked.error());
  const fs::path dir = prefix.empty() ? m_root : m_root / prefix;
  auto names = platform::regular_file_names(dir);
  if (!names) return tl::unexpected(names.error());
  std::vector<std::string> out;
  for (const auto& name : *names) {
    if (!temporary_name(name)) out.push_back(prefix + name);
  }
  std::sort(out.begin(), out.end());
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
