#include "ci_relay/upstream_commits.hpp"

#include <algorithm>

#include "ci_relay/commit_order.hpp"
#include "platform/sqlite_rows.hpp"

namespace relforge::ci_relay {
namespace {

Result<std::int64_t> next_seq(RelayStore& store) {
  auto stmt = store.cached("SELECT COALESCE(MAX(seq), 0) + 1 FROM commits");
  if (!stmt) return tl::unexpected(stmt.error());
  auto row = platform::first_row<std::int64_t>(**stmt);
  if (!row) return tl::unexpected(row.error());
  return *row ? std::get<0>(**row) : 1;
}

// Appending is right unless a commit of the push follows a known commit other than the one just
// before it, or a known commit was pushed after one of the push's (their push came first).
Result<bool> appended_out_of_chain(RelayStore& store, std::int64_t first_added) {
  auto stmt = store.cached(
      "SELECT EXISTS (SELECT 1 FROM commits c JOIN commits p ON p.sha = c.parent_sha "
      "WHERE c.seq >= ?1 AND p.seq != c.seq - 1) OR EXISTS (SELECT 1 FROM commits p "
      "JOIN commits c ON c.parent_sha = p.sha WHERE p.seq >= ?1 AND c.seq < ?1)");
  if (!stmt) return tl::unexpected(stmt.error());
  auto row = platform::first_row<bool>((*stmt)->bind(1, first_added));
  if (!row) return tl::unexpected(row.error());
  return *row && std::get<0>(**row);
}

// Every commit renumbered 1..N in chain order; returns those whose seq changed.
Result<std::vector<std::string>> resequence(RelayStore& store) {
  std::vector<ChainLink> links;
  {
    auto stmt = store.cached("SELECT sha, parent_sha FROM commits ORDER BY seq");
    if (!stmt) return tl::unexpected(stmt.error());
    auto read =
        platform::each_row<std::string, std::string>(**stmt, [&](std::string sha, std::string parent) {
          links.push_back({std::move(sha), std::move(parent)});
        });
    if (!read) return tl::unexpected(read.error());
  }
  const std::vector<std::size_t> order = chain_order(links);
  std::vector<std::string> moved;
  // seq is UNIQUE: moved rows park at -new first, so no two rows ever share a position.
  for (std::size_t at = 0; at < order.size(); ++at) {
    if (order[at] == at) continue;
    auto stmt = store.cached("UPDATE commits SET seq = ? WHERE sha = ?");
    if (!stmt) return tl::unexpected(stmt.error());
    const std::string& sha = links[order[at]].sha;
    if (auto ok = (*stmt)->bind(1, -static_cast<std::int64_t>(at + 1)).bind(2, sha).run(); !ok)
      return tl::unexpected(ok.error());
    moved.push_back(sha);
  }
  if (!moved.empty()) {
    auto stmt = store.cached("UPDATE commits SET seq = -seq WHERE seq < 0");
    if (!stmt) return tl::unexpected(stmt.error());
    if (auto ok = (*stmt)->run(); !ok) return tl::unexpected(ok.error());
  }
  return moved;
}

}  // namespace

Result<OrderedPush> record_push(RelayStore& store, const std::string& before,
                                const std::vector<PushedCommit>& pushed) {
  auto first_added = next_seq(store);
  if (!first_added) return tl::unexpected(first_added.error());
  std::int64_t next = *first_added;
  // A new branch's `before` is forty zeros: no commit.
  std::string parent =
      std::all_of(before.begin(), before.end(), [](char c) { return c == '0'; }) ? "" : before;
  OrderedPush result;
  for (const auto& commit : pushed) {
    auto stmt = store.cached(
        "INSERT INTO commits(sha, seq, parent_sha, message, author, committed_at) VALUES(?,?,?,?,?,?) "
        "ON CONFLICT(sha) DO NOTHING");
    if (!stmt) return tl::unexpected(stmt.error());
    (*stmt)->bind(1, commit.sha).bind(2, next).bind(3, parent).bind(4, commit.message).bind(5, commit.author);
    if (auto ok = (*stmt)->bind(6, commit.committed_at).run(); !ok) return tl::unexpected(ok.error());
    if (store.db().changes() > 0) {
      result.added.push_back(commit.sha);
      ++next;
    }
    parent = commit.sha;
  }
  if (result.added.empty()) return result;
  auto misplaced = appended_out_of_chain(store, *first_added);
  if (!misplaced) return tl::unexpected(misplaced.error());
  if (!*misplaced) return result;
  auto moved = resequence(store);
  if (!moved) return tl::unexpected(moved.error());
  for (auto& sha : *moved) {
    if (std::find(result.added.begin(), result.added.end(), sha) == result.added.end())
      result.moved.push_back(std::move(sha));
  }
  return result;
}

}  // namespace relforge::ci_relay
