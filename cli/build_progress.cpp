#include "cli/build_progress.hpp"

#include <algorithm>
#include <chrono>

namespace relforge::cli {

std::string clock_text(std::int64_t ms) {
  const std::int64_t total = std::max<std::int64_t>(0, ms) / 1000;
  const auto two = [](std::int64_t value) { return (value < 10 ? "0" : "") + std::to_string(value); };
  if (total >= 3600) return std::to_string(total / 3600) + ":" + two(total / 60 % 60) + ":" + two(total % 60);
  return std::to_string(total / 60) + ":" + two(total % 60);
}

BuildDisplay::BuildDisplay(std::ostream& err, DisplayMode mode, Prefix prefix,
                           std::function<std::int64_t()> now_ms, std::function<std::string()> stamp)
    : m_err(err), m_mode(mode), m_prefix(prefix), m_now_ms(std::move(now_ms)), m_stamp(std::move(stamp)) {
  if (m_mode == DisplayMode::tty) m_ticker = std::thread([this] { tick(); });
}

BuildDisplay::~BuildDisplay() {
  finish();
}

void BuildDisplay::tick() {
  std::unique_lock lock(m_mutex);
  while (!m_stop) {
    draw();
    m_wake.wait_for(lock, std::chrono::seconds(1), [this] { return m_stop; });
  }
}

void BuildDisplay::print(const std::string& text) {
  if (m_mode == DisplayMode::tty) m_err << "\r\033[K";
  m_err << text << '\n';
  if (m_mode == DisplayMode::tty) draw();
  m_err << std::flush;
}

void BuildDisplay::draw() {
  const auto& bar = m_progress;
  const int total = bar.done + bar.failed + bar.running + bar.queued;
  const int width = 20, filled = total > 0 ? (bar.done + bar.failed) * width / total : 0;
  std::string text = "[" + std::string(static_cast<std::size_t>(filled), '#') +
                     std::string(static_cast<std::size_t>(width - filled), '.') + "] " +
                     std::to_string(bar.done) + " done, " + std::to_string(bar.failed) + " failed, " +
                     std::to_string(bar.running) + " running, " + std::to_string(bar.queued) + " queued";
  const auto now = m_now_ms();
  for (const auto& cell : bar.running_cells) {
    const auto elapsed = now - cell.started_ms;
    text += " | " + cell.cell + " " + clock_text(elapsed);
    if (cell.expected_ms > 0)
      text += elapsed <= cell.expected_ms ? " ETA " + clock_text(cell.expected_ms - elapsed)
                                          : " (+" + clock_text(elapsed - cell.expected_ms) + " over)";
  }
  m_err << "\r\033[K" << text << std::flush;
}

void BuildDisplay::line(const std::string& text) {
  std::lock_guard lock(m_mutex);
  if (m_mode == DisplayMode::github && !m_group.empty()) {
    // "3.11-b: succeeded — ..." while 3.11-a's group is open goes into 3.11-b's group, not a's.
    const std::string cell = text.substr(0, text.find(": "));
    const bool running = std::any_of(m_progress.running_cells.begin(), m_progress.running_cells.end(),
                                     [&](const builders::RunningCell& c) { return c.cell == cell; });
    if (cell != m_group && (running || m_held.contains(cell))) {
      m_held[cell].push_back(m_stamp() + text);
      return;
    }
  }
  print(m_stamp() + text);
}

void BuildDisplay::open_group(const std::string& cell) {
  m_group = cell;
  print("::group::" + cell);
  for (const auto& held : m_held[cell]) print(held);
  m_held.erase(cell);
}

void BuildDisplay::output(const std::string& cell, const std::string& text) {
  std::lock_guard lock(m_mutex);
  if (m_mode == DisplayMode::github) {
    // Groups cannot interleave: one cell's group is open and streams, the others wait for it.
    if (m_group.empty()) open_group(cell);
    if (m_group == cell)
      print(text);
    else
      m_held[cell].push_back(text);
    return;
  }
  print(m_prefix == Prefix::yes ? "[" + cell + "] " + text : text);
}

void BuildDisplay::progress(const builders::BuildProgress& progress) {
  std::lock_guard lock(m_mutex);
  std::set<std::string> running;
  for (const auto& cell : progress.running_cells) running.insert(cell.cell);
  for (const auto& cell : m_progress.running_cells)
    if (!running.contains(cell.cell)) m_ended.insert(cell.cell);
  m_progress = progress;
  if (m_mode == DisplayMode::github) {
    // The open group's cell ended: close it, print whole the groups of cells that ended meanwhile,
    // then stream the next running cell that has something to say.
    while (!m_group.empty() && m_ended.contains(m_group)) {
      m_ended.erase(m_group);
      print("::endgroup::");
      m_group.clear();
      std::string next;
      for (const auto& [cell, lines] : m_held)
        if (m_ended.contains(cell)) {
          next = cell;
          break;
        }
      if (next.empty() && !m_held.empty()) next = m_held.begin()->first;
      if (!next.empty()) open_group(next);
    }
    return;
  }
  if (m_mode == DisplayMode::tty) draw();
}

void BuildDisplay::finish() {
  {
    std::lock_guard lock(m_mutex);
    if (m_stop && !m_ticker.joinable()) return;
    m_stop = true;
    if (m_mode == DisplayMode::github) {
      if (!m_group.empty()) print("::endgroup::");
      m_group.clear();
      for (const auto& [cell, lines] : m_held) {
        print("::group::" + cell);
        for (const auto& held : lines) print(held);
        print("::endgroup::");
      }
      m_held.clear();
    }
    if (m_mode == DisplayMode::tty) m_err << "\r\033[K" << std::flush;
  }
  m_wake.notify_all();
  if (m_ticker.joinable()) m_ticker.join();
}

}  // namespace relforge::cli
