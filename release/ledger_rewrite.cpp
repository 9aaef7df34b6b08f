#include "release/ledger_rewrite.hpp"

#include <cassert>
#include <utility>

#include "core/text.hpp"
#include "release/pick_json.hpp"

namespace relforge::release {
namespace {

using Json = nlohmann::json;

std::string entry_label(const Pick& pick) {
  return "pick #" + std::to_string(pick.id) + " (" + pick.sha.substr(0, 12) + ")";
}

// Entries are keyed by release and commit, as merge_ledgers keys them.
Pick* entry_of(LedgerData& data, const Pick& pick) {
  auto series = data.find(pick.series);
  if (series == data.end()) return nullptr;
  for (auto& entry : series->second.picks) {
    if (entry.sha == pick.sha) return &entry;
  }
  return nullptr;
}

// A field's value for a message; a commit subject need not be UTF-8, and a message never throws.
std::string shown(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

Result<std::vector<std::string>> rewrite_entries(LedgerData& data, const std::vector<Pick>& from,
                                                 const std::vector<Pick>& to, OnLedgerEdit on_edit,
                                                 const std::string& command) {
  assert(from.size() == to.size());
  const std::string since = "since 'relforge release " + command + "' began";
  std::vector<std::string> kept, refused;
  // All entries are merged before any is set, so a refusal leaves `data` as it was.
  std::vector<std::pair<Pick*, Json>> merged;
  for (std::size_t i = 0; i < from.size(); ++i) {
    Pick* entry = entry_of(data, from[i]);
    if (entry == nullptr) {
      if (on_edit == OnLedgerEdit::refuse)
        refused.push_back(entry_label(from[i]) + " of " + from[i].series + " was removed");
      else
        kept.push_back(entry_label(from[i]) + " of " + from[i].series + " was removed from the ledger " +
                       since + ": nothing to restore");
      continue;
    }
    const Json base = from[i];
    const Json target = to[i];
    const Json now = *entry;
    Json result = now;
    for (const auto& [field, wanted] : target.items()) {
      if (field == "id") continue;
      const Json& was = base.at(field);
      const Json& is = now.at(field);
      if (wanted == was || is == wanted) continue;
      if (is == was) {
        result[field] = wanted;
        continue;
      }
      if (on_edit == OnLedgerEdit::refuse) {
        refused.push_back(entry_label(*entry) + " has " + field + " " + shown(is) +
                          " (the journal recorded " + shown(was) + " and would write " + shown(wanted) + ")");
      } else {
        kept.push_back(entry_label(*entry) + ": " + field + " stays " + shown(is) + ", set " + since +
                       " (it was " + shown(wanted) + " before)");
      }
    }
    merged.emplace_back(entry, std::move(result));
  }
  if (!refused.empty()) {
    return fail(ErrorCategory::conflict, "the pick ledger (" + std::string(Ledger::k_ref) + ") changed " +
                                             since + ": " + core::join(refused, "; "));
  }
  for (auto& [entry, result] : merged) *entry = result.get<Pick>();
  return kept;
}

}  // namespace relforge::release
