#include "release/ledger.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <set>
#include <string_view>

#include "core/text.hpp"
#include "platform/sqlite.hpp"
#include "release/pick_json.hpp"

namespace relforge::release {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LedgerEvent, pick, action, detail)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SeriesLedger, picks, events)

namespace {

using Json = nlohmann::json;

constexpr std::array<std::string_view, 5> k_reasons = {"regression", "critical", "fixnewfeature", "docs",
                                                       "release"};

int state_rank(const std::string& state) {
  static const std::array<std::string_view, 5> order = {"requested", "approved", "conflict", "rejected",
                                                        "applied"};
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i] == state) return static_cast<int>(i);
  }
  return -1;
}

std::string fill(const std::string& mine, const std::string& other) {
  return mine.empty() ? other : mine;
}

// A file named as the former ledger is checked before SQLite opens it (which would write to an
// empty file and make a -wal beside it): a regular file starting with SQLite's header.
Status check_legacy(const std::filesystem::path& path) {
  const std::string refusal = "'" + path.string() +
                              "' is not a relforge SQLite pick ledger, so it was neither migrated nor "
                              "changed; --ledger names the former .git/relforge/release.db";
  std::error_code error;
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path, error)))
    return fail(ErrorCategory::invalid_input, refusal + " (not a regular file)");
  std::ifstream in(path, std::ios::binary);
  std::array<char, 16> header{};
  if (!in.read(header.data(), header.size()) ||
      std::string_view(header.data(), header.size()) != std::string_view("SQLite format 3\0", 16))
    return fail(ErrorCategory::invalid_input, refusal + " (no SQLite header)");
  return {};
}

// The former SQLite ledger, read once for the migration.
Result<LedgerData> read_legacy(const std::filesystem::path& path) {
  auto db = platform::Database::open(path);
  if (!db) return tl::unexpected(db.error());
  LedgerData data;
  auto columns = db->prepare("SELECT name FROM pragma_table_info('picks')");
  if (!columns) return tl::unexpected(columns.error());
  std::set<std::string> have;
  while (true) {
    auto row = columns->step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    have.insert(columns->column_text(0));
  }
  for (const char* needed : {"id", "series", "sha", "subject", "reason", "note", "state"}) {
    if (have.count(needed) == 0)
      return fail(ErrorCategory::invalid_input, "'" + path.string() +
                                                    "' is a SQLite database but no relforge pick ledger (its "
                                                    "'picks' table has no '" +
                                                    needed + "'): nothing was migrated");
  }
  const auto column = [&](const std::string& name, const char* fallback) {
    return have.count(name) != 0 ? name : std::string(fallback);
  };
  auto select = db->prepare(
      "SELECT id, series, sha, subject, reason, note, state, applied_sha, conflict_files, "
      "needs_rc, " +
      column("requested_by", "''") + ", " + column("requested_at", "''") + ", " +
      column("approved_by", "''") + ", " + column("approved_at", "''") + ", " + column("rejected_by", "''") +
      ", " + column("rejected_at", "''") + ", " + column("reject_reason", "''") + ", " +
      column("backport", "0") + " FROM picks ORDER BY id");
  if (!select) return tl::unexpected(select.error());
  while (true) {
    auto row = select->step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    Pick pick;
    pick.id = select->column_int(0);
    pick.series = select->column_text(1);
    pick.sha = select->column_text(2);
    pick.subject = select->column_text(3);
    pick.reason = select->column_text(4);
    pick.note = select->column_text(5);
    pick.state = select->column_text(6);
    pick.applied_sha = select->column_text(7);
    const std::string files = select->column_text(8);
    if (!files.empty()) {
      for (const auto part : core::split(files, '\n')) pick.conflict_files.emplace_back(part);
    }
    pick.needs_rc = select->column_int(9) != 0;
    pick.requested_by = select->column_text(10);
    pick.requested_at = select->column_text(11);
    pick.approved_by = select->column_text(12);
    pick.approved_at = select->column_text(13);
    pick.rejected_by = select->column_text(14);
    pick.rejected_at = select->column_text(15);
    pick.reject_reason = select->column_text(16);
    pick.backport = select->column_int(17) != 0;
    data[pick.series].picks.push_back(std::move(pick));
  }
  auto events = db->prepare("SELECT series, pick_id, action, detail FROM events ORDER BY id");
  if (!events) return tl::unexpected(events.error());
  while (true) {
    auto row = events->step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    data[events->column_text(0)].events.push_back(
        {events->column_int(1), events->column_text(2), events->column_text(3)});
  }
  return data;
}

