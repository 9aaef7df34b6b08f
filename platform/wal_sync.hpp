#pragma once
// A WAL database's log made durable from outside its connection (fdatasync of the "-wal" file). A
// writer can then commit with synchronous=NORMAL under its lock, release the lock, sync, and only
// then acknowledge what it committed: the fsync no longer holds up the next writer. SQLite deletes
// the log only when its last connection closes, so the file stays the one being written while
// the writer's connection is open.
#include <memory>
#include <string>

#include "core/error.hpp"
#include "platform/sqlite.hpp"
#include "platform/unique_fd.hpp"

namespace relforge::platform {

class WalSync {
public:
  // For `db`'s log, which exists once the connection has read or written in WAL mode. nullptr for
  // an in-memory database; an error when the log cannot be opened.
  static Result<std::unique_ptr<WalSync>> open(Database& db);
  // Everything written to the log so far reaches the disk (what a committed transaction wrote).
  Status sync() const;

private:
  WalSync(int fd, std::string path) : m_fd(fd), m_path(std::move(path)) {}
  UniqueFd m_fd;
  std::string m_path;
};

}  // namespace relforge::platform
