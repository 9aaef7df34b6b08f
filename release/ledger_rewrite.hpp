#pragma once
// A journal's ledger entries written over the ledger as it is now, which may have changed since the
// journal was written (a `git push` or `git fetch` of refs/relforge/releases): a three-way merge of
// each entry, field by field, so an edit made meanwhile is never silently overwritten.
#include <string>
#include <vector>

#include "core/error.hpp"
#include "release/ledger.hpp"

namespace relforge::release {

// refuse: finishing a command over a field changed meanwhile would contradict that change (conflict);
// keep_ledger: undoing a command restores only what the command set, and reports the rest.
enum class OnLedgerEdit { refuse, keep_ledger };

// For each pair (from[i], to[i]), the entry of the same release and commit in `data` (ids may have
// been renumbered by a merge): each field `to` changes is set where the entry holds `from`'s or `to`'s
// value; a third value is refused or kept. Returns a note for each kept value; `command` names the
// command in messages ("pick apply 3").
Result<std::vector<std::string>> rewrite_entries(LedgerData& data, const std::vector<Pick>& from,
                                                 const std::vector<Pick>& to, OnLedgerEdit on_edit,
                                                 const std::string& command);

}  // namespace relforge::release