Result<LedgerData> decode(const std::map<std::string, std::string>& files) {
  LedgerData data;
  for (const auto& [name, text] : files) {
    if (!name.ends_with(".json")) continue;
    const Json json = Json::parse(text, nullptr, false);
    if (json.is_discarded() || !json.is_object())
      return fail(ErrorCategory::integrity, "the release ledger file " + name + " is not valid JSON");
    try {
      data[name.substr(0, name.size() - 5)] = json.get<SeriesLedger>();
    } catch (const Json::exception& error) {
      return fail(ErrorCategory::integrity,
                  "the release ledger file " + name + " is malformed: " + error.what());
    }
  }
  return data;
}

std::map<std::string, std::string> encode(const LedgerData& data) {
  std::map<std::string, std::string> files;
  // A commit subject need not be UTF-8 (git stores a message's bytes); the file is JSON, so
  // ill-formed bytes are written as U+FFFD instead of failing the write.
  for (const auto& [series, ledger] : data)
    files[series + ".json"] = Json(ledger).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  return files;
}

Pick* find_pick(LedgerData& data, std::int64_t id) {
  for (auto& [series, ledger] : data) {
    for (auto& pick : ledger.picks) {
      if (pick.id == id) return &pick;
    }
  }
  return nullptr;
}

std::int64_t next_id(const LedgerData& data) {
  std::int64_t top = 0;
  for (const auto& [series, ledger] : data) {
    for (const auto& pick : ledger.picks) top = std::max(top, pick.id);
  }
  return top + 1;
}

}  // namespace

LedgerData merge_ledgers(const LedgerData& ours, const LedgerData& theirs, std::vector<std::string>& notes) {
  LedgerData merged = theirs;
  std::vector<Pick> only_ours;
  for (const auto& [series, ledger] : ours) {
    auto& target = merged[series];
    for (const auto& pick : ledger.picks) {
      auto same = std::find_if(target.picks.begin(), target.picks.end(),
                               [&](const Pick& other) { return other.sha == pick.sha; });
      if (same == target.picks.end()) {
        only_ours.push_back(pick);
        continue;
      }
      const Pick remote = *same;
      bool ours_wins = false;
      if (pick.state != remote.state) {
        ours_wins = state_rank(pick.state) > state_rank(remote.state);
        notes.push_back("pick #" + std::to_string(remote.id) + " (" + pick.sha.substr(0, 12) +
                        "): " + pick.state + " here, " + remote.state + " on the remote -> " +
                        (ours_wins ? pick.state : remote.state));
        if (ours_wins) {
          *same = pick;
          same->id = remote.id;
        }
      }
      // Whoever decided on either side stays on record.
      const Pick& other = ours_wins ? remote : pick;
      same->requested_by = fill(same->requested_by, other.requested_by);
      same->requested_at = fill(same->requested_at, other.requested_at);
      same->approved_by = fill(same->approved_by, other.approved_by);
      same->approved_at = fill(same->approved_at, other.approved_at);
      same->rejected_by = fill(same->rejected_by, other.rejected_by);
      same->rejected_at = fill(same->rejected_at, other.rejected_at);
      same->reject_reason = fill(same->reject_reason, other.reject_reason);
    }
  }
  // Ours alone, in our id order: an id the remote gives another commit moves to the next free one.
  std::map<std::pair<std::string, std::int64_t>, std::int64_t> renumbered;
  std::sort(only_ours.begin(), only_ours.end(), [](const Pick& a, const Pick& b) { return a.id < b.id; });
  for (auto pick : only_ours) {
    if (find_pick(merged, pick.id) != nullptr) {
      const std::int64_t id = next_id(merged);
      notes.push_back("pick #" + std::to_string(pick.id) + " (" + pick.sha.substr(0, 12) +
                      ") from this clone is now #" + std::to_string(id) + ": the remote has another #" +
                      std::to_string(pick.id));
      renumbered[{pick.series, pick.id}] = id;
      pick.id = id;
    }
    merged[pick.series].picks.push_back(std::move(pick));
  }
  for (const auto& [series, ledger] : ours) {
    auto& target = merged[series];
    const auto& remote_events =
        theirs.count(series) != 0 ? theirs.at(series).events : std::vector<LedgerEvent>{};
    for (auto event : ledger.events) {
      const bool known = std::any_of(remote_events.begin(), remote_events.end(), [&](const LedgerEvent& e) {
        return e.pick == event.pick && e.action == event.action && e.detail == event.detail;
      });
      if (known) continue;
      if (auto moved = renumbered.find({series, event.pick}); moved != renumbered.end())
        event.pick = moved->second;
      target.events.push_back(std::move(event));
    }
  }
  for (auto& [series, ledger] : merged) {
    std::sort(ledger.picks.begin(), ledger.picks.end(),
              [](const Pick& a, const Pick& b) { return a.id < b.id; });
  }
  return merged;
}

