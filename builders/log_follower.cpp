#include "builders/log_follower.hpp"

#include <chrono>
#include <fstream>
#include <iterator>

namespace relforge::builders {

LogFollower::LogFollower(std::filesystem::path log, Emit emit)
    : m_log(std::move(log)), m_emit(std::move(emit)) {
  if (m_emit) m_thread = std::thread([this] { follow(); });
}

void LogFollower::stop() {
  if (!m_thread.joinable()) return;
  {
    platform::MutexLock lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  m_thread.join();
}

void LogFollower::follow() {
  std::uintmax_t offset = 0;
  std::string pending;
  for (bool last = false; !last;) {
    {
      platform::MutexLock lock(m_mutex);
      if (!m_stop)
        m_wake.wait_until(m_mutex, std::chrono::steady_clock::now() + std::chrono::milliseconds(100));
      last = m_stop;
    }
    std::ifstream in(m_log, std::ios::binary);
    if (!in) continue;
    in.seekg(static_cast<std::streamoff>(offset));
    std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    offset += chunk.size();
    pending += chunk;
    std::size_t start = 0;
    for (std::size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1)
      m_emit(pending.substr(start, end - start));
    pending.erase(0, start);
  }
  if (!pending.empty()) m_emit(pending);
}

}  // namespace relforge::builders
