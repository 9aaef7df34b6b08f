#pragma once
// A loopback HTTP server that answers with whatever bytes a test scripts, one connection at a time:
// wrong lengths, cut bodies, endless bodies, redirects, listings no S3 server would send. Every
// request it read is kept (method, target, lower-cased headers, body).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace relforge::test {

struct ScriptedRequest {
  std::string method;
  std::string target;  // as sent: "/bucket/key?query"
  std::map<std::string, std::string> headers;
  std::string body;
};

struct ScriptedAnswer {
  std::string bytes;     // status line, headers and (part of) a body, sent as they are
  bool endless = false;  // then keep sending body bytes until the client hangs up
};

// "HTTP/1.1 <status>" with Content-Length and Connection: close, plus `headers` ("Name: value\r\n"...).
inline ScriptedAnswer answer(int status, const std::string& body, const std::string& headers = "") {
  return {"HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: " + std::to_string(body.size()) +
          "\r\nConnection: close\r\n" + headers + "\r\n" + body};
}

class ScriptedServer {
public:
  using Script = std::function<ScriptedAnswer(const ScriptedRequest&)>;

  explicit ScriptedServer(Script script) : m_script(std::move(script)) {
    m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
    const int on = 1;
    ::setsockopt(m_fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 && ::listen(m_fd, 16) == 0 &&
        ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      m_port = ntohs(address.sin_port);
    }
    m_thread = std::thread([this] { serve(); });
  }
  ~ScriptedServer() {
    m_stop = true;
    m_thread.join();
    ::close(m_fd);
  }
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  int port() const { return m_port; }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(m_port); }
  std::vector<ScriptedRequest> requests() const {
    const std::lock_guard guard(m_mutex);
    return m_requests;
  }

private:
  void serve() {
    while (!m_stop) {
      pollfd ready{m_fd, POLLIN, 0};
      if (::poll(&ready, 1, 50) <= 0) continue;
      const int client = ::accept(m_fd, nullptr, nullptr);
      if (client < 0) continue;
      timeval timeout{5, 0};
      ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
      ScriptedRequest request;
      if (read_request(client, request)) {
        {
          const std::lock_guard guard(m_mutex);
          m_requests.push_back(request);
        }
        const ScriptedAnswer reply = m_script(request);
        bool open = send_all(client, reply.bytes);
        const std::string filler(65536, 'x');
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (open && reply.endless && !m_stop && std::chrono::steady_clock::now() < deadline)
          open = send_all(client, filler);
      }
      ::shutdown(client, SHUT_RDWR);
      ::close(client);
    }
  }

  static bool send_all(int fd, const std::string& bytes) {
    for (std::size_t done = 0; done < bytes.size();) {
      const ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  static bool read_request(int fd, ScriptedRequest& request) {
    std::string data;
    char buffer[65536];
    std::size_t head_end = std::string::npos;
    while ((head_end = data.find("\r\n\r\n")) == std::string::npos) {
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) return false;
      data.append(buffer, static_cast<std::size_t>(n));
    }
    const std::string head = data.substr(0, head_end);
    const auto line_end = head.find("\r\n");
    const std::string line = head.substr(0, line_end);
    const auto space = line.find(' ');
    request.method = line.substr(0, space);
    request.target = line.substr(space + 1, line.rfind(' ') - space - 1);
    for (std::size_t at = line_end; at != std::string::npos && at < head.size();) {
      const auto next = head.find("\r\n", at + 2);
      const std::string field =
          head.substr(at + 2, next == std::string::npos ? std::string::npos : next - at - 2);
      const auto colon = field.find(':');
      if (colon != std::string::npos) {
        std::string name = field.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::string value = field.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        while (!value.empty() && value.back() == ' ') value.pop_back();
        request.headers[name] = value;
      }
      at = next;
    }
    request.body = data.substr(head_end + 4);
    const auto length = request.headers.find("content-length");
    const std::size_t want = length == request.headers.end() ? 0 : std::stoull(length->second);
    while (request.body.size() < want) {
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) return false;
      request.body.append(buffer, static_cast<std::size_t>(n));
    }
    return true;
  }

  Script m_script;
  int m_fd = -1;
  int m_port = 0;
  std::atomic<bool> m_stop{false};
  mutable std::mutex m_mutex;
  std::vector<ScriptedRequest> m_requests;
  std::thread m_thread;
};

}  // namespace relforge::test