Status check_reason(const std::string& reason) {
  for (const auto known : k_reasons) {
    if (reason == known) return {};
  }
  return fail(
      ErrorCategory::invalid_input,
      "unknown pick criterion '" + reason + "': use regression, critical, fixnewfeature, docs or release");
}

Result<Ledger> Ledger::open(const Repository& repo, const std::filesystem::path& legacy, bool migrate) {
  Ledger ledger(repo);
  std::error_code error;
  if (legacy.empty() || !std::filesystem::exists(legacy, error)) return ledger;
  auto current = repo.ref_object(k_ref);
  if (!current) return tl::unexpected(current.error());
  // The ref is the ledger once it exists: whatever file --ledger names is none of its business.
  if (*current) return ledger;
  if (auto ok = check_legacy(legacy); !ok) return tl::unexpected(ok.error());
  auto data = read_legacy(legacy);
  if (!data)
    return with_context(Result<Ledger>(tl::unexpected(data.error())),
                        "migrating the ledger " + legacy.string());
  if (!migrate) {
    ledger.m_unmigrated = std::move(*data);
    return ledger;
  }
  auto commit = repo.write_tree_commit(
      {}, encode(*data), "relforge: migrate the pick ledger from " + legacy.filename().string() + "\n");
  if (!commit) return tl::unexpected(commit.error());
  if (auto ok = repo.update_ref(k_ref, "", *commit, "relforge: migrate the pick ledger"); !ok)
    return tl::unexpected(ok.error());
  // Read once: the ref is the ledger from now on.
  std::filesystem::rename(legacy, legacy.string() + ".migrated", error);
  if (error) return fail(ErrorCategory::io, "renaming " + legacy.string() + ": " + error.message());
  return ledger;
}

Result<LedgerData> Ledger::read() const {
  auto current = m_repo->ref_object(k_ref);
  if (!current) return tl::unexpected(current.error());
  if (!*current) return m_unmigrated.value_or(LedgerData{});
  auto files = m_repo->read_top_files(**current);
  if (!files) return tl::unexpected(files.error());
  return decode(*files);
}

template <typename Change>
Status Ledger::change(const std::string& what, Change&& mutate) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto current = m_repo->ref_object(k_ref);
    if (!current) return tl::unexpected(current.error());
    auto data = read();
    if (!data) return tl::unexpected(data.error());
    const auto before = encode(*data);
    if (auto ok = mutate(*data); !ok) return ok;
    // No empty commits: a resumed command rewriting the same entries leaves the ref alone.
    if (*current && encode(*data) == before) return {};
    std::vector<std::string> parents;
    if (*current) parents.push_back(**current);
    auto commit = m_repo->write_tree_commit(parents, encode(*data), "relforge: " + what + "\n");
    if (!commit) return tl::unexpected(commit.error());
    auto moved = m_repo->update_ref(k_ref, current->value_or(""), *commit, "relforge: " + what);
    if (moved) return {};
    if (moved.error().category() != ErrorCategory::conflict) return moved;
  }
  return fail(ErrorCategory::conflict, "the pick ledger kept changing under '" + what + "': try again");
}

Status Ledger::edit(const std::string& what, const std::function<Status(LedgerData&)>& mutate) {
  return change(what, mutate);
}

Result<Pick> Ledger::add(const std::string& series, const std::string& sha, const std::string& subject,
                         const std::string& reason, const std::string& note, const Actor& requester,
                         bool backport) {
  Pick added;
  auto ok =
      change("request a pick of " + sha.substr(0, 12) + " for " + series, [&](LedgerData& data) -> Status {
        for (const auto& pick : data[series].picks) {
          if (pick.sha == sha) {
            return fail(ErrorCategory::conflict, "commit " + sha + " is already pick #" +
                                                     std::to_string(pick.id) + " for " + series + " (" +
                                                     pick.state + ")");
          }
        }
        added = Pick{};
        added.id = next_id(data);
        added.series = series;
        added.sha = sha;
        added.subject = subject;
        added.reason = reason;
        added.note = note;
        added.state = "requested";
        added.requested_by = requester.who;
        added.requested_at = requester.when;
        added.backport = backport;
        data[series].picks.push_back(added);
        return {};
      });
  if (!ok) return tl::unexpected(ok.error());
  return added;
}

