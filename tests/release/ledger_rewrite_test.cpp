#include "release/ledger_rewrite.hpp"

#include <gtest/gtest.h>

namespace relforge::release {
namespace {

// An apply's journal: pick #1 approved before, applied after.
struct Journal {
  Pick before;
  Pick after;
};

Journal apply_journal() {
  Journal journal;
  journal.before.id = 1;
  journal.before.series = "2.7";
  journal.before.sha = "1f0c2a9e3b4d5f60718293a4b5c6d7e8f9012345";
  journal.before.subject = "Fix a crash";
  journal.before.reason = "regression";
  journal.before.state = "approved";
  journal.before.approved_by = "Ada <ada@example.com>";
  journal.after = journal.before;
  journal.after.state = "applied";
  journal.after.applied_sha = "92b1df0c194e0fa3bf965e54062d4de24aff044e";
  return journal;
}

LedgerData ledger_with(const Pick& pick) {
  LedgerData data;
  data["2.7"].picks.push_back(pick);
  return data;
}

TEST(RewriteEntries, WritesTheCommandsFieldsAndKeepsAnyOtherEdit) {
  const Journal journal = apply_journal();
  Pick edited = journal.before;
  edited.note = "tracked in the advisory";
  LedgerData data = ledger_with(edited);
  auto kept = rewrite_entries(data, {journal.before}, {journal.after}, OnLedgerEdit::refuse, "pick apply 1");
  ASSERT_TRUE(kept) << kept.error().describe();
  EXPECT_TRUE(kept->empty());
  const Pick& now = data["2.7"].picks[0];
  EXPECT_EQ(now.state, "applied");
  EXPECT_EQ(now.applied_sha, journal.after.applied_sha);
  EXPECT_EQ(now.note, "tracked in the advisory");
  // Written already (a re-run after the ledger step): nothing changes.
  const LedgerData once = data;
  ASSERT_TRUE(rewrite_entries(data, {journal.before}, {journal.after}, OnLedgerEdit::refuse, "pick apply 1"));
  EXPECT_EQ(data["2.7"].picks[0].note, once.at("2.7").picks[0].note);
  EXPECT_EQ(data["2.7"].picks[0].state, "applied");
}

TEST(RewriteEntries, AFieldChangedToAThirdValueIsRefusedAndNothingIsSet) {
  const Journal journal = apply_journal();
  Pick rejected = journal.before;
  rejected.state = "rejected";
  rejected.reject_reason = "breaks the ABI";
  LedgerData data = ledger_with(rejected);
  auto refused =
      rewrite_entries(data, {journal.before}, {journal.after}, OnLedgerEdit::refuse, "pick apply 1");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().category(), ErrorCategory::conflict);
  EXPECT_EQ(refused.error().message(),
            "the pick ledger (refs/relforge/releases) changed since 'relforge release pick apply 1' began: "
            "pick #1 (1f0c2a9e3b4d) has state \"rejected\" (the journal recorded \"approved\" and would "
            "write \"applied\")");
  EXPECT_EQ(data["2.7"].picks[0].state, "rejected");
  EXPECT_EQ(data["2.7"].picks[0].applied_sha, "");
}

TEST(RewriteEntries, AValueThatIsNotUtf8IsNamedNotThrown) {
  const Journal journal = apply_journal();
  Pick edited = journal.before;
  edited.state = "rej\xff";  // a hand-made ledger holds whatever bytes were pushed
  LedgerData data = ledger_with(edited);
  auto refused =
      rewrite_entries(data, {journal.before}, {journal.after}, OnLedgerEdit::refuse, "pick apply 1");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("has state \"rej\xef\xbf\xbd\""), std::string::npos)
      << refused.error().message();
}

TEST(RewriteEntries, AnAbortRestoresItsOwnFieldsAndKeepsTheRestWithANote) {
  const Journal journal = apply_journal();
  Pick now = journal.after;
  now.state = "rejected";
  LedgerData data = ledger_with(now);
  auto kept =
      rewrite_entries(data, {journal.after}, {journal.before}, OnLedgerEdit::keep_ledger, "pick apply 1");
  ASSERT_TRUE(kept) << kept.error().describe();
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_EQ((*kept)[0],
            "pick #1 (1f0c2a9e3b4d): state stays \"rejected\", set since 'relforge release pick apply 1' "
            "began (it was \"approved\" before)");
  EXPECT_EQ(data["2.7"].picks[0].state, "rejected");
  EXPECT_EQ(data["2.7"].picks[0].applied_sha, "");
}

TEST(RewriteEntries, EntriesAreFoundByReleaseAndCommitNotById) {
  const Journal journal = apply_journal();
  Pick renumbered = journal.before;
  renumbered.id = 4;
  Pick other;
  other.id = 1;
  other.series = "2.7";
  other.sha = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  other.state = "requested";
  LedgerData data = ledger_with(other);
  data["2.7"].picks.push_back(renumbered);
  ASSERT_TRUE(rewrite_entries(data, {journal.before}, {journal.after}, OnLedgerEdit::refuse, "pick apply 1"));
  EXPECT_EQ(data["2.7"].picks[0].state, "requested");
  EXPECT_EQ(data["2.7"].picks[1].id, 4);
  EXPECT_EQ(data["2.7"].picks[1].state, "applied");
}

TEST(RewriteEntries, ARemovedEntryIsRefusedByARunAndNotedByAnAbort) {
  const Journal journal = apply_journal();
  LedgerData data;
  auto refused =
      rewrite_entries(data, {journal.before}, {journal.after}, OnLedgerEdit::refuse, "pick apply 1");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("pick #1 (1f0c2a9e3b4d) of 2.7 was removed"), std::string::npos)
      << refused.error().message();
  auto kept =
      rewrite_entries(data, {journal.after}, {journal.before}, OnLedgerEdit::keep_ledger, "pick apply 1");
  ASSERT_TRUE(kept);
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_NE((*kept)[0].find("nothing to restore"), std::string::npos) << (*kept)[0];
  EXPECT_TRUE(data.empty() || data["2.7"].picks.empty());
}

}  // namespace
}  // namespace relforge::release
