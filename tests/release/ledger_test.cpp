#include "release/ledger.hpp"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "platform/sqlite.hpp"
#include "tests/release/repo_fixture.hpp"

namespace relforge::release {
namespace {

Pick make_pick(std::int64_t id, const std::string& sha, const std::string& state, const std::string& by) {
  Pick pick;
  pick.id = id;
  pick.series = "2.7";
  pick.sha = sha;
  pick.subject = "subject of " + sha;
  pick.reason = "regression";
  pick.state = state;
  pick.requested_by = by;
  pick.requested_at = "2026-11-30T10:00:00Z";
  return pick;
}

std::string joined(const std::vector<std::string>& notes) {
  std::string all;
  for (const auto& note : notes) all += note + "\n";
  return all;
}

TEST(LedgerMerge, IsAUnionKeyedByCommitAndRenumbersAClashingId) {
  LedgerData ours, theirs;
  ours["2.7"].picks.push_back(make_pick(1, std::string(40, 'a'), "requested", "Alice <a@x>"));
  ours["2.7"].events.push_back({1, "requested", "regression by Alice <a@x>"});
  theirs["2.7"].picks.push_back(make_pick(1, std::string(40, 'b'), "requested", "Bob <b@x>"));
  theirs["2.7"].events.push_back({1, "requested", "regression by Bob <b@x>"});
  std::vector<std::string> notes;
  const LedgerData merged = merge_ledgers(ours, theirs, notes);
  ASSERT_EQ(merged.at("2.7").picks.size(), 2u);
  // The remote keeps its id; ours moves to the next free one, and says so.
  EXPECT_EQ(merged.at("2.7").picks[0].sha, std::string(40, 'b'));
  EXPECT_EQ(merged.at("2.7").picks[0].id, 1);
  EXPECT_EQ(merged.at("2.7").picks[1].sha, std::string(40, 'a'));
  EXPECT_EQ(merged.at("2.7").picks[1].id, 2);
  EXPECT_NE(joined(notes).find("is now #2"), std::string::npos) << joined(notes);
  ASSERT_EQ(merged.at("2.7").events.size(), 2u);
  EXPECT_EQ(merged.at("2.7").events[1].pick, 2);
  // Merging again changes nothing.
  std::vector<std::string> again;
  const LedgerData twice = merge_ledgers(merged, merged, again);
  EXPECT_EQ(twice.at("2.7").picks.size(), 2u);
  EXPECT_TRUE(again.empty()) << joined(again);
}

TEST(LedgerMerge, ConflictingDecisionsResolveTheSameWayFromEitherSide) {
  Pick approved = make_pick(3, std::string(40, 'c'), "approved", "Alice <a@x>");
  approved.approved_by = "Alice <a@x>";
  approved.approved_at = "2026-11-30T11:00:00Z";
  Pick rejected = make_pick(3, std::string(40, 'c'), "rejected", "Alice <a@x>");
  rejected.rejected_by = "Bob <b@x>";
  rejected.rejected_at = "2026-11-30T11:05:00Z";
  rejected.reject_reason = "too risky";
  LedgerData a, b;
  a["2.7"].picks.push_back(approved);
  b["2.7"].picks.push_back(rejected);
  std::vector<std::string> notes_ab, notes_ba;
  const LedgerData ab = merge_ledgers(a, b, notes_ab);
  const LedgerData ba = merge_ledgers(b, a, notes_ba);
  for (const LedgerData* merged : {&ab, &ba}) {
    ASSERT_EQ(merged->at("2.7").picks.size(), 1u);
    const Pick& pick = merged->at("2.7").picks[0];
    EXPECT_EQ(pick.state, "rejected");
    EXPECT_EQ(pick.reject_reason, "too risky");
    EXPECT_EQ(pick.rejected_by, "Bob <b@x>");
    EXPECT_EQ(pick.approved_by, "Alice <a@x>");  // the approval stays on record
  }
  EXPECT_NE(joined(notes_ab).find("approved here, rejected on the remote -> rejected"), std::string::npos)
      << joined(notes_ab);
  EXPECT_NE(joined(notes_ba).find("rejected here, approved on the remote -> rejected"), std::string::npos)
      << joined(notes_ba);
}

TEST(Ledger, ASubjectThatIsNotUtf8IsStoredWithReplacementCharacters) {
  test::TempRepo temp;
  temp.seed_project();
  auto repo = Repository::open(temp.work);
  ASSERT_TRUE(repo);
  auto ledger = Ledger::open(*repo);
  ASSERT_TRUE(ledger);
  auto added = ledger->add("2.7", std::string(40, 'e'), "Corrige le caf\xe9", "regression", "");  // Latin-1
  ASSERT_TRUE(added) << added.error().describe();
  auto read = ledger->read();
  ASSERT_TRUE(read) << read.error().describe();
  EXPECT_EQ(read->at("2.7").picks.at(0).subject, "Corrige le caf\xef\xbf\xbd");
}

TEST(Ledger, LivesOnARefAsOneJsonFilePerRelease) {
  test::TempRepo temp;
  temp.seed_project();
  auto repo = Repository::open(temp.work);
  ASSERT_TRUE(repo);
  auto ledger = Ledger::open(*repo);
  ASSERT_TRUE(ledger);
  auto added = ledger->add("2.7", std::string(40, 'd'), "Fix", "regression", "", {"Alice <a@x>", "t"});
  ASSERT_TRUE(added) << added.error().describe();
  Pick pick = *added;
  pick.state = "approved";
  ASSERT_TRUE(ledger->update(pick));
  EXPECT_EQ(temp.git("rev-list --count refs/relforge/releases"), "2");
  const std::string file = temp.git("show refs/relforge/releases:2.7.json");
  EXPECT_NE(file.find("\"state\": \"approved\""), std::string::npos) << file;
  EXPECT_NE(file.find(std::string(40, 'd')), std::string::npos) << file;
  auto duplicate = ledger->add("2.7", std::string(40, 'd'), "Fix", "regression", "");
  ASSERT_FALSE(duplicate);
  EXPECT_EQ(duplicate.error().category(), ErrorCategory::conflict);
  // A ledger file someone broke is an integrity error, not a silent empty ledger.
  const test::RunResult broke = test::run_shell(
      "cd " + test::shell_quote(temp.work.string()) +
      " && blob=$(printf 'not json' | git hash-object -w --stdin)"
      " && tree=$(printf '100644 blob %s\\t2.7.json\\n' $blob | git mktree)"
      " && commit=$(git commit-tree -m broken $tree) && git update-ref refs/relforge/releases $commit");
  ASSERT_EQ(broke.exit_code, 0) << broke.err;
  auto broken = ledger->list(std::nullopt);
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().category(), ErrorCategory::integrity);
}

TEST(Ledger, MigratesTheFormerSqliteLedgerOnce) {
  test::TempRepo temp;
  temp.seed_project();
  auto repo = Repository::open(temp.work);
  ASSERT_TRUE(repo);
  const auto legacy = temp.root / "release.db";
  {
    auto db = platform::Database::open(legacy);
    ASSERT_TRUE(db);
    ASSERT_TRUE(
        db->migrate({R"(CREATE TABLE picks(id INTEGER PRIMARY KEY, series TEXT NOT NULL, sha TEXT NOT NULL,
         subject TEXT NOT NULL, reason TEXT NOT NULL, note TEXT NOT NULL, state TEXT NOT NULL,
         applied_sha TEXT NOT NULL DEFAULT '', conflict_files TEXT NOT NULL DEFAULT '',
         needs_rc INTEGER NOT NULL DEFAULT 0, UNIQUE(series, sha));
       CREATE TABLE events(id INTEGER PRIMARY KEY, series TEXT NOT NULL, pick_id INTEGER NOT NULL,
         action TEXT NOT NULL, detail TEXT NOT NULL);
       INSERT INTO picks(id, series, sha, subject, reason, note, state, conflict_files)
         VALUES(7, '2.7', 'eeee', 'Old fix', 'critical', 'n', 'conflict', 'a.txt
b.txt');
       INSERT INTO events(series, pick_id, action, detail) VALUES('2.7', 7, 'conflict', 'a.txt,b.txt');)"}));
  }
  auto ledger = Ledger::open(*repo, legacy);
  ASSERT_TRUE(ledger) << ledger.error().describe();
  auto picks = ledger->list(std::nullopt);
  ASSERT_TRUE(picks);
  ASSERT_EQ(picks->size(), 1u);
  EXPECT_EQ((*picks)[0].id, 7);
  EXPECT_EQ((*picks)[0].state, "conflict");
  EXPECT_EQ((*picks)[0].conflict_files, (std::vector<std::string>{"a.txt", "b.txt"}));
  EXPECT_FALSE(std::filesystem::exists(legacy));
  EXPECT_TRUE(std::filesystem::exists(legacy.string() + ".migrated"));
  auto data = ledger->read();
  ASSERT_TRUE(data);
  EXPECT_EQ(data->at("2.7").events.size(), 1u);
  // The next id continues after the migrated ones.
  auto next = ledger->add("2.7", "ffff", "New", "regression", "");
  ASSERT_TRUE(next);
  EXPECT_EQ(next->id, 8);
}

TEST(Ledger, AFileThatIsNoLedgerIsNeitherReadNorRenamed) {
  test::TempRepo temp;
  temp.seed_project();
  auto repo = Repository::open(temp.work);
  ASSERT_TRUE(repo);
  const auto tracked = temp.work / "src" / "a.txt";
  // No ledger ref yet: a text file is refused, unchanged, whether migrating or only reading.
  for (const bool migrate : {true, false}) {
    auto refused = Ledger::open(*repo, tracked, migrate);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().category(), ErrorCategory::invalid_input);
    EXPECT_NE(refused.error().message().find("is not a relforge SQLite pick ledger"), std::string::npos)
        << refused.error().message();
    EXPECT_EQ(temp.read("src/a.txt"), "one\ntwo\nthree\n");
  }
  const auto empty = temp.root / "empty.db";
  std::ofstream(empty).flush();
  ASSERT_FALSE(Ledger::open(*repo, empty));
  EXPECT_EQ(std::filesystem::file_size(empty), 0u);
  EXPECT_FALSE(std::filesystem::exists(temp.root / "empty.db-wal"));
  EXPECT_FALSE(Ledger::open(*repo, temp.work / "src"));  // a folder

  // Once the ref exists, whatever --ledger names is left alone, unread.
  auto ledger = Ledger::open(*repo);
  ASSERT_TRUE(ledger);
  ASSERT_TRUE(ledger->add("2.7", "abcd", "Fix", "regression", ""));
  for (const bool migrate : {true, false}) {
    auto opened = Ledger::open(*repo, tracked, migrate);
    ASSERT_TRUE(opened) << opened.error().describe();
    EXPECT_TRUE(std::filesystem::exists(tracked));
    EXPECT_FALSE(std::filesystem::exists(tracked.string() + ".migrated"));
  }
  EXPECT_EQ(temp.git("status --porcelain"), "");
}

TEST(Ledger, ReadingWithoutMigratingChangesNothing) {
  test::TempRepo temp;
  temp.seed_project();
  auto repo = Repository::open(temp.work);
  ASSERT_TRUE(repo);
  const auto legacy = temp.root / "release.db";
  {
    auto db = platform::Database::open(legacy);
    ASSERT_TRUE(db);
    ASSERT_TRUE(
        db->migrate({R"(CREATE TABLE picks(id INTEGER PRIMARY KEY, series TEXT NOT NULL, sha TEXT NOT NULL,
         subject TEXT NOT NULL, reason TEXT NOT NULL, note TEXT NOT NULL, state TEXT NOT NULL,
         applied_sha TEXT NOT NULL DEFAULT '', conflict_files TEXT NOT NULL DEFAULT '',
         needs_rc INTEGER NOT NULL DEFAULT 0, UNIQUE(series, sha));
       CREATE TABLE events(id INTEGER PRIMARY KEY, series TEXT NOT NULL, pick_id INTEGER NOT NULL,
         action TEXT NOT NULL, detail TEXT NOT NULL);
       INSERT INTO picks(id, series, sha, subject, reason, note, state)
         VALUES(3, '2.7', 'eeee', 'Old fix', 'critical', 'n', 'approved');)"}));
  }
  auto ledger = Ledger::open(*repo, legacy, /*migrate=*/false);
  ASSERT_TRUE(ledger) << ledger.error().describe();
  auto picks = ledger->list(std::nullopt);
  ASSERT_TRUE(picks);
  ASSERT_EQ(picks->size(), 1u);
  EXPECT_EQ((*picks)[0].id, 3);
  EXPECT_TRUE(std::filesystem::exists(legacy));
  EXPECT_FALSE(std::filesystem::exists(legacy.string() + ".migrated"));
  EXPECT_EQ(temp.git("for-each-ref refs/relforge"), "");

  // A SQLite database that is no ledger is refused too.
  const auto other = temp.root / "other.db";
  {
    auto db = platform::Database::open(other);
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->execute("CREATE TABLE t(x)"));
  }
  auto refused = Ledger::open(*repo, other);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("no relforge pick ledger"), std::string::npos)
      << refused.error().message();
  EXPECT_TRUE(std::filesystem::exists(other));
}

}  // namespace
}  // namespace relforge::release
