#pragma once
// Follows a log file while a cell writes it, on a thread of its own, and hands each complete line
// (and the last, unterminated one once stopped) to `emit`, so a build can be watched as it happens.
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "platform/sync.hpp"

namespace relforge::builders {

class LogFollower {
public:
  using Emit = std::function<void(const std::string& line)>;
  // A null `emit` follows nothing and starts no thread.
  LogFollower(std::filesystem::path log, Emit emit);
  ~LogFollower() { stop(); }
  LogFollower(const LogFollower&) = delete;
  LogFollower& operator=(const LogFollower&) = delete;

  // Reads what is left, emits it and joins the thread; later calls do nothing.
  void stop();

private:
  void follow();

  std::filesystem::path m_log;
  Emit m_emit;
  platform::Mutex m_mutex;
  platform::CondVar m_wake;
  bool m_stop GUARDED_BY(m_mutex) = false;
  std::thread m_thread;
};

}  // namespace relforge::builders
