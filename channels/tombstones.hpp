#pragma once
// What a channel deleted, remembered forever: one .relforge-tombstones.json per variant project
// folder, written (whole, atomically) before any file goes, read by every publish. As on PyPI, a
// deleted identity is never published again, whatever its bytes.
#include <string>
#include <string_view>
#include <vector>

#include "channels/identity.hpp"
#include "channels/object_store.hpp"
#include "core/error.hpp"

namespace relforge::channels {

inline constexpr std::string_view k_tombstones_file = ".relforge-tombstones.json";

struct Tombstone {
  std::string filename;
  FileIdentity identity;
  std::string sha256;
  std::string deleted_at;  // 2025-01-02T03:04:05Z
  std::string reason;      // "pruned (keep 60)"
};

std::string tombstones_to_json(const std::vector<Tombstone>& tombstones);
Result<std::vector<Tombstone>> tombstones_from_json(std::string_view text, const std::string& where);

// The tombstones stored under `key`; none when it is absent.
Result<std::vector<Tombstone>> read_tombstones(ObjectStore& store, const std::string& key);
// Adds `added` to the record under `key` (an identity already there keeps its first tombstone).
Status add_tombstones(ObjectStore& store, const std::string& key, const std::vector<Tombstone>& added);

}  // namespace relforge::channels