Result<Pick> Ledger::get(std::int64_t id) {
  auto data = read();
  if (!data) return tl::unexpected(data.error());
  if (const Pick* pick = find_pick(*data, id)) return *pick;
  return fail(ErrorCategory::not_found, "no pick #" + std::to_string(id) + ": see 'relforge release picks'");
}

Result<std::vector<Pick>> Ledger::list(const std::optional<std::string>& series) {
  auto data = read();
  if (!data) return tl::unexpected(data.error());
  std::vector<Pick> picks;
  for (const auto& [name, ledger] : *data) {
    if (series && name != *series) continue;
    picks.insert(picks.end(), ledger.picks.begin(), ledger.picks.end());
  }
  std::sort(picks.begin(), picks.end(), [](const Pick& a, const Pick& b) { return a.id < b.id; });
  return picks;
}

Status Ledger::update(const Pick& pick) {
  return change("pick #" + std::to_string(pick.id) + " " + pick.state, [&](LedgerData& data) -> Status {
    Pick* stored = find_pick(data, pick.id);
    if (stored == nullptr) return fail(ErrorCategory::not_found, "no pick #" + std::to_string(pick.id));
    *stored = pick;
    return {};
  });
}

Status Ledger::clear_needs_rc(const std::string& series) {
  return change("new RC of " + series, [&](LedgerData& data) -> Status {
    for (auto& pick : data[series].picks) pick.needs_rc = false;
    return {};
  });
}

Status Ledger::log(const std::string& series, std::int64_t pick_id, const std::string& action,
                   const std::string& detail) {
  return change(action + (pick_id != 0 ? " #" + std::to_string(pick_id) : "") + " (" + series + ")",
                [&](LedgerData& data) -> Status {
                  data[series].events.push_back({pick_id, action, detail});
                  return {};
                });
}

Result<SyncReport> Ledger::sync(const std::string& remote) {
  const std::string fetched = "refs/relforge/fetched/releases";
  SyncReport report;
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto ours = m_repo->ref_object(k_ref);
    if (!ours) return tl::unexpected(ours.error());
    report.before = ours->value_or("");
    auto refs = m_repo->remote_refs(remote);
    if (!refs) return tl::unexpected(refs.error());
    const auto theirs = refs->find(k_ref);
    std::string target = report.before;
    if (theirs != refs->end()) {
      if (auto ok = m_repo->fetch_ref(remote, k_ref, fetched); !ok) return tl::unexpected(ok.error());
      report.fetched = true;
      const std::string remote_head = theirs->second;
      if (target.empty()) {
        target = remote_head;
      } else if (target != remote_head) {
        auto contains = m_repo->is_descendant_or_equal(target, remote_head);
        if (!contains) return tl::unexpected(contains.error());
        auto behind = m_repo->is_descendant_or_equal(remote_head, target);
        if (!behind) return tl::unexpected(behind.error());
        if (*behind) {
          target = remote_head;
        } else if (!*contains) {
          auto mine = read();
          if (!mine) return tl::unexpected(mine.error());
          auto files = m_repo->read_top_files(remote_head);
          if (!files) return tl::unexpected(files.error());
          auto other = decode(*files);
          if (!other) return tl::unexpected(other.error());
          std::vector<std::string> notes;
          const LedgerData merged = merge_ledgers(*mine, *other, notes);
          auto commit = m_repo->write_tree_commit({target, remote_head}, encode(merged),
                                                  "relforge: merge the pick ledger from " + remote + "\n");
          if (!commit) return tl::unexpected(commit.error());
          target = *commit;
          report.notes = std::move(notes);
        }
      }
    }
    if (target.empty()) return report;  // nothing here, nothing there
    if (target != report.before) {
      auto moved = m_repo->update_ref(k_ref, report.before, target, "relforge: sync the pick ledger");
      if (!moved) {
        if (moved.error().category() == ErrorCategory::conflict) continue;
        return tl::unexpected(moved.error());
      }
    }
    report.after = target;
    if (theirs != refs->end() && theirs->second == target) return report;
    auto pushed = m_repo->push_report(remote, {std::string(k_ref) + ":" + k_ref});
    if (!pushed) {
      if (pushed.error().category() == ErrorCategory::conflict) continue;  // the remote moved: again
      return tl::unexpected(pushed.error());
    }
    if (!pushed->rejected.empty()) {
      if (attempt < 4) continue;
      return fail(ErrorCategory::conflict,
                  "the remote '" + remote + "' rejected " + k_ref + ": " + pushed->rejected.front().second);
    }
    report.pushed = true;
    return report;
  }
  return fail(ErrorCategory::conflict,
              "the remote's pick ledger kept moving: run 'relforge release pick sync " + remote + "' again");
}

}  // namespace relforge::release
