#pragma once
// Checkpoints a WAL database from a thread and a connection of its own, so that a writer's commit
// never stops to copy the log into the database file: while one runs, the writer's automatic
// checkpoints are off, and a commit that leaves `pages` or more in the log only wakes this thread.
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "platform/sqlite.hpp"
#include "platform/sync.hpp"

namespace relforge::platform {

class WalCheckpointer {
public:
  // Opens a second connection to `writer`'s file and starts the thread. An in-memory database has
  // no log: nullptr then. `writer` must outlive the checkpointer and not be in use by another
  // thread while this starts or ends (the writer's commit hook is set and restored).
  static Result<std::unique_ptr<WalCheckpointer>> start(Database& writer, int pages = 1000);
  ~WalCheckpointer();  // stops the thread; the writer checkpoints by itself again
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // Checkpoints that have completed, and the last one's error (empty when it succeeded).
  std::int64_t checkpoints() const EXCLUDES(m_mutex);
  std::string last_error() const EXCLUDES(m_mutex);

private:
  WalCheckpointer(Database& writer, Database own, int pages);
  static int on_commit(void* self, sqlite3* db, const char* schema, int frames);
  void run() EXCLUDES(m_mutex);
  Status checkpoint_once();

  Database& m_writer;
  Database m_own;  // used by the thread only
  const int m_pages;
  mutable Mutex m_mutex;
  CondVar m_wake;
  bool m_due GUARDED_BY(m_mutex) = false;
  bool m_stop GUARDED_BY(m_mutex) = false;
  std::int64_t m_done GUARDED_BY(m_mutex) = 0;
  std::string m_error GUARDED_BY(m_mutex);
  std::thread m_thread;
};

}  // namespace relforge::platform
