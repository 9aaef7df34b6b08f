#pragma once
// JSON form of a Pick (the ledger files on refs/relforge/releases and the command journal share it).
#include <nlohmann/json.hpp>

#include "release/ledger.hpp"

namespace relforge::release {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Pick, id, series, sha, subject, reason, note, state,
                                                applied_sha, conflict_files, needs_rc, requested_by,
                                                requested_at, approved_by, approved_at, rejected_by,
                                                rejected_at, reject_reason, backport)

}  // namespace relforge::release
