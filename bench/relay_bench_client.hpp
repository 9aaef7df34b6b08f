#pragma once
// A minimal blocking HTTP/1.1 keep-alive client for the relay benchmarks: one socket, one request
// at a time, Content-Length bodies only (what the relay answers), TCP_NODELAY.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace relforge::bench {

class KeepAliveClient {
public:
  explicit KeepAliveClient(int port) {
    m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (m_fd < 0 || ::connect(m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
      throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
    int yes = 1;
    ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  }
  ~KeepAliveClient() {
    if (m_fd >= 0) ::close(m_fd);
  }
  KeepAliveClient(const KeepAliveClient&) = delete;
  KeepAliveClient& operator=(const KeepAliveClient&) = delete;

  // Sends a complete request and returns the status code; the body lands in `body`.
  int exchange(const std::string& request, std::string& body) {
    for (std::size_t sent = 0; sent < request.size();) {
      const ssize_t n = ::send(m_fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("send failed");
      sent += static_cast<std::size_t>(n);
    }
    std::size_t header_end;
    while ((header_end = m_buffer.find("\r\n\r\n")) == std::string::npos) fill();
    const std::string head = m_buffer.substr(0, header_end);
    const int status = std::atoi(head.c_str() + head.find(' ') + 1);
    std::string lower = head;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    const auto at = lower.find("content-length:");
    const std::size_t length =
        at == std::string::npos ? 0 : std::strtoul(lower.c_str() + at + 15, nullptr, 10);
    while (m_buffer.size() < header_end + 4 + length) fill();
    body = m_buffer.substr(header_end + 4, length);
    m_buffer.erase(0, header_end + 4 + length);
    return status;
  }

private:
  void fill() {
    char chunk[65536];
    const ssize_t n = ::recv(m_fd, chunk, sizeof chunk, 0);
    if (n <= 0) throw std::runtime_error("connection closed by the server");
    m_buffer.append(chunk, static_cast<std::size_t>(n));
  }
  int m_fd = -1;
  std::string m_buffer;
};

inline double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<std::size_t>(p / 100.0 * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

// CPU seconds (user + system) this process has used so far, all threads.
inline double process_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// CPU seconds the calling thread has used so far.
inline double thread_cpu_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

inline double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace relforge::bench
