#pragma once
// How `relforge build` shows a build as it happens, on stderr: each cell's log lines live
// (prefixed `[cell] ` when several cells build at once; inside `::group::cell` … `::endgroup::`
// under GitHub Actions, one cell's group at a time), and on a TTY a status line redrawn every second
// with each running cell's elapsed time and ETA (from its last successful build).
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "builders/executor.hpp"

namespace relforge::cli {

enum class DisplayMode { plain, github, tty };
enum class Prefix { no, yes };

class BuildDisplay {
public:
  // `now_ms` is the executor's monotonic clock; `stamp` gives the time text before status lines.
  BuildDisplay(std::ostream& err, DisplayMode mode, Prefix prefix, std::function<std::int64_t()> now_ms,
               std::function<std::string()> stamp);
  ~BuildDisplay();
  BuildDisplay(const BuildDisplay&) = delete;
  BuildDisplay& operator=(const BuildDisplay&) = delete;

  void line(const std::string& text);                             // a status line of the executor
  void output(const std::string& cell, const std::string& text);  // a line of a cell's log
  void progress(const builders::BuildProgress& progress);
  void finish();  // closes an open group, clears the status line, stops the ticker

private:
  void print(const std::string& text);  // with m_mutex held: above the status line
  void draw();                          // with m_mutex held
  void open_group(const std::string& cell);
  void tick();

  std::ostream& m_err;
  DisplayMode m_mode;
  Prefix m_prefix;
  std::function<std::int64_t()> m_now_ms;
  std::function<std::string()> m_stamp;
  std::mutex m_mutex;
  builders::BuildProgress m_progress;
  std::string m_group;                                     // the cell whose group is open
  std::map<std::string, std::vector<std::string>> m_held;  // lines of cells waiting for the group
  std::set<std::string> m_ended;                           // cells finished while held back
  bool m_stop = false;
  std::condition_variable m_wake;
  std::thread m_ticker;
};

// "1:05", "12:00:03": a duration for people.
std::string clock_text(std::int64_t ms);

}  // namespace relforge::cli
