#include "platform/http_unsent_body.hpp"

#include <sys/sendfile.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

namespace relforge::platform::detail {

bool ByteBudget::take(std::size_t count) {
  std::size_t used = m_used.load(std::memory_order_relaxed);
  do {
    if (count > m_limit || used > m_limit - count) return false;
  } while (!m_used.compare_exchange_weak(used, used + count, std::memory_order_relaxed));
  return true;
}

BudgetLease& BudgetLease::operator=(BudgetLease&& other) noexcept {
  if (this != &other) {
    release();
    m_budget = other.m_budget;
    m_count = other.m_count;
    other.m_count = 0;
  }
  return *this;
}

bool BudgetLease::grow(std::size_t count) {
  if (m_budget == nullptr || !m_budget->take(count)) return false;
  m_count += count;
  return true;
}

SendStep send_unsent_part(int socket, UnsentBody& body, std::size_t budget, std::size_t& sent) {
  sent = 0;
  while (body.bytes_sent < body.bytes.size() && sent < budget) {
    const std::size_t want = std::min(body.bytes.size() - body.bytes_sent, budget - sent);
    const ssize_t n = ::send(socket, body.bytes.data() + body.bytes_sent, want, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return SendStep::blocked;
    if (n <= 0) return SendStep::failed;
    body.bytes_sent += static_cast<std::size_t>(n);
    sent += static_cast<std::size_t>(n);
  }
  if (body.bytes_sent < body.bytes.size()) return SendStep::blocked;
  if (!body.bytes.empty()) {  // all sent: the memory and its budget go back now, not with the body
    body.bytes.clear();
    body.bytes.shrink_to_fit();
    body.bytes_sent = 0;
    body.lease.release();
  }
  while (body.left > 0 && sent < budget) {
    // sendfile moves at most 0x7ffff000 bytes a call.
    const std::size_t want = static_cast<std::size_t>(
        std::min<std::uint64_t>({body.left, budget - sent, std::uint64_t{0x7ffff000}}));
    auto offset = static_cast<off_t>(body.offset);
    const ssize_t n = ::sendfile(socket, body.file->fd(), &offset, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return SendStep::blocked;
    if (n <= 0) return SendStep::failed;  // 0: the file is shorter than its head said
    body.offset += static_cast<std::uint64_t>(n);
    body.left -= static_cast<std::uint64_t>(n);
    sent += static_cast<std::size_t>(n);
  }
  return body.left == 0 ? SendStep::done : SendStep::blocked;
}

}  // namespace relforge::platform::detail
