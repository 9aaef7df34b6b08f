#include "platform/wal_checkpointer.hpp"

#include <sqlite3.h>

namespace relforge::platform {
namespace {

// SQLite's own automatic checkpoint threshold, restored when the checkpointer ends.
constexpr int k_sqlite_autocheckpoint = 1000;
// A passive checkpoint copies what was committed when it began; under a steady stream of commits
// the log never empties, and so never starts again from its beginning. Past this many times
// `pages`, a RESTART waits for the writer's current commit and lets the next one rewind the log.
constexpr int k_restart_factor = 16;

}  // namespace

Result<std::unique_ptr<WalCheckpointer>> WalCheckpointer::start(Database& writer, int pages) {
  const auto file = writer.file();
  if (!file) return std::unique_ptr<WalCheckpointer>();
  auto own = Database::open(*file);
  if (!own) return tl::unexpected(Error(own.error()).with_context("starting the WAL checkpointer"));
  return std::unique_ptr<WalCheckpointer>(new WalCheckpointer(writer, std::move(*own), pages));
}

WalCheckpointer::WalCheckpointer(Database& writer, Database own, int pages)
    : m_writer(writer), m_own(std::move(own)), m_pages(pages) {
  sqlite3_wal_hook(m_writer.handle(), &WalCheckpointer::on_commit, this);  // replaces autocheckpoint
  m_thread = std::thread([this] { run(); });
}

WalCheckpointer::~WalCheckpointer() {
  {
    MutexLock lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_one();
  m_thread.join();
  sqlite3_wal_autocheckpoint(m_writer.handle(), k_sqlite_autocheckpoint);
}

int WalCheckpointer::on_commit(void* self, sqlite3*, const char*, int frames) {
  auto* checkpointer = static_cast<WalCheckpointer*>(self);
  if (frames < checkpointer->m_pages) return SQLITE_OK;
  {
    MutexLock lock(checkpointer->m_mutex);
    checkpointer->m_due = true;
  }
  checkpointer->m_wake.notify_one();
  return SQLITE_OK;
}

void WalCheckpointer::run() {
  for (;;) {
    {
      MutexLock lock(m_mutex);
      while (!m_stop && !m_due) m_wake.wait(m_mutex);
      if (m_stop) return;
      m_due = false;
    }
    Status done = checkpoint_once();
    MutexLock lock(m_mutex);
    ++m_done;
    m_error = done ? std::string() : done.error().describe();  // the log keeps every frame meanwhile
  }
}

Status WalCheckpointer::checkpoint_once() {
  int log = 0, copied = 0;
  int code = sqlite3_wal_checkpoint_v2(m_own.handle(), nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied);
  if (code == SQLITE_OK && log >= m_pages * k_restart_factor) {
    code = sqlite3_wal_checkpoint_v2(m_own.handle(), nullptr, SQLITE_CHECKPOINT_RESTART, &log, &copied);
    if (code == SQLITE_BUSY) code = SQLITE_OK;  // the writer held on past the busy timeout: next time
  }
  if (code == SQLITE_OK) return {};
  return fail(ErrorCategory::io,
              "checkpointing " + m_own.file().value_or("").string() + ": " + sqlite3_errmsg(m_own.handle()));
}

std::int64_t WalCheckpointer::checkpoints() const {
  MutexLock lock(m_mutex);
  return m_done;
}

std::string WalCheckpointer::last_error() const {
  MutexLock lock(m_mutex);
  return m_error;
}

}  // namespace relforge::platform
