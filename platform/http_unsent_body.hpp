#pragma once
// Internal to platform/: the part of an answer a slow reader has not taken yet (bytes held in
// memory, then a file part sent with sendfile), sent on a non-blocking socket a part at a time so
// that the rest can be left to the gate; bytes held for slow readers are counted against a budget.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "platform/open_beneath.hpp"

namespace relforge::platform::detail {

// What becomes of a connection once its requests are answered.
enum class AfterAnswers {
  close,  // done (the client asked, or a limit): close it
  wait,   // kept alive: back to the gate for the next request
  drain,  // its input was not all read: drop what is in flight for a moment, then close
  send,   // an answer is still being sent (UnsentBody::then says what follows it)
};

// Bytes of answers held in memory for slow readers, by every connection of one server together.
class ByteBudget {
public:
  explicit ByteBudget(std::size_t limit) : m_limit(limit) {}
  // Takes `count` bytes if they fit under the limit.
  bool take(std::size_t count);
  void give(std::size_t count) { m_used.fetch_sub(count, std::memory_order_relaxed); }

private:
  std::size_t m_limit;
  std::atomic<std::size_t> m_used{0};
};

// Bytes taken from a ByteBudget, given back when the lease ends (moved from: nothing to give).
class BudgetLease {
public:
  BudgetLease() = default;
  explicit BudgetLease(ByteBudget* budget) : m_budget(budget) {}
  BudgetLease(BudgetLease&& other) noexcept : m_budget(other.m_budget), m_count(other.m_count) {
    other.m_count = 0;
  }
  BudgetLease& operator=(BudgetLease&& other) noexcept;
  BudgetLease(const BudgetLease&) = delete;
  BudgetLease& operator=(const BudgetLease&) = delete;
  ~BudgetLease() { release(); }
  // Takes `count` more bytes; false (nothing taken) when the budget has no room.
  bool grow(std::size_t count);
  void release() {
    if (m_budget != nullptr && m_count > 0) m_budget->give(m_count);
    m_count = 0;
  }

private:
  ByteBudget* m_budget = nullptr;
  std::size_t m_count = 0;
};

struct UnsentBody {
  std::string bytes{};  // held in memory, sent first
  std::size_t bytes_sent = 0;
  BudgetLease lease{};  // for `bytes`
  std::shared_ptr<const OpenEntry> file{};
  std::uint64_t offset = 0;  // the next byte of the file to send
  std::uint64_t left = 0;    // bytes of the file still to send
  AfterAnswers then = AfterAnswers::wait;
};

enum class SendStep {
  done,     // every byte is sent
  blocked,  // the socket is full, or `budget` is spent: go on once it is writable
  failed,   // the client is gone, or the file ended early (it shrank): close the connection
};

// Sends at most `budget` bytes of `body` without blocking; `sent` counts what went out.
SendStep send_unsent_part(int socket, UnsentBody& body, std::size_t budget, std::size_t& sent);

}  // namespace relforge::platform::detail
