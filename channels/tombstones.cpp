#include "channels/tombstones.hpp"

#include <set>

#include <nlohmann/json.hpp>

namespace relforge::channels {
namespace {
using Json = nlohmann::ordered_json;
}  // namespace

std::string tombstones_to_json(const std::vector<Tombstone>& tombstones) {
  Json list = Json::array();
  for (const auto& stone : tombstones) {
    list.push_back({{"filename", stone.filename},
                    {"project", stone.identity.project},
                    {"version", stone.identity.version},
                    {"version_key", stone.identity.version_key},
                    {"build", stone.identity.build},
                    {"tags", stone.identity.tags},
                    {"sha256", stone.sha256},
                    {"deleted_at", stone.deleted_at},
                    {"reason", stone.reason}});
  }
  return Json{{"relforge_tombstones", 1}, {"deleted", list}}.dump(1) + "\n";
}

Result<std::vector<Tombstone>> tombstones_from_json(std::string_view text, const std::string& where) {
  const auto json = Json::parse(text, nullptr, false);
  const auto bad = [&](const std::string& what) {
    // Losing the record would let deleted files come back: refuse rather than guess.
    return fail(ErrorCategory::integrity, where + " is not a valid tombstone record (" + what +
                                              "); restore it from a backup before publishing here");
  };
  if (json.is_discarded() || !json.is_object() || !json.contains("deleted") || !json["deleted"].is_array())
    return bad("expected an object with a \"deleted\" list");
  std::vector<Tombstone> out;
  for (const auto& entry : json["deleted"]) {
    if (!entry.is_object()) return bad("an entry is not an object");
    Tombstone stone;
    try {
      stone.filename = entry.at("filename").get<std::string>();
      stone.identity.project = entry.at("project").get<std::string>();
      stone.identity.version = entry.at("version").get<std::string>();
      stone.identity.version_key = entry.at("version_key").get<std::string>();
      stone.identity.build = entry.value("build", "");
      stone.identity.tags = entry.at("tags").get<std::vector<std::string>>();
      stone.sha256 = entry.value("sha256", "");
      stone.deleted_at = entry.value("deleted_at", "");
      stone.reason = entry.value("reason", "");
    } catch (const nlohmann::json::exception& error) {
      return bad(error.what());
    }
    out.push_back(std::move(stone));
  }
  return out;
}

Result<std::vector<Tombstone>> read_tombstones(ObjectStore& store, const std::string& key) {
  auto text = store.get(key);
  if (!text) return tl::unexpected(text.error());
  if (!text->has_value()) return std::vector<Tombstone>{};
  return tombstones_from_json(**text, store.describe(key));
}

Status add_tombstones(ObjectStore& store, const std::string& key, const std::vector<Tombstone>& added) {
  auto existing = read_tombstones(store, key);
  if (!existing) return tl::unexpected(existing.error());
  std::set<std::string> known;
  for (const auto& stone : *existing) known.insert(stone.identity.key());
  bool changed = false;
  for (const auto& stone : added) {
    if (!known.insert(stone.identity.key()).second) continue;
    existing->push_back(stone);
    changed = true;
  }
  if (!changed) return {};
  return store.put(key, tombstones_to_json(*existing), k_json_content_type);
}

}  // namespace relforge::channels
