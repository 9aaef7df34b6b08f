#pragma once
// A TCP client that speaks raw bytes to a server on 127.0.0.1, for tests that play a hostile client.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace relforge::test {

class RawClient {
public:
  // `from`: the loopback address to connect from (127.0.0.2 is another client to the server).
  explicit RawClient(int port, const char* from = nullptr) {
    m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (from) {
      sockaddr_in source{};
      source.sin_family = AF_INET;
      ::inet_pton(AF_INET, from, &source.sin_addr);
      ::bind(m_fd, reinterpret_cast<sockaddr*>(&source), sizeof source);
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval timeout{10, 0};
    ::setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    m_connected = ::connect(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~RawClient() { ::close(m_fd); }
  bool connected() const { return m_connected; }
  // False once the server has closed (or reset) the connection.
  bool send(const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::send(m_fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }
  // Closes the sending side (the server reads end of stream), keeping the connection open for reading.
  void finish_sending() { ::shutdown(m_fd, SHUT_WR); }
  // Everything until the server closes the connection (or 10 s pass).
  std::string read_all() {
    std::string out;
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::recv(m_fd, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      out.append(buffer, static_cast<std::size_t>(n));
    }
    return out;
  }
  // What arrives until it holds `marker` (or `wait` passes): no more, so the connection stays usable.
  std::string read_until(std::string_view marker, std::chrono::milliseconds wait) {
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (out.find(marker) == std::string::npos) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd fd{m_fd, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&fd, 1, static_cast<int>(left.count())) <= 0) break;
      char byte = 0;
      if (::recv(m_fd, &byte, 1, 0) != 1) break;
      out += byte;
    }
    return out;
  }
  int fd() const { return m_fd; }
  bool readable() const {
    pollfd fd{m_fd, POLLIN, 0};
    return ::poll(&fd, 1, 0) > 0;
  }

private:
  int m_fd = -1;
  bool m_connected = false;
};

}  // namespace relforge::test
