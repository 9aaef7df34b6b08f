#pragma once
// Where a channel store's bytes live, as whole objects under '/'-separated keys laid out like the
// folders (whl/nightly/cpu/mini/FILE.whl): a local folder or an S3-compatible bucket. Published
// files go in through put_if_absent, which refuses other bytes under an existing key; writers that
// read-modify-write (publish, promote, prune, yank, rebuild) hold the store's lock().
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace relforge::channels {

// The Content-Type of each kind of object relforge puts in a store.
inline constexpr const char* k_wheel_content_type = "application/octet-stream";
inline constexpr const char* k_text_content_type = "text/plain; charset=utf-8";
inline constexpr const char* k_json_content_type = "application/json";

struct ObjectInfo {
  std::string key;
  std::uint64_t size = 0;
  std::string etag;    // as the store reports it (S3: quoted MD5 or multipart tag); may be empty
  std::string sha256;  // hex, from the object's metadata when the store keeps it; may be empty
};

enum class PutResult { created, identical };

struct ObjectPut {
  std::string key;
  std::string_view bytes;  // owned by the caller until put_many returns
  std::string content_type;
};

// Receives the bytes of keys[index] (nullopt: absent) from get_many.
using ObjectVisitor = std::function<Status(std::size_t index, std::optional<std::string> bytes)>;

// Held while a channel command reads the store and writes what it read into pages; released on
// destruction.
class StoreLock {
public:
  virtual ~StoreLock() = default;
};

// Whether list() also returns the temp files an interrupted write leaves (`index check` wants them).
enum class Temporaries { hide, show };

class ObjectStore {
public:
  virtual ~ObjectStore() = default;

  // Stores `file` (whose sha256 is `sha256_hex`) under `key` unless an object is there already:
  // the same bytes give `identical`, other bytes a conflict error.
  virtual Result<PutResult> put_if_absent(const std::string& key, const std::filesystem::path& file,
                                          const std::string& sha256_hex, const std::string& content_type) = 0;
  // Writes or replaces `key` (index pages, sidecars); readers see the old or the new object.
  virtual Status put(const std::string& key, std::string_view bytes, const std::string& content_type) = 0;
  virtual Result<std::optional<std::string>> get(const std::string& key) = 0;  // nullopt: absent
  // Reads many small objects (sidecars) and hands each to `visit`, in any order and possibly from
  // several threads at once (each index once); stops at the first error, `visit`'s included, and
  // returns it. The default gets them one after another.
  virtual Status get_many(const std::vector<std::string>& keys, const ObjectVisitor& visit);
  // put() for each object, possibly several at once and in any order; stops at the first error.
  // The default puts them one after another, in order.
  virtual Status put_many(const std::vector<ObjectPut>& objects);
  // Copies the object to `target`; a body longer than `max_bytes` (what the listing or record says
  // it holds) stops the transfer with an error, and nothing is left at `target`.
  virtual Status download(const std::string& key, const std::filesystem::path& target,
                          std::uint64_t max_bytes) = 0;
  virtual Result<std::optional<ObjectInfo>> head(const std::string& key) = 0;  // nullopt: absent
  // Every object whose key starts with `prefix`, sorted by key.
  virtual Result<std::vector<ObjectInfo>> list(const std::string& prefix,
                                               Temporaries temporaries = Temporaries::hide) = 0;
  // The keys of list(), without sizes or anything else: a folder store need not stat every file.
  // The default derives it from list().
  virtual Result<std::vector<std::string>> list_keys(const std::string& prefix,
                                                     Temporaries temporaries = Temporaries::hide);
  // The next '/'-separated segment of every key under `prefix` (which ends in '/'), sorted, folders
  // with a trailing '/': "cpu/", "index.html". The default derives it from list().
  virtual Result<std::vector<std::string>> children(const std::string& prefix);
  // The keys of the objects directly under `prefix` (which ends in '/'), sorted, without their sizes
  // or anything in deeper folders: which files a folder holds. The default derives it from list().
  virtual Result<std::vector<std::string>> file_keys(const std::string& prefix);
  virtual Status copy(const std::string& from_key, const std::string& to_key) = 0;
  virtual Status remove(const std::string& key) = 0;  // absent keys are not an error
  // Where `key` is, for messages: "s3://bucket/prefix/key" or "/srv/channels/key".
  virtual std::string describe(const std::string& key) const = 0;
  // The object's bytes as a local file when the store is a folder (read, never written); else nullopt.
  virtual std::optional<std::filesystem::path> local_path(const std::string& key) const = 0;
  // Serialises writers: a folder takes its lock file. S3 has no lock: its conditional put keeps a
  // wheel's bytes from being replaced, and two writers can race only on index pages and listing
  // caches, which `index check` reports and `index rebuild` repairs.
  virtual Result<std::unique_ptr<StoreLock>> lock() = 0;
};

// The existing on-disk layout as an object store: key "a/b" is the file root/a/b.
class FilesystemObjectStore final : public ObjectStore {
public:
  explicit FilesystemObjectStore(std::filesystem::path root);

  Result<PutResult> put_if_absent(const std::string& key, const std::filesystem::path& file,
                                  const std::string& sha256_hex, const std::string& content_type) override;
  Status put(const std::string& key, std::string_view bytes, const std::string& content_type) override;
  Result<std::optional<std::string>> get(const std::string& key) override;
  // Both in parallel: keys are grouped by folder, each folder read through one directory handle.
  Status get_many(const std::vector<std::string>& keys, const ObjectVisitor& visit) override;
  Status put_many(const std::vector<ObjectPut>& objects) override;
  Status download(const std::string& key, const std::filesystem::path& target,
                  std::uint64_t max_bytes) override;
  Result<std::optional<ObjectInfo>> head(const std::string& key) override;
  Result<std::vector<ObjectInfo>> list(const std::string& prefix,
                                       Temporaries temporaries = Temporaries::hide) override;
  Result<std::vector<std::string>> list_keys(const std::string& prefix,
                                             Temporaries temporaries = Temporaries::hide) override;
  Result<std::vector<std::string>> children(const std::string& prefix) override;  // one directory read
  // One directory read; only symlinks are stat-ed (a dangling one is no object).
  Result<std::vector<std::string>> file_keys(const std::string& prefix) override;
  Status copy(const std::string& from_key, const std::string& to_key) override;
  Status remove(const std::string& key) override;
  std::string describe(const std::string& key) const override;
  std::optional<std::filesystem::path> local_path(const std::string& key) const override;
  Result<std::unique_ptr<StoreLock>> lock() override;  // root/.relforge.lock

private:
  Result<std::filesystem::path> path_of(const std::string& key) const;
  // path_of, with its folder created (for writing).
  Result<std::filesystem::path> writable_path_of(const std::string& key) const;
  std::filesystem::path m_root;
};

// The conflict error both stores give for other bytes under an existing key.
Error immutable_conflict(const std::string& where, const std::string& existing_sha256);

// download() of no more bytes than head() says the object holds.
Status download_as_listed(ObjectStore& store, const std::string& key, const std::filesystem::path& target);

// The sha256 (hex) of an object, hashed as a stream: from the file itself in a folder, else from a
// download (no longer than head() says) into `scratch` (empty: scratch_folder({})), removed afterwards.
Result<std::string> object_sha256(ObjectStore& store, const std::string& key,
                                  const std::filesystem::path& scratch);

// `chosen`, or when empty the system temp folder ($TMPDIR, else /tmp); io error when there is none.
Result<std::filesystem::path> scratch_folder(const std::filesystem::path& chosen);

}  // namespace relforge::channels
