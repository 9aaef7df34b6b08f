#include "platform/http_file_body.hpp"

#include <sys/sendfile.h>

#include <algorithm>
#include <cerrno>

namespace relforge::platform::detail {

SendStep send_file_part(int socket, FileBody& body, std::size_t budget, std::size_t& sent) {
  sent = 0;
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
